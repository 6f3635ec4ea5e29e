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

/**
 * Presets on real models (models/configs/, web/src/shared/model-gallery.js): a side with `model`
 * shows that model's layer `layer` as its config says (type 'rope'; 'hirope' applies HiRoPE to
 * it). The samples are a few hundred tokens, so `stride` spaces them out over the length a story
 * needs (token i at position i × stride), and each caption says so.
 */
export const MODEL_PRESETS = [
  {
    id: 'gemma-3',
    title: 'Gemma 3: local vs global at 8k',
    caption:
      "Gemma 3 27B with the code's tokens spread 20 positions apart, about 8k positions in all: A is a local layer (base 10,000), which sees only the last 1,024 positions, 52 tokens here (the W line), and at 20 positions a token its fast pairs turn so far that it attends almost only to the query itself; B is a global layer (base 1,000,000, ×8 linear), which sees every key, so B (blue) attends more nearly everywhere, and beyond the W line only B attends at all.",
    state: {
      train: 131072,
      headDim: 128,
      stride: 20,
      a: { type: 'rope', model: 'gemma-3-27b-it', layer: 0 },
      b: { type: 'rope', model: 'gemma-3-27b-it', layer: 5 },
    },
  },
  {
    id: 'gpt-oss-sinks',
    title: 'GPT-oss with and without sinks',
    caption:
      "The same full-attention layer of GPT-oss 20B (YaRN ×32, seeded q/k) without (A) and with (B) a sink: one more softmax column per head, dropped after the softmax, so a row can give part of its attention to nothing. GPT-oss learns its sink logits and the config does not hold them, so B uses 6 for every head. A row scales all its keys by one factor, so A's and B's maps (each relative to its row's maximum) look alike, and the A vs B map shows what each row gives the sink (orange): most in the first rows, which have few keys to share with, and in rows whose keys all score low.",
    state: {
      train: 4096,
      headDim: 64,
      source: 'seeded',
      a: { type: 'rope', model: 'gpt-oss-20b', layer: 1, sinks: false },
      b: { type: 'rope', model: 'gpt-oss-20b', layer: 1, sinks: true, sink: 6 },
    },
  },
  {
    id: 'llama-4',
    title: 'Llama 4: chunked vs NoPE layers',
    caption:
      "Llama 4 Scout with the code's tokens spread 64 positions apart (about 25k positions, four of its 8,192-position chunks): A is a RoPE layer with chunked attention, which sees only the keys in its query's chunk (the blocks); B is a NoPE layer, which sees every earlier key with no rotation at all: with content-free q/k every key it sees gets the same share (its query temperature, which grows with position, scales logits that are all equal, and changes nothing here).",
    state: {
      train: 8192,
      headDim: 128,
      stride: 64,
      a: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 0 },
      b: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 3 },
    },
  },
  {
    id: 'llama-3.1',
    title: 'Llama 3.1 at 128k vs its base',
    caption:
      "Llama 3.1 8B's tokens spread 332 positions apart, about 128k positions, 16× its original 8,192: A is its RoPE base 500,000 unscaled, whose slow pairs turn past any angle training showed; B is the model's own llama3 scaling (×8 on the slow pairs, the fast ones kept), which spreads its attention further back; ×8 at 16× the length still turns those slow pairs twice past what the 8,192-token pretraining showed (the status line counts them; Meta's long-context training stage saw them, which the config does not say).",
    state: {
      train: 8192,
      headDim: 128,
      stride: 332,
      a: { type: 'rope', base: 500000 },
      b: { type: 'rope', model: 'llama-3.1-8b', layer: 0 },
    },
  },
  {
    id: 'yarn-llama3',
    title: 'YaRN vs Llama-3 scaling',
    caption:
      "Llama 3.1 8B at about 64k positions (tokens 166 apart), 8× its original 8,192: A is the model's own llama3 scaling, B the same base and length with YaRN ×8 instead. Both keep the fast pairs and slow the slow ones, so at 8× both keep every pair within the angles the 8,192-token pretraining showed (the status line says so), but YaRN also sharpens the softmax (its attention factor), so B stays closer to the query.",
    state: {
      train: 8192,
      headDim: 128,
      stride: 166,
      a: { type: 'rope', model: 'llama-3.1-8b', layer: 0 },
      b: { type: 'rope', base: 500000, scaling: 'yarn', factor: 8 },
    },
  },
];

const findPreset = (id) =>
  PRESETS.find((p) => p.id === id) ?? MODEL_PRESETS.find((p) => p.id === id);

/** The full state of a preset, keeping the person's code and language (and tokenizer). */
export function presetState(id, current = {}) {
  const preset = findPreset(id);
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
  const preset = findPreset(state.preset);
  if (!preset) return false;
  const expected = presetState(preset.id, state);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return (
    ['train', 'headDim', 'source', 'seed', 'stride'].every((k) => expected[k] === state[k]) &&
    same(expected.a, state.a) &&
    same(expected.b, state.b)
  );
}
