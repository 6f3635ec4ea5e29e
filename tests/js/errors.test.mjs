// Bad input: a HiRoPEError that names the argument, before any large allocation; no heap growth.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init, { HiRoPEError } from '../../dist/index.js';
import { BUILDS, load, range } from './builds.mjs';

function throwsNaming(fn, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof HiRoPEError, `expected HiRoPEError, got ${e && e.name}: ${e && e.message}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'HiRoPEError');
    assert.match(e.message, pattern);
    return true;
  });
}

for (const build of BUILDS) {
  describe(`errors (${build.name})`, () => {
    let hr, q, k;
    const n = 8, headDim = 4;
    before(async () => {
      hr = await load(build.simd);
      ({ q, k } = hr.qk({ n, headDim, seed: 1 }));
    });
    const base = () => ({ q, k, n, headDim });

    it('mismatched array lengths', () => {
      throwsNaming(() => hr.attention({ ...base(), q: q.subarray(1) }), /^q has length 31, expected n \* heads \* headDim = 32/);
      throwsNaming(() => hr.attention({ ...base(), k: new Float32Array(3) }), /^k has length 3/);
      throwsNaming(() => hr.attention({ ...base(), v: new Float32Array(5) }), /^v has length 5/);
      throwsNaming(() => hr.attention({ ...base(), q: Array.from(q) }), /^q must be a Float32Array, got an array/);
      throwsNaming(() => hr.attention({ ...base(), positions: new Int32Array(3) }), /^positions has length 3, expected n = 8/);
      throwsNaming(() => hr.attention({ ...base(), positions: { token: range(8), unit: range(2) }, scheme: 'hirope' }), /^positions.unit has length 2/);
      throwsNaming(() => hr.attention({ ...base(), heads: 2 }), /^q has length 32, expected n \* heads \* headDim = 64/);
    });

    it('headDim odd or zero, n = 0, bad heads', () => {
      throwsNaming(() => hr.attention({ ...base(), headDim: 3 }), /^headDim must be a positive even integer, got 3/);
      throwsNaming(() => hr.attention({ ...base(), headDim: 0 }), /^headDim must be at least 1, got 0/);
      throwsNaming(() => hr.attention({ ...base(), n: 0 }), /^n must be at least 1, got 0/);
      throwsNaming(() => hr.attention({ ...base(), n: 2.5 }), /^n must be an integer/);
      throwsNaming(() => hr.attention({ ...base(), heads: 0 }), /^heads must be at least 1/);
    });

    it('NaN or Infinity values', () => {
      const bad = q.slice();
      bad[6] = NaN;
      throwsNaming(() => hr.attention({ ...base(), q: bad }), /^q contains a non-finite value \(NaN\) at index 6/);
      const inf = k.slice();
      inf[0] = -Infinity;
      throwsNaming(() => hr.attention({ ...base(), k: inf }), /^k contains a non-finite value \(Infinity\) at index 0/);
      throwsNaming(() => hr.rotate({ x: bad, n, headDim }), /^x contains a non-finite value/);
      throwsNaming(() => hr.attention({ ...base(), scale: NaN }), /^scale must be a positive finite number/);
    });

    it('window < 1, ratio outside [0, 1], unknown names and keys', () => {
      const pos = { token: range(8), unit: range(8) };
      throwsNaming(() => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', window: 0 } }), /^scheme.window must be an integer >= 1, got 0/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rerope', window: 1.5 } }), /^scheme.window must be an integer, got 1.5/);
      throwsNaming(() => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: 1.2 } }), /^scheme.ratio must be in \[0, 1\], got 1.2/);
      throwsNaming(() => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: -0.5 } }), /^scheme.ratio must be in \[0, 1\]/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'roap' } }), /^scheme.type must be one of 'nope', .*got 'roap'/);
      throwsNaming(() => hr.attention({ ...base(), scheme: 'hirop' }), /^scheme.type must be one of/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rope', scaling: { type: 'yarnn' } } }), /^scheme.scaling.type must be one of/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rope', windw: 2 } }), /unknown key 'windw'/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rope', layout: 'neox' } }), /^scheme.layout must be one of 'interleaved', 'half'/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rope', scaling: { type: 'yarn', factor: 4 } } }), /^scheme.scaling.originalLength must be/);
      throwsNaming(() => hr.attention({ ...base(), scheme: { type: 'rope', base: '10000' } }), /^scheme.base must be a number, got '10000'/);
      throwsNaming(() => hr.attention({ ...base(), scheme: 'hirope' }), /^positions.unit is required/);
      throwsNaming(() => hr.attention({ ...base(), scheme: 'hirope', causal: false, positions: pos }), /causal/);
      throwsNaming(() => hr.attention({ ...base(), output: 'prob' }), /^output must be 'logits', 'probs' or 'values'/);
      throwsNaming(() => hr.attention({ ...base(), output: 'values' }), /needs v/);
      throwsNaming(() => hr.attention({ ...base(), kernel: 'gpu' }), /^kernel must be one of/);
    });

    it('sizes over the documented limits fail before allocating', () => {
      const big = 20000; // 20000^2 floats = 1.6 GB: over maxOutputElements
      const small = new Float32Array(4);
      throwsNaming(() => hr.attention({ q: small, k: small, n: big, headDim: 2 }), /^q has length 4/);
      const huge = { length: big * 2 };
      throwsNaming(() => hr.attention({ q: huge, k: huge, n: big, headDim: 2 }), /^q must be a Float32Array/);
      throwsNaming(() => hr.attention({ q: small, k: small, n: hr.limits.maxTokens + 1, headDim: 2 }), /^n must be at most 65536/);
      // Exact shape, output too large: checked before any output is allocated.
      const n2 = 16385, qk = new Float32Array(n2 * 2);
      const before = hr.heapBytes();
      throwsNaming(() => hr.attention({ q: qk, k: qk, n: n2, headDim: 2 }), /exceeds the output limit of 268435456 elements/);
      throwsNaming(() => hr.relativeDistances({ n: n2, headDim: 2 }), /exceeds the output limit/);
      assert.equal(hr.heapBytes(), before);
    });

    it('logit overflow is reported, not returned as NaN', () => {
      const hugeQ = new Float32Array(n * headDim).fill(3e38);
      throwsNaming(() => hr.attention({ q: hugeQ, k: hugeQ, n, headDim }), /overflow/);
    });

    it('the heap does not grow across 10,000 calls, failing ones included', () => {
      const pos = { token: range(8), unit: range(8) };
      for (let i = 0; i < 50; i++) hr.attention({ ...base(), positions: pos, scheme: 'hirope' });
      const before = hr.heapBytes();
      const bad = q.slice();
      bad[0] = NaN;
      for (let i = 0; i < 10000; i++) {
        hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', window: 3 } });
        if (i % 10 === 0) {
          assert.throws(() => hr.attention({ ...base(), q: bad }));
          assert.throws(() => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: 3 } }));
          hr.relativeDistances({ n, headDim, positions: pos, scheme: 'hirope' });
          hr.rotate({ x: q, n, headDim, scheme: 'xpos' });
        }
      }
      assert.equal(hr.heapBytes(), before);
    });
  });
}

describe('init', () => {
  it('loads the core module without analysis', async () => {
    const core = await init({ analysis: false, simd: false });
    assert.equal(core.hasAnalysis, false);
    assert.deepEqual(core.languages, []);
    assert.throws(() => core.analyze('x', { language: 'c' }), /code analysis is not in this build/);
    const { q, k } = core.qk({ n: 4, headDim: 2 });
    assert.equal(core.attention({ q, k, n: 4, headDim: 2 }).length, 16);
  });

  it('rejects unknown options', async () => {
    await assert.rejects(init({ simdd: true }), (e) => e instanceof HiRoPEError && /unknown key 'simdd'/.test(e.message));
    await assert.rejects(init({ simd: 'yes' }), (e) => e instanceof HiRoPEError && /options.simd must be a boolean/.test(e.message));
  });
});
