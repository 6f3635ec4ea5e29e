// One layer of a real model through hr.attention: its mask (full, sliding, chunked), sinks, query
// temperature, softmax scale and logit soft-cap, against a plain-JavaScript reference written from
// transformers' definitions (masking_utils.py: masks by cache position; modeling_llama4.py: the
// temperature of the query's position; modeling_gemma2.py: softcap * tanh(x / softcap) before the
// mask), on both builds; the options' errors; and gallery layers from hr.fromConfig.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BUILDS, load, lcg, maxAbsDiff } from './support/both-builds.mjs';
import { HiRoPEError } from '../../dist/index.js';
import { logitsParams, softmaxParams } from '../../dist/webgpu.js';

// Logits (masked -Infinity) or probabilities (masked 0) of every head, heads x n x n, in doubles,
// for tokens at positions pos (default 0 .. n-1). RoPE, when asked, by hand: half layout,
// theta_j = 10000^(-2j/d).
function jsLayer({
  q,
  k,
  n,
  d,
  heads,
  rope,
  mask,
  sinks,
  temperature,
  probs,
  pos,
  scale,
  softcap,
}) {
  const width = d * heads;
  const at = (i) => (pos ? pos[i] : i);
  const seen = (i, j) =>
    j <= i &&
    at(j) <= at(i) &&
    (mask.type === 'sliding'
      ? at(i) - at(j) < mask.window
      : mask.type === 'chunked'
        ? Math.floor(at(i) / mask.chunkSize) === Math.floor(at(j) / mask.chunkSize)
        : true);
  const factor = (i) =>
    temperature
      ? 1 +
        temperature.scale *
          Math.log(Math.floor((at(i) + temperature.offset) / temperature.floorScale) + 1)
      : 1;
  const out = new Float64Array(heads * n * n);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < n; i++) {
      const row = new Float64Array(n).fill(-Infinity);
      for (let j = 0; j < n; j++) {
        if (!seen(i, j)) continue;
        let s = 0;
        if (rope) {
          for (let p = 0; p < d / 2; p++) {
            const angle = (at(i) - at(j)) * 10000 ** ((-2 * p) / d);
            const [a, b] = [h * d + p, h * d + p + d / 2];
            const [qa, qb, ka, kb] = [
              q[i * width + a],
              q[i * width + b],
              k[j * width + a],
              k[j * width + b],
            ];
            s += (qa * ka + qb * kb) * Math.cos(angle) + (qa * kb - qb * ka) * Math.sin(angle);
          }
        } else {
          for (let e = 0; e < d; e++) s += q[i * width + h * d + e] * k[j * width + h * d + e];
        }
        const x = factor(i) * s * (scale ?? 1 / Math.sqrt(d));
        row[j] = softcap ? softcap * Math.tanh(x / softcap) : x;
      }
      if (probs) {
        const sink = sinks ? sinks[h] : -Infinity;
        const m = Math.max(sink, ...row);
        let sum = sinks ? Math.exp(sink - m) : 0;
        for (let j = 0; j < n; j++) if (seen(i, j)) sum += Math.exp(row[j] - m);
        for (let j = 0; j < n; j++) row[j] = seen(i, j) ? Math.exp(row[j] - m) / sum : 0;
      }
      out.set(row, (h * n + i) * n);
    }
  }
  return out;
}

const n = 29;
const d = 8;
const heads = 2;
const q = lcg(n * d * heads, 7);
const k = lcg(n * d * heads, 8);
const SINKS = [0.5, -1.25];
const TEMPERATURE = { floorScale: 4, scale: 0.3, offset: 1 };
const MASKS = [
  { type: 'full' },
  { type: 'sliding', window: 1 },
  { type: 'sliding', window: 6 },
  { type: 'sliding', window: n + 10 },
  { type: 'chunked', chunkSize: 1 },
  { type: 'chunked', chunkSize: 8 },
  { type: 'chunked', chunkSize: n },
];

