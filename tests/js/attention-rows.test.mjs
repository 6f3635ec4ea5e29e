// The attention matrix without the matrix (issue 33): attention({ matrix: false, pool }) pools as
// pooling the whole matrix does, attention({ rows }) gives the rows of the whole matrix, and the
// playground's SideEngine, which keeps no matrix, answers rows, cells, CSV values, zoomed images,
// per-row numbers and the A vs B comparison as the whole matrices give them; attentionAsync does
// the same with a GPU executor (a stand-in). Both WASM builds.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import { BUILDS, load, lcg, range } from './support/both-builds.mjs';
import { SideEngine } from '../../web/src/worker/attention-engine.js';
import { positionsFor } from '../../web/src/worker/attention-views.js';
import { rowStats, compareRows } from '../../web/src/worker/attention-numbers.js';
import { balancedSplit, STRIP_FLOATS } from '../../web/src/worker/attention-rows.js';
import { normalizeState, schemeFor } from '../../web/src/shared/playground-state.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

// Mean pooling in doubles, written here from the definition (hr.pool's documentation): cell (y, x)
// is the mean over its rows and columns, masked entries as zero; ratio divides each entry by its
// row's maximum over the unmasked entries.
function meanPool(p, n, region, rows, cols) {
  const max = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) max[i] = Math.max(max[i], p[i * n + j]);
  const ratio = new Float64Array(rows * cols);
  const raw = new Float64Array(rows * cols);
  const edge = (b, span, cells, c) => b + Math.ceil((c * span) / cells);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i0 = edge(region.r0, region.r1 - region.r0, rows, y);
      const i1 = edge(region.r0, region.r1 - region.r0, rows, y + 1);
      const j0 = edge(region.c0, region.c1 - region.c0, cols, x);
      const j1 = edge(region.c0, region.c1 - region.c0, cols, x + 1);
      let r = 0;
      let s = 0;
      for (let i = i0; i < i1; i++)
        for (let j = j0; j < j1; j++) {
          const v = j > i ? 0 : p[i * n + j];
          s += v;
          r += max[i] > 0 ? v / max[i] : 0;
        }
      const count = (i1 - i0) * (j1 - j0);
      ratio[y * cols + x] = r / count;
      raw[y * cols + x] = s / count;
    }
  return { ratio, raw, max };
}

const SCHEMES = [
  { type: 'rope' },
  { type: 'hirope', window: 24, ratio: 0.5 },
  { type: 'rerope', window: 16 },
  { type: 'alibi' },
];

