// The code models' evaluation, shared by `hirope eval-model`, scripts/model-tune.mjs and
// scripts/model-report.mjs: windows of files, per-byte (a token model: per-token) losses by
// position bucket and by recall class (recallClasses / tokenRecallClasses: far, near, first,
// other), the recall probe, and the preset schemes.
import { recallClasses, tokenRecallClasses, RECALL_CLASSES } from '../dist/index.js';

/** The language of a file by its extension: Python, or JavaScript for .js, .mjs, .cjs. */
export function languageOf(file) {
  return /\.[cm]?js$/.test(file) ? 'javascript' : 'python';
}

/** Bucket edges for a training context L: [0, L), [L, 2L), [2L, 4L), [4L, 8L), ... up to length. */
export function defaultBuckets(trainingContext, length) {
  const edges = [0, trainingContext];
  while (edges[edges.length - 1] < length) edges.push(Math.min(length, edges[edges.length - 1] * 2));
  return edges;
}

/**
 * Consecutive windows of `length` bytes of each file (at most `perFile`, evenly spread). With a
 * token model (model.tokenizer), windows of `length` tokens of the whole file's tokens: { ids,
 * start, end (byte spans in bytes), bytes (the window's), offset (its first token) }.
 */
export function windowsOf(files, length, perFile = Infinity, model = null) {
  const out = [];
  for (const { name, bytes } of files) {
    const language = languageOf(name);
    const tokens = model?.tokenizer ? model.positions(bytes, { hierarchy: 'segments' }).tokens : null;
    const count = Math.floor((tokens ? tokens.ids.length : bytes.length) / length);
    const take = Math.min(count, perFile);
    for (let w = 0; w < take; w++) {
      const index = take === count ? w : Math.floor((w * count) / take);
      const a = index * length;
      if (!tokens) {
        out.push({ file: name, language, source: bytes, offset: a, bytes: bytes.subarray(a, a + length) });
        continue;
      }
      const b0 = tokens.start[a];
      const start = tokens.start.slice(a, a + length).map((x) => x - b0);
      const end = tokens.end.slice(a, a + length).map((x) => x - b0);
      out.push({ file: name, language, source: bytes, offset: a, ids: tokens.ids.slice(a, a + length), start, end, bytes: bytes.subarray(b0, b0 + end[length - 1]) });
    }
  }
  return out;
}

/** The token span [first, last + 1) of the tokens that overlap the byte span [a, b). */
export function tokenSpan(tokens, [a, b]) {
  let first = -1;
  let last = -1;
  for (let k = 0; k < tokens.ids.length; k++) {
    if (tokens.start[k] < b && tokens.end[k] > a) {
      if (first < 0) first = k;
      last = k;
    }
  }
  if (first < 1) throw new RangeError(`no predicted token overlaps bytes [${a}, ${b})`);
  return [first, last + 1];
}

// The model options of one window: with a parsed hierarchy (units, statements) the positions are
// cut from the whole file's parse (so a window that starts mid-function keeps that function's
// unit), rebased to start at 0. cache: per file and hierarchy, the whole file's positions.
function windowOptions(model, w, options, cache) {
  const scheme = options.scheme;
  const type = typeof scheme === 'string' ? scheme : scheme?.type;
  const hierarchy = options.hierarchy ?? (options.segmentSize ? 'segments' : 'units');
  if (type !== 'hirope' || hierarchy === 'segments' || !w.source || options.positions) return options;
  const { hierarchy: _h, gap, descendClasses, ...rest } = options;
  const language = options.language ?? w.language;
  const key = `${hierarchy}\u0000${language ?? ''}\u0000${gap ?? ''}\u0000${descendClasses ?? ''}`;
  let perFile = cache.get(w.source);
  if (!perFile) cache.set(w.source, (perFile = new Map()));
  let whole = perFile.get(key);
  if (!whole) {
    whole = model.positions(w.source, { hierarchy, language, gap, descendClasses });
    perFile.set(key, whole);
  }
  const cut = (xs) => {
    const part = xs.slice(w.offset, w.offset + (w.ids ?? w.bytes).length);
    const first = part[0];
    return part.map((x) => x - first);
  };
  return { ...rest, positions: { unit: cut(whole.unit), statement: cut(whole.statement) } };
}

/**
 * Per-window sums of bits and byte counts in every bucket and every recall class:
 * { sums: [windows][buckets], counts: [buckets], classSums: [windows][classes],
 *   classCounts: [windows][classes] }. The byte at position p (p >= 1) is predicted from bytes
 * 0..p-1 and falls in the bucket holding p and in the class recallClasses(window, reach) gives it.
 * reach defaults to the model's training context.
 */
export function bucketLosses(model, windows, options, edges, reach = model.config.trainingContext) {
  const sums = [];
  const counts = new Array(edges.length - 1).fill(0);
  const classSums = [];
  const classCounts = [];
  const cache = new Map();
  windows.forEach((w, wi) => {
    const { losses } = model.loss(w.ids ?? w.bytes, windowOptions(model, w, options, cache));
    const classes = w.ids ? tokenRecallClasses(w.bytes, w.start, w.end, reach) : recallClasses(w.bytes, reach);
    const row = new Array(edges.length - 1).fill(0);
    const cs = new Array(RECALL_CLASSES.length).fill(0);
    const cc = new Array(RECALL_CLASSES.length).fill(0);
    let b = 0;
    for (let p = 1; p <= losses.length; p++) {
      while (p >= edges[b + 1]) b++;
      row[b] += losses[p - 1];
      if (wi === 0) counts[b]++;
      cs[classes[p]] += losses[p - 1];
      cc[classes[p]]++;
    }
    sums.push(row);
    classSums.push(cs);
    classCounts.push(cc);
  });
  return { sums, counts, classSums, classCounts };
}

