// Where files the package loads are served, as registered by the asset modules
// (hirope/assets/<kind>/<name>, dist/assets/, made by scripts/build-element.mjs): each is one
// new URL('../file', import.meta.url) line, so that a bundler copies exactly the files a page
// imports (a gallery config is its text). hirope/lean and hirope/element read them. Kept under a global symbol: the asset
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
export const registeredAsset = (name) => {
  const value = REGISTERED.get(name);
  return value instanceof URL ? value : undefined;
};

/**
 * The text registered for a small file, or undefined: the gallery's configs
 * (hirope/assets/config/<id>) carry their text, since a bundler would inline a 1 KB file as a
 * data: URL, which a page's Content Security Policy blocks from fetch().
 */
export const registeredText = (name) => {
  const value = REGISTERED.get(name);
  return typeof value?.text === 'string' ? value.text : undefined;
};
