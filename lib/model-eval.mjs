// The code models' evaluation, shared by `hirope eval-model` (bin/hirope.mjs), training/eval/tune.mjs
// and training/eval/report.mjs: windows of files, per-byte (a token model: per-token) losses by
// position bucket and by recall class (recallClasses / tokenRecallClasses: far, near, first,
// other), and the preset schemes. The report's recall probe is in training/eval/probes.mjs.
// The rules (recall classes, window offsets, bucket edges and sums, the presets' symbols) are the
// core's (src/model/evaluation.cpp, through dist/recall.js; hirope.eval in Python calls the same):
// here they are applied to files and models. They run in the module an init() loaded.
import { recallClasses, tokenRecallClasses } from '../dist/index.js';
import {
  defaultBuckets,
  evaluationLanguage,
  presetSymbols,
  windowOffsets,
  windowSums,
} from '../dist/recall.js';
import { REGISTRY } from '../dist/registry.js';

export { defaultBuckets };

/** The language of a file by its extension: Python, or JavaScript for .js, .mjs, .cjs. */
export const languageOf = evaluationLanguage;

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
    for (const a of windowOffsets(tokens ? tokens.ids.length : bytes.length, length, perFile)) {
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
// `hirope checkpoint` draws its attention map with the options its losses ran with.
export function windowOptions(model, w, options, cache) {
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
  let counts = new Array(edges.length - 1).fill(0);
  const classSums = [];
  const classCounts = [];
  const cache = new Map();
  windows.forEach((w, wi) => {
    const { losses } = model.loss(w.ids ?? w.bytes, windowOptions(model, w, options, cache));
    const classes = w.ids
      ? tokenRecallClasses(w.bytes, w.start, w.end, reach)
      : recallClasses(w.bytes, reach);
    const one = windowSums(losses, classes, edges);
    if (wi === 0) counts = one.counts;
    sums.push(one.sums);
    classSums.push(one.classSums);
    classCounts.push(one.classCounts);
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
  const symbols = presetSymbols(L, length, REGISTRY.truncate.stride_divisor);
  const presets = withSymbols(REGISTRY.evaluation.presets, symbols);
  for (const [name, options] of Object.entries(tuned))
    presets[name] = withSymbols(options, { 'length/L': symbols['length/L'] });
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
