// Where files the package loads are served, as registered by the asset modules
// (hirope/assets/<kind>/<name>, dist/assets/, made by scripts/build-element.mjs): each is one
// new URL('../file', import.meta.url) line, so that a bundler copies exactly the files a page
// imports. hirope/lean and hirope/element read them. Kept under a global symbol: the asset
// modules, the element and the API may be bundled separately, and must still share one map.
export const ASSET_REGISTRY_KEY = 'hirope.assets';
const KEY = Symbol.for(ASSET_REGISTRY_KEY);
globalThis[KEY] ??= new Map();
const REGISTERED = globalThis[KEY];

/** Records where a file is served, by its name in the package: 'tree-sitter-python.wasm', 'data/cl100k.bin'. */
export function registerAsset(name, url) {
  REGISTERED.set(name, new URL(url, globalThis.location?.href));
}

/** The URL registered for a file, or undefined. */
export const registeredAsset = (name) => REGISTERED.get(name);
