// hirope: the JavaScript API over the WebAssembly core, shared by the entry points (index.js:
// everything; core.js: encodings and attention only).
//
//   import init from 'hirope';
//   const hr = await init();               // picks the SIMD build when the engine supports it
//   const probs = hr.attention({ q, k, n, headDim, positions, scheme: { type: 'hirope' } });
//
// Every array crosses into the WASM heap once per call and is freed before the call returns,
// errors included, so repeated calls never grow the heap. Bad arguments throw HiRoPEError with
// a message naming the argument. Each call reads its options once, checks what it read, then
// copies it (marshal.js): no getter or Proxy of the caller runs between the checks and the copies.
//
// HiRoPE is a thin facade: each method is one library's, documented here, implemented there:
// tokenizers-api.js (loadTokenizer, encode, decode, ...), analysis-api.js (loadLanguage, parse,
// analyze), attention-api.js (attention, attentionAsync, pool, qk), schemes-api.js (frequencies,
// bands, rotate, Split%, ...) and model-config-api.js (fromConfig). The modules beside them, by
// role: errors.js (HiRoPEError), marshal.js (reading and checking the caller's values),
// catalogue.js (scheme names, defaults and checks from the core's table), runtime.js (the heap,
// strips, pooling, data files, position checks, core calls), analysis-codec.js (the packed
// analysis result), model.js (hr.model),
// init.js (loading the module), webgpu.js (attentionAsync on the GPU), worker.js /
// worker-client.js ('hirope/worker').

import { HiRoPEError, fail } from './errors.js';
import { readOptions } from './marshal.js';
import { Catalogue, registerCatalogue } from './catalogue.js';
import { Runtime, MODEL_FILES, guardMethods } from './runtime.js';
import { Tokenizers } from './tokenizers-api.js';
import { Analysis } from './analysis-api.js';
import { Attention } from './attention-api.js';
import { SchemeMaths } from './schemes-api.js';
import { INIT_KEYS, loadModule, startGPU } from './init.js';

export { HiRoPEError };
export { normalizeScheme } from './catalogue.js';
export { segmentPositions } from './runtime.js';
export { BUILTIN_TOKENIZERS, tokenizerForModel } from './tokenizers-api.js';
export { simdSupported } from './init.js';

/** The API object returned by init(). */
export class HiRoPE {
  /**
   * mod: the Emscripten module; backend: 'wasm-simd' or 'wasm-scalar'; dataFiles: URLs of the
   * data files by name; options.gpu: the WebGPU executor (null: none found) when init() was asked
   * for a GPU backend; options.respawn / respawnAsync: fresh instances of the module (Runtime.reset);
   * options.grammars: wasm/grammars.js (the full module only); options.full: the libraries only
   * the full module has, { ModelLoader, ModelConfigs } (model.js, model-config-api.js), which the
   * full entries (index.js, lean.js) import and hand to makeInit (entry.fullLibraries), so that
   * the core entry never downloads them.
   */
  constructor(mod, backend, dataFiles = {}, options = {}) {
    // The reader of the runtime's current module: after Runtime.reset() the first one is gone.
    let runtime = null;
    const readScheme = (scheme, describe) => runtime.mod.readScheme(scheme, describe);
    const catalogue = new Catalogue(mod.catalogue(), mod.limits(), readScheme);
    registerCatalogue(catalogue);
    runtime = new Runtime(mod, catalogue, options);
    this._runtime = runtime;
    /** 'wasm-simd' or 'wasm-scalar': which build runs. */
    this.backend = backend;
    /** The kernel family compiled into that build ('wasm-simd128' or 'scalar'). */
    this.kernel = mod.kernelName();
    /** Size limits, checked before any allocation. */
    this.limits = runtime.limits;
    /** The core's scheme catalogue: schemes, scalings, their parameters, value lists, languages. */
    this.catalogue = catalogue.data;
    /** The scheme type names accepted by every function. */
    this.schemes = [...catalogue.schemeNames];
    /** The RoPE scaling names accepted in scheme.scaling.type. */
    this.scalings = [...catalogue.scalingNames];
    /** True when code analysis (tree-sitter grammars, tokenizers) is compiled in. */
    this.hasAnalysis = runtime.hasAnalysis;
    // The five libraries the methods below delegate to.
    this._tokenizers = new Tokenizers(runtime, dataFiles);
    this._analysis = new Analysis(runtime, catalogue, {
      grammars: options.grammars,
      grammarURL: (language) => dataFiles[`grammar:${language}`]?.() ?? null,
      tokenizer: (name) => this._tokenizers.address(name),
    });
    this._attention = new Attention(runtime, options.gpu ?? null);
    this._schemes = new SchemeMaths(runtime, catalogue);
    const full = options.full ?? null;
    this._modelConfigs = full ? new full.ModelConfigs(runtime) : null;
    /** Languages analyze() parses. */
    this.languages = [...this._analysis.languages];
    /** Tokenizer names; all but 'lexical' load their vocabulary on first use (loadTokenizer). */
    this.tokenizers = [...this._tokenizers.names];
    /** The GPU adapter's description, or null. */
    this.gpuAdapter = options.gpu ? options.gpu.adapterInfo : null;
    /** The code models: `await hr.model.load()` (full build only; null in core). */
    const modelFiles = Object.fromEntries(
      Object.keys(MODEL_FILES).map((name) => [name, dataFiles[`model:${name}`]]),
    );
    this.model = full
      ? new full.ModelLoader(runtime, modelFiles, {
          address: (name) => this._tokenizers.address(name),
          load: (name) => this.loadTokenizer(name),
          size: (name) => this._tokenizers.size(name),
          grammar: (language) => this._analysis.grammar(language),
          // The WebGPU executor while attention runs on it (attentionBackend), else null.
          gpu: () => (this._attention.backend === 'webgpu' ? this._attention.gpu : null),
          attentionAsync: (options) => this._attention.attentionAsync(options),
        })
      : null;
  }

