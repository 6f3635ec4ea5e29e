// Content-hashed names of the site's large files (the .wasm modules and the model's weights), set
// by scripts/build-site.mjs when it bundles the site, so that a static host can let browsers keep
// them for good (web/serve.mjs sends them as immutable). Where no map was bundled in (Node tests,
// another bundler) the plain names are used.
/* global __HIROPE_ASSETS__ */
import { registerAsset, registeredAsset } from 'hirope/assets';

const ASSETS = typeof __HIROPE_ASSETS__ === 'object' && __HIROPE_ASSETS__ ? __HIROPE_ASSETS__ : {};

// URLs registered by the package's element and asset modules (dist/assets.js): a bundler's URLs.
export { registerAsset };

/** The URL of a site file by its plain name ('hirope-simd.wasm', 'data/pybyte.hrm'). */
export function assetURL(name, base) {
  return registeredAsset(name) ?? new URL(ASSETS[name] ?? name, base);
}
