// Pooled maps at long lengths (issue 42 section 6): the playground's SideEngine pools a side's map
// chunk by chunk (web/src/worker/pooled-map.js), each chunk a call of the core over some rows, and
// never asks the core for an n x n matrix on any path (the map, zoom, rows, cells, CSV, per-row
// numbers, the A vs B comparison). The chunked map equals the one-call map exactly, progress
// rises to 1, and a cancel between chunks (driven from the progress hook, which the engine calls
// between two chunks) rejects with 'Cancelled' and leaves the engine ready for the next run. Both
// WASM builds, at a small head dimension so that 9,000 tokens stay fast.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, load, lcg } from './support/both-builds.mjs';
import { SideEngine, MAX_ATTENTION_TOKENS } from '../../web/src/worker/attention-engine.js';
import {
  poolChunks,
  poolInChunks,
  CHUNK_CELLS,
  MAX_EXPORT_TOKENS,
} from '../../web/src/worker/pooled-map.js';
import { STRIP_FLOATS } from '../../web/src/worker/attention-rows.js';
import { gridFor } from '../../web/src/worker/matrix-view.js';
import { normalizeState } from '../../web/src/shared/playground-state.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

// pool.cpp's grid: row y of a region [b, e) split into `rows` starts at b + ceil(y (e - b) / rows).
const firstRows = (grid) => {
  const { r0, r1 } = grid.region;
  const out = new Set();
  for (let y = 0; y <= grid.rows; y++) out.add(r0 + Math.ceil((y * (r1 - r0)) / grid.rows));
  return out;
};

describe('poolChunks', () => {
  it('covers 0 .. n-1 in order and splits no grid row of the region', () => {
    const random = lcg(400, 7);
    for (let t = 0; t < 100; t++) {
      const n = 1 + Math.floor(Math.abs(random[4 * t]) * 5000);
      const r0 = Math.floor(Math.abs(random[4 * t + 1]) * 0.3 * n);
      const r1 = Math.max(r0 + 1, n - Math.floor(Math.abs(random[4 * t + 2]) * 0.3 * n));
      const rows = Math.max(
        1,
        Math.min(r1 - r0, 1 + Math.floor(Math.abs(random[4 * t + 3]) * 600)),
      );
      const grid = { rows, region: { r0, r1 } };
      const step = 1 + (t % 97);
      const chunks = poolChunks(n, grid, step);
      const edges = firstRows(grid);
      let at = 0;
      for (const [a, b] of chunks) {
        assert.equal(a, at);
        assert.ok(b > a);
        if (b > r0 && b < r1)
          assert.ok(edges.has(b), `n ${n} region ${r0}-${r1} rows ${rows}: ${b}`);
        at = b;
      }
      assert.equal(at, n);
    }
  });
});

