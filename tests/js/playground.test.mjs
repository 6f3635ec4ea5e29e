// The playground's compute side in Node: pooling against a naive mean, q/k file parsing and its
// errors, URL state round trips, language detection on the samples, and a SideEngine run.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import { SideEngine, diffImage, parseQKFile, sampleIndices, MAX_ATTENTION_TOKENS } from '../../web/src/engine.js';
import { normalizeState, encodeState, decodeState, schemeFor, DEFAULTS } from '../../web/src/state.js';
import { probIndex, DECADES } from '../../web/src/colormap.js';
import { SAMPLES } from '../../web/src/samples.js';

function naivePool(p, inv, n, region, rows, cols) {
  const out = { ratio: new Float64Array(rows * cols), raw: new Float64Array(rows * cols) };
  const rowEdge = (y) => region.r0 + Math.ceil((y * (region.r1 - region.r0)) / rows);
  const colEdge = (x) => region.c0 + Math.ceil((x * (region.c1 - region.c0)) / cols);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      let sr = 0;
      let sp = 0;
      let count = 0;
      for (let i = rowEdge(y); i < rowEdge(y + 1); i++) {
        for (let j = colEdge(x); j < colEdge(x + 1); j++) {
          const v = j > i ? 0 : p[i * n + j];
          sr += v * inv[i];
          sp += v;
          count++;
        }
      }
      out.ratio[y * cols + x] = sr / count;
      out.raw[y * cols + x] = sp / count;
    }
  }
  return out;
}