for (const build of BUILDS) {
  describe(`attention without the matrix (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    const call = (n, scheme, seed = 1) => {
      const headDim = 16;
      return {
        q: lcg(n * headDim, seed),
        k: lcg(n * headDim, seed + 1),
        n,
        headDim,
        positions: {
          token: range(n),
          unit: Int32Array.from(range(n), (i) => Math.floor(i / 7)),
          statement: Int32Array.from(range(n), (i) => Math.floor(i / 3)),
        },
        scheme,
        causal: true,
      };
    };

    it('matrix: false pools what pooling the whole matrix gives, and returns null', () => {
      for (const scheme of SCHEMES)
        for (const [n, rows, cols, region] of [
          [61, 13, 9, undefined],
          [61, 61, 61, undefined],
          [90, 7, 11, { r0: 20, r1: 77, c0: 5, c1: 60 }],
        ]) {
          const args = call(n, scheme);
          const full = hr.attention(args);
          const pool = {
            rows,
            cols,
            region,
            ratio: new Float32Array(rows * cols),
            raw: new Float32Array(rows * cols),
            rowMax: new Float32Array(n),
          };
          assert.equal(hr.attention({ ...args, matrix: false, pool }), null);
          const r = region ?? { r0: 0, r1: n, c0: 0, c1: n };
          const want = meanPool(full, n, r, rows, cols);
          for (let c = 0; c < rows * cols; c++) {
            assert.ok(Math.abs(pool.ratio[c] - want.ratio[c]) < 1e-5, `${scheme.type} ratio ${c}`);
            assert.ok(Math.abs(pool.raw[c] - want.raw[c]) < 1e-6, `${scheme.type} raw ${c}`);
          }
          for (let i = 0; i < n; i++) assert.equal(pool.rowMax[i], Math.fround(want.max[i]));
          // The same arithmetic as hr.pool over the whole matrix.
          const again = hr.pool({ matrix: full, n, rows, cols, region });
          assert.deepEqual(pool.ratio, again.ratio);
          assert.deepEqual(pool.raw, again.raw);
        }
    });

    it('rows gives rows of the whole matrix (probs, logits, values), whatever the strip', () => {
      for (const scheme of SCHEMES) {
        const n = 70;
        const args = call(n, scheme, 5);
        for (const output of ['probs', 'logits']) {
          const full = hr.attention({ ...args, output });
          for (const [r0, r1] of [
            [0, 1],
            [3, 4],
            [69, 70],
            [5, 22],
            [0, 70],
            [41, 68],
          ]) {
            const got = hr.attention({ ...args, output, rows: [r0, r1] });
            assert.equal(got.length, (r1 - r0) * n);
            assert.deepEqual(got, full.subarray(r0 * n, r1 * n), `${scheme.type} ${output} ${r0}`);
          }
        }
        const v = lcg(n * 16, 9);
        const values = hr.attention({ ...args, v, output: 'values' });
        const some = hr.attention({ ...args, v, output: 'values', rows: [10, 33] });
        assert.deepEqual(some, values.subarray(10 * 16, 33 * 16));
      }
    });

    it('rows with pool pools those rows only, and sets only their maxima', () => {
      const n = 80;
      const args = call(n, SCHEMES[1], 3);
      const full = hr.attention(args);
      const region = { r0: 17, r1: 66, c0: 0, c1: 66 };
      const pool = {
        rows: 10,
        cols: 12,
        region,
        ratio: new Float32Array(120),
        raw: new Float32Array(120),
        rowMax: new Float32Array(n).fill(-1),
      };
      assert.equal(hr.attention({ ...args, rows: [17, 66], matrix: false, pool }), null);
      const whole = hr.pool({ matrix: full, n, rows: 10, cols: 12, region });
      assert.deepEqual(pool.ratio, whole.ratio);
      assert.deepEqual(pool.raw, whole.raw);
      for (let i = 0; i < n; i++)
        assert.equal(pool.rowMax[i], i >= 17 && i < 66 ? whole.rowMax[i] : -1, `rowMax ${i}`);
    });

    it('says what is wrong with matrix and rows', () => {
      const args = call(10, SCHEMES[0]);
      assert.throws(
        () => hr.attention({ ...args, matrix: false }),
        /matrix: false needs pool \(the matrix is only pooled\) and no out/,
      );
      assert.throws(() => hr.attention({ ...args, matrix: 0 }), /matrix must be a boolean, got 0/);
      for (const rows of [[3, 3], [-1, 2], [0, 11], [1.5, 2], 'all', [4]])
        assert.throws(
          () => hr.attention({ ...args, rows }),
          /rows must be \[r0, r1\] with 0 <= r0 < r1 <= n = 10/,
        );
      assert.throws(
        () => hr.attention({ ...args, rows: [2, 5], out: new Float32Array(100) }),
        /out has length 100, expected heads \* rows \* n = 30/,
      );
    });
  });
}

describe('attentionAsync without the matrix', () => {
  it('pools a GPU result without returning it, and computes rows on WASM', async () => {
    // A stand-in GPU executor (as in public-api.test.mjs) that answers with the WASM matrix.
    const hr = await init();
    const n = 40;
    const args = {
      q: lcg(n * 8, 21),
      k: lcg(n * 8, 22),
      n,
      headDim: 8,
      scheme: { type: 'hirope', window: 8, ratio: 0.5 },
      positions: { token: range(n), unit: Int32Array.from(range(n), (i) => Math.floor(i / 5)) },
    };
    const full = hr.attention(args);
    const calls = [];
    hr._attention.gpu = {
      adapterInfo: 'stand-in',
      lost: false,
      attention: async (a) => {
        calls.push(a.n);
        return full.slice();
      },
    };
    hr.attentionBackend = 'webgpu';
    const pool = {
      rows: 8,
      cols: 8,
      ratio: new Float32Array(64),
      raw: new Float32Array(64),
      rowMax: new Float32Array(n),
    };
    assert.equal(await hr.attentionAsync({ ...args, matrix: false, pool }), null);
    const want = hr.pool({ matrix: full, n, rows: 8, cols: 8 });
    assert.deepEqual([pool.ratio, pool.raw, pool.rowMax], [want.ratio, want.raw, want.rowMax]);
    assert.deepEqual(calls, [n]);
    // Some rows: computed on WASM, not by the executor.
    const rows = await hr.attentionAsync({ ...args, rows: [7, 19] });
    assert.deepEqual(rows, full.subarray(7 * n, 19 * n));
    assert.deepEqual(calls, [n]);
  });
});

describe('the playground engine keeps no matrix', () => {
  let hr;
  before(async () => {
    hr = await load(true);
  });

  it('answers rows, cells, values, zoom, numbers and the comparison as the whole matrices do', async () => {
    const state = normalizeState({});
    const engines = { a: new SideEngine(hr), b: new SideEngine(hr) };
    const results = {};
    for (const side of ['a', 'b'])
      results[side] = await engines[side].run({
        code: SAMPLES.python,
        state,
        side,
        view: { size: 64 },
      });
    const n = results.a.n;
    assert.ok(n > 100 && engines.b._side.probs === undefined);
    // The whole matrices, from the same analysis and q/k, as the engine called the core.
    const analysis = engines.a._analysis;
    const qk = engines.a._side.args; // the q/k (and head dim) of A's call
    const full = {};
    for (const side of ['a', 'b']) {
      const scheme = schemeFor(state[side], state);
      full[side] = hr.attention({
        q: qk.q,
        k: qk.k,
        n,
        headDim: qk.headDim,
        positions: positionsFor(scheme, analysis.positions),
        scheme,
        causal: true,
        output: 'probs',
      });
    }
    const e = engines.b;
    const p = full.b;
    for (const i of [0, 1, 17, n - 1]) {
      const row = e.row(i);
      assert.deepEqual(row.probs, p.slice(i * n, i * n + i + 1));
      let max = 0;
      for (let j = 0; j <= i; j++) max = Math.max(max, p[i * n + j]);
      assert.equal(row.max, max);
      assert.equal(e.cell(i, Math.floor(i / 2)).p, p[i * n + Math.floor(i / 2)]);
      assert.equal(e.cell(Math.floor(i / 2), i).p, i ? 0 : p[0]);
    }
    const region = { r0: 20, r1: n - 3, c0: 5, c1: 90 };
    const { values } = e.values(region);
    for (let i = region.r0; i < region.r1; i++)
      for (let j = region.c0; j < region.c1; j++) {
        const v = values[(i - region.r0) * (region.c1 - region.c0) + j - region.c0];
        if (j > i) assert.ok(Number.isNaN(v));
        else assert.equal(v, p[i * n + j]);
      }
    // A zoom pools the region's rows, as pooling the whole matrix's region does.
    const zoom = { r0: 30, r1: 95, c0: 10, c1: 80 };
    const image = e.images({ size: 32, region: zoom });
    assert.deepEqual(image.raw, hr.pool({ matrix: p, n, rows: 32, cols: 32, region: zoom }).raw);
    // The probabilities the page compared before, and the per-row numbers.
    const exported = engines.a.exportProbs();
    assert.deepEqual(exported.probs, full.a);
    const { unit, token } = analysis.positions;
    const stats = { a: rowStats(full.a, n, unit, token), b: rowStats(full.b, n, unit, token) };
    assert.deepEqual(exported.stats, stats.a);
    const want = compareRows(full.a, full.b, n);
    const old = e.compare({ n, probs: exported.probs });
    assert.deepEqual([old.tv, old.kl, old.stats], [want.tv, want.kl, stats.b]);
    // The comparison by rows, shared between the two workers as the page shares it.
    const split = balancedSplit(n);
    const parts = [
      engines.a.compare({ rows: [0, split] }),
      engines.b.compare({ rows: [split, n] }),
    ];
    const join = (pick) => {
      const out = new Float32Array(n);
      for (const part of parts) out.set(pick(part), part.rows[0]);
      return out;
    };
    assert.deepEqual(
      join((x) => x.tv),
      want.tv,
    );
    assert.deepEqual(
      join((x) => x.kl),
      want.kl,
    );
    for (const side of ['a', 'b'])
      for (const key of ['own', 'distance'])
        assert.deepEqual(
          join((x) => x.sides[side][key]),
          stats[side][key],
          `${side} ${key}`,
        );
    assert.throws(() => e.compare({ rows: [5, n + 1] }), /no rows \[5, \d+\) of/);
  });

  it('recomputes in strips of at most STRIP_FLOATS floats', () => {
    assert.equal(STRIP_FLOATS, 1 << 20);
    assert.equal(balancedSplit(1000), 707);
    assert.equal(balancedSplit(1), 1);
  });
});