for (const build of BUILDS) {
  describe(`pooled maps at long lengths (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it('pools chunk by chunk exactly as one call does, on the whole map and on a region', async () => {
      const n = 9000; // 6 chunks of CHUNK_CELLS
      const headDim = 8;
      const { q, k } = hr.qk({ n, headDim, seed: 3, source: 'seeded' });
      const token = Int32Array.from({ length: n }, (_, i) => i);
      const args = {
        q,
        k,
        n,
        headDim,
        positions: { token },
        scheme: { type: 'rope' },
        causal: true,
        output: 'probs',
      };
      for (const view of [
        { size: 512 },
        { size: 300, region: { r0: 1234, r1: 7777, c0: 10, c1: 7000 } },
      ]) {
        const grid = gridFor(view, n);
        const make = () => ({
          rows: grid.rows,
          cols: grid.cols,
          region: grid.region,
          ratio: new Float32Array(grid.rows * grid.cols),
          raw: new Float32Array(grid.rows * grid.cols),
          rowMax: new Float32Array(n),
        });
        const once = make();
        hr.attention({ ...args, matrix: false, pool: once });
        const chunked = make();
        const fractions = [];
        await poolInChunks(hr, args, chunked, { progress: (f) => fractions.push(f) });
        assert.ok(fractions.length > 4, `${fractions.length} chunks`);
        for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i] > fractions[i - 1]);
        assert.equal(fractions.at(-1), 1);
        assert.deepEqual(chunked.ratio, once.ratio);
        assert.deepEqual(chunked.raw, once.raw);
        assert.deepEqual(chunked.rowMax, once.rowMax);
      }
    });

    it('never asks the core for more than a chunk or a strip of rows, on any path, at 9,000 tokens', async () => {
      // Every attention call the engine makes, counted: the rows x n of each that returns rows
      // stay within a chunk (CHUNK_CELLS, plus a grid row) or a strip (STRIP_FLOATS); none n x n.
      const calls = [];
      const spy = Object.create(hr);
      spy.attention = (options) => {
        const rows = options.rows ? options.rows[1] - options.rows[0] : options.n;
        calls.push({ rows, n: options.n, matrix: options.matrix !== false });
        const out = hr.attention(options);
        assert.ok(!out || out.length < options.n * options.n, 'an n x n matrix');
        return out;
      };
      const state = normalizeState({ tokenizer: 'lexical', headDim: 8, language: 'python' });
      let code = '';
      while (code.split(/\s+/).length < 6000) code += SAMPLES.python;
      const engines = { a: new SideEngine(spy), b: new SideEngine(spy) };
      const result = await engines.a.run({ code, state, side: 'a', view: { size: 512 } });
      await engines.b.run({ code, state, side: 'b', view: { size: 512 } });
      const n = result.n;
      assert.ok(n > 9000 && n <= MAX_ATTENTION_TOKENS, `${n} tokens`);
      const limit = Math.max(CHUNK_CELLS + 64 * n, STRIP_FLOATS + n);
      const e = engines.a;
      e.images({ size: 512, region: { r0: 100, r1: n - 5, c0: 0, c1: n - 5 } }); // zoom
      e.row(n - 1);
      e.cell(n - 1, 3);
      e.values({ r0: n - 300, r1: n, c0: 0, c1: 2000 }); // CSV
      e._stats();
      const half = Math.round(n / Math.SQRT2);
      const cmp = engines.b.compare({ rows: [half, n] });
      assert.equal(cmp.tv.length, n - half);
      // Pooled calls (matrix: false) keep only the core's own strips in WebAssembly memory.
      for (const c of calls)
        if (c.matrix) assert.ok(c.rows * c.n <= limit, `${c.rows} rows of ${c.n}`);
      assert.ok(calls.some((c) => !c.matrix) && calls.some((c) => c.matrix));
      // The whole-matrix copies are refused at this size, before allocating.
      assert.ok(n > MAX_EXPORT_TOKENS);
      assert.throws(() => e.exportProbs(), /too large to copy/);
    });

    it('a cancel between chunks rejects with Cancelled; the next run computes the map in full', async () => {
      const state = normalizeState({ tokenizer: 'lexical', headDim: 8, language: 'python' });
      let code = '';
      while (code.split(/\s+/).length < 6000) code += SAMPLES.python;
      const request = { code, state, side: 'b', view: { size: 128 } };
      const fresh = await new SideEngine(hr).run(request);
      const e = new SideEngine(hr);
      // The hook: the engine calls progress between two chunks of its map; the abort set there is
      // read after the next yield, before the next chunk.
      for (const after of [0, 1, 3]) {
        const controller = new AbortController();
        let seen = 0;
        const progress = (_stage, fraction) => {
          if (fraction !== undefined && seen++ === after) controller.abort();
        };
        await assert.rejects(e.run(request, progress, controller.signal), (err) => {
          assert.equal(err.name, 'Cancelled');
          return true;
        });
        assert.equal(seen, after + 1, 'no chunk after the cancel');
      }
      // An abort before the map starts: no chunk at all.
      const early = new AbortController();
      early.abort();
      await assert.rejects(
        e.run(request, () => {}, early.signal),
        { name: 'Cancelled' },
      );
      const again = await e.run(request);
      assert.deepEqual(again.image.rgba, fresh.image.rgba);
      assert.deepEqual(again.image.raw, fresh.image.raw);
    });
  });
}
