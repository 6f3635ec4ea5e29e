// The playground's expected numbers, straight from the API: shared by the Node suite
// (tests/js/playground.test.mjs) and the browser suites (tests/browser/helpers.mjs). The state is
// turned into API arguments by the tests' own hand-written mapping (page-schemes.mjs), not the
// page's schemeFor / positionsFor / analyzeOptionsFor, so a wrong mapping in the page shows.
import {
  expectedScheme as schemeFor,
  expectedAnalyzeOptions as analyzeOptionsFor,
  expectedPositions as positionsFor,
} from './page-schemes.mjs';

/** The attention probabilities (n x n, causal) of both sides of a playground state, from the API. */
export function pageProbabilities(hr, code, state) {
  const analysis = hr.analyze(code, analyzeOptionsFor(state));
  const n = analysis.tokens.count;
  const { q, k } = hr.qk({
    source: state.source,
    n,
    headDim: state.headDim,
    tokenIds: analysis.tokens.ids,
    seed: state.seed,
  });
  const probs = {};
  for (const side of ['a', 'b']) {
    const scheme = schemeFor(state[side], state);
    // HiRoPE on fixed segments reads no unit positions (the core derives them), as in the page.
    probs[side] = hr.attention({
      q,
      k,
      n,
      headDim: state.headDim,
      positions: positionsFor(scheme, analysis.positions),
      scheme,
      causal: true,
    });
  }
  return { analysis, n, probs };
}
