// Presets: link-shareable states that each tell one story, with the sentence that says what to look
// at. A preset sets the schemes and shared settings; the code stays what the person has in the
// editor (the samples are longer than every preset's training length).
import { normalizeState } from './playground-state.js';

export const PRESETS = [
  {
    id: 'hirope',
    title: 'RoPE vs HiRoPE',
    caption:
      'Beyond the 64-token window, HiRoPE (B) measures distance in its slow frequency pairs by how many functions or classes apart two tokens are, not how many tokens: far keys look close, so B (blue) attends much further back than RoPE (A, orange), which keeps its attention near the query.',
    state: { train: 256, a: { type: 'rope' }, b: { type: 'hirope', ratio: 0.4, window: 64 } },
  },
  {
    id: 'split',
    title: 'HiRoPE within vs above Split%',
    caption:
      "Both sides are HiRoPE. A keeps 13 of 32 frequency pairs on token distance, within Split% for a 256-token training length; B uses the paper's 0.5 (16 pairs): 3 of its token pairs turn further than training ever did (red rows in B's angle view), and B keeps more of RoPE's pull towards near keys.",
    state: {
      train: 256,
      a: { type: 'hirope', ratio: 0.4, window: 64 },
      b: { type: 'hirope', ratio: 0.5, window: 64 },
    },
  },
  {
    id: 'segments',
    title: 'Units vs fixed segments',
    caption:
      "The same HiRoPE with two hierarchies: A's units are the functions and classes of the parse tree, B's are fixed 16-token segments (the strips along B's edges) that cut through them. The maps differ only beyond the 64-token window, and only with content (seeded q/k) and many pairs on the unit index (ratio 0.15); at the default ratio 0.4 the two are the same to the eye.",
    state: {
      train: 256,
      source: 'seeded',
      a: { type: 'hirope', ratio: 0.15, window: 64 },
      b: { type: 'hirope', ratio: 0.15, window: 64, units: 'segments', segment: 16 },
    },
  },
  {
    id: 'windows',
    title: 'ReRoPE vs Self-Extend',
    caption:
      'Two ways to keep every distance within what training showed: ReRoPE (A) clamps distances beyond the window W to W, so its attention beyond the dashed W line is flat; Self-Extend (B) divides them by the group size G, so its far attention still ripples with distance and reaches further back. The distance view below puts both beside HiRoPE.',
    state: {
      train: 256,
      a: { type: 'rerope', window: 64 },
      b: { type: 'self-extend', window: 64, group: 8 },
    },
  },
  {
    id: 'rope-pi',
    title: 'RoPE beyond its training length',
    caption:
      "Plain RoPE trained on 128 tokens and read at ~400: its slow pairs turn further than they ever did in training (red rows in A's angle view). Position interpolation (B) squeezes positions 4× so every angle stays in range, at the price of blurring neighbouring tokens: B attends further back where A is sharp.",
    state: { train: 128, a: { type: 'rope' }, b: { type: 'rope', scaling: 'linear', factor: 4 } },
  },
  {
    id: 'scaling',
    title: 'NTK-aware vs YaRN',
    caption:
      'Two ways to stretch RoPE 4× past a 128-token training length: NTK-aware scaling (A) raises the base, slowing every pair a little; YaRN (B) interpolates only the slow pairs, keeps the fast ones and sharpens the softmax, so B stays closer to the query.',
    state: {
      train: 128,
      a: { type: 'rope', scaling: 'ntk', factor: 4 },
      b: { type: 'rope', scaling: 'yarn', factor: 4 },
    },
  },
];

/** The full state of a preset, keeping the person's code and language (and tokenizer). */
export function presetState(id, current = {}) {
  const preset = PRESETS.find((p) => p.id === id);
  if (!preset) return null;
  const keep = {
    language: current.language,
    code: current.code,
    tokenizer: current.tokenizer,
    gap: current.gap,
    descend: current.descend,
  };
  return normalizeState({ ...keep, ...preset.state, preset: id });
}

/** Whether a state still shows its preset (no control moved away from it). */
export function matchesPreset(state) {
  const preset = PRESETS.find((p) => p.id === state.preset);
  if (!preset) return false;
  const expected = presetState(preset.id, state);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return (
    ['train', 'headDim', 'source', 'seed'].every((k) => expected[k] === state[k]) &&
    same(expected.a, state.a) &&
    same(expected.b, state.b)
  );
}