  /** @deprecated The scheme catalogue's old name (until 0.2): use `catalogue`, the same object. */
  get vocabulary() {
    return this.catalogue;
  }

  // Tokenizers (tokenizers-api.js).

  /**
   * Loads a tokenizer (once) and resolves to the name to pass as options.tokenizer.
   * A built-in name (hr.tokenizers): its data file under data/ next to this module (a file read
   * in Node, a fetch in browsers; init({ dataURL }) moves the folder), or options.data instead.
   * { json }: a Hugging Face tokenizer.json of your own (a string, Uint8Array or ArrayBuffer),
   * read by the same loader as the built-in .json files; its name is 'json-' followed by 16 hex
   * digits hashing its bytes, so the same file always gets the same name and loads once. A file
   * the loader cannot read exactly as the reference would rejects with the reason.
   */
  async loadTokenizer(name, options) {
    return this._tokenizers.load(name, options);
  }

  /**
   * Token ids of text under a loaded tokenizer (no parsing). Text is text: a special token's
   * marker in it ('<|endoftext|>', '<|eot_id|>', '<eos>') is encoded as ordinary text, as
   * tiktoken's encode_ordinary; { specialTokens: true } makes each marker its special token's id,
   * as Hugging Face tokenizers encode by default (EncodeOptions in include/hirope/analysis.h).
   * options.tokenizer defaults to 'cl100k' (DEFAULT_TOKENIZER); 'cl100k_base' and 'o200k_base'
   * are accepted as aliases, and tokenizerForModel('gpt-4o') names a model's tokenizer.
   */
  encode(text, options) {
    return this._tokenizers.encode(text, options);
  }

  /** The number of tokens of text: encode(text, options).length (options as encode's). */
  countTokens(text, options) {
    return this._tokenizers.countTokens(text, options);
  }

  /**
   * The token count of text when it is at most limit tokens, else false (as gpt-tokenizer's
   * isWithinTokenLimit); options as encode's.
   */
  isWithinTokenLimit(text, limit, options) {
    return this._tokenizers.isWithinTokenLimit(text, limit, options);
  }

  /** encode() of each text of an array, with one options object: an array of Int32Array. */
  encodeBatch(texts, options) {
    return this._tokenizers.encodeBatch(texts, options);
  }

  /**
   * The text of token ids under a loaded tokenizer: their bytes concatenated, read as UTF-8 (a
   * sequence that is not UTF-8, as a token boundary inside a character, reads as U+FFFD).
   * decode(encode(text)) is text for well-formed text (NFC text for an NFC tokenizer).
   */
  decode(ids, options) {
    return this._tokenizers.decode(ids, options);
  }

  /**
   * Each token's bytes (a Uint8Array per id): the text it stands for, as UTF-8, which may be part
   * of a character ("🙂" is four byte tokens under some tokenizers); llama2's "▁def" is " def".
   */
  tokenBytes(ids, options) {
    return this._tokenizers.tokenBytes(ids, options);
  }

  /**
   * A streaming decoder: decode(ids) gives the text of the ids so far with any character split
   * across tokens held back until its last byte comes; flush() gives what is held (U+FFFD for an
   * incomplete character). The pieces joined are decode() of all the ids.
   */
  decoder(options) {
    return this._tokenizers.decoder(options);
  }

