// The held-out evaluation's statistics, free of Node: read by training/eval/data.mjs (and through
// it training/eval/report.mjs, which writes docs/model-eval.md) and by the playground's verdict
// panel (web/src/page/verdict.js), which reads the same models/<name>-eval.json files the report does.
// Standard errors are of per-file means (windows of one file are correlated).
import { RECALL_CLASSES } from '../../dist/recall.js';

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
