// The attention playground's state: defaults, the schemes it builds for the API, and its link.
// Pure functions (no DOM), so the workers and Node tests use them too.
import { parameter } from './core-catalogue.js';
import { ROTARY, WINDOWED, TAKES_LENGTH, schemeName, scalingLabel } from './schemes.js';
import { DEFAULT_SINK, modelSource } from './model-gallery.js';
import { normalizeWith, encodeWith, decodeWith, readLink } from './link-state.js';

// Each parameter's default is the core's (the scheme table), except three that set up the page's
// comparison (the default preset): ratio, window and the scaling factor (the core's factor 1
// scales nothing), and the fixed segments' size (the core has none: segments are off there).
const tableDefault = (name) => parameter(name).default;
const SCHEME_DEFAULTS = {
  type: 'rope',
  base: tableDefault('base'),
  layout: tableDefault('layout'),
  ratio: 0.4,
  levels: tableDefault('levels'),
  units: 'syntax',
  segment: 32,
  window: 64,
  group: tableDefault('group'),
  leakyFactor: tableDefault('leakyFactor'),
  scaling: 'none',
  factor: 4,
  // A real model (model-gallery.js): a gallery id or OWN_CONFIG with its text in `config`; the
  // layer shown; its sinks, with one logit for every head. With a model, type 'hirope' applies
  // HiRoPE to the layer's own frequencies and any other type shows the layer as it is.
  model: '',
  config: null,
  layer: 0,
  sinks: true,
  sink: DEFAULT_SINK,
};
// The defaults tell the story on their own: the sample (394 tokens) is longer than the training
// length, the window is a quarter of it, and B's ratio keeps HiRoPE's token band within Split%
// (13 of 32 pairs at L = 256, d = 64). Content-free q = k isolates what the positions do.
export const DEFAULTS = Object.freeze({
  preset: 'hirope', // the preset the state came from ('' once a control moved away from it)
  language: 'python',
  code: null, // null: the language's sample
  tokenizer: 'lexical',
  gap: 'own',
  descend: false,
  headDim: 64,
  source: 'ones',
  seed: 1,
  train: 256,
  stride: 1, // token i at position i * stride: a sample's few hundred tokens reach long positions
  a: Object.freeze({ ...SCHEME_DEFAULTS, type: 'rope' }),
  b: Object.freeze({ ...SCHEME_DEFAULTS, type: 'hirope' }),
});

/** A full state from a partial one (unknown keys dropped, wrong types replaced by defaults). */
export function normalizeState(partial = {}) {
  return normalizeWith(DEFAULTS, partial);
}

/** The API scheme object for one side ('a' or 'b') of the state. */
export function schemeFor(side, state) {
  const type = side.type;
  const scheme = { type };
  if (type === 'sinusoidal') scheme.base = side.base;
  if (ROTARY.has(type)) {
    scheme.base = side.base;
    scheme.layout = side.layout;
    if (side.scaling !== 'none') {
      scheme.scaling = { type: side.scaling, factor: side.factor };
      if (TAKES_LENGTH.has(side.scaling)) scheme.scaling.originalLength = state.train;
    }
  }
  if (WINDOWED.has(type)) {
    scheme.window = side.window;
    scheme.trainingLength = state.train;
  }
  if (type === 'self-extend') scheme.group = side.group;
  if (type === 'leaky-rerope') scheme.leakyFactor = side.leakyFactor;
  if (type === 'hirope') {
    scheme.ratio = side.ratio;
    scheme.levels = side.levels;
    // Fixed segments: the core derives unit = floor(token / segmentSize) (no unit positions given).
    if (side.units === 'segments') scheme.segmentSize = side.segment;
  }
  return scheme;
}

/**
 * A side's display name, used by the map titles, the views and the status line alike, e.g.
 * "HiRoPE (ratio 0.5, W 128)", "RoPE with NTK-aware scaling ×4". For a real model's layer,
 * `layer.nope` (where known) says it is a NoPE layer: the HiRoPE switch has no frequencies to
 * apply to there, and the title says so instead of "HiRoPE on its frequencies".
 */
export function describeScheme(side, layer = null) {
  const model = modelSource(side);
  if (model) {
    const name = model.id ?? 'your config.json';
    const hirope =
      side.type !== 'hirope'
        ? ''
        : layer?.nope
          ? ', NoPE (no frequencies for HiRoPE)'
          : ', HiRoPE on its frequencies';
    return `${name}, layer ${side.layer}${hirope}`;
  }
  const name = schemeName(side.type);
  const scaled =
    ROTARY.has(side.type) && side.scaling !== 'none'
      ? ` with ${scalingLabel(side.scaling)} scaling ×${side.factor}`
      : '';
  const parts = [];
  if (side.type === 'hirope')
    parts.push(
      `ratio ${side.ratio}`,
      ...(side.levels === 3 ? ['3 levels'] : []),
      ...(side.units === 'segments' ? [`${side.segment}-token segments`] : []),
    );
  if (WINDOWED.has(side.type)) parts.push(`W ${side.window}`);
  if (side.type === 'self-extend') parts.push(`G ${side.group}`);
  if (side.type === 'leaky-rerope') parts.push(`slope 1/${side.leakyFactor}`);
  return `${parts.length ? `${name} (${parts.join(', ')})` : name}${scaled}`;
}

/** The analysis options for the state. */
export function analyzeOptionsFor(state) {
  return {
    language: state.language,
    tokenizer: state.tokenizer,
    gap: state.gap,
    descendClasses: state.descend,
  };
}
/** The URL hash for a state: "#s=" + deflated JSON of what differs from the defaults. */
export function encodeState(state, options) {
  return encodeWith(DEFAULTS, state, options);
}

/** The state a URL hash describes; the defaults for an empty or unreadable hash. */
export function decodeState(hash) {
  return decodeWith(DEFAULTS, hash);
}

/** readLink for the playground's state. */
export function readStateLink(hash) {
  return readLink(DEFAULTS, hash);
}