for (const build of BUILDS) {
  describe(`layer attention (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it('masks, sinks and temperature match the plain reference, both kernels', () => {
      for (const mask of MASKS)
        for (const sinks of [undefined, SINKS])
          for (const temperature of [undefined, TEMPERATURE])
            for (const rope of [false, true])
              for (const kernel of ['tiled', 'reference'])
                for (const output of ['logits', 'probs']) {
                  const got = hr.attention({
                    q,
                    k,
                    n,
                    headDim: d,
                    heads,
                    scheme: rope ? 'rope' : 'nope',
                    mask,
                    sinks: sinks && Float32Array.from(sinks),
                    temperature,
                    kernel,
                    output,
                  });
                  const want = jsLayer({
                    q,
                    k,
                    n,
                    d,
                    heads,
                    rope,
                    mask,
                    sinks,
                    temperature,
                    probs: output === 'probs',
                  });
                  const what = JSON.stringify({ mask, sinks, temperature, rope, kernel, output });
                  assert.ok(maxAbsDiff(got, want) < (output === 'probs' ? 1e-5 : 1e-4), what);
                }
    });

    it('masks and the temperature follow the positions; the scale and the soft-cap', () => {
      const from = (start, stride) => Int32Array.from({ length: n }, (_, i) => start + i * stride);
      const cases = [
        // A Llama-4-style chunked layer at positions 20,000.. (a boundary at 20,032 inside).
        { pos: from(20000, 1), mask: { type: 'chunked', chunkSize: 32 } },
        {
          pos: from(20000, 1),
          mask: { type: 'chunked', chunkSize: 32 },
          temperature: { floorScale: 20010, scale: 0.1, offset: 1 },
          rope: false,
        },
        // Ministral 3's temperature (offset 0) from 32,750: its factor steps at 32,768.
        { pos: from(32750, 1), temperature: { floorScale: 16384, scale: 0.1, offset: 0 } },
        // Spread-out positions: a window and a chunk the stride does not divide.
        { pos: from(5, 7), mask: { type: 'sliding', window: 20 }, sinks: SINKS },
        { pos: from(5, 7), mask: { type: 'chunked', chunkSize: 50 } },
        // Gemma 2: query_pre_attn_scalar's scale and the soft-cap, with a window.
        { scale: 0.9, softcap: 3, mask: { type: 'sliding', window: 9 } },
        { pos: from(100, 3), scale: 0.9, softcap: 3 },
      ];
      for (const c of cases)
        for (const kernel of ['tiled', 'reference'])
          for (const output of ['logits', 'probs']) {
            const rope = c.rope ?? true;
            const mask = c.mask ?? { type: 'full' };
            const got = hr.attention({
              q,
              k,
              n,
              headDim: d,
              heads,
              positions: c.pos && { token: c.pos },
              scheme: rope ? 'rope' : 'nope',
              mask,
              sinks: c.sinks,
              temperature: c.temperature,
              scale: c.scale,
              softcap: c.softcap,
              kernel,
              output,
            });
            const want = jsLayer({
              ...c,
              q,
              k,
              n,
              d,
              heads,
              rope,
              mask,
              probs: output === 'probs',
            });
            const what = JSON.stringify({ ...c, pos: c.pos?.[0], kernel, output });
            assert.ok(maxAbsDiff(got, want) < (output === 'probs' ? 1e-5 : 1e-4), what);
          }
      // Positions that go back under a mask, and negative ones under a temperature, are refused.
      const back = from(0, 1);
      back[5] = 2;
      assert.throws(
        () =>
          hr.attention({
            q,
            k,
            n,
            headDim: d,
            heads,
            positions: { token: back },
            mask: { type: 'sliding', window: 4 },
          }),
        (e) =>
          e instanceof HiRoPEError &&
          /positions\.token\[5\] = 2 comes after 4/.test(e.message) &&
          /must not decrease/.test(e.message),
      );
      assert.throws(
        () =>
          hr.attention({
            q,
            k,
            n,
            headDim: d,
            heads,
            positions: { token: from(-3, 1) },
            temperature: TEMPERATURE,
          }),
        (e) =>
          e instanceof HiRoPEError && /must be >= 0, got positions\.token = -3/.test(e.message),
      );
      for (const softcap of [0, -1, Number.NaN, '2'])
        assert.throws(
          () => hr.attention({ q, k, n, headDim: d, heads, softcap }),
          (e) =>
            e instanceof HiRoPEError && /softcap must be a positive finite number/.test(e.message),
        );
    });

    it('rotaryLast rotates the last dims (MLA: q = cat(q_nope, q_pe)), by hand', () => {
      // headDim 12, the last 4 in adjacent pairs: DeepSeek's q_pe after its q_nope.
      const hd = 12;
      const m = 6;
      const x = lcg(m * hd, 21);
      const token = Int32Array.of(0, 3, 7, 100, 2000, 40000);
      const scheme = {
        type: 'rope',
        layout: 'interleaved',
        rotaryFraction: 4 / 12,
        rotaryLast: true,
      };
      const got = hr.rotate({ x, n: m, headDim: hd, positions: { token }, scheme });
      for (let t = 0; t < m; t++) {
        for (let i = 0; i < 8; i++) assert.equal(got[t * hd + i], x[t * hd + i]);
        for (let j = 0; j < 2; j++) {
          const angle = token[t] * 10000 ** ((-2 * j) / 4);
          const [xa, xb] = [x[t * hd + 8 + 2 * j], x[t * hd + 9 + 2 * j]];
          assert.ok(
            Math.abs(got[t * hd + 8 + 2 * j] - (xa * Math.cos(angle) - xb * Math.sin(angle))) <
              1e-5,
          );
          assert.ok(
            Math.abs(got[t * hd + 9 + 2 * j] - (xa * Math.sin(angle) + xb * Math.cos(angle))) <
              1e-5,
          );
        }
      }
    });

    it('sinks as a plain array equal sinks as a Float32Array; rows sum to less than 1', () => {
      const args = { q, k, n, headDim: d, heads, mask: { type: 'sliding', window: 4 } };
      const a = hr.attention({ ...args, sinks: SINKS });
      const b = hr.attention({ ...args, sinks: Float32Array.from(SINKS) });
      assert.deepEqual(a, b);
      for (let r = 0; r < heads * n; r++) {
        const sum = a.subarray(r * n, (r + 1) * n).reduce((s, x) => s + x, 0);
        assert.ok(sum > 0 && sum < 1, `row ${r} sums to ${sum}`);
      }
    });

    it('values, rows and pooling follow the mask', () => {
      const v = lcg(n * d * heads, 9);
      const mask = { type: 'chunked', chunkSize: 5 };
      const probs = hr.attention({ q, k, n, headDim: d, heads, mask, sinks: SINKS });
      const values = hr.attention({ q, k, v, n, headDim: d, heads, mask, sinks: SINKS });
      const want = new Float64Array(n * d * heads);
      for (let h = 0; h < heads; h++)
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++)
            for (let e = 0; e < d; e++)
              want[i * d * heads + h * d + e] +=
                probs[(h * n + i) * n + j] * v[j * d * heads + h * d + e];
      assert.ok(maxAbsDiff(values, want) < 1e-5);
      const rows = hr.attention({ q, k, n, headDim: d, heads, mask, sinks: SINKS, rows: [7, 19] });
      for (let h = 0; h < heads; h++)
        assert.deepEqual(
          rows.subarray(h * 12 * n, (h + 1) * 12 * n),
          probs.subarray((h * n + 7) * n, (h * n + 19) * n),
        );
      const one = hr.attention({ q, k, n, headDim: d * heads, mask, sinks: [0.5] });
      const pooled = { rows: 4, cols: 4, ratio: new Float32Array(16), raw: new Float32Array(16) };
      hr.attention({ q, k, n, headDim: d * heads, mask, sinks: [0.5], pool: pooled });
      const direct = hr.pool({ matrix: one, n, rows: 4, cols: 4 });
      assert.ok(maxAbsDiff(pooled.raw, direct.raw) < 1e-7);
      assert.ok(maxAbsDiff(pooled.ratio, direct.ratio) < 1e-7);
    });

    it('refuses bad masks, sinks and temperatures with HiRoPEErrors naming the option', () => {
      const base = { q, k, n, headDim: d, heads };
      const cases = [
        [
          { mask: { type: 'window', window: 4 } },
          /mask\.type must be 'full', 'sliding' or 'chunked', got 'window'/,
        ],
        [{ mask: { type: 'sliding' } }, /mask 'sliding' needs mask\.window/],
        [{ mask: { type: 'sliding', window: 0 } }, /mask\.window must be an integer >= 1, got 0/],
        [{ mask: { type: 'sliding', window: 2.5 } }, /mask\.window must be an integer, got 2\.5/],
        [
          { mask: { type: 'chunked', chunkSize: -1 } },
          /mask\.chunkSize must be an integer >= 1, got -1/,
        ],
        [{ mask: { type: 'full', window: 4 } }, /mask\.window is for sliding masks, not 'full'/],
        [{ mask: { type: 'sliding', widow: 4 } }, /widow.*did you mean 'window'/],
        [{ mask: 'sliding' }, /mask must be an object/],
        [{ mask: { type: 'sliding', window: 4 }, causal: false }, /mask 'sliding' is causal/],
        [{ sinks: true }, /sinks must be a Float32Array or an array of numbers.*got true/],
        [{ sinks: [1] }, /sinks has length 1, expected heads = 2/],
        [{ sinks: new Float32Array(3) }, /sinks has length 3, expected heads = 2/],
        [{ sinks: [1, Number.NaN] }, /sinks\[1\] must be a finite number, got NaN/],
        [{ sinks: [1, 'x'] }, /sinks\[1\] must be a number, got 'x'/],
        [{ sinks: new Float64Array(2) }, /sinks must be a Float32Array, got a Float64Array/],
        [
          { temperature: { floorScale: 0, scale: 0.1, offset: 1 } },
          /temperature\.floorScale must be a finite number > 0, got 0/,
        ],
        [
          { temperature: { floorScale: 4, scale: -1, offset: 1 } },
          /temperature\.scale must be a finite number >= 0, got -1/,
        ],
        [
          { temperature: { floorScale: 4, scale: 0.1, offset: -2 } },
          /temperature\.offset must be an integer in \[0, 2\^53\], got -2/,
        ],
        [
          { temperature: { floorScale: 4, scale: 0.1, offset: 0.5 } },
          /temperature\.offset must be an integer, got 0\.5/,
        ],
        [
          { temperature: { floorScale: 4, scale: 0.1 } },
          /temperature\.offset must be a number, got undefined/,
        ],
        [{ temperature: { floorScale: 4, scale: 0.1, ofset: 1 } }, /ofset.*did you mean 'offset'/],
        [{ temperature: true }, /temperature must be an object/],
        [
          { temperature: { floorScale: 1e-300, scale: 1e307, offset: 0 } },
          /beyond the float range/,
        ],
      ];
      for (const [extra, message] of cases) {
        assert.throws(
          () => hr.attention({ ...base, ...extra }),
          (e) => e instanceof HiRoPEError && message.test(e.message),
          JSON.stringify(extra),
        );
      }
    });

    it('runs a gallery layer as hr.fromConfig gives it', () => {
      const config = (id) =>
        readFileSync(new URL(`../../models/configs/${id}.json`, import.meta.url), 'utf8');
      const checked = new Set();
      for (const id of [
        'gemma-3-1b-it',
        'gpt-oss-20b',
        'llama-4-scout-17b-16e',
        'ministral-3-3b',
      ]) {
        const setup = hr.fromConfig(config(id));
        for (const layer of setup.layers) {
          const key = `${id} ${JSON.stringify([layer.attention, layer.temperature, layer.sinks])}`;
          if (checked.has(key)) continue;
          checked.add(key);
          // Short lengths see the mask: windows and chunks shrunk to fit, values as the layer's.
          const mask =
            layer.attention.type === 'sliding'
              ? { type: 'sliding', window: Math.min(layer.attention.window, 5) }
              : layer.attention.type === 'chunked'
                ? { type: 'chunked', chunkSize: Math.min(layer.attention.chunkSize, 7) }
                : layer.attention;
          const hd = layer.headDim;
          const m = 24;
          const lq = lcg(m * hd, 3);
          const lk = lcg(m * hd, 4);
          const sinks = layer.sinks ? [0.25] : undefined;
          const args = { q: lq, k: lk, n: m, headDim: hd, scheme: layer.scheme, mask, sinks };
          const got = hr.attention({ ...args, temperature: layer.temperature });
          const reference = hr.attention({
            ...args,
            temperature: layer.temperature,
            kernel: 'reference',
          });
          assert.ok(maxAbsDiff(got, reference) < 1e-5, key);
          // The gallery's own values run too (the whole mask, at this length).
          hr.attention({ ...args, mask: layer.attention, temperature: layer.temperature });
          for (let i = 0; i < m; i++) {
            let sum = 0;
            for (let j = 0; j < m; j++) {
              const visible =
                j <= i &&
                (mask.type !== 'sliding' || i - j < mask.window) &&
                (mask.type !== 'chunked' ||
                  Math.floor(i / mask.chunkSize) === Math.floor(j / mask.chunkSize));
              if (!visible) assert.equal(got[i * m + j], 0, `${key} (${i}, ${j})`);
              sum += got[i * m + j];
            }
            if (sinks) assert.ok(sum < 1, key);
            else assert.ok(Math.abs(sum - 1) < 1e-5, key);
          }
          if (layer.temperature) {
            // Its floor (8192, 16384) leaves the factor 1 at this length; a small one changes it.
            const warm = { ...layer.temperature, floorScale: 4 };
            assert.ok(maxAbsDiff(hr.attention({ ...args, temperature: warm }), got) > 1e-6, key);
          }
        }
      }
      const kinds = [...checked].map((key) => key.split(' ')[1]);
      for (const type of ['full', 'sliding', 'chunked'])
        assert.ok(
          kinds.some((x) => x.includes(`"${type}"`)),
          type,
        );
      assert.ok([...checked].some((key) => key.includes('floorScale')));
      assert.ok([...checked].some((key) => key.endsWith(',true]')));
    });
  });
}

// The WebGPU kernels' parameters, packed on the JS side: checked here, where no adapter is needed
// (tests/webgpu compares the GPU's results with WASM where Dawn or Chromium finds one).
describe('layer attention: WebGPU parameters', () => {
  const call = (keyStarts, sinks = null, softcap = 0) => ({
    n: 40,
    headDim: 8,
    width: 16,
    causal: true,
    scheme: { windowed: false, window: 512 },
    keyStarts,
    sinks,
    softcap,
    temperature: null,
  });

  it('packs the mask and the soft-cap into logits.wgsl Params (words 10 and 11)', () => {
    const u = logitsParams(call(new Int32Array(40), null, 2.5), 1, 0.25, 0.5);
    const f = new Float32Array(u.buffer);
    assert.equal(u.length, 12);
    assert.deepEqual([...u.subarray(0, 6)], [40, 8, 16, 1, 1, 0]);
    assert.deepEqual([f[7], f[8], f[9]], [0.25, 0.5, -Infinity]);
    assert.deepEqual([u[10], f[11]], [1, 2.5]);
    const full = logitsParams(call(null), 0, 1, 0);
    assert.deepEqual([full[10], full[11]], [0, 0]);
  });

  it('packs the mask and the head sink into softmax.wgsl Params', () => {
    const sinks = Float32Array.of(0.5, -1.25);
    const u = softmaxParams(call(new Int32Array(40), sinks), 1, 3);
    const f = new Float32Array(u.buffer);
    assert.equal(u.length, 8);
    assert.deepEqual([...u.subarray(0, 6)], [40, 1, 3, 1, 0, 1]);
    assert.equal(f[6], -1.25);
    const none = softmaxParams(call(null), 0, 0);
    assert.deepEqual([...none.subarray(0, 6)], [40, 1, 0, 0, 0, 0]);
  });
});
