// Content-hashed names of the site's large files (the .wasm modules and the model's weights), set
// by scripts/build-site.mjs when it bundles the site, so that a static host can let browsers keep
// them for good (web/serve.mjs sends them as immutable). Where no map was bundled in (Node tests,
// another bundler) the plain names are used.
/* global __HIROPE_ASSETS__ */
const ASSETS = typeof __HIROPE_ASSETS__ === 'object' && __HIROPE_ASSETS__ ? __HIROPE_ASSETS__ : {};

// URLs registered by the package's element and its asset modules (dist/element.js,
// dist/element-assets/*.js), each written as new URL('./file', import.meta.url) there so that a
// bundler copies exactly the files a page imports. Shared through a global symbol: the element and
// the asset modules are separate modules (and may be bundled separately).
export const REGISTRY_KEY = 'hirope.assets';
globalThis[Symbol.for(REGISTRY_KEY)] ??= new Map();
const REGISTERED = globalThis[Symbol.for(REGISTRY_KEY)];

/** Records where a file is served ('hirope-simd.wasm', 'data/cl100k.bin'): a bundler's URL. */
export function registerAsset(name, url) {
  REGISTERED.set(name, new URL(url, globalThis.location?.href));
}

/** The URL of a site file by its plain name ('hirope-simd.wasm', 'data/pybyte.hrm'). */
export function assetURL(name, base) {
  return REGISTERED.get(name) ?? new URL(ASSETS[name] ?? name, base);
}
