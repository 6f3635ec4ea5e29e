// Frequencies, bands, distances, rotation and Q/K sources through the JS API.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { segmentPositions, normalizeScheme, simdSupported } from '../../dist/index.js';
import { BUILDS, load, lcg, range, maxAbsDiff } from './support/both-builds.mjs';

for (const build of BUILDS) {
  describe(`positions and frequencies (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it("reproduces the paper's Fig. 2 window matrix", () => {
      const positions = { token: range(6), unit: Int32Array.from([0, 0, 0, 0, 1, 1]) };
      const bands = hr.relativeDistances({
        n: 6,
        headDim: 8,
        positions,
        scheme: { type: 'hirope', window: 3 },
      });
      assert.deepEqual(
        bands.map((b) => [b.name, b.pairBegin, b.pairEnd]),
        [
          ['token', 0, 2],
          ['unit', 2, 4],
        ],
      );
      const rows = [[0], [1, 0], [2, 1, 0], [2, 2, 1, 0], [3, 3, 2, 1, 0], [3, 3, 3, 2, 1, 0]];
      rows.forEach((row, i) => {
        row.forEach((v, j) => {
          assert.equal(bands[1].distances[i * 6 + j], v);
        });
      });
      assert.ok(Number.isNaN(bands[1].distances[1]));
    });

    it('gives RoPE inverse frequencies and scaling factors', () => {
      const f = hr.inverseFrequencies('rope', 8);
      assert.ok(f instanceof Float64Array);
      assert.deepEqual(Array.from(f), [1, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75]);
      const yarn = { type: 'rope', scaling: { type: 'yarn', factor: 16, originalLength: 4096 } };
      assert.ok(Math.abs(hr.attentionFactor(yarn, 128) - 1.2773) < 5e-5);
      const lin = hr.inverseFrequencies(
        { type: 'rope', scaling: { type: 'linear', factor: 2 } },
        8,
      );
      assert.equal(lin[0], 0.5);
      const dyn = {
        type: 'rope',
        scaling: { type: 'dynamic-ntk', factor: 2, originalLength: 4096 },
      };
      assert.ok(
        Math.abs(hr.inverseFrequencies(dyn, 128, { seqLen: 16384 })[1] - 72196 ** (-2 / 128)) <
          1e-7,
      );
    });

    it('gives ALiBi slopes and Split%', () => {
      assert.deepEqual(Array.from(hr.alibiSlopes(8)), [
        1 / 2,
        1 / 4,
        1 / 8,
        1 / 16,
        1 / 32,
        1 / 64,
        1 / 128,
        1 / 256,
      ]);
      assert.ok(Math.abs(hr.alibiSlopes(12)[8] - Math.SQRT1_2) < 1e-12);
      assert.ok(Math.abs(hr.splitFraction(4096) - 0.7035) < 5e-5);
      assert.ok(Math.abs(hr.splitFraction(2048) * 64 - 40.21) < 5e-3);
    });

    it('says whether a HiRoPE token band stays within Split%', () => {
      // ln(128 / 2 pi) / ln(10000) = 0.32726: 7.854 of 24 pairs, so 8 token pairs fit and 9 do not.
      const at = (ratio) => hr.splitBound({ type: 'hirope', ratio, trainingLength: 128 }, 48);
      const within = at(8 / 24);
      assert.ok(Math.abs(within.split - 0.32726) < 5e-6);
      assert.deepEqual(
        { ...within, split: 0 },
        { split: 0, pairs: 24, tokenPairs: 8, maxTokenPairs: 8, maxRatio: 8 / 24, over: false },
      );
      assert.equal(at(9 / 24).over, true);
      assert.throws(() => hr.splitBound('rope', 48), /must be hirope/);
      assert.throws(
        () => hr.splitFraction(Infinity, Infinity),
        /trainingLength must be a positive number/,
      );
      assert.throws(() => hr.splitFraction(4096, 1), /base must be a number > 1/);
    });

    it('rotates queries and keys; far branches differ only beyond the window', () => {
      const n = 10,
        headDim = 8;
      const x = lcg(n * headDim, 4);
      const near = hr.rotate({ x, n, headDim, scheme: 'rope' });
      // token 0 is not rotated; rotation keeps norms
      assert.ok(maxAbsDiff(near.subarray(0, headDim), x.subarray(0, headDim)) < 1e-7);
      const norm = (a, t) => Math.hypot(...a.subarray(t * headDim, (t + 1) * headDim));
      for (let t = 0; t < n; t++) assert.ok(Math.abs(norm(near, t) - norm(x, t)) < 1e-5);
      const far = hr.rotate({
        x,
        n,
        headDim,
        scheme: { type: 'rerope', window: 4 },
        branch: 'far',
        role: 'key',
      });
      assert.ok(maxAbsDiff(far, x) < 1e-7); // ReRoPE's far keys are not rotated
    });

    it('builds seeded and content-free q/k', () => {
      const a = hr.qk({ n: 4, headDim: 6, tokenIds: [7, 8, 7, 9], seed: 5 });
      assert.deepEqual(a.q.subarray(0, 6), a.q.subarray(12, 18));
      assert.notDeepEqual(a.q.subarray(0, 6), a.k.subarray(0, 6));
      const b = hr.qk({ n: 4, headDim: 6, tokenIds: [7, 8, 7, 9], seed: 5 });
      assert.deepEqual(a, b);
      const ones = hr.qk({ source: 'ones', n: 3, headDim: 2 });
      assert.deepEqual(Array.from(ones.q), [1, 1, 1, 1, 1, 1]);
    });

    it('draws a long-term decay curve that falls with distance', () => {
      const d = hr.longTermDecay('rope', 128, 512);
      assert.equal(d.length, 513);
      assert.ok(Math.abs(d[0] - 32.5) < 1e-4);
      assert.ok(d[512] < d[0] / 4);
    });
  });
}

describe('helpers', () => {
  it('segments and scheme normalisation', () => {
    const s = segmentPositions(5, 2);
    assert.deepEqual(Array.from(s.unit), [0, 0, 1, 1, 2]);
    assert.equal(normalizeScheme('rerope').logN, true);
    assert.equal(normalizeScheme('hirope').logN, false);
    assert.equal(normalizeScheme({ type: 'hirope', levels: 3, ratio: 0.5 }).statementRatio, 0.25);
    assert.equal(typeof simdSupported(), 'boolean');
  });
});