describe('playground engine', () => {
  let hr;
  before(async () => {
    hr = await init();
  });

  it('pools by the mean over each cell, causal entries as zero (hr.pool and attention({ pool }))', () => {
    const n = 37;
    const p = new Float32Array(n * n).map((_, c) => (((c * 2654435761) % 1000) + 1) / 1000);
    const inv = new Float32Array(n).map((_, i) => 1 / Math.max(...p.subarray(i * n, i * n + i + 1)));
    for (const [region, rows, cols] of [
      [{ r0: 0, r1: n, c0: 0, c1: n }, 10, 10],
      [{ r0: 5, r1: 30, c0: 2, c1: 25 }, 7, 4],
      [{ r0: 0, r1: n, c0: 0, c1: n }, n, n],
    ]) {
      const got = hr.pool({ matrix: p, n, rows, cols, region });
      const want = naivePool(p, inv, n, region, rows, cols);
      for (let c = 0; c < rows * cols; c++) {
        assert.ok(Math.abs(got.ratio[c] - want.ratio[c]) < 1e-5, `ratio cell ${c}`);
        assert.ok(Math.abs(got.raw[c] - want.raw[c]) < 1e-5, `raw cell ${c}`);
      }
    }
    // attention() pools the same numbers while it computes them.
    const { q, k } = hr.qk({ source: 'seeded', n, headDim: 16, seed: 3 });
    const pool = { rows: 9, cols: 5, region: { r0: 2, r1: 35, c0: 0, c1: 30 }, ratio: new Float32Array(45), raw: new Float32Array(45), rowMax: new Float32Array(n) };
    const probs = hr.attention({ q, k, n, headDim: 16, scheme: 'rope', pool });
    const again = hr.pool({ matrix: probs, n, rows: 9, cols: 5, region: pool.region });
    assert.deepEqual(pool.ratio, again.ratio);
    assert.deepEqual(pool.raw, again.raw);
    assert.deepEqual(pool.rowMax, again.rowMax);
    assert.throws(() => hr.attention({ q, k, n, headDim: 16, output: 'logits', pool }), /pool needs output 'probs' and one head/);
    assert.throws(() => hr.pool({ matrix: probs, n, rows: 40, cols: 5 }), /pool\.rows must be at most 37, got 40/);
    assert.throws(() => hr.pool({ matrix: probs.subarray(1), n, rows: 4, cols: 4 }), /matrix has length 1368, expected n \* n = 1369/);
  });

  it('colours the difference by the largest magnitude and masks cells above the diagonal', () => {
    const region = { r0: 0, r1: 2, c0: 0, c1: 2 };
    const { rgba, maxAbs } = diffImage(Float32Array.of(0.5, 0, 0.25, 0.75), Float32Array.of(0.25, 0, 0.5, 0.5), 2, 2, region);
    assert.equal(maxAbs, 0.25);
    assert.equal(rgba[4 * 1 + 3], 0); // (0, 1) is masked
    assert.equal(rgba[3], 255);
  });

  it('maps probability ratios to colour indices on a log scale (table lookup = formula)', () => {
    for (let e = -DECADES - 1; e <= 0; e += 0.013) {
      const r = Math.fround(10 ** e);
      const t = 1 + Math.log10(r) / DECADES;
      const exact = t <= 0 ? 0 : Math.round(Math.min(1, t) * 255);
      assert.ok(Math.abs(probIndex(r) - exact) <= 1, `ratio ${r}`);
    }
    assert.equal(probIndex(1), 255);
    assert.equal(probIndex(0), 0);
    assert.equal(probIndex(NaN), 0);
  });

  it('parses q/k files, nested or flat, and refuses bad ones with a message', () => {
    const f = parseQKFile(JSON.stringify({ headDim: 2, q: [[1, 2], [3, 4]], k: [5, 6, 7, 8] }));
    assert.equal(f.n, 2);
    assert.deepEqual(Array.from(f.k), [5, 6, 7, 8]);
    const bad = [
      ['not json', /not valid JSON/],
      ['[1]', /must hold a JSON object|headDim/],
      [JSON.stringify({ headDim: 3, q: [], k: [] }), /headDim must be an even integer/],
      [JSON.stringify({ headDim: 2, q: [[1, 2]] }), /needs "k"/],
      [JSON.stringify({ headDim: 2, q: [[1, 2, 3]], k: [[1, 2]] }), /"q" row 0 does not hold 2 numbers/],
      [JSON.stringify({ headDim: 2, q: [[1, null]], k: [[1, 2]] }), /"q" row 0 column 1 is not a finite number/],
      [JSON.stringify({ headDim: 2, q: [1, 2, 3], k: [1, 2] }), /not a whole number of rows/],
      [JSON.stringify({ headDim: 2, q: [[1, 2]], k: [[1, 2], [3, 4]] }), /"q" has 1 rows but "k" has 2/],
    ];
    for (const [text, message] of bad) assert.throws(() => parseQKFile(text), (e) => e.name === 'PlaygroundError' && message.test(e.message));
  });

  it('round-trips the state through the URL, keeping only what differs from the defaults', async () => {
    assert.equal(await encodeState(normalizeState({})), '');
    const state = normalizeState({ code: 'def f():\n    return "é ✓"\n', language: 'go', headDim: 32, b: { type: 'self-extend', group: 4 } });
    const hash = await encodeState(state);
    assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
    assert.deepEqual(await decodeState(hash), state);
    // Unreadable or hostile hashes give the defaults.
    assert.deepEqual(await decodeState('#s=%%%'), normalizeState({}));
    assert.deepEqual(await decodeState('#s=AAAA'), normalizeState({}));
    // Wrong types are replaced by defaults, unknown keys dropped.
    assert.deepEqual(normalizeState({ headDim: 'x', a: { window: Infinity }, evil: 1 }), normalizeState({}));
    assert.equal(DEFAULTS.b.type, 'hirope');
  });

  it('builds API schemes from the controls', () => {
    const state = normalizeState({ train: 256, b: { type: 'hirope', ratio: 0.25, levels: 3, scaling: 'yarn', factor: 8 } });
    assert.deepEqual(schemeFor(state.b, state), { type: 'hirope', base: 10000, layout: 'half', scaling: { type: 'yarn', factor: 8, originalLength: 256 }, window: 128, trainingLength: 256, ratio: 0.25, levels: 3 });
    assert.deepEqual(schemeFor({ ...state.a, type: 'alibi' }, state), { type: 'alibi' });
  });

  it('detects the language of every sample', () => {
    const engine = new SideEngine(hr);
    for (const [language, code] of Object.entries(SAMPLES)) assert.equal(engine.detectLanguage(code), language);
  });

  it('runs one side: analysis, attention, pooled image, views; and says when it truncates', async () => {
    const engine = new SideEngine(hr);
    const state = normalizeState({});
    const result = await engine.run({ code: SAMPLES.python, state, side: 'b', summary: true, distances: true, view: { size: 64 } });
    assert.equal(result.n, result.analysis.count);
    assert.equal(result.image.rows, 64);
    assert.equal(result.image.rgba.length, 64 * 64 * 4);
    assert.equal(result.views.distances.value.views.length, 4);
    assert.equal(result.views.angles.value.pairs, 32);
    assert.equal(result.views.decay.value.length, result.views.maxDistance + 1);
    const row = engine.row(10);
    assert.equal(row.probs.length, 11);
    assert.ok(Math.abs(row.probs.reduce((a, b) => a + b) - 1) < 1e-5);
    const big = await engine.run({ code: 'x = 1\n'.repeat(1500), state, side: 'a', views: false, view: { size: 32 } });
    assert.equal(big.n, MAX_ATTENTION_TOKENS);
    assert.match(big.notes[0], /^The heatmaps show the first 4096 of 4500 tokens\.$/);
    await assert.rejects(engine.run({ code: 'x = 1\n', state: normalizeState({ source: 'file' }), side: 'a' }), /load a q\/k JSON file first/);
    assert.throws(() => new SideEngine(hr).row(0), /nothing has been computed yet/);
    // reuse: a run that would send the same as the last one says so; any change sends it all.
    const again = new SideEngine(hr);
    const request = { code: SAMPLES.c, state: normalizeState({ language: 'c' }), side: 'a', reuse: true, view: { size: 32 } };
    assert.equal((await again.run(request)).unchanged, undefined);
    assert.equal((await again.run(request)).unchanged, true);
    const other = normalizeState({ language: 'c', b: { type: 'alibi' } }); // only the other side's scheme
    assert.equal((await again.run({ ...request, state: other })).unchanged, true);
    assert.equal((await again.run({ ...request, state: other, distances: true })).unchanged, undefined);
    const hirope = normalizeState({ language: 'c', b: { ratio: 0.25 } }); // changes the distance views
    assert.equal((await again.run({ ...request, state: hirope, distances: true })).unchanged, undefined);
    assert.equal((await again.run({ ...request, state: other, view: { size: 16 } })).image.rows, 16);
    assert.deepEqual(Array.from(sampleIndices(10, 4)), [0, 3, 6, 9]);
  });
});
