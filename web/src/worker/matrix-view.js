// One n x n causal attention matrix as the page sees it, for both engines (the attention
// playground's SideEngine and Model mode's ModelEngine): the pooled heatmap image of a region,
// one query's row, and a region's values for CSV export. One masking rule for both: a key after
// its query (j > i, above the diagonal) is masked, in the masked colour in images (probImage)
// and NaN in values (an empty CSV cell).
import { probImage } from 'hirope/colormap';
import { PlaygroundError } from './playground-error.js';

/** CSV export takes at most this many cells (zoom in for more). */
export const MAX_VALUES = 4 * 1024 * 1024;

/** A region of token (or byte) indices within 0 .. n, at least one row and one column; null: all. */
export function clampRegion(region, n) {
  if (!region) return { r0: 0, r1: n, c0: 0, c1: n };
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, Math.round(v)));
  const r0 = clamp(region.r0, 0, n - 1);
  const c0 = clamp(region.c0, 0, n - 1);
  return { r0, r1: clamp(region.r1, r0 + 1, n), c0, c1: clamp(region.c1, c0 + 1, n) };
}

/** The grid of a view { size, region }: the region clamped, at most `size` cells a side (16 to 2048, 512 by default). */
export function gridFor(view = {}, n) {
  const size = Math.max(16, Math.min(2048, Math.round(view.size || 512)));
  const region = clampRegion(view.region, n);
  return {
    region,
    rows: Math.min(size, region.r1 - region.r0),
    cols: Math.min(size, region.c1 - region.c0),
  };
}

/** The matrix mean-pooled on a grid by the core: { ratio (relative to each row's max), raw }. */
export function poolMatrix(hr, matrix, n, grid) {
  return hr.pool({
    matrix,
    n,
    rows: grid.rows,
    cols: grid.cols,
    region: grid.region,
    causal: true,
  });
}

/** The heatmap image of a pooled grid: magma colours, masked above the diagonal. */
export function heatImage(grid, pooled) {
  const { region, rows, cols } = grid;
  return { region, rows, cols, rgba: probImage(pooled.ratio, rows, cols, region) };
}

/** Row i (a query): its probabilities over keys 0 .. i, and their maximum (computed when not given). */
export function matrixRow(matrix, n, i, max) {
  if (!matrix || !Number.isInteger(i) || i < 0 || i >= n) throw new PlaygroundError(`no row ${i}`);
  const probs = matrix.slice(i * n, i * n + i + 1);
  if (max === undefined) {
    max = 0;
    for (const p of probs) max = Math.max(max, p);
  }
  return { probs, max };
}

/** The probabilities of a region, row-major, NaN where masked (a key after its query), for CSV export. */
export function matrixValues(matrix, n, regionIn) {
  const region = clampRegion(regionIn, n);
  const { r0, r1, c0, c1 } = region;
  if ((r1 - r0) * (c1 - c0) > MAX_VALUES)
    throw new PlaygroundError('the region has more than 4M cells; zoom in to export it as CSV');
  const width = c1 - c0;
  const out = new Float32Array((r1 - r0) * width);
  for (let i = r0; i < r1; i++)
    for (let j = c0; j < c1; j++) out[(i - r0) * width + j - c0] = j > i ? NaN : matrix[i * n + j];
  return { region, values: out };
}
