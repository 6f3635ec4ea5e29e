// hirope/grammars: the tree-sitter grammars, one WebAssembly side module per language, loaded into
// the full module when a language is first needed (hr.loadLanguage does this; the class is the
// package's internal).
import type { Runtime } from './runtime.js';

/** In Node, imports node:fs ahead so that a grammar can be read synchronously when first needed. */
export declare function prepareSyncReads(): Promise<void>;

/** Internal: the grammars of one HiRoPE instance. */
export declare class Grammars {
  constructor(
    runtime: Runtime,
    languages: readonly string[],
    urlOf: (language: string) => URL | null,
  );
  /** Languages whose grammar this instance has. */
  readonly loaded: string[];
  load(
    language: string,
    options?: { module?: WebAssembly.Module; data?: Uint8Array },
  ): Promise<string>;
  address(language: string): number;
}
