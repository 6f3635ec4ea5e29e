// Bad input: a HiRoPEError that names the argument, before any large allocation; no heap growth.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init, { HiRoPEError } from '../../dist/index.js';
import { utf8Length } from '../../dist/marshal.js';
import { BUILDS, load, range } from './support/both-builds.mjs';

function throwsNaming(fn, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof HiRoPEError, `expected HiRoPEError, got ${e?.name}: ${e?.message}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'HiRoPEError');
    assert.match(e.message, pattern);
    return true;
  });
}

for (const build of BUILDS) {
  describe(`errors (${build.name})`, () => {
    let hr, q, k;
    const n = 8,
      headDim = 4;
    before(async () => {
      hr = await load(build.simd);
      ({ q, k } = hr.qk({ n, headDim, seed: 1 }));
    });
    const base = () => ({ q, k, n, headDim });

    it('mismatched array lengths', () => {
      throwsNaming(
        () => hr.attention({ ...base(), q: q.subarray(1) }),
        /^q has length 31, expected n \* heads \* headDim = 32/,
      );
      throwsNaming(() => hr.attention({ ...base(), k: new Float32Array(3) }), /^k has length 3/);
      throwsNaming(() => hr.attention({ ...base(), v: new Float32Array(5) }), /^v has length 5/);
      throwsNaming(
        () => hr.attention({ ...base(), q: Array.from(q) }),
        /^q must be a Float32Array, got an array/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), positions: new Int32Array(3) }),
        /^positions has length 3, expected n = 8/,
      );
      throwsNaming(
        () =>
          hr.attention({
            ...base(),
            positions: { token: range(8), unit: range(2) },
            scheme: 'hirope',
          }),
        /^positions.unit has length 2/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), heads: 2 }),
        /^q has length 32, expected n \* heads \* headDim = 64/,
      );
    });

    it('headDim odd or zero, n = 0, bad heads', () => {
      throwsNaming(
        () => hr.attention({ ...base(), headDim: 3 }),
        /^headDim must be a positive even integer, got 3/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), headDim: 0 }),
        /^headDim must be at least 1, got 0/,
      );
      throwsNaming(() => hr.attention({ ...base(), n: 0 }), /^n must be at least 1, got 0/);
      throwsNaming(() => hr.attention({ ...base(), n: 2.5 }), /^n must be an integer/);
      throwsNaming(() => hr.attention({ ...base(), heads: 0 }), /^heads must be at least 1/);
    });

    it('NaN or Infinity values', () => {
      const bad = q.slice();
      bad[6] = NaN;
      throwsNaming(
        () => hr.attention({ ...base(), q: bad }),
        /^q contains a non-finite value \(NaN\) at index 6/,
      );
      const inf = k.slice();
      inf[0] = -Infinity;
      throwsNaming(
        () => hr.attention({ ...base(), k: inf }),
        /^k contains a non-finite value \(Infinity\) at index 0/,
      );
      throwsNaming(() => hr.rotate({ x: bad, n, headDim }), /^x contains a non-finite value/);
      throwsNaming(
        () => hr.attention({ ...base(), scale: NaN }),
        /^scale must be a positive finite number/,
      );
    });

    it('window < 1, ratio outside [0, 1], unknown names and keys', () => {
      const pos = { token: range(8), unit: range(8) };
      throwsNaming(
        () => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', window: 0 } }),
        /^scheme.window must be an integer >= 1, got 0/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'rerope', window: 1.5 } }),
        /^scheme.window must be an integer, got 1.5/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: 1.2 } }),
        /^scheme.ratio must be in \[0, 1\], got 1.2/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: -0.5 } }),
        /^scheme.ratio must be in \[0, 1\]/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'roap' } }),
        /^scheme.type must be one of 'nope', .*got 'roap'/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: 'hirop' }),
        /^scheme.type must be one of/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'rope', scaling: { type: 'yarnn' } } }),
        /^scheme.scaling.type must be one of/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'rope', windw: 2 } }),
        /unknown key 'windw'/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'rope', layout: 'neox' } }),
        /^scheme.layout must be one of 'interleaved', 'half'/,
      );
      throwsNaming(
        () =>
          hr.attention({
            ...base(),
            scheme: { type: 'rope', scaling: { type: 'yarn', factor: 4 } },
          }),
        /^scheme.scaling.originalLength must be/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: { type: 'rope', base: '10000' } }),
        /^scheme.base must be a number, got '10000'/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: 'hirope' }),
        /^positions.unit is required/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), scheme: 'hirope', causal: false, positions: pos }),
        /^scheme 'hirope' is a windowed scheme, defined for causal attention: leave causal on$/,
      );
      throwsNaming(
        () => hr.attention({ ...base(), output: 'prob' }),
        /^output must be 'logits', 'probs' or 'values'/,
      );
      throwsNaming(() => hr.attention({ ...base(), output: 'values' }), /needs v/);
      throwsNaming(() => hr.attention({ ...base(), kernel: 'gpu' }), /^kernel must be one of/);
    });

    it('sizes over the documented limits fail before allocating', () => {
      const big = 20000; // 20000^2 floats = 1.6 GB: over maxOutputElements
      const small = new Float32Array(4);
      throwsNaming(
        () => hr.attention({ q: small, k: small, n: big, headDim: 2 }),
        /^q has length 4/,
      );
      const huge = { length: big * 2 };
      throwsNaming(
        () => hr.attention({ q: huge, k: huge, n: big, headDim: 2 }),
        /^q must be a Float32Array/,
      );
      throwsNaming(
        () => hr.attention({ q: small, k: small, n: hr.limits.maxTokens + 1, headDim: 2 }),
        /^n must be at most 65536/,
      );
      // Exact shape, output too large: checked before any output is allocated.
      const n2 = 16385,
        qk = new Float32Array(n2 * 2);
      const before = hr.heapBytes();
      throwsNaming(
        () => hr.attention({ q: qk, k: qk, n: n2, headDim: 2 }),
        /exceeds the output limit of 268435456 elements/,
      );
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
          assert.throws(
            () => hr.attention({ ...base(), q: bad }),
            (e) =>
              e instanceof HiRoPEError &&
              e.message === 'q contains a non-finite value (NaN) at index 0',
          );
          assert.throws(
            () => hr.attention({ ...base(), positions: pos, scheme: { type: 'hirope', ratio: 3 } }),
            (e) =>
              e instanceof HiRoPEError && e.message === 'scheme.ratio must be in [0, 1], got 3',
          );
          hr.relativeDistances({ n, headDim, positions: pos, scheme: 'hirope' });
          hr.rotate({ x: q, n, headDim, scheme: 'xpos' });
        }
      }
      assert.equal(hr.heapBytes(), before);
    });
  });
}

// The adversarial review's findings, one test each: arguments read once before they are checked,
// sizes checked before allocating, null options, enumerations and integers as given.
for (const build of BUILDS) {
  describe(`hardening (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
      await hr.loadTokenizer('cl100k');
    });
    const resizable = (bytes) => new ArrayBuffer(bytes, { maxByteLength: bytes });

    it('reads each option once, before the checks: a getter that shrinks a buffer is seen, not missed', () => {
      const before = hr.heapBytes();
      // x shrunk by a getter read after n and headDim: the new length is checked, no RuntimeError.
      const ab = resizable(2048 * 1024 * 4);
      const x = new Float32Array(ab);
      throwsNaming(
        () =>
          hr.rotate({
            x,
            n: 2048,
            headDim: 1024,
            get positions() {
              ab.resize(4 << 20);
              return undefined;
            },
          }),
        /^x has length 1048576, expected n \* heads \* headDim = 2097152$/,
      );
      // q shrunk inside the out getter; positions.unit shrunk inside the pool getter.
      const n = 8,
        headDim = 4;
      const { q, k } = hr.qk({ n, headDim, seed: 3 });
      const qb = resizable(q.byteLength);
      const rq = new Float32Array(qb);
      rq.set(q);
      throwsNaming(
        () =>
          hr.attention({
            q: rq,
            k,
            n,
            headDim,
            get out() {
              qb.resize(8);
              return undefined;
            },
          }),
        /^q has length 2, expected/,
      );
      const ub = resizable(n * 4);
      const unit = new Int32Array(ub);
      throwsNaming(
        () =>
          hr.attention({
            q,
            k,
            n,
            headDim,
            scheme: 'hirope',
            positions: { token: range(n), unit },
            get pool() {
              ub.resize(4);
              return undefined;
            },
          }),
        /^positions.unit has length 1, expected n = 8$/,
      );
      assert.equal(hr.heapBytes(), before);
    });

    it("takes a copy of arrays whose buffer can be resized, and uses the engine's own lengths", () => {
      const n = 8,
        headDim = 4;
      const { q, k } = hr.qk({ n, headDim, seed: 4 });
      const want = hr.attention({ q, k, n, headDim });
      const qb = resizable(q.byteLength);
      const rq = new Float32Array(qb);
      rq.set(q);
      assert.deepEqual(hr.attention({ q: rq, k, n, headDim }), want);
      if (typeof SharedArrayBuffer === 'function') {
        const sab = new SharedArrayBuffer(q.byteLength, { maxByteLength: 2 * q.byteLength });
        const sq = new Float32Array(sab); // length-tracking
        sq.set(q);
        assert.deepEqual(hr.attention({ q: sq, k, n, headDim }), want);
      }
      // An own `length` (or a Proxy) cannot lie about a typed array.
      const short = q.slice(1);
      Object.defineProperty(short, 'length', { get: () => n * headDim });
      throwsNaming(() => hr.attention({ q: short, k, n, headDim }), /^q has length 31, expected/);
      throwsNaming(
        () => hr.attention({ q: new Proxy(q, {}), k, n, headDim }),
        /^q must be a Float32Array, got an object/,
      );
      // out on a resizable buffer is written in place.
      const ob = resizable(n * n * 4);
      const out = new Float32Array(ob);
      assert.equal(hr.attention({ q, k, n, headDim, out }), out);
      assert.deepEqual(Array.from(out), Array.from(want));
    });

    it('reads a Proxy of positions once per element, before anything is copied', () => {
      const n = 8,
        headDim = 4;
      const { q, k } = hr.qk({ n, headDim, seed: 5 });
      const reads = new Map();
      const proxy = new Proxy(Array.from(range(n)), {
        get(target, key, receiver) {
          reads.set(key, (reads.get(key) ?? 0) + 1);
          return Reflect.get(target, key, receiver);
        },
      });
      const want = hr.attention({ q, k, n, headDim, positions: range(n) });
      assert.deepEqual(hr.attention({ q, k, n, headDim, positions: proxy }), want);
      for (const [key, count] of reads)
        assert.equal(count, 1, `positions[${String(key)}] read ${count} times`);
      // Options are read once each, getters included.
      let gets = 0;
      const args = { q, k, n, headDim };
      Object.defineProperty(args, 'scheme', {
        enumerable: true,
        get: () => {
          gets++;
          return {
            type: 'rope',
            get base() {
              gets++;
              return 500;
            },
          };
        },
      });
      hr.attention(args);
      assert.equal(gets, 2);
    });

    it('checks list lengths before converting them (LongRoPE factors)', () => {
      let elementReads = 0;
      const huge = new Proxy(new Array(1e7).fill(1), {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) elementReads++;
          return Reflect.get(target, key, receiver);
        },
      });
      const scheme = (shortFactor) => ({
        type: 'rope',
        scaling: {
          type: 'longrope',
          factor: 2,
          originalLength: 8,
          shortFactor,
          longFactor: [1, 1, 1, 1],
        },
      });
      const before = hr.heapBytes();
      throwsNaming(
        () => hr.bands(scheme(huge), 8),
        /^scheme.scaling.shortFactor has 10000000 entries, more than rotaryDim\/2 can be \(at most 512\)$/,
      );
      throwsNaming(
        () => hr.inverseFrequencies(scheme(new Float64Array(1e7)), 8),
        /^scheme.scaling.shortFactor has 10000000 entries/,
      );
      assert.equal(elementReads, 0); // refused from the length alone: not one element read
      assert.equal(hr.heapBytes(), before);
      assert.equal(hr.inverseFrequencies(scheme([1, 1, 1, 1]), 8).length, 4);
    });

    it('counts UTF-8 bytes before allocating text', () => {
      const before = hr.heapBytes();
      const limit = hr.limits.maxSourceBytes; // 16 MiB: fewer characters than that, more bytes
      const grouped = (n) => n.toLocaleString('en-US');
      throwsNaming(
        () => hr.analyze('日'.repeat(6e6), { language: 'python' }),
        new RegExp(
          `^code is 18,000,000 bytes of UTF-8, over the limit of ${grouped(limit)} bytes$`,
        ),
      );
      throwsNaming(
        () => hr.encode('\u{1F600}'.repeat(4.5e6)),
        new RegExp(
          `^text is 18,000,000 bytes of UTF-8, over the limit of ${grouped(limit)} bytes$`,
        ),
      );
      throwsNaming(
        () => hr.analyze('x'.repeat(limit + 1), { language: 'python' }),
        new RegExp(
          `^code has ${grouped(limit + 1)} characters, over the limit of ${grouped(limit)} bytes of UTF-8 \\(a character is one byte or more\\)$`,
        ),
      );
      // A 5 MB config: characters and bytes kept apart, numbers grouped.
      throwsNaming(
        () => hr.fromConfig(JSON.stringify({ model_type: 'llama', pad: 'x'.repeat(5e6) })),
        /^config has 5,000,031 characters, over the limit of 1,048,576 bytes of UTF-8 \(a character is one byte or more\)$/,
      );
      assert.equal(hr.heapBytes(), before);
      // Lone surrogates are 3 bytes (U+FFFD), as TextEncoder writes them; pairs are 4.
      const code = 'x = "\uD800\u{1F600}\uDC00\uDBFF"';
      assert.equal(
        hr.analyze(code, { language: 'python' }).tokens.byteEnd.at(-1),
        new TextEncoder().encode(code).length,
      );
      for (const s of [
        '',
        'a',
        'é',
        '日',
        '\u{1F600}',
        '\uD800',
        '\uDC00',
        '\uDC00\uD800',
        '\uD800x',
        'x\uDBFF',
        code,
      ]) {
        assert.equal(utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
      }
    });

    it('null, arrays and numbers as options are HiRoPEErrors; undefined means the defaults', async () => {
      const bad = [null, [], 3, 'x'];
      for (const o of bad) {
        const got =
          o === null ? 'null' : Array.isArray(o) ? 'an array' : typeof o === 'string' ? "'x'" : '3';
        const re = new RegExp(`^options must be an object, got ${got}$`);
        throwsNaming(() => hr.inverseFrequencies('rope', 8, o), re);
        throwsNaming(() => hr.attentionFactor('rope', 8, o), re);
        throwsNaming(() => hr.qk(o), re);
        throwsNaming(() => hr.encode('x', o), re);
        throwsNaming(() => hr.parse('x', o), re);
        throwsNaming(() => hr.analyze('x', o), re);
        throwsNaming(() => hr.attention(o), re);
        throwsNaming(() => hr.rotate(o), re);
        throwsNaming(() => hr.relativeDistances(o), re);
        throwsNaming(() => hr.pool(o), new RegExp(`^pool ${re.source.slice(1)}`));
        await assert.rejects(
          hr.loadTokenizer('cl100k', o),
          (e) => e instanceof HiRoPEError && re.test(e.message),
        );
        await assert.rejects(
          hr.model.load(o),
          (e) => e instanceof HiRoPEError && re.test(e.message),
        );
      }
      assert.equal(hr.inverseFrequencies('rope', 8, undefined).length, 4);
      assert.equal(hr.qk({ n: 2, headDim: 2 }).q.length, 4);
      assert.ok(hr.encode('x', undefined) instanceof Int32Array);
      throwsNaming(() => hr.qk(), /^n must be an integer, got undefined$/);
      throwsNaming(() => hr.attention(), /^options must be an object, got undefined$/);
    });

    it('looks enumerations up by own name only, and reports integers as given', () => {
      const n = 8,
        headDim = 4;
      const { q, k } = hr.qk({ n, headDim });
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        throwsNaming(
          () => hr.attention({ q, k, n, headDim, kernel: name }),
          /^kernel must be one of/,
        );
        throwsNaming(
          () => hr.attention({ q, k, n, headDim, scheme: { type: 'rope', layout: name } }),
          /^scheme.layout must be one of/,
        );
        throwsNaming(
          () => hr.attention({ q, k, n, headDim, scheme: name }),
          /^scheme.type must be one of/,
        );
        throwsNaming(() => hr.rotate({ x: q, n, headDim, role: name }), /^role must be one of/);
        throwsNaming(
          () => hr.analyze('x', { language: 'python', gap: name }),
          /^options.gap must be one of/,
        );
        throwsNaming(
          () => hr.analyze('x', { language: 'python', hierarchy: name }),
          /^options.hierarchy must be one of/,
        );
        throwsNaming(() => hr.analyze('x', { language: name }), /^language must be one of/);
      }
      throwsNaming(
        () => hr.bands({ type: 'hirope', levels: 4294967298 }, 8),
        /^scheme.levels must be 2 or 3, got 4294967298$/,
      );
      throwsNaming(
        () => hr.bands({ type: 'hirope', window: 2 ** 41 }, 8),
        /^scheme.window is too large: 2199023255552$/,
      );
      throwsNaming(
        () => hr.bands({ type: 'hirope', window: -(2 ** 33) }, 8),
        /^scheme.window must be an integer >= 1, got -8589934592$/,
      );
      throwsNaming(
        () => hr.attention({ q, k, n, headDim, positions: [0, 1, 2, 3, 4, 5, 6, 2 ** 32] }),
        /^positions\[7\] must be a 32-bit integer, got 4294967296$/,
      );
      throwsNaming(
        () => hr.qk({ n: 2, headDim: 2, tokenIds: [0, NaN] }),
        /^tokenIds\[1\] must be a 32-bit integer, got NaN$/,
      );
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
    await assert.rejects(
      init({ simdd: true }),
      (e) => e instanceof HiRoPEError && /unknown key 'simdd'/.test(e.message),
    );
    await assert.rejects(
      init({ simd: 'yes' }),
      (e) => e instanceof HiRoPEError && /options.simd must be a boolean/.test(e.message),
    );
  });
});
