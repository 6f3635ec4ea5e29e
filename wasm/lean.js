// hirope/lean: the API of 'hirope' for bundled pages that ship only what they use. It names only
// the SIMD module as new URL('./file', import.meta.url), so a bundler copies that one; each
// grammar, vocabulary and model the page uses is an import of its own, which registers its URL
// (wasm/assets.js):
//
//   import init from 'hirope/lean';
//   import 'hirope/assets/language/typescript';   // tree-sitter-typescript.wasm
//   import 'hirope/assets/tokenizer/cl100k';      // data/cl100k.bin
//   const hr = await init();
//
// A file no import registered is read beside this module: on a static host, a CDN or in Node (the
// package's own folder) that is where it is; in a bundle the error names the URL that failed.
import { makeInit } from './api.js';
import { ModelLoader } from './model.js';
import { ModelConfigs } from './model-config-api.js';
import { registeredAsset } from './assets.js';
import { TOKENIZER_FILES, MODEL_FILES, grammarFile } from './runtime.js';

export * from './api.js';
export { recallClasses, tokenRecallClasses, identifiers, RECALL_CLASSES } from './recall.js';
export { registerAsset } from './assets.js';

/** The languages with a grammar file (checked against the core's list in tests/package). */
export const GRAMMAR_LANGUAGES = Object.freeze([
  'python',
  'javascript',
  'typescript',
  'tsx',
  'c',
  'cpp',
  'java',
  'go',
  'rust',
]);

// Through a variable, so that no bundler takes it for a file to copy.
const HERE = import.meta.url;
const located = (file) => () => registeredAsset(file) ?? new URL(file, HERE);
// The scalar and core loaders are imported from their URL, not bundled: each names its .wasm as a
// new URL() literal, which would make a bundler copy that .wasm into every page (hirope/assets/scalar
// and hirope/assets/core register them for a bundle that needs them).
const loader = (file) => () =>
  import(/* webpackIgnore: true */ /* @vite-ignore */ located(file)().href);

/**
 * The full module's own libraries (the core entry leaves them out), for an init() built with
 * makeInit from another module table: the package's element worker (web/src/element/worker-init.js).
 */
export const fullLibraries = Object.freeze({ ModelLoader, ModelConfigs });

const init = makeInit({
  fullLibraries,
  webgpu: () => import('./webgpu.js'),
  grammars: () => import('./grammars.js'),
  modules: {
    full: {
      simd: ['hirope-simd.wasm', () => import('./hirope-simd.mjs')],
      scalar: ['hirope-scalar.wasm', loader('hirope-scalar.mjs')],
    },
    core: {
      simd: ['hirope-core-simd.wasm', loader('hirope-core-simd.mjs')],
      scalar: ['hirope-core-scalar.wasm', loader('hirope-core-scalar.mjs')],
    },
  },
  wasm: {
    'hirope-simd.wasm': () =>
      registeredAsset('hirope-simd.wasm') ?? new URL('./hirope-simd.wasm', import.meta.url),
    'hirope-scalar.wasm': located('hirope-scalar.wasm'),
    'hirope-core-simd.wasm': located('hirope-core-simd.wasm'),
    'hirope-core-scalar.wasm': located('hirope-core-scalar.wasm'),
    ...Object.fromEntries(GRAMMAR_LANGUAGES.map((l) => [grammarFile(l), located(grammarFile(l))])),
  },
  data: {
    ...Object.fromEntries(
      Object.entries(TOKENIZER_FILES).map(([name, file]) => [name, located(`data/${file}`)]),
    ),
    ...Object.fromEntries(
      Object.entries(MODEL_FILES).map(([name, file]) => [`model:${name}`, located(`data/${file}`)]),
    ),
  },
});

export default init;
export { init };
