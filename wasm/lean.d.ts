// hirope/lean: the API of 'hirope'; grammars, vocabularies and models come from the asset modules
// a page imports (hirope/assets/language/<name>, hirope/assets/tokenizer/<name>,
// hirope/assets/model/<name>, hirope/assets/scalar).
export * from './index.js';
export { default } from './index.js';

/** The languages with a grammar file. */
export declare const GRAMMAR_LANGUAGES: readonly string[];

/**
 * Says where a file is served, by its name in the package: 'hirope-simd.wasm',
 * 'tree-sitter-<language>.wasm', 'data/<file>'. The asset modules do this for a bundler.
 */
export declare function registerAsset(name: string, url: string | URL): void;
