// init() for the element's worker in the package (dist/element-worker.js): the full module's
// loaders and libraries, and no new URL() literal for any .wasm or data file. The page side
// compiles the module and the grammars, downloads the vocabularies and the gallery's configs
// (web/src/page/worker-requests.js, at the URLs the page registered, web/src/shared/hashed-assets.js)
// and posts them here; the worker reads a file itself only where the page could not, beside itself
// (locateFile in web/src/worker/main.js).
import { makeInit, fullLibraries } from 'hirope/lean';
import { grammarFile } from 'hirope/runtime';
import { CATALOGUE } from '../shared/core-catalogue.js';

const beside = (file) => () => new URL(file, import.meta.url);
const wasm = Object.fromEntries(
  [
    'hirope-simd.wasm',
    'hirope-scalar.wasm',
    ...CATALOGUE.languages.map((l) => grammarFile(l.name)),
  ].map((file) => [file, beside(file)]),
);

export default makeInit({
  // fromConfig (model= and config= attributes) and the models are the full module's.
  fullLibraries,
  grammars: () => import('hirope/grammars'),
  modules: {
    full: {
      simd: ['hirope-simd.wasm', () => import('hirope/hirope-simd.mjs')],
      scalar: ['hirope-scalar.wasm', () => import('hirope/hirope-scalar.mjs')],
    },
  },
  wasm,
});
