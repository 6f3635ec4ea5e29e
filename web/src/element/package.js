// hirope/element (dist/element.js): <hirope-attention> as the npm package ships it. The worker and
// the module are named here as new URL('./file', import.meta.url), so that a bundler (Vite,
// webpack, Rollup) copies them; on a static host or CDN they are the package's own files. Each
// grammar and vocabulary is its own module (hirope/assets/language/<name>,
// hirope/assets/tokenizer/<name>: dist/assets/), imported by a page that uses it, so that a
// bundled page ships only those; one not imported is read beside this file.
import { registerAsset } from '../shared/hashed-assets.js';

const worker = new URL('./element-worker.js', import.meta.url);

/**
 * The source of the same-origin blob: module that starts the worker from another origin (a CDN).
 * It imports the worker dynamically, holding the page's messages until the worker listens, so
 * that a failed import is reported by its cause: a Content Security Policy that blocks the
 * worker's URL (the blob runs under the page's policy), or the import's own error. The report is
 * an uncaught error, which the page sees as the Worker's error event, within moments.
 */
function workerBootstrap(href) {
  const url = JSON.stringify(href);
  return `// Starts hirope's element worker from another origin (hirope/element, web/src/element/package.js).
const held = [];
const hold = (event) => self.onmessage || held.push(event);
self.addEventListener('message', hold);
let violation = null;
self.addEventListener('securitypolicyviolation', (event) => { violation ??= event; });
import(${url}).then(
  () => {
    self.removeEventListener('message', hold);
    for (const e of held) self.dispatchEvent(new MessageEvent('message', { data: e.data, ports: [...e.ports] }));
  },
  (error) => setTimeout(() => {
    throw new Error(violation
      ? "the page's Content Security Policy blocks " + violation.blockedURI + " (" + violation.effectiveDirective + "): allow that origin in " + violation.effectiveDirective
      : ${url} + " could not be imported: " + error.message);
  }),
);
`;
}

// A page cannot start a worker from another origin (a CDN): it starts a same-origin blob: module
// that imports the worker (CDNs send CORS headers, which module imports need).
registerAsset(
  'worker.js',
  typeof location === 'object' && worker.origin !== location.origin
    ? URL.createObjectURL(new Blob([workerBootstrap(worker.href)], { type: 'text/javascript' }))
    : worker,
);
registerAsset('hirope-simd.wasm', new URL('./hirope-simd.wasm', import.meta.url));

export { HiRoPEAttention } from './hirope-attention.js';
export { registerAsset };
