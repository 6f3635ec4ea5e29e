// The code models' evaluation, shared by `hirope eval-model` (bin/hirope.mjs), training/eval/tune.mjs
// and training/eval/report.mjs: windows of files, per-byte (a token model: per-token) losses by
// position bucket and by recall class (recallClasses / tokenRecallClasses: far, near, first,
// other), and the preset schemes. The report's recall probe is in training/eval/probes.mjs.
import { recallClasses, tokenRecallClasses, RECALL_CLASSES } from '../dist/index.js';
import { REGISTRY, truncateStride } from '../dist/registry.js';

/** The language of a file by its extension: Python, or JavaScript for .js, .mjs, .cjs. */
export function languageOf(file) {
  return /\.[cm]?js$/.test(file) ? 'javascript' : 'python';
}

/** Bucket edges for a training context L: [0, L), [L, 2L), [2L, 4L), [4L, 8L), ... up to length. */
export function defaultBuckets(trainingContext, length) {
  const edges = [0, trainingContext];
  while (edges[edges.length - 1] < length)
    edges.push(Math.min(length, edges[edges.length - 1] * 2));
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
    const tokens = model?.tokenizer
      ? model.positions(bytes, { hierarchy: 'segments' }).tokens
      : null;
    const count = Math.floor((tokens ? tokens.ids.length : bytes.length) / length);
    const take = Math.min(count, perFile);
    for (let w = 0; w < take; w++) {
      const index = take === count ? w : Math.floor((w * count) / take);
      const a = index * length;
      if (!tokens) {
        out.push({
          file: name,
          language,
          source: bytes,
          offset: a,
          bytes: bytes.subarray(a, a + length),
        });
        continue;
      }
      const b0 = tokens.start[a];
      const start = tokens.start.slice(a, a + length).map((x) => x - b0);
      const end = tokens.end.slice(a, a + length).map((x) => x - b0);
      out.push({
        file: name,
        language,
        source: bytes,
        offset: a,
        ids: tokens.ids.slice(a, a + length),
        start,
        end,
        bytes: bytes.subarray(b0, b0 + end[length - 1]),
      });
    }
  }
  return out;
}

// The model options of one window: with a parsed hierarchy (units, statements) the positions are
// cut from the whole file's parse (so a window that starts mid-function keeps that function's
// unit), rebased to start at 0. cache: per file and hierarchy, the whole file's positions.
function windowOptions(model, w, options, cache) {
  const scheme = options.scheme;
  const type = typeof scheme === 'string' ? scheme : scheme?.type;
  const hierarchy = options.hierarchy ?? (options.segmentSize ? 'segments' : 'units');
  if (type !== 'hirope' || hierarchy === 'segments' || !w.source || options.positions)
    return options;
  const { hierarchy: _h, gap, descendClasses, ...rest } = options;
  const language = options.language ?? w.language;
  const key = `${hierarchy}\u0000${language ?? ''}\u0000${gap ?? ''}\u0000${descendClasses ?? ''}`;
  let perFile = cache.get(w.source);
  if (!perFile) {
    perFile = new Map();
    cache.set(w.source, perFile);
  }
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
    const classes = w.ids
      ? tokenRecallClasses(w.bytes, w.start, w.end, reach)
      : recallClasses(w.bytes, reach);
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
// Presets

/**
 * The schemes the evaluation compares, for a model trained at context L evaluated on windows of
 * `length` bytes: the preset table of models/registry.json (evaluation.presets, read by
 * hirope.eval in Python too), its symbols replaced: factors of the scaled RoPEs are length / L;
 * windows are L / 2; Self-Extend's group is the smallest whose usable length (L - W) * G + W
 * covers the window. The baselines: a sliding window of L bytes, and truncation to the last L
 * bytes re-run every truncateStride(L) bytes (the registry's truncate.stride_divisor). tuned:
 * preset name -> model options replacing the default (training/models/NAME/config.json's
 * evaluation.tuned, chosen on the tuning split).
 */
export function presetSchemes(L, length, tuned = {}) {
  const factor = length / L;
  const window = Math.floor(L / 2);
  const group = Math.max(2, Math.ceil((length - window) / (L - window)));
  const symbols = {
    L,
    'L/2': window,
    'length/L': factor,
    'self-extend group': group,
    'truncate stride': truncateStride(L),
  };
  const presets = withSymbols(REGISTRY.evaluation.presets, symbols);
  for (const [name, options] of Object.entries(tuned))
    presets[name] = withSymbols(options, { 'length/L': factor });
  return presets;
}

/** The schemes training/eval/report.mjs compares (the registry's evaluation.report, tuned where a model has them), baselines first. */
export function reportSchemes(tuned = {}) {
  const tunedOf = (name) => (tuned[`${name} (tuned)`] ? `${name} (tuned)` : name);
  const listed = REGISTRY.evaluation.report.map(tunedOf);
  return {
    baselines: listed.slice(0, 2),
    schemes: [...new Set([...listed, ...Object.keys(tuned)])],
  };
}

// A preset with its symbolic values (the registry's evaluation.symbols) replaced by numbers.
function withSymbols(options, symbols) {
  return JSON.parse(JSON.stringify(options), (_key, value) =>
    typeof value === 'string' && Object.hasOwn(symbols, value) ? symbols[value] : value,
  );
}
