// What the playground should ask the API for, written by hand from docs/playground.md and
// docs/schemes.md (issue 35): the expected scheme of each preset and of each control, and a
// hand-written page-state-to-API mapping that the expected colours use instead of the page's own
// schemeFor / positionsFor / analyzeOptionsFor (web/src/shared/playground-state.js, web/src/worker/attention-views.js). A wrong
// mapping in the page then shows as a difference instead of agreeing with itself.

// docs/schemes.md's scheme table: which schemes rotate (take base, layout, scaling) and which
// have a window (window, trainingLength); the scalings whose formula reads the training length.
const ROTARY = ['rope', 'xpos', 'rerope', 'leaky-rerope', 'self-extend', 'hirope'];
const WINDOWED = ['rerope', 'leaky-rerope', 'self-extend', 'hirope'];
const READS_LENGTH = ['dynamic-ntk', 'yarn', 'llama3'];

/** The API scheme the page should use for one side of a (normalized) state. */
export function expectedScheme(side, state) {
  const s = { type: side.type };
  if (side.type === 'sinusoidal') s.base = side.base;
  if (ROTARY.includes(side.type)) {
    s.base = side.base;
    s.layout = side.layout;
    if (side.scaling !== 'none') {
      s.scaling = { type: side.scaling, factor: side.factor };
      if (READS_LENGTH.includes(side.scaling)) s.scaling.originalLength = state.train;
    }
  }
  if (WINDOWED.includes(side.type)) {
    s.window = side.window;
    s.trainingLength = state.train;
  }
  if (side.type === 'self-extend') s.group = side.group;
  if (side.type === 'leaky-rerope') s.leakyFactor = side.leakyFactor;
  if (side.type === 'hirope') {
    s.ratio = side.ratio;
    s.levels = side.levels;
    if (side.units === 'segments') s.segmentSize = side.segment;
  }
  return s;
}

/** The positions the page passes: fixed segments read no unit positions (the core derives them). */
export function expectedPositions(scheme, positions) {
  return scheme.segmentSize === undefined
    ? positions
    : { token: positions.token, statement: positions.statement };
}

/** The analysis options of a state. */
export function expectedAnalyzeOptions(state) {
  return {
    language: state.language,
    tokenizer: state.tokenizer,
    gap: state.gap,
    descendClasses: state.descend,
  };
}

const rope = { type: 'rope', base: 10000, layout: 'half' };
const hirope = (ratio, extra = {}) => ({
  type: 'hirope',
  base: 10000,
  layout: 'half',
  window: 64,
  trainingLength: 256,
  ratio,
  levels: 2,
  ...extra,
});

/** Each preset's two schemes, literally (web/src/shared/presets.js's stories, docs/playground.md). */
export const PRESET_SCHEMES = {
  hirope: { a: rope, b: hirope(0.4) },
  split: { a: hirope(0.4), b: hirope(0.5) },
  segments: { a: hirope(0.15), b: hirope(0.15, { segmentSize: 16 }) },
  windows: {
    a: { type: 'rerope', base: 10000, layout: 'half', window: 64, trainingLength: 256 },
    b: {
      type: 'self-extend',
      base: 10000,
      layout: 'half',
      window: 64,
      trainingLength: 256,
      group: 8,
    },
  },
  'rope-pi': { a: rope, b: { ...rope, scaling: { type: 'linear', factor: 4 } } },
  scaling: {
    a: { ...rope, scaling: { type: 'ntk', factor: 4 } },
    b: { ...rope, scaling: { type: 'yarn', factor: 4, originalLength: 128 } },
  },
};

/**
 * Each control, moved on side B of the default state (RoPE vs HiRoPE, train 256), and the scheme
 * B should then be: [what, partial state, expected B scheme].
 */
