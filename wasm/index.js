// hirope, the full entry: encodings, attention and code analysis (grammars, tokenizers).
//
//   import init from 'hirope';
//   const hr = await init();               // picks the SIMD build when the engine supports it
//   const probs = hr.attention({ q, k, n, headDim, positions, scheme: { type: 'hirope' } });
//
// The new URL('./file', import.meta.url) literals below let bundlers (webpack 5, Vite, Rollup)
// copy the .wasm and data files; see README for esbuild and for serving them elsewhere.
import { makeInit } from './api.js';
import { ModelLoader } from './model.js';
import { ModelConfigs } from './model-config-api.js';
import { MODEL_URLS } from './model-urls.js';

export * from './api.js';
export { recallClasses, tokenRecallClasses, identifiers, RECALL_CLASSES } from './recall.js';

/**
 * Loads the WebAssembly module. options.simd forces the SIMD (true) or scalar (false) build; by
 * default SIMD is used where WebAssembly.validate accepts a SIMD module. options.analysis: false
 * loads the small core module (encodings and attention, no grammars or tokenizers). locateFile
 * and wasmBinary are passed to the Emscripten loader (to serve the .wasm from elsewhere);
 * dataURL is the folder holding the tokenizer data; tokenizers lists vocabularies to load now;
 * languages lists grammars to load now (others load when analyze() first needs them).
 */
const init = makeInit({
  // The libraries of the full module only (the core entry leaves them out).
  fullLibraries: { ModelLoader, ModelConfigs },
  webgpu: () => import('./webgpu.js'),
  grammars: () => import('./grammars.js'),
  modules: {
    full: {
      simd: ['hirope-simd.wasm', () => import('./hirope-simd.mjs')],
      scalar: ['hirope-scalar.wasm', () => import('./hirope-scalar.mjs')],
    },
    core: {
      simd: ['hirope-core-simd.wasm', () => import('./hirope-core-simd.mjs')],
      scalar: ['hirope-core-scalar.wasm', () => import('./hirope-core-scalar.mjs')],
    },
  },
  wasm: {
    'hirope-simd.wasm': () => new URL('./hirope-simd.wasm', import.meta.url),
    'hirope-scalar.wasm': () => new URL('./hirope-scalar.wasm', import.meta.url),
    'hirope-core-simd.wasm': () => new URL('./hirope-core-simd.wasm', import.meta.url),
    'hirope-core-scalar.wasm': () => new URL('./hirope-core-scalar.wasm', import.meta.url),
    // The grammars, one side module per language (wasm/grammars.js), loaded when first needed.
    'tree-sitter-python.wasm': () => new URL('./tree-sitter-python.wasm', import.meta.url),
    'tree-sitter-javascript.wasm': () => new URL('./tree-sitter-javascript.wasm', import.meta.url),
    'tree-sitter-typescript.wasm': () => new URL('./tree-sitter-typescript.wasm', import.meta.url),
    'tree-sitter-tsx.wasm': () => new URL('./tree-sitter-tsx.wasm', import.meta.url),
    'tree-sitter-c.wasm': () => new URL('./tree-sitter-c.wasm', import.meta.url),
    'tree-sitter-cpp.wasm': () => new URL('./tree-sitter-cpp.wasm', import.meta.url),
    'tree-sitter-java.wasm': () => new URL('./tree-sitter-java.wasm', import.meta.url),
    'tree-sitter-go.wasm': () => new URL('./tree-sitter-go.wasm', import.meta.url),
    'tree-sitter-rust.wasm': () => new URL('./tree-sitter-rust.wasm', import.meta.url),
  },
  data: {
    cl100k: () => new URL('./data/cl100k.bin', import.meta.url),
    o200k: () => new URL('./data/o200k.bin', import.meta.url),
    llama2: () => new URL('./data/llama2.bin', import.meta.url),
    llama3: () => new URL('./data/llama3.json', import.meta.url),
    qwen3: () => new URL('./data/qwen3.json', import.meta.url),
    'deepseek-v3': () => new URL('./data/deepseek-v3.json', import.meta.url),
    gemma3: () => new URL('./data/gemma3.json', import.meta.url),
    // The shipped models' weights (models/registry.json, written out by tools/write-registry-data.mjs).
    ...MODEL_URLS,
  },
});

export default init;
export { init };
