// hirope/eval-stats: the evaluation's statistics (docs/model-eval.md): per-file means, paired
// differences with standard errors, and the verdict rule, over a saved run.

/** The index of 'far' in RECALL_CLASSES. */
export declare const FAR: number;
export declare function mean(xs: readonly number[]): number;
/** The sample standard deviation. */
export declare function sd(xs: readonly number[]): number;
/** Per-file ratio means: sum of num / sum of den per file (files with den > 0). */
export declare function perFile(
  rows: readonly { file: string; num: number; den: number }[],
): Map<string, number>;
/** A paired difference over the files both have. */
export interface PairedDifference {
  diff: number;
  se: number;
  files: number;
}
/** A mean over files with its standard error. */
export interface OverFiles {
  mean: number;
  se: number;
  files: number;
}
export declare function pairedByFile(
  a: Map<string, number>,
  b: Map<string, number>,
): PairedDifference;
export declare function overFiles(m: Map<string, number>): OverFiles;
/** One run of a saved evaluation (models/<name>-eval.json's runs[multiple]). */
export interface EvaluationRun {
  edges: number[];
  counts: number[];
  windows: { file: string; [key: string]: unknown }[];
  schemes: Record<
    string,
    { sums: number[][]; classSums: number[][]; classCounts: number[][]; [key: string]: unknown }
  >;
  [key: string]: unknown;
}
export declare function beyondByFile(run: EvaluationRun, name: string): Map<string, number>;
export declare function bucketByFile(
  run: EvaluationRun,
  name: string,
  bucket: number,
): Map<string, number>;
export declare function classByFile(
  run: EvaluationRun,
  name: string,
  recallClass: number,
): Map<string, number>;
/** A paired difference decides a comparison only beyond two standard errors. */
export declare function verdictOf(d: PairedDifference): 'beats' | 'is worse than' | 'is level with';
/** One scheme's row of a summary. */
export interface SummaryRow {
  buckets: OverFiles[];
  far: OverFiles;
  near: OverFiles;
  first: OverFiles;
  other: OverFiles;
  beyond: OverFiles;
  by_file: Record<string, Record<string, number | null | (number | null)[]>>;
  far_minus_baseline: PairedDifference | null;
}
/** The table of one run, as hirope.eval reports it, and the baseline chosen from `baselines`. */
export declare function summarize(
  run: EvaluationRun,
  baselines: readonly string[],
): { summary: Record<string, SummaryRow>; baseline: string | null };
