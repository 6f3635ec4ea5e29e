// The playground's expected numbers, straight from the API: shared by the Node suite
// (tests/js/playground.test.mjs) and the browser suites (tests/browser/helpers.mjs).
import { schemeFor, analyzeOptionsFor } from '../../web/src/state.js';
import { positionsFor } from '../../web/src/engine.js';

/** The attention probabilities (n x n, causal) of both sides of a playground state, from the API. */
export function pageProbabilities(hr, code, state) {
  const analysis = hr.analyze(code, analyzeOptionsFor(state));
  const n = analysis.tokens.count;
  const { q, k } = hr.qk({ source: state.source, n, headDim: state.headDim, tokenIds: analysis.tokens.ids, seed: state.seed });
  const probs = {};
  for (const side of ['a', 'b']) {
    const scheme = schemeFor(state[side], state);
    // HiRoPE on fixed segments reads no unit positions (the core derives them), as in the page.
    probs[side] = hr.attention({ q, k, n, headDim: state.headDim, positions: positionsFor(scheme, analysis.positions), scheme, causal: true });
  }
  return { analysis, n, probs };
}