export function bucketLabel(edges, b) {
  return `${edges[b]}-${edges[b + 1] - 1}`;
}

// ---------------------------------------------------------------------------------------------
// The recall probe: a function defined, filler code, then a call of it.

// A deterministic generator (mulberry32) for the probe's names.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Styles of invented names: random letters, CamelCase with digits, pronounceable syllables. */
export const NAME_STYLES = Object.freeze(['letters', 'camel', 'syllables']);

/** An invented name of a style, of about `size` characters, from rand() in [0, 1). */
export function inventedName(rand, style, size = 9) {
  const pick = (s) => s[Math.floor(rand() * s.length)];
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  let name = '';
  if (style === 'letters') {
    while (name.length < size) name += pick(lower);
  } else if (style === 'camel') {
    while (name.length < size - 2) name += pick(lower).toUpperCase() + pick(lower) + pick(lower) + pick(lower);
    name = name.slice(0, size - 2) + pick('0123456789') + pick('0123456789');
  } else if (style === 'syllables') {
    while (name.length < size) name += pick('bcdfghjklmnprstvwz') + pick('aeiou');
    name = name.slice(0, size);
  } else {
    throw new RangeError(`unknown name style '${style}'`);
  }
  return name;
}

/**
 * Recall probes: for every file and filler length F, `def NAME(value):` ... (a JavaScript file:
 * `function NAME(value) {...}`), about F bytes of the file's own code, then `result = NAME(value)`; and its control, the same text with the
 * definition's name replaced by another invented name (so the call is a first occurrence).
 * [{ file, filler, style, probe, control, use: [start, end) }], texts as Uint8Arrays; the use
 * span is the called name's bytes.
 */
export function recallProbes(files, fillers, seed = 1) {
  const encoder = new TextEncoder();
  const rand = random(seed);
  const out = [];
  files.forEach(({ name: file, bytes }, fi) => {
    const text = new TextDecoder().decode(bytes);
    // Whole lines from the middle of the file (its code, not its licence header).
    const lines = text.slice(Math.floor(text.length / 3)).split('\n').slice(1);
    for (const filler of fillers) {
      const style = NAME_STYLES[fi % NAME_STYLES.length];
      const called = inventedName(rand, style);
      const other = inventedName(rand, style);
      let body = '';
      for (const line of lines) {
        if (body.length >= filler) break;
        body += line + '\n';
      }
      if (body.length < filler) continue; // a file too short for this filler
      const make = languageOf(file) === 'javascript'
        ? (defined) => `function ${defined}(value) {\n  return value + 1;\n}\n\n${body}\nresult = ${called}(value);\n`
        : (defined) => `def ${defined}(value):\n    return value + 1\n\n${body}\nresult = ${called}(value)\n`;
      const probe = make(called);
      const start = encoder.encode(probe.slice(0, probe.lastIndexOf(called))).length;
      out.push({
        file, filler, style,
        probe: encoder.encode(probe), control: encoder.encode(make(other)),
        use: [start, start + encoder.encode(called).length],
      });
    }
  });
  return out;
}

/** Mean bits/byte of a span of bytes [start, end) from per-byte losses (losses[t] is byte t + 1). */
export function spanBits(losses, [start, end]) {
  let sum = 0;
  for (let t = start; t < end; t++) sum += losses[t - 1];
  return sum / (end - start);
}

// ---------------------------------------------------------------------------------------------
// Presets

/**
 * The schemes the evaluation compares, for a model trained at context L evaluated on windows of
 * `length` bytes: factors of the scaled RoPEs are length / L; windows are L / 2; Self-Extend's
 * group is the smallest whose usable length (L - W) * G + W covers the window. The baselines: a
 * sliding window of L bytes, and truncation to the last L bytes with stride L / 8 (each prediction
 * sees between 7L/8 + 1 and L bytes). tuned: preset name -> model options replacing the default
 * (training/config.json's evaluation.tuned, chosen on the tuning split).
 */
export function presetSchemes(L, length, tuned = {}) {
  const factor = length / L;
  const window = Math.floor(L / 2);
  const group = Math.max(2, Math.ceil((length - window) / (L - window)));
  const presets = {
    'sliding-window': { scheme: { type: 'sliding-window', window: L } },
    truncate: { scheme: { type: 'truncate', length: L, stride: Math.max(1, Math.floor(L / 8)) } },
    rope: { scheme: 'rope' },
    pi: { scheme: { type: 'rope', scaling: { type: 'linear', factor } } },
    ntk: { scheme: { type: 'rope', scaling: { type: 'ntk', factor } } },
    'dynamic-ntk': { scheme: { type: 'rope', scaling: { type: 'dynamic-ntk', factor: 1 } } },
    yarn: { scheme: { type: 'rope', scaling: { type: 'yarn', factor } } },
    rerope: { scheme: { type: 'rerope', window } },
    'self-extend': { scheme: { type: 'self-extend', window, group } },
    'hirope-0.5-units': { scheme: { type: 'hirope', ratio: 0.5, window }, hierarchy: 'units' },
    'hirope-1/3-units': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'units' },
    'hirope-1/3-statements': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'statements' },
    'hirope-1/3-segments32': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'segments', segmentSize: 32 },
  };
  for (const [name, options] of Object.entries(tuned)) presets[name] = withFactor(options, factor);
  return presets;
}

// Tuned settings keep `factor: 'length/L'` symbolic: it becomes this window's factor.
function withFactor(options, factor) {
  return JSON.parse(JSON.stringify(options), (key, value) => (key === 'factor' && value === 'length/L' ? factor : value));
}
