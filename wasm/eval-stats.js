// The model evaluation's statistics, the one home (no Node, no module): read by
// training/eval/data.mjs (and through it training/eval/report.mjs, which writes
// docs/model-eval.md), by the playground's verdict panel (hirope/eval-stats), which reads the
// same models/<name>-eval.json files the report does, and by hirope.eval in Python, which hands
// its run to summarize() (node) and reads the JSON it writes.
// Standard errors are of per-file means (windows of one file are correlated).
import { RECALL_CLASSES } from './recall.js';

export const FAR = RECALL_CLASSES.indexOf('far');

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const sd = (xs) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
};

/**
 * Per-file ratio means: for each file, sum of `num` over its rows / sum of `den`, for files whose
 * den is positive. rows: [{ file, num, den }]. Returns Map file -> value.
 */
export function perFile(rows) {
  const acc = new Map();
  for (const { file, num, den } of rows) {
    const a = acc.get(file) ?? [0, 0];
    a[0] += num;
    a[1] += den;
    acc.set(file, a);
  }
  const out = new Map();
  for (const [file, [n, d]] of acc) if (d > 0) out.set(file, n / d);
  return out;
}

/** Mean and standard error of a - b over the files both have: { diff, se, files }. */
export function pairedByFile(a, b) {
  const d = [...a.keys()].filter((f) => b.has(f)).map((f) => a.get(f) - b.get(f));
  return { diff: mean(d), se: d.length > 1 ? sd(d) / Math.sqrt(d.length) : NaN, files: d.length };
}

/** Mean and standard error over files of a per-file map: { mean, se, files }. */
export function overFiles(m) {
  const xs = [...m.values()];
  return {
    mean: mean(xs),
    se: xs.length > 1 ? sd(xs) / Math.sqrt(xs.length) : NaN,
    files: xs.length,
  };
}

/**
 * One run of a saved evaluation (saved.runs[multiple]: windows, position buckets, per-scheme sums):
 * a scheme's bits per unit by file over every position past the training length (the buckets
 * after the first, which ends at it).
 */
export function beyondByFile(run, name) {
  const buckets = run.edges.length - 1;
  return perFile(
    run.windows.map((w, i) => {
      let num = 0;
      let den = 0;
      for (let b = 1; b < buckets; b++) {
        num += run.schemes[name].sums[i][b];
        den += run.counts[b];
      }
      return { file: w.file, num, den };
    }),
  );
}

/** A scheme's bits per unit by file in one position bucket b. */
export function bucketByFile(run, name, b) {
  return perFile(
    run.windows.map((w, i) => ({
      file: w.file,
      num: run.schemes[name].sums[i][b],
      den: run.counts[b],
    })),
  );
}

/** A scheme's bits per unit by file on one recall class (FAR: far-recall bytes or tokens). */
export function classByFile(run, name, cls) {
  return perFile(
    run.windows.map((w, i) => ({
      file: w.file,
      num: run.schemes[name].classSums[i][cls],
      den: run.schemes[name].classCounts[i][cls],
    })),
  );
}

/** A paired difference decides a comparison only beyond two standard errors. */
export const verdictOf = (d) =>
  d.diff < -2 * d.se ? 'beats' : d.diff > 2 * d.se ? 'is worse than' : 'is level with';

/**
 * The table of one run (saved.runs[multiple]'s layout: edges, counts, windows, schemes {name:
 * {sums, classSums, classCounts}}), as hirope.eval reports it: per scheme { buckets: [over files],
 * far, near, first, other, beyond: over files ({ mean, se, files }), by_file: { file: { buckets,
 * beyond, far, near, first, other } } (a file's means, null where it has no such units),
 * far_minus_baseline: the paired difference by file to the baseline on far units (null for the
 * baseline) }, and baseline: of `baselines`, the one in the run with the lowest far mean.
 * Means that no file has are NaN (null in JSON).
 */
export function summarize(run, baselines) {
  const names = Object.keys(run.schemes);
  const farMean = (n) => overFiles(classByFile(run, n, FAR)).mean;
  const present = baselines.filter((b) => Object.hasOwn(run.schemes, b));
  const baseline = present.length
    ? present.reduce((best, b) => (farMean(b) < farMean(best) ? b : best))
    : null;
  const summary = {};
  for (const n of names) {
    const buckets = run.edges.slice(1).map((_, b) => bucketByFile(run, n, b));
    const classes = Object.fromEntries(
      ['far', 'near', 'first', 'other'].map((c) => [
        c,
        classByFile(run, n, RECALL_CLASSES.indexOf(c)),
      ]),
    );
    const beyond = beyondByFile(run, n);
    const row = { buckets: buckets.map(overFiles) };
    for (const [c, m] of Object.entries(classes)) row[c] = overFiles(m);
    row.beyond = overFiles(beyond);
    // The per-file means the statistics are made of (a file without such units has none).
    row.by_file = {};
    for (const f of beyond.keys()) {
      const one = { buckets: buckets.map((m) => m.get(f) ?? null), beyond: beyond.get(f) };
      for (const [c, m] of Object.entries(classes)) one[c] = m.get(f) ?? null;
      row.by_file[f] = one;
    }
    row.far_minus_baseline =
      baseline === null || n === baseline
        ? null
        : pairedByFile(classes.far, classByFile(run, baseline, FAR));
    summary[n] = row;
  }
  return { summary, baseline };
}
