// hirope/element (dist/element.js): <hirope-attention> as the npm package ships it. The worker and
// the module are named here as new URL('./file', import.meta.url), so that a bundler (Vite,
// webpack, Rollup) copies them; on a static host or CDN they are the package's own files. Each
// grammar and vocabulary is its own module (hirope/assets/language/<name>,
// hirope/assets/tokenizer/<name>: dist/assets/), imported by a page that uses it, so that a
// bundled page ships only those; one not imported is read beside this file.
import { registerAsset } from '../shared/hashed-assets.js';

const worker = new URL('./element-worker.js', import.meta.url);
// A page cannot start a worker from another origin (a CDN): it starts a same-origin blob: module
// that imports the worker (CDNs send CORS headers, which module imports need).
registerAsset(
  'worker.js',
  typeof location === 'object' && worker.origin !== location.origin
    ? URL.createObjectURL(
        new Blob([`import ${JSON.stringify(worker.href)};`], { type: 'text/javascript' }),
      )
    : worker,
);
registerAsset('hirope-simd.wasm', new URL('./hirope-simd.wasm', import.meta.url));

export { HiRoPEAttention } from './hirope-attention.js';
export { registerAsset };
