// Attention through the JS API against a plain-JavaScript implementation of the formulas.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, load, lcg, range, maxAbsDiff } from './support/both-builds.mjs';

// RoPE (half layout) or HiRoPE (two bands, window rule of docs/schemes.md §6.3), per element, in
// doubles.
function jsAttention({ q, k, n, d, token, unit, scheme, causal = true, probs = true }) {
  const half = d / 2;
  const tokenPairs = scheme.type === 'hirope' ? Math.floor(scheme.ratio * half + 0.5) : half;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const jmax = causal ? i + 1 : n;
    for (let j = 0; j < n; j++) {
      if (j >= jmax) {
        out[i * n + j] = probs ? 0 : -Infinity;
        continue;
      }
      let s = 0;
      for (let p = 0; p < half; p++) {
        const theta = 10000 ** ((-2 * p) / d);
        let dist = token[i] - token[j];
        if (scheme.type === 'hirope' && p >= tokenPairs && dist >= scheme.window) {
          dist = unit[i] - unit[j] + scheme.window - 1;
        }
        const a = p,
          b = p + half;
        const qa = q[i * d + a],
          qb = q[i * d + b],
          ka = k[j * d + a],
          kb = k[j * d + b];
        s +=
          (qa * ka + qb * kb) * Math.cos(dist * theta) +
          (qa * kb - qb * ka) * Math.sin(dist * theta);
      }
      out[i * n + j] = s / Math.sqrt(d);
    }
    if (probs) {
      let m = -Infinity;
      for (let j = 0; j < jmax; j++) m = Math.max(m, out[i * n + j]);
      let sum = 0;
      for (let j = 0; j < jmax; j++) sum += out[i * n + j] = Math.exp(out[i * n + j] - m);
      for (let j = 0; j < jmax; j++) out[i * n + j] /= sum;
    }
  }
  return out;
}

