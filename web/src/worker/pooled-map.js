// A side's pooled map at long lengths (up to 32,768 tokens): the core computes and pools chunks
// of rows (hr.attention({ rows, matrix: false, pool })), never an n x n matrix; between two
// chunks the worker reports the share done and yields to its event loop, so that a 'cancel'
// notice from the page (main.js) lands and the next chunk is not computed.
import { PlaygroundError } from './playground-error.js';

/**
 * Cells (rows x n) per chunk: 16M, about 0.1 s in SIMD WebAssembly at head dim 64, so a cancel
 * takes effect within that, and a map of up to 4,096 tokens is one call as before.
 */
export const CHUNK_CELLS = 1 << 24;

/**
 * exportProbs and compare({ probs }) copy a whole n x n matrix: refused above this many tokens
 * (64 MB), where compare({ rows }) recomputes strips instead.
 */
export const MAX_EXPORT_TOKENS = 4096;

/** The error a cancelled run rejects with (its name, 'Cancelled', crosses to the page). */
export class CancelledError extends PlaygroundError {
  constructor() {
    super('the run was cancelled');
    this.name = 'Cancelled';
  }
}

/**
 * A task boundary (not a microtask): messages already queued for this thread, a 'cancel' notice
 * among them, are handled before it resolves. A MessageChannel, which the 4 ms clamp of nested
 * setTimeout calls does not slow.
 */
export function yieldToEvents() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/**
 * Row ranges [r0, r1) covering 0 .. n-1, about `rowsPerChunk` rows each, that never split a cell
 * of the pool grid { rows, region }: inside the region every boundary is the first row of a grid
 * row (pool.cpp: grid row y starts at begin + ceil(y * span / rows)).
 */
export function poolChunks(n, grid, rowsPerChunk) {
  const { r0: begin, r1: end } = grid.region;
  const span = end - begin;
  const edge = (y) => begin + Math.floor((y * span + grid.rows - 1) / grid.rows);
  const chunks = [];
  for (let r = 0; r < n; ) {
    let next = Math.min(n, r + Math.max(1, rowsPerChunk));
    if (next > begin && next < end) {
      let y = Math.floor(((next - begin) * grid.rows) / span); // the grid row holding `next`
      if (edge(y) < next) y++;
      next = edge(y);
    }
    chunks.push([r, next]);
    r = next;
  }
  return chunks;
}

/** The causal work of rows r0 .. r1-1 (row i has i + 1 keys). */
const work = (r0, r1) => (r1 * (r1 + 1) - r0 * (r0 + 1)) / 2;

/**
 * Pools the matrix that `args` (an hr.attention call with output 'probs') describes into `pool`
 * ({ rows, cols, region, ratio, raw, rowMax }), chunk by chunk. progress(fraction) follows each
 * chunk (the share of the causal work done); `signal` (an AbortSignal, or anything with
 * `aborted`) is read after each yield, and a set one rejects with CancelledError.
 */
export async function poolInChunks(hr, args, pool, { progress = () => {}, signal = null } = {}) {
  const n = args.n;
  const chunks = poolChunks(n, pool, Math.ceil(CHUNK_CELLS / n));
  if (signal?.aborted) throw new CancelledError();
  if (chunks.length === 1) {
    hr.attention({ ...args, matrix: false, pool });
    progress(1);
    return pool;
  }
  // Each chunk pools into a scratch grid, complete for the grid rows it covers (zeros elsewhere),
  // whose rows are copied into the caller's grid.
  const scratch = {
    rows: pool.rows,
    cols: pool.cols,
    region: pool.region,
    ratio: new Float32Array(pool.rows * pool.cols),
    raw: new Float32Array(pool.rows * pool.cols),
    rowMax: pool.rowMax,
  };
  const { r0: begin, r1: end } = pool.region;
  const span = end - begin;
  const gridRow = (i) => Math.floor(((i - begin) * pool.rows) / span);
  const total = work(0, n);
  for (const [r0, r1] of chunks) {
    await yieldToEvents();
    if (signal?.aborted) throw new CancelledError();
    hr.attention({ ...args, rows: [r0, r1], matrix: false, pool: scratch });
    const from = Math.max(r0, begin);
    const to = Math.min(r1, end);
    if (from < to) {
      const a = gridRow(from) * pool.cols;
      const b = (gridRow(to - 1) + 1) * pool.cols;
      pool.ratio.set(scratch.ratio.subarray(a, b), a);
      pool.raw.set(scratch.raw.subarray(a, b), a);
    }
    progress(work(0, r1) / total);
  }
  return pool;
}