  // Code analysis (analysis-api.js).

  /** The language of a file name by its extension, or null. */
  detectLanguage(filename) {
    return this._analysis.detectLanguage(filename);
  }

  /**
   * Loads a language's grammar (once) and resolves to its name. analyze() loads the grammar it
   * needs by itself, synchronously (Node reads the file; a browser makes a synchronous request,
   * which a page's main thread should avoid): call this first to load it without blocking.
   * options.module: the grammar compiled elsewhere (a page compiles it once for its workers);
   * options.data: its bytes. A grammar that cannot be loaded rejects with a HiRoPEError naming
   * the language and the URL.
   */
  async loadLanguage(name, options) {
    return this._analysis.loadLanguage(name, options);
  }

  /** The languages whose grammar is loaded in this instance. */
  get loadedLanguages() {
    return this._analysis.loadedLanguages;
  }

  /** Parses code and nothing more: { hasError } (a validity check, and the bare-parse baseline). */
  parse(code, options) {
    return this._analysis.parse(code, options);
  }

  /**
   * Parses code with tree-sitter, tokenizes it, and builds hierarchical positions ready for
   * attention(): { language, tokenizer, tokens: { ids, start, end, byteStart, byteEnd, texts },
   * positions: { token, unit, statement }, units, errors, statements }. Offsets are UTF-16 code
   * units (start, end) and UTF-8 bytes (byteStart, byteEnd).
   */
  analyze(code, options) {
    return this._analysis.analyze(code, options);
  }

  // Attention (attention-api.js).

  /**
   * Attention logits, probabilities or outputs. Returns a Float32Array: heads x n x n for
   * 'logits' (masked = -Infinity) and 'probs' (masked = 0), n x heads*headDim for 'values'.
   * Pass `out` (a Float32Array of that length) to reuse a buffer across calls, and `pool`
   * ({ rows, cols, region?, ratio, raw, rowMax? }) to also get the matrix mean-pooled for display,
   * as hr.pool() computes it, without another pass over it. With `matrix: false` (and pool) the
   * matrix is only pooled, strip by strip in the heap, and never kept: it returns null. `rows:
   * [r0, r1]` computes query rows r0 .. r1-1 only: heads x (r1-r0) x n (n x width for 'values'
   * with r1-r0 rows), and pools only those rows (a region's rows, as on the whole matrix).
   */
  attention(args) {
    return this._attention.attention(args);
  }

  /** 'webgpu' or 'wasm': where attentionAsync() runs; set it to choose (webgpu needs an adapter). */
  get attentionBackend() {
    return this._attention.backend;
  }

  set attentionBackend(value) {
    this._attention.backend = value;
  }

  /**
   * attention() on the GPU when init({ backend }) chose WebGPU (a Promise of the same
   * Float32Array), else on WASM. A lost GPU device falls back to WASM for this and later calls.
   */
  async attentionAsync(args) {
    return this._attention.attentionAsync(args);
  }

  /**
   * Mean-pools an n x n attention matrix (heads x n x n: the first head) into a grid of cells for
   * display: { ratio, raw, rowMax } (see hirope.h pool_rows). options: { matrix, n, rows, cols,
   * region?: { r0, r1, c0, c1 }, causal? (default true) }.
   */
  pool(options) {
    return this._attention.pool(options);
  }

  /**
   * Q/K (and V) for people without a model. source 'ones': every entry 1 (content-free, isolates
   * the position effect). source 'seeded': standard-normal vectors per token id (same id, same
   * vector), reproducible from seed.
   */
  qk(options) {
    return this._attention.qk(options);
  }

  // Real models' configs (model-config-api.js).

  /**
   * A Hugging Face config.json (its text, or the parsed object) as a model setup: headDim,
   * rotaryDim, trainedLength, maxLength, layerCount, and per layer its attention ({ type: 'full' |
   * 'sliding' | 'chunked', window?, chunkSize? }), rope, scheme (one every call here takes), headDim,
   * sinks and temperature?; warnings lists what it read but does not model (docs/real-models.md).
   */
  fromConfig(config) {
    if (!this._modelConfigs)
      fail('fromConfig is not in the core module (load the full hirope module)');
    return this._modelConfigs.fromConfig(config);
  }

  // Scheme maths (schemes-api.js).

  /** Inverse frequencies theta_j after scaling (rotaryDim / 2 values). */
  inverseFrequencies(scheme, headDim, options) {
    return this._schemes.inverseFrequencies(scheme, headDim, options);
  }

