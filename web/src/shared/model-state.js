// Model mode's state: each model's defaults and its link (the model always named), and the
// short names of its sides. Pure functions (no DOM), so the workers and Node tests use them too.
import { plural } from './wording.js';
import { MODEL_BASELINES, WINDOWED, schemeName, scalingLabel, formatRatio } from './schemes.js';
import { normalizeWith, encodeWith, readLink } from './link-state.js';

// HiRoPE's default ratio in Model mode: 7 of the shipped model's 16 frequency pairs on the byte
// index, the largest band within its Split% bound (log_10000(256 / 2π) = 40.3 %: 6.44 pairs, and
// a band of 7 pairs ends at pair 6). The model's config is only known once it is loaded, so the
// value is written here for pybyte.hrm; tests check it against the loaded config. Windows are
// half the training context (256 bytes).
export const MODEL_SPLIT_RATIO = 7 / 16;
const MODEL_SIDE = {
  type: 'rope',
  scaling: 'none',
  factor: 4,
  window: 128,
  group: 8,
  ratio: MODEL_SPLIT_RATIO,
  hierarchy: 'units',
  segment: 32,
};
/**
 * A ratio on the slider's grid of whole pairs: the pairs the core gives the ratio
 * (src/core/schemes.cpp band_pairs: round half up, at most all), over the pairs.
 */
export const ratioOnPairs = (ratio, pairs) =>
  Math.min(pairs, Math.floor(ratio * pairs + 0.5)) / pairs;

export const MODEL_DEFAULTS = Object.freeze({
  model: 'pybyte',
  checkpoint: '', // a checkpoint's folder URL (a local folder cannot be in a link)
  language: 'python',
  code: null,
  layer: 0,
  head: 0,
  colour: 'b',
  smooth: 8,
  bytes: 'all',
  maxBytes: 256,
  temperature: 0.8,
  seed: 1,
  a: Object.freeze({ ...MODEL_SIDE }),
  b: Object.freeze({ ...MODEL_SIDE, type: 'hirope' }),
});

// The token model's first view (issue 32): A = a baseline, the sliding window over the training
// length (512 tokens: level with truncation past it on the held-out files, in one pass), and B =
// HiRoPE on 64-token segments, with the settings the held-out evaluation tuned
// (training/models/pyjs-llama2/config.json's evaluation.tuned: window 256 tokens, ratio 1/3; Self-Extend's G 22).
// The ratio slider moves in whole pairs: the tuned 1/3 is written as the 5 of the model's 16 pairs
// that the core gives it (round(16 / 3)), the same scheme, so the slider holds the value it shows.
const TOKEN_SIDE = {
  type: 'hirope',
  scaling: 'none',
  factor: 4,
  window: 256,
  group: 22,
  ratio: 5 / 16,
  hierarchy: 'segments',
  segment: 64,
};
export const TOKEN_MODEL_DEFAULTS = Object.freeze({
  ...MODEL_DEFAULTS,
  model: 'pyjs-llama2',
  smooth: 32,
  a: Object.freeze({ ...TOKEN_SIDE, type: 'sliding-window', window: 512 }),
  b: Object.freeze({ ...TOKEN_SIDE }),
});
// A checkpoint's first view: A its own positions (each layer as its config sets it up), B HiRoPE
// on its units with a window of 128 tokens (the ratio snaps to its pairs once its config is
// known; "HiRoPE at the Split% bound" sets its own).
export const CHECKPOINT_DEFAULTS = Object.freeze({
  ...MODEL_DEFAULTS,
  model: 'checkpoint',
  smooth: 8,
  a: Object.freeze({ ...MODEL_SIDE, type: 'model' }),
  b: Object.freeze({ ...MODEL_SIDE, type: 'hirope' }),
});
/** The defaults of a Model-mode state for a model ('pybyte', 'pyjs-llama2' or 'checkpoint'). */
export const modelDefaultsOf = (model) =>
  model === 'pyjs-llama2'
    ? TOKEN_MODEL_DEFAULTS
    : model === 'checkpoint'
      ? CHECKPOINT_DEFAULTS
      : MODEL_DEFAULTS;

/**
 * A Model-mode link in full ({ state, unreadable, codeOmitted }): no state is the first view (the
 * token model); a state naming its model reads against that model's defaults; a state without one
 * is a link made before the model picker, when Model mode ran the byte model only.
 */
export async function readModelLink(hash) {
  const first = await readLink(MODEL_DEFAULTS, hash);
  if (first.unreadable || !/^#?s=/.test(hash || ''))
    return { ...first, state: normalizeWith(TOKEN_MODEL_DEFAULTS, {}) };
  return first.state.model === 'pybyte'
    ? first
    : readLink(modelDefaultsOf(first.state.model), hash);
}

/** A Model-mode state's link: its model's defaults, and the model always named (none: the first view). */
export async function encodeModelState(state, options) {
  const defaults = modelDefaultsOf(state.model);
  if (defaults === TOKEN_MODEL_DEFAULTS && (await encodeWith(defaults, state, options)) === '')
    return '';
  return encodeWith(defaults, state, { ...options, keep: ['model'] });
}

// Truncate's stride in Model mode, truncateStride(W): the model registry's (one forward per W / 8
// predictions, as the evaluation and the CLI run it).
export { truncateStride } from 'hirope/registry';

/** A short name for a Model-mode side, e.g. "HiRoPE (ratio 0.4375, W 128, units)"; unit: 'byte' or 'token'. */
export function describeModelSide(side, unit = 'byte') {
  if (side.type === 'model') return 'its own positions';
  const baseline = MODEL_BASELINES.find(([t]) => t === side.type);
  if (baseline)
    return side.type === 'truncate'
      ? `${baseline[1]} (last ${plural(side.window, unit)})`
      : `${baseline[1]} (W ${side.window})`;
  const name = schemeName(side.type);
  const parts = [];
  if (side.type === 'hirope') parts.push(`ratio ${formatRatio(side.ratio)}`);
  if (WINDOWED.has(side.type)) parts.push(`W ${side.window}`);
  if (side.type === 'self-extend') parts.push(`G ${side.group}`);
  if (side.type === 'hirope')
    parts.push(side.hierarchy === 'segments' ? `${side.segment}-${unit} segments` : side.hierarchy);
  // The scaling under the catalogue's name, as the attention mode's titles write it.
  const scaled =
    side.scaling === 'none' ? '' : ` with ${scalingLabel(side.scaling)} scaling ×${side.factor}`;
  return `${parts.length ? `${name} (${parts.join(', ')})` : name}${scaled}`;
}
