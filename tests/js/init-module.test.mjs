// init({ wasmModule }): a module compiled once (as the playground page does) instantiates the
// same API as a fetched one; anything else is a HiRoPEError, never a hang.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import init, { HiRoPEError } from '../../dist/index.js';

const dist = new URL('../../dist/', import.meta.url);
const compile = (name) => WebAssembly.compile(fs.readFileSync(new URL(name, dist)));

describe('init({ wasmModule })', () => {
  it('gives the same attention as a module loaded from its file, for both builds', async () => {
    for (const simd of [true, false]) {
      const module = await compile(`hirope-core-${simd ? 'simd' : 'scalar'}.wasm`);
      const shared = await init({ analysis: false, simd, wasmModule: module });
      const fresh = await init({ analysis: false, simd });
      const n = 24,
        headDim = 16;
      const { q, k } = fresh.qk({ source: 'seeded', n, headDim, seed: 3 });
      const args = {
        q,
        k,
        n,
        headDim,
        scheme: { type: 'hirope', window: 4 },
        positions: {
          token: Int32Array.from({ length: n }, (_, i) => i),
          unit: Int32Array.from({ length: n }, (_, i) => i >> 3),
        },
      };
      assert.deepEqual(shared.attention(args), fresh.attention(args));
      assert.equal(shared.backend, simd ? 'wasm-simd' : 'wasm-scalar');
    }
  });

  it('one compiled module serves several instances, each with its own memory', async () => {
    const module = await compile('hirope-simd.wasm');
    const [x, y] = await Promise.all([init({ wasmModule: module }), init({ wasmModule: module })]);
    assert.equal(x.analyze('def f(): pass', { language: 'python' }).units.length, 1);
    assert.equal(y.analyze('int f() { return 0; }', { language: 'c' }).units.length, 1);
    assert.notEqual(x._runtime.mod.HEAPU8.buffer, y._runtime.mod.HEAPU8.buffer);
  });

  it('rejects what is not a WebAssembly.Module, and a module of another build', async () => {
    await assert.rejects(
      init({ wasmModule: new Uint8Array(8) }),
      (e) => e instanceof HiRoPEError && /wasmModule must be a WebAssembly.Module/.test(e.message),
    );
    const core = await compile('hirope-core-simd.wasm');
    await assert.rejects(
      init({ simd: true, wasmModule: core }),
      (e) => e instanceof HiRoPEError && /could not be instantiated/.test(e.message),
    );
  });
});
