// hirope/runtime: the names and rules the package's modules share (the built-in tokenizers and
// their aliases, grammar file names, the "did you mean" rule), and the runtime the API's libraries
// work through. Runtime, guardMethods and the checks below it are the package's internals: their
// members are not part of its API and may change.
export {
  TOKENIZER_FILES,
  MODEL_FILES,
  DEFAULT_MODEL,
  MAX_TOKENIZER_JSON_BYTES,
} from './registry.js';

/** The closest of `known` to a misspelt name, or null (the API's one "did you mean" rule). */
export declare function closestName(name: string, known: readonly string[]): string | null;
/** Bytes of a string's UTF-8, counted without encoding it. */
export declare function utf8Length(text: string): number;
/** A count with thousands separators: 1,048,576. */
export declare function grouped(n: number): string;
/** sizeOverLimit's message for a string over `limit` bytes of UTF-8, or null. */
export declare function textOverLimit(name: string, text: string, limit: number): string | null;
/** The one wording of a size over its limit (characters of a string, or bytes). */
export declare function sizeOverLimit(
  name: string,
  size: { characters?: number; bytes?: number; utf8?: boolean },
  limit: number,
): string;
/** The options that give a call's shape, scheme and positions. */
export declare const SHAPE_KEYS: readonly string[];
/** Floats per strip buffer in the heap: outputs are computed and copied out in strips. */
export declare const STRIP_ELEMENTS: number;
/** The built-in tokenizers with a data file, in the registry's order. */
export declare const TOKENIZER_DATA: readonly string[];
/** The tokenizer encode() and its relatives use when none is named. */
export declare const DEFAULT_TOKENIZER: string;
/** Other names of the built-in tokenizers (tiktoken's encoding names). */
export declare const TOKENIZER_ALIASES: Readonly<Record<string, string>>;
/** Model names -> the built-in tokenizer whose ids the model reads. */
export declare const MODEL_TOKENIZERS: Readonly<Record<string, string>>;
/** Models whose tokenizer is a tiktoken encoding hirope does not ship (p50k_base, r50k_base). */
export declare const MODEL_ENCODINGS_NOT_SHIPPED: Readonly<Record<string, string>>;
/** A built-in tokenizer's own name for one of its aliases; else the name. */
export declare function canonicalTokenizer<T>(name: T): T | string;
/** The grammar file of a language: tree-sitter-<language>.wasm. */
export declare function grammarFile(language: string): string;
/** The language of a grammar file name, or null. */
export declare function grammarLanguage(file: string): string | null;
/** UTF-8 decoding as the package does it (no BOM stripping). */
export declare const DECODER: TextDecoder;
/** Whether this runs in Node. */
export declare function isNode(): boolean;
/** The bytes at a URL: a file read in Node (file: URLs), a fetch elsewhere. */
export declare function readData(url: URL): Promise<Uint8Array>;

/** Internal: one loaded WebAssembly module and the API the libraries work through. */
export declare class Runtime {
  constructor(
    mod: unknown,
    catalogue: unknown,
    options?: { respawn?: unknown; respawnAsync?: unknown },
  );
  readonly hasAnalysis: boolean;
  readonly limits: Readonly<Record<string, number>>;
}
/** Internal: wraps a class's methods so that each call first checks the module is usable. */
export declare function guardMethods(
  cls: abstract new (...args: never[]) => unknown,
  runtimeOf: (this: unknown) => Runtime,
  options?: { except?: string[]; only?: string[] | null },
): void;
/** Internal checks of the API's arguments (marshal.js's phases). */
export declare function tokenIds(value: unknown, n?: number): Int32Array;
export declare function readPositions(positions: unknown, cap: number): unknown;
export declare function normalizePositions(
  positions: unknown,
  n: number,
  scheme?: unknown,
): { token: Int32Array; unit?: Int32Array; statement?: Int32Array };
/** Fixed-size segments for text with no structure: unit = floor(t / size). */
export declare function segmentPositions(
  n: number,
  size: number,
): { token: Int32Array; unit: Int32Array };
export declare function readPool(pool: unknown): unknown;
export declare function poolStill(spec: unknown, n: number): unknown;
export declare function checkPool(pool: unknown, n: number, options: { outputs: boolean }): unknown;
