// hirope/recall: the code models' evaluation rules (docs/model-eval.md): which bytes need far
// context (recall classes), and the evaluation's windows, buckets and sums. They run in the full
// module an init() loaded; before any init() they throw.

/** The byte classes, in the order of recallClasses()'s codes. */
export declare const RECALL_CLASSES: readonly ['other', 'first', 'near', 'far'];
/** Internal: called by the full module's model loader with the runtime these functions use. */
export declare function useEvaluationRuntime(runtime: unknown): void;
/** Identifiers of a text (ASCII names of 2+ characters, common keywords left out): their spans. */
export declare function identifiers(
  bytes: Uint8Array,
): { start: number; end: number; name: string }[];
/**
 * A class per byte (indices into RECALL_CLASSES): 'far' for identifier bytes whose previous
 * occurrence starts more than `reach` bytes back with none nearer, 'near' within reach, 'first'
 * for first occurrences, 'other' for the rest.
 */
export declare function recallClasses(bytes: Uint8Array, reach: number): Uint8Array;
/**
 * The same classes per token of a token model, given each token's byte span [start, end) in
 * bytes; distances count tokens, and a token takes the highest class of the identifiers it
 * overlaps.
 */
export declare function tokenRecallClasses(
  bytes: Uint8Array,
  start: ArrayLike<number>,
  end: ArrayLike<number>,
  reach: number,
): Uint8Array;
/** The language the evaluation parses a file in: 'javascript' for .js, .mjs, .cjs, else 'python'. */
export declare function evaluationLanguage(file: string): string;
/** The first units of a file's windows: at most perFile of them, evenly spread. */
export declare function windowOffsets(units: number, length: number, perFile?: number): number[];
/** Bucket edges for a training context L: [0, L), [L, 2L), [2L, 4L), ... up to length. */
export declare function defaultBuckets(trainingContext: number, length: number): number[];
/** One window's sums by bucket and by recall class. */
export declare function windowSums(
  losses: Float32Array | ArrayLike<number>,
  classes: Uint8Array | ArrayLike<number>,
  edges: ArrayLike<number>,
): { sums: number[]; counts: number[]; classSums: number[]; classCounts: number[] };
/** The numbers the preset table's symbols stand for at training context L. */
export declare function presetSymbols(
  trainingContext: number,
  length: number,
  strideDivisor: number,
): Record<string, number>;
/** The core's class names (RECALL_CLASSES names them in order). */
export declare function coreRecallClasses(): string[];
