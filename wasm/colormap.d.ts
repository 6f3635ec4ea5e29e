// hirope/colormap: the heatmaps' colour ramps and the pixel rules the playground draws with.

/** A ramp: 256 RGB triples. */
export type Lut = Uint8ClampedArray;
export declare const LUTS: {
  readonly magma: Lut;
  readonly diverging: Lut;
  readonly divergingDark: Lut;
  readonly viridis: Lut;
};
/** The A vs B ramp for a theme. */
export declare function divergingLut(theme?: 'light' | 'dark' | string): Lut;
/** Colour for masked cells. */
export declare const MASKED: readonly [number, number, number];
/** Decades of probability shown below each row's maximum. */
export declare const DECADES: number;
/** Probability relative to its row's maximum -> ramp index (0 .. 255), log scale. */
export declare function probIndex(ratio: number): number;
/** probIndex over an array, writing packed RGBA pixels from a ramp into out32. */
export declare function probPixels(ratios: Float32Array, lut: Lut, out32: Uint32Array): Uint32Array;
/** A ramp as 256 packed RGBA words (opaque). */
export declare function packLut(lut: Lut): Uint32Array;
/** Probabilities below this count as this in the A vs B map. */
export declare const RATIO_FLOOR: number;
/** The A vs B map saturates at 2^RATIO_LIMIT times. */
export declare const RATIO_LIMIT: number;
/** log2(pB / pA) with the floor, exactly. */
export declare function logRatio(pA: number, pB: number): number;
/** log2(pB / pA) with the floor, from the table (what the A vs B map shows). */
export declare function tableLogRatio(pA: number, pB: number): number;
/** tableLogRatio over two arrays of probabilities, into out. */
export declare function tableLogRatios(
  rawA: Float32Array,
  rawB: Float32Array,
  out: Float32Array,
): Float32Array;
/** log2(pB / pA) -> ramp index: 0 is A RATIO_LIMIT-fold, 128 equal, 255 B RATIO_LIMIT-fold. */
export declare function ratioIndex(pA: number, pB: number): number;
/** The ramp index of a log2 ratio (NaN is neutral). */
export declare function ratioIndexOf(r: number): number;
/** A value in [lo, hi] -> ramp index, linear. */
export declare function linearIndex(v: number, lo: number, hi: number): number;
/** The RGB triple of a ramp entry. */
export declare function rgb(lut: Lut, index: number): [number, number, number];
/** The CSS gradient of a ramp, for legends. */
export declare function cssGradient(lut: Lut): string;
/** A pooled map's region of the matrix: rows r0..r1 and columns c0..c1 (end exclusive). */
export interface Region {
  r0: number;
  r1: number;
  c0: number;
  c1: number;
}
/** Clears (to transparent) the cells wholly above the diagonal; returns rgba. */
export declare function maskUpper<T extends Uint8ClampedArray | Uint8Array>(
  rgba: T,
  rows: number,
  cols: number,
  region: Region,
): T;
/** The heatmap of one scheme from hr.pool()'s ratio: rows x cols RGBA. */
export declare function probImage(
  ratio: Float32Array,
  rows: number,
  cols: number,
  region: Region,
): Uint8ClampedArray;