export const CONTROL_SCHEMES = [
  ['defaults', {}, hirope(0.4)],
  ['ratio', { b: { ratio: 0.25 } }, hirope(0.25)],
  ['window', { b: { window: 8 } }, hirope(0.4, { window: 8 })],
  ['training length', { train: 512 }, hirope(0.4, { trainingLength: 512 })],
  ['levels', { b: { levels: 3 } }, hirope(0.4, { levels: 3 })],
  ['units: segments', { b: { units: 'segments' } }, hirope(0.4, { segmentSize: 32 })],
  ['segment size', { b: { units: 'segments', segment: 7 } }, hirope(0.4, { segmentSize: 7 })],
  ['segment size without segments', { b: { segment: 7 } }, hirope(0.4)],
  ['base', { b: { base: 500000 } }, hirope(0.4, { base: 500000 })],
  ['layout', { b: { layout: 'interleaved' } }, hirope(0.4, { layout: 'interleaved' })],
  [
    'scaling linear',
    { b: { scaling: 'linear' } },
    hirope(0.4, { scaling: { type: 'linear', factor: 4 } }),
  ],
  [
    'scaling ntk, factor',
    { b: { scaling: 'ntk', factor: 2 } },
    hirope(0.4, { scaling: { type: 'ntk', factor: 2 } }),
  ],
  [
    'scaling dynamic-ntk',
    { b: { scaling: 'dynamic-ntk' } },
    hirope(0.4, { scaling: { type: 'dynamic-ntk', factor: 4, originalLength: 256 } }),
  ],
  [
    'scaling yarn, train',
    { train: 100, b: { scaling: 'yarn', factor: 8 } },
    hirope(0.4, { trainingLength: 100, scaling: { type: 'yarn', factor: 8, originalLength: 100 } }),
  ],
  [
    'scaling llama3',
    { b: { scaling: 'llama3' } },
    hirope(0.4, { scaling: { type: 'llama3', factor: 4, originalLength: 256 } }),
  ],
  [
    'type rerope',
    { b: { type: 'rerope' } },
    { type: 'rerope', base: 10000, layout: 'half', window: 64, trainingLength: 256 },
  ],
  [
    'type leaky-rerope',
    { b: { type: 'leaky-rerope', leakyFactor: 3 } },
    {
      type: 'leaky-rerope',
      base: 10000,
      layout: 'half',
      window: 64,
      trainingLength: 256,
      leakyFactor: 3,
    },
  ],
  [
    'type leaky-rerope, default factor',
    { b: { type: 'leaky-rerope' } },
    {
      type: 'leaky-rerope',
      base: 10000,
      layout: 'half',
      window: 64,
      trainingLength: 256,
      leakyFactor: 16,
    },
  ],
  [
    'type self-extend',
    { b: { type: 'self-extend', group: 5 } },
    { type: 'self-extend', base: 10000, layout: 'half', window: 64, trainingLength: 256, group: 5 },
  ],
  ['type rope', { b: { type: 'rope', window: 8, ratio: 0.1 } }, rope],
  [
    'type xpos',
    { b: { type: 'xpos', scaling: 'linear' } },
    { ...rope, type: 'xpos', scaling: { type: 'linear', factor: 4 } },
  ],
  [
    'type sinusoidal',
    { b: { type: 'sinusoidal', base: 2000, scaling: 'linear' } },
    { type: 'sinusoidal', base: 2000 },
  ],
  ['type alibi', { b: { type: 'alibi', scaling: 'linear', window: 8 } }, { type: 'alibi' }],
  ['type nope', { b: { type: 'nope' } }, { type: 'nope' }],
];

/** Analysis controls: [partial state, the options the page should analyse with]. */
export const ANALYSIS_CONTROLS = [
  [{}, { language: 'python', tokenizer: 'lexical', gap: 'own', descendClasses: false }],
  [
    { language: 'rust', tokenizer: 'llama3', gap: 'next', descend: true },
    { language: 'rust', tokenizer: 'llama3', gap: 'next', descendClasses: true },
  ],
];
