// hirope/worker in Node's worker threads (tests/js/support/node-web-worker.mjs stands in for the browser's
// module Worker): createWorker(options), HiRoPEWorker.attention, .call, .analyze, .loadTokenizer
// and terminate, each result checked against the same call in this thread. The browser runs the
// same worker in tests/package/smoke.test.mjs; tests/package/worker-node.test.mjs runs the shipped
// entry in Node with no shim (its node:worker_threads path).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HiRoPEError } from '../../dist/index.js';
import { load, lcg, range, maxAbsDiff } from './support/both-builds.mjs';
import { installWorker } from './support/node-web-worker.mjs';

installWorker();
const { createWorker } = await import('../../dist/worker-client.js');

const n = 12,
  headDim = 8,
  heads = 2;
const q = lcg(n * headDim * heads, 31),
  k = lcg(n * headDim * heads, 32),
  v = lcg(n * headDim * heads, 33);
const positions = { token: range(n), unit: Int32Array.from(range(n), (t) => Math.floor(t / 4)) };
const code = 'def f(x):\n    return x + 1\n\n\nclass A:\n    pass\n';

describe('hirope/worker in worker threads', () => {
  const workers = [];
  const start = (options) => {
    const w = createWorker(options);
    workers.push(w);
    return w;
  };
  let simd, scalar;
  before(async () => {
    simd = await load(true);
    scalar = await load(false);
  });
  after(() => {
    for (const w of workers) w.terminate();
  });

  it('attention gives what hr.attention gives, in the build the options pick', async () => {
    for (const [options, hr] of [
      [{ simd: true }, () => simd],
      [{ simd: false }, () => scalar],
    ]) {
      const w = start(options);
      for (const args of [
        { q, k, n, headDim, heads, positions, scheme: { type: 'hirope', window: 3 } },
        { q, k, v, n, headDim, heads, scheme: 'rope' },
        { q, k, n, headDim, heads, scheme: 'alibi', output: 'logits' },
        // A real model's layer: its mask, sinks and temperature pass through the worker.
        {
          q,
          k,
          n,
          headDim,
          heads,
          mask: { type: 'sliding', window: 3 },
          sinks: Float32Array.of(0.5, -1),
          temperature: { floorScale: 2, scale: 0.3, offset: 1 },
        },
        // ... at positions that are not the rows (masks by position), with scale and soft-cap.
        {
          q,
          k,
          n,
          headDim,
          heads,
          positions: { token: Int32Array.from({ length: n }, (_, i) => 20000 + 5 * i) },
          mask: { type: 'chunked', chunkSize: 16 },
          temperature: { floorScale: 20004, scale: 0.3, offset: 1 },
          scale: 0.7,
          softcap: 2,
        },
        {
          q,
          k,
          n,
          headDim,
          heads,
          scheme: { type: 'rope', layout: 'interleaved', rotaryFraction: 0.5, rotaryLast: true },
        },
      ]) {
        const got = await w.attention(args);
        const want = hr().attention(args);
        assert.ok(got instanceof Float32Array);
        assert.equal(got.length, want.length);
        assert.equal(
          maxAbsDiff(got, want),
          0,
          `${JSON.stringify(options)} ${JSON.stringify(args.scheme)}`,
        );
      }
      await assert.rejects(
        w.attention({ q, k, n, headDim, heads, mask: { type: 'chunked', chunkSize: 0 } }),
        (e) =>
          e instanceof HiRoPEError &&
          /^mask\.chunkSize must be an integer >= 1, got 0/.test(e.message),
      );
      await assert.rejects(
        w.attention({ q, k, n, headDim: 7 }),
        (e) =>
          e instanceof HiRoPEError &&
          /^headDim must be a positive even integer, got 7/.test(e.message),
      );
    }
  });

  it('call runs any API method by name and returns its result', async () => {
    const w = start({ simd: true });
    const scheme = { type: 'hirope', window: 4 };
    const got = await w.call('relativeDistances', [{ n, headDim, positions, scheme }]);
    const want = simd.relativeDistances({ n, headDim, positions, scheme });
    assert.deepEqual(
      got.map((b) => b.name),
      want.map((b) => b.name),
    );
    // NaN marks a pair no band covers: compared as equal (deepStrictEqual's Object.is).
    got.forEach((b, i) => {
      assert.deepEqual(Array.from(b.distances), Array.from(want[i].distances), b.name);
    });
    assert.ok(got.some((b) => b.distances.some(Number.isFinite)));
    await w.loadTokenizer('cl100k');
    await simd.loadTokenizer('cl100k');
    assert.deepEqual(
      Array.from(await w.call('encode', [code, { tokenizer: 'cl100k' }])),
      Array.from(simd.encode(code, { tokenizer: 'cl100k' })),
    );
    const freqs = await w.call('inverseFrequencies', ['rope', 16]);
    assert.equal(maxAbsDiff(freqs, simd.inverseFrequencies('rope', 16)), 0);
    const decay = await w.call('longTermDecay', ['rope', 16, 20]);
    assert.equal(maxAbsDiff(decay, simd.longTermDecay('rope', 16, 20)), 0);
    const rotated = await w.call('rotate', [{ x: q, n, headDim, heads, scheme: 'rope' }]);
    assert.equal(maxAbsDiff(rotated, simd.rotate({ x: q, n, headDim, heads, scheme: 'rope' })), 0);
    await assert.rejects(
      w.call('heapBytes'),
      (e) =>
        e instanceof HiRoPEError &&
        /^the worker has no method 'heapBytes' \(known: loadTokenizer, analyze, attention/.test(
          e.message,
        ),
    );
  });

  it('offers the tokenizer conveniences, fromConfig and the scheme maths by name, loading the vocabulary first', async () => {
    const w = start({ simd: true });
    const text = 'def f(x):\n    return x  # ünïcödé\n';
    await simd.loadTokenizer('o200k');
    const o200k = { tokenizer: 'o200k' };
    // No loadTokenizer beforehand: each method loads the vocabulary it names (cl100k by default).
    assert.equal(await w.countTokens(text, o200k), simd.countTokens(text, o200k));
    assert.equal(await w.isWithinTokenLimit(text, 3, o200k), false);
    assert.equal(await w.isWithinTokenLimit(text, 100, o200k), simd.countTokens(text, o200k));
    assert.deepEqual(
      (await w.encodeBatch([text, 'x'], o200k)).map((ids) => Array.from(ids)),
      simd.encodeBatch([text, 'x'], o200k).map((ids) => Array.from(ids)),
    );
    await simd.loadTokenizer('cl100k');
    assert.deepEqual(Array.from(await w.encode(text)), Array.from(simd.encode(text)));
    assert.equal(await w.decode(simd.encode(text)), text);
    const config = JSON.stringify({
      model_type: 'llama',
      hidden_size: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 2,
      rope_theta: 500000,
      max_position_embeddings: 131072,
      rope_scaling: {
        rope_type: 'llama3',
        factor: 32,
        low_freq_factor: 1,
        high_freq_factor: 4,
        original_max_position_embeddings: 8192,
      },
    });
    assert.deepEqual(await w.fromConfig(config), simd.fromConfig(config));
    const yarn = { type: 'rope', scaling: { type: 'yarn', factor: 4, originalLength: 4096 } };
    assert.equal(await w.attentionFactor(yarn, 64), simd.attentionFactor(yarn, 64));
    assert.equal(
      maxAbsDiff(await w.inverseFrequencies(yarn, 64), simd.inverseFrequencies(yarn, 64)),
      0,
    );
    // A misspelt option is named with the closest one, as the API's are.
    assert.throws(
      () => createWorker({ tokenizer: ['o200k'] }),
      (e) =>
        e instanceof HiRoPEError &&
        /^worker options has an unknown key 'tokenizer' \(did you mean 'tokenizers'\? known keys: /.test(
          e.message,
        ),
    );
    await assert.rejects(w.countTokens(text, { tokeniser: 'o200k' }), /did you mean 'tokenizer'/);
  });

  it('analyze and loadTokenizer: the tokens and units of this thread, with texts', async () => {
    const w = start({ tokenizers: ['cl100k'] });
    await simd.loadTokenizer('cl100k');
    const got = await w.analyze(code, { language: 'python', tokenizer: 'cl100k' });
    const want = simd.analyze(code, { language: 'python', tokenizer: 'cl100k' });
    assert.deepEqual(Array.from(got.tokens.ids), Array.from(want.tokens.ids));
    assert.deepEqual(got.tokens.texts, want.tokens.texts);
    assert.deepEqual(
      got.units.map((u) => [u.kind, u.name]),
      [
        ['function', 'f'],
        ['class', 'A'],
      ],
    );
    assert.equal(await w.loadTokenizer('o200k'), 'o200k');
    const o200k = await w.analyze(code, { language: 'python', tokenizer: 'o200k' });
    await simd.loadTokenizer('o200k');
    assert.deepEqual(
      Array.from(o200k.tokens.ids),
      Array.from(simd.encode(code, { tokenizer: 'o200k' })),
    );
  });

  it('createWorker options reach the worker: analysis: false and dataURL', async () => {
    const core = start({ analysis: false });
    await assert.rejects(
      core.analyze(code, { language: 'python' }),
      (e) => e instanceof HiRoPEError,
    );
    assert.equal((await core.attention({ q, k, n, headDim, heads })).length, heads * n * n);
    // A data folder holding cl100k only: it loads from there, and o200k is looked for there.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-worker-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.copyFileSync(
      new URL('../../dist/data/cl100k.bin', import.meta.url),
      path.join(dir, 'cl100k.bin'),
    );
    const dataURL = pathToFileURL(dir + '/').href;
    const w = start({ dataURL });
    assert.equal(await w.loadTokenizer('cl100k'), 'cl100k');
    await assert.rejects(
      w.loadTokenizer('o200k'),
      (e) => e instanceof HiRoPEError && e.message.includes(`${dataURL}o200k.bin`),
    );
    assert.throws(
      () => createWorker({ wasmBinary: new Uint8Array(8) }),
      (e) =>
        e instanceof HiRoPEError &&
        /^worker options has an unknown key 'wasmBinary'/.test(e.message),
    );
  });

  it('after terminate, every call rejects with a HiRoPEError instead of waiting forever', {
    timeout: 30000, // before the fix the later calls never settled
  }, async () => {
    const w = createWorker();
    // Pending when terminate() comes: the promises exist before it is called.
    const pending = [
      w.attention({ q, k, n, headDim, heads }),
      w.analyze(code, { language: 'python', tokenizer: 'cl100k' }),
      w.call('relativeDistances', [{ n, headDim }]),
    ];
    w.terminate();
    const later = [
      w.analyze(code, { language: 'python', tokenizer: 'cl100k' }),
      w.analyze(code, { language: 'python' }),
      w.attention({ q, k, n, headDim, heads }),
      w.loadTokenizer('o200k'),
      w.loadLanguage('python'),
      w.call('encode', ['x']),
    ];
    for (const p of [...pending, ...later])
      await assert.rejects(
        p,
        (e) => e instanceof HiRoPEError && e.message === 'the hirope worker was terminated',
      );
    w.terminate(); // a second terminate is harmless
    await assert.rejects(w.attention({ q, k, n, headDim, heads }), HiRoPEError);
  });

  it('terminate rejects the calls still waiting', async () => {
    const w = createWorker();
    const pending = w.attention({ q, k, n, headDim, heads });
    w.terminate();
    await assert.rejects(
      pending,
      (e) => e instanceof HiRoPEError && e.message === 'the hirope worker was terminated',
    );
  });
});