for (const build of BUILDS) {
  describe(`attention (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it("computes the attention output of 32,768 tokens under a sliding window (each window's average)", () => {
      // It threw a bare number at 32,768 and stopped the module at 65,536: the output held all
      // n x n probabilities at once. With the same q and k at every token, row i >= window weighs
      // v[i - d] by a weight of d alone, so v[j] = j gives i minus one mean distance: a short
      // run's.
      const n = 32768;
      const window = 64;
      const d = 4;
      const q = new Float32Array(n * d);
      const v = new Float32Array(n * d);
      for (let i = 0; i < n; i++) {
        q.set([0.3, -1.2, 0.8, 0.5], i * d);
        v.fill(i, i * d, i * d + d);
      }
      const mask = { type: 'sliding', window };
      const run = (count) =>
        hr.attention({
          q: q.subarray(0, count * d),
          k: q.subarray(0, count * d),
          v: v.subarray(0, count * d),
          n: count,
          headDim: d,
          mask,
        });
      const short = run(window);
      const meanDistance = window - 1 - short[(window - 1) * d];
      const out = run(n);
      assert.equal(out.length, n * d);
      let worst = 0;
      for (let i = window; i < n; i++)
        worst = Math.max(worst, Math.abs(out[i * d + 3] - (i - meanDistance)));
      assert.ok(worst < 0.1, `worst |difference| ${worst}`);
    });

    it('reports the build it runs', () => {
      assert.equal(hr.backend, build.name);
      assert.equal(hr.kernel, build.simd ? 'wasm-simd128' : 'scalar');
    });

    it('matches a plain-JS RoPE and HiRoPE on random q/k', () => {
      const n = 45,
        d = 16;
      const q = lcg(n * d, 1),
        k = lcg(n * d, 2);
      const token = range(n);
      const unit = Int32Array.from(token, (t) => Math.floor(t / 6));
      for (const scheme of [{ type: 'rope' }, { type: 'hirope', ratio: 0.5, window: 5 }]) {
        for (const output of ['logits', 'probs']) {
          const got = hr.attention({
            q,
            k,
            n,
            headDim: d,
            positions: { token, unit },
            scheme,
            output,
          });
          const want = jsAttention({ q, k, n, d, token, unit, scheme, probs: output === 'probs' });
          assert.ok(
            maxAbsDiff(got, want) < 2e-5,
            `${scheme.type} ${output}: ${maxAbsDiff(got, want)}`,
          );
        }
      }
    });

    it('agrees across its tiled and reference kernels', () => {
      const n = 33,
        d = 24,
        heads = 3;
      const q = lcg(n * d * heads, 5),
        k = lcg(n * d * heads, 6),
        v = lcg(n * d * heads, 7);
      for (const scheme of [
        'rope',
        'alibi',
        { type: 'self-extend', window: 4, group: 3 },
        { type: 'hirope', window: 4, segmentSize: 5 },
      ]) {
        for (const output of ['probs', 'values']) {
          const args = { q, k, v, n, headDim: d, heads, scheme, output };
          const ref = hr.attention({ ...args, kernel: 'reference' });
          const got = hr.attention({ ...args, kernel: 'tiled' });
          assert.ok(maxAbsDiff(got, ref) < 2e-5, `${JSON.stringify(scheme)} ${output} tiled`);
          // Eigen's products are the reference kernel's only; they are no kernel choice.
          assert.throws(
            () => hr.attention({ ...args, kernel: 'eigen' }),
            /kernel must be one of 'tiled', 'reference'/,
          );
        }
      }
    });

    it('probabilities sum to one with the causal mask at zero', () => {
      const n = 50,
        d = 8;
      const { q, k } = hr.qk({ n, headDim: d, seed: 3 });
      const p = hr.attention({ q, k, n, headDim: d, scheme: { type: 'rerope', window: 7 } });
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let j = 0; j < n; j++) {
          if (j > i) assert.equal(p[i * n + j], 0);
          sum += p[i * n + j];
        }
        assert.ok(Math.abs(sum - 1) < 1e-5);
      }
      const logits = hr.attention({ q, k, n, headDim: d, output: 'logits' });
      assert.equal(logits[1], -Infinity);
      const full = hr.attention({ q, k, n, headDim: d, causal: false });
      assert.ok(full[1] > 0);
    });

    it('computes the attention output with v', () => {
      const n = 20,
        d = 8;
      const q = lcg(n * d, 11),
        k = lcg(n * d, 12),
        v = lcg(n * d, 13);
      const probs = hr.attention({ q, k, n, headDim: d });
      const out = hr.attention({ q, k, v, n, headDim: d });
      assert.equal(out.length, n * d);
      const want = new Float64Array(n * d);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++)
          for (let c = 0; c < d; c++) want[i * d + c] += probs[i * n + j] * v[j * d + c];
      assert.ok(maxAbsDiff(out, want) < 1e-5);
    });

    it('lays heads out head-major and gives ALiBi one slope per head', () => {
      const n = 12,
        d = 4,
        heads = 3;
      const { q, k } = hr.qk({ source: 'ones', n, headDim: d, heads });
      const logits = hr.attention({
        q,
        k,
        n,
        headDim: d,
        heads,
        scheme: 'alibi',
        output: 'logits',
      });
      assert.equal(logits.length, heads * n * n);
      const slopes = hr.alibiSlopes(heads);
      for (let h = 0; h < heads; h++) {
        // all-ones q.k = d, scaled by 1/sqrt(d), minus slope * distance
        const expected = d / Math.sqrt(d) - slopes[h] * 11;
        assert.ok(Math.abs(logits[h * n * n + 11 * n + 0] - expected) < 1e-5);
      }
    });

    it('gives the same numbers in both builds', async () => {
      const other = await load(!build.simd);
      const n = 77,
        d = 32;
      const { q, k } = hr.qk({ n, headDim: d, seed: 9 });
      const scheme = {
        type: 'hirope',
        window: 10,
        segmentSize: 8,
        scaling: { type: 'yarn', factor: 4, originalLength: 32 },
      };
      const a = hr.attention({ q, k, n, headDim: d, scheme });
      const b = other.attention({ q, k, n, headDim: d, scheme });
      assert.ok(maxAbsDiff(a, b) < 1e-6);
    });
  });
}
