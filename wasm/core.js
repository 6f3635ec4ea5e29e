// hirope/core, the light entry: position encodings and attention, no grammars or tokenizers
// (about a tenth of the full download).
//
//   import init from 'hirope/core';
//   const hr = await init();
import { makeInit } from './api.js';

export * from './api.js';

/** Loads the core WebAssembly module (SIMD where supported; options as for 'hirope'). */
const init = makeInit({
  webgpu: () => import('./webgpu.js'),
  modules: {
    core: {
      simd: ['hirope-core-simd.wasm', () => import('./hirope-core-simd.mjs')],
      scalar: ['hirope-core-scalar.wasm', () => import('./hirope-core-scalar.mjs')],
    },
  },
  wasm: {
    'hirope-core-simd.wasm': () => new URL('./hirope-core-simd.wasm', import.meta.url),
    'hirope-core-scalar.wasm': () => new URL('./hirope-core-scalar.wasm', import.meta.url),
  },
});

export default init;
export { init };