  /** The factor multiplying cos and sin (YaRN, LongRoPE); logits scale by its square. */
  attentionFactor(scheme, headDim, options) {
    return this._schemes.attentionFactor(scheme, headDim, options);
  }

  /** Frequency bands: runs of pairs sharing one relative-distance rule. */
  bands(scheme, headDim) {
    return this._schemes.bands(scheme, headDim);
  }

  /**
   * Effective relative distance per band: for each band, an n x n Float32Array whose (i, j)
   * entry times theta_p is the angle of pair p between query i and key j (NaN where j > i for
   * windowed schemes).
   */
  relativeDistances(options) {
    return this._schemes.relativeDistances(options);
  }

  /**
   * The scheme applied to x (n x heads*headDim) as a query or key, in the near or far branch
   * (far exists for windowed schemes). Includes attention factor, xPos scale and log-n scale.
   */
  rotate(options) {
    return this._schemes.rotate(options);
  }

  /** RoFormer's long-term decay curve for r = 0 .. maxDistance. */
  longTermDecay(scheme, headDim, maxDistance) {
    return this._schemes.longTermDecay(scheme, headDim, maxDistance);
  }

  /** ALiBi slopes for any head count. */
  alibiSlopes(heads) {
    return this._schemes.alibiSlopes(heads);
  }

  /** Split% = log_base(trainingLength / 2 pi): the fraction of reliably trained pairs. */
  splitFraction(trainingLength, base) {
    return this._schemes.splitFraction(trainingLength, base);
  }

  /**
   * Whether a HiRoPE scheme's token band stays within Split% at its trainingLength and base:
   * { split, pairs, tokenPairs, maxTokenPairs, maxRatio, over }. maxTokenPairs is the largest
   * token band within the bound and maxRatio = maxTokenPairs / pairs, a ratio that gives it.
   */
  splitBound(scheme, headDim) {
    return this._schemes.splitBound(scheme, headDim);
  }

  /**
   * Which frequency pairs of a layer meet rotation angles that training at trainedLength never
   * showed, at the `length` positions a code reaches (the core's one rule, docs/real-models.md):
   * { count, pairs, rotated, trainedDistance, distance, splitPair, unseen, trainedFrequencies,
   * frequencies, distances, angles, seenAngles, limits }.
   */
  unseenPairs(scheme, headDim, options) {
    return this._schemes.unseenPairs(scheme, headDim, options);
  }

  // The WebAssembly heap.

  /** Bytes the WASM heap holds now (it only grows; tests use it to check for leaks). */
  heapBytes() {
    return this._runtime.heapBytes();
  }

  /**
   * The WebAssembly heap: { inUseBytes (held by malloc now), peakBytes (the most it has held),
   * memoryBytes (the memory's size; it never shrinks), ceilingBytes (the memory's maximum, which
   * the size limits are derived from), reserveBytes (kept free: work whose memory grows with its
   * input stops with an out-of-memory HiRoPEError rather than eat into it) }.
   */
  memory() {
    const { inUseBytes, peakBytes, memoryBytes, ceilingBytes, reserveBytes } =
      this._runtime.mod.heapStats();
    return { inUseBytes, peakBytes, memoryBytes, ceilingBytes, reserveBytes };
  }
}
// Each library guards its own methods; of the facade's, only those that reach the module themselves.
guardMethods(
  HiRoPE,
  function () {
    return this._runtime;
  },
  { only: ['heapBytes', 'memory'] },
);

/**
 * Builds an entry point's init() from its module table (see loadModule in init.js): loads the
 * module the options pick, starts the GPU executor they ask for, then the tokenizers they list.
 */
export function makeInit(entry) {
  return async function init(options) {
    options = readOptions(options, INIT_KEYS, { name: 'init options', unknown: 'init options' });
    // The grammar loader is fetched while the module loads (the full entry only).
    const loader = entry.grammars && options.analysis !== false ? entry.grammars() : null;
    loader?.catch(() => {}); // awaited below, where the module has analysis
    const { mod, backend, analysis, files, respawn, respawnAsync } = await loadModule(
      entry,
      options,
    );
    const gpu = await startGPU(entry, options);
    const grammars = analysis ? await loader : null;
    // The full module's own libraries, which only the full entries import (entry.fullLibraries).
    const full = analysis ? (entry.fullLibraries ?? null) : null;
    const hr = new HiRoPE(mod, backend, files, { gpu, respawn, respawnAsync, grammars, full });
    for (const name of options.tokenizers || []) await hr.loadTokenizer(name);
    if (grammars) await grammars.prepareSyncReads();
    for (const name of options.languages || []) await hr.loadLanguage(name);
    return hr;
  };
}
