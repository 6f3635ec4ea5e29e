// Public API that no other test ran (issue 35 item 8): init's locateFile, wasmBinary and dataURL;
// hr.model.load({ name }) and ModelLoader.names; gpuAdapter and setting attentionBackend; every
// runtime export declared in index.d.ts (BUILTIN_TOKENIZERS was missing); hr's members through the
// facade of issue 41. Each result checked.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as hirope from '../../dist/index.js';
import init, { HiRoPEError, BUILTIN_TOKENIZERS } from '../../dist/index.js';
import { lcg, maxAbsDiff } from './support/both-builds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
const n = 10,
  headDim = 8;
const q = lcg(n * headDim, 41),
  k = lcg(n * headDim, 42);
const scheme = { type: 'hirope', window: 3, segmentSize: 4 };

describe('public API', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-api-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('init({ locateFile }) loads the .wasm from where it says, and fails naming a missing one', async () => {
    const moved = path.join(dir, 'moved-simd.wasm');
    fs.copyFileSync(path.join(dist, 'hirope-simd.wasm'), moved);
    const calls = [];
    const hr = await init({
      simd: true,
      locateFile: (file, scriptDirectory) => {
        calls.push([file, scriptDirectory]);
        return moved;
      },
    });
    assert.deepEqual(calls, [['hirope-simd.wasm', pathToFileURL(dist + '/').href]]);
    assert.equal(hr.backend, 'wasm-simd');
    const reference = await init({ simd: true });
    assert.equal(
      maxAbsDiff(
        hr.attention({ q, k, n, headDim, scheme }),
        reference.attention({ q, k, n, headDim, scheme }),
      ),
      0,
    );
    const missing = path.join(dir, 'none.wasm');
    await assert.rejects(
      init({ simd: true, locateFile: () => missing }),
      (e) =>
        e instanceof HiRoPEError &&
        e.message.startsWith(`cannot read ${pathToFileURL(missing).href}: ENOENT`),
    );
  });

  it('init({ wasmBinary }) instantiates the given bytes, and names bytes that are no module', async () => {
    for (const simd of [true, false]) {
      const file = `hirope-${simd ? 'simd' : 'scalar'}.wasm`;
      const hr = await init({ simd, wasmBinary: fs.readFileSync(path.join(dist, file)) });
      assert.equal(hr.backend, simd ? 'wasm-simd' : 'wasm-scalar');
      const reference = await init({ simd });
      assert.equal(
        maxAbsDiff(
          hr.attention({ q, k, n, headDim, scheme }),
          reference.attention({ q, k, n, headDim, scheme }),
        ),
        0,
      );
      assert.equal(hr.analyze('def f():\n    pass\n', { language: 'python' }).units[0].name, 'f');
    }
    await assert.rejects(
      init({ simd: true, wasmBinary: new Uint8Array(10) }),
      (e) =>
        e instanceof HiRoPEError &&
        /^hirope-simd\.wasm could not be compiled: .*expected magic word/.test(e.message),
    );
  });

  it('init({ dataURL }) reads tokenizer data from that folder, as a URL or a path', async () => {
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    fs.copyFileSync(path.join(dist, 'data/cl100k.bin'), path.join(data, 'cl100k.bin'));
    const reference = await init();
    await reference.loadTokenizer('cl100k');
    const code = 'def add(x, y):\n    return x + y\n';
    for (const dataURL of [pathToFileURL(data + '/'), data + '/']) {
      const hr = await init({ dataURL, tokenizers: ['cl100k'] });
      assert.deepEqual(
        Array.from(hr.encode(code, { tokenizer: 'cl100k' })),
        Array.from(reference.encode(code, { tokenizer: 'cl100k' })),
      );
      // Not the package's data folder: o200k is looked for here, and is not here.
      await assert.rejects(
        hr.loadTokenizer('o200k'),
        (e) =>
          e instanceof HiRoPEError &&
          e.message.startsWith(
            `cannot read ${pathToFileURL(path.join(data, 'o200k.bin')).href}: ENOENT`,
          ),
      );
    }
  });

  it('hr.model.load({ name }) loads each shipped model named in ModelLoader.names', async () => {
    const hr = await init();
    assert.deepEqual(hr.model.names, ['pybyte', 'pyjs-llama2']);
    const byDefault = await hr.model.load();
    for (const name of hr.model.names) {
      const model = await hr.model.load({ name });
      assert.ok(model.config.name.startsWith(name), `${name}: ${model.config.name}`);
      const data = new Uint8Array(fs.readFileSync(path.join(root, `models/${name}.hrm`)));
      const same = await hr.model.load({ data });
      const text = 'def f(x):\n    return x + 1\n';
      const a = model.loss(text),
        b = same.loss(text);
      assert.equal(maxAbsDiff(a.losses, b.losses), 0, name);
      assert.ok(Number.isFinite(a.bitsPerByte) && a.bitsPerByte > 0, `${name}: ${a.bitsPerByte}`);
      // The default is the first name's file.
      if (name === hr.model.names[0])
        assert.equal(maxAbsDiff(byDefault.loss(text).losses, a.losses), 0);
    }
    assert.equal((await hr.model.load({ name: 'pyjs-llama2' })).tokenizer, 'llama2');
    await assert.rejects(
      hr.model.load({ name: 'gpt9' }),
      (e) =>
        e instanceof HiRoPEError &&
        e.message === "name must be 'pybyte' or 'pyjs-llama2', got 'gpt9'",
    );
  });

  it('gpuAdapter is null and attentionBackend wasm without a GPU; setting attentionBackend is checked', async () => {
    const hr = await init();
    assert.equal(hr.gpuAdapter, null);
    assert.equal(hr.attentionBackend, 'wasm');
    hr.attentionBackend = 'wasm';
    assert.equal(hr.attentionBackend, 'wasm');
    assert.throws(
      () => (hr.attentionBackend = 'webgpu'),
      (e) =>
        e instanceof HiRoPEError &&
        /^attentionBackend cannot be 'webgpu': no WebGPU device/.test(e.message),
    );
    assert.throws(
      () => (hr.attentionBackend = 'cuda'),
      (e) =>
        e instanceof HiRoPEError &&
        e.message === "attentionBackend must be 'wasm' or 'webgpu', got 'cuda'",
    );
    assert.equal(hr.attentionBackend, 'wasm');
    assert.equal(
      maxAbsDiff(
        await hr.attentionAsync({ q, k, n, headDim, scheme }),
        hr.attention({ q, k, n, headDim, scheme }),
      ),
      0,
    );
  });

  it('attentionBackend chooses where attentionAsync runs when a GPU executor is there', async () => {
    // A stand-in executor (what init({ backend }) starts from wasm/webgpu.js), marking its result.
    const hr = await init();
    const calls = [];
    hr._attention.gpu = {
      adapterInfo: 'stand-in',
      lost: false,
      attention: async (a) => {
        calls.push(a.n);
        return new Float32Array(a.n * a.n).fill(7);
      },
    };
    hr.attentionBackend = 'webgpu';
    assert.equal(hr.attentionBackend, 'webgpu');
    const onGpu = await hr.attentionAsync({ q, k, n, headDim, scheme });
    assert.deepEqual(calls, [n]);
    assert.ok(onGpu.every((x) => x === 7));
    hr.attentionBackend = 'wasm';
    assert.equal(
      maxAbsDiff(
        await hr.attentionAsync({ q, k, n, headDim, scheme }),
        hr.attention({ q, k, n, headDim, scheme }),
      ),
      0,
    );
    assert.deepEqual(calls, [n]); // the executor was not called again
  });

  it('index.d.ts declares every runtime export, BUILTIN_TOKENIZERS included', () => {
    assert.deepEqual(
      [...BUILTIN_TOKENIZERS],
      ['cl100k', 'o200k', 'llama2', 'llama3', 'qwen3', 'deepseek-v3', 'gemma3'],
    );
    assert.ok(Object.isFrozen(BUILTIN_TOKENIZERS));
    const dts = fs.readFileSync(path.join(root, 'wasm/index.d.ts'), 'utf8');
    const declared = new Set(
      [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]),
    );
    // Re-exported from another entry's declarations (recall.d.ts).
    for (const m of dts.matchAll(/^export \{([^}]*)\} from/gm))
      for (const name of m[1].split(',')) if (name.trim()) declared.add(name.trim());
    // makeInit builds the entries' init (index.js, core.js); it is not part of the documented API.
    const undeclared = Object.keys(hirope).filter(
      (name) => name !== 'default' && name !== 'makeInit' && !declared.has(name),
    );
    assert.deepEqual(undeclared, []);
    assert.match(dts, /^export default init;$/m);
  });

  it('hr is the facade over its libraries: the same members as before the split (issue 41), and fromConfig (issue 42)', async () => {
    const proto = Object.getPrototypeOf(await init());
    const members = Object.getOwnPropertyNames(proto).filter(
      (name) => name !== 'constructor' && !name.startsWith('_'),
    );
    // The public API of wasm/api.js when it was one class, with tokenBytes and decoder (issue 50);
    // each method one line into its library.
    assert.deepEqual(members.sort(), [
      'alibiSlopes',
      'analyze',
      'attention',
      'attentionAsync',
      'attentionBackend',
      'attentionFactor',
      'bands',
      'countTokens',
      'decode',
      'decoder',
      'detectLanguage',
      'encode',
      'encodeBatch',
      'fromConfig',
      'heapBytes',
      'inverseFrequencies',
      'isWithinTokenLimit',
      'loadLanguage',
      'loadTokenizer',
      'loadedLanguages',
      'longTermDecay',
      'memory',
      'parse',
      'pool',
      'qk',
      'relativeDistances',
      'rotate',
      'splitBound',
      'splitFraction',
      'tokenBytes',
      'unseenPairs',
      'vocabulary',
    ]);
    const accessors = members.filter((name) => !Object.getOwnPropertyDescriptor(proto, name).value);
    assert.deepEqual(accessors.sort(), ['attentionBackend', 'loadedLanguages', 'vocabulary']);
    // Declared in index.d.ts, each of them.
    const dts = fs.readFileSync(path.join(root, 'wasm/index.d.ts'), 'utf8');
    for (const name of members) assert.match(dts, new RegExp(`\\b${name}\\b`), name);
  });
});
