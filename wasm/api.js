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
// copies it (errors.js): no getter or Proxy of the caller runs between the checks and the copies.
//
// The modules beside this one, by role: errors.js (HiRoPEError, argument helpers), catalogue.js
// (scheme names, defaults and checks from the core's table), runtime.js (the heap, strips,
// pooling, data files, position checks, core calls), analysis-codec.js (the packed analysis
// result), model.js (hr.model), init.js (loading the module), webgpu.js (attentionAsync on the
// GPU), worker.js / worker-client.js ('hirope/worker').

import {
  HiRoPEError,
  fail,
  describe,
  iota,
  checkCount,
  checkFloat32,
  checkStill,
  checkBytes,
  readOptions,
  closestName,
  readArray,
  ArrayCopy,
  callerArray,
  isPlainObject,
  typedArrayName,
  utf8Length,
} from './errors.js';
import { Catalogue, registerCatalogue } from './catalogue.js';
import {
  Runtime,
  TOKENIZER_DATA,
  TOKENIZER_FILES,
  DEFAULT_TOKENIZER,
  MODEL_TOKENIZERS,
  canonicalTokenizer,
  MODEL_FILES,
  MAX_TOKENIZER_JSON_BYTES,
  tokenizerHash,
  readData,
  normalizePositions,
  readPositions,
  checkPool,
  readPool,
  poolStill,
  tokenIds,
  guardMethods,
  DECODER,
} from './runtime.js';
import { AnalysisCodec } from './analysis-codec.js';
import { ModelLoader } from './model.js';
import { INIT_KEYS, loadModule, startGPU } from './init.js';

export { HiRoPEError };
export { normalizeScheme } from './catalogue.js';
export { segmentPositions } from './runtime.js';
/** The built-in tokenizers' names (each loads its data file with hr.loadTokenizer(name)). */
export const BUILTIN_TOKENIZERS = Object.freeze([...TOKENIZER_DATA]);
export { simdSupported } from './init.js';

/**
 * The built-in tokenizer a model reads ('gpt-4o' -> 'o200k', 'llama-3.1-8b-instruct' -> 'llama3'),
 * from the one table MODEL_TOKENIZERS (wasm/runtime.js); a model whose tokenizer hirope does not
 * ship is a HiRoPEError.
 */
export function tokenizerForModel(model) {
  if (typeof model !== 'string') fail(`model must be a string, got ${describe(model)}`);
  const name = model.toLowerCase();
  let best = null;
  for (const key of Object.keys(MODEL_TOKENIZERS))
    if ((name === key || name.startsWith(`${key}-`)) && (!best || key.length > best.length))
      best = key;
  if (best) return MODEL_TOKENIZERS[best];
  const guess = closestName(name, Object.keys(MODEL_TOKENIZERS));
  return fail(
    `no built-in tokenizer for the model ${describe(model)}${guess ? ` (did you mean '${guess}'?)` : ''}; known models: ${Object.keys(MODEL_TOKENIZERS).join(', ')}`,
  );
}

const ENCODER = new TextEncoder();

// attention()'s kernel option, as users name it -> the core's kernel.
const KERNELS = new Map([
  ['tiled', 'fast'],
  ['reference', 'reference'],
]);
const ANALYZE_KEYS = [
  'language',
  'filename',
  'tokenizer',
  'gap',
  'descendClasses',
  'hierarchy',
  'segmentSize',
  'timeoutMs',
];

/** options.timeoutMs as the binding takes it: NaN when not given (the core's default budget). */
function timeoutOf(value) {
  if (value === undefined) return NaN;
  if (typeof value !== 'number' || Number.isNaN(value))
    fail(
      `options.timeoutMs must be a number of milliseconds >= 0 (0: no limit), got ${describe(value)}`,
    );
  return value;
}
// The options each call reads (phase 1, see errors.js), each once.
const SHAPE_KEYS = ['n', 'headDim', 'heads', 'scheme', 'positions'];
const ATTENTION_KEYS = [
  ...SHAPE_KEYS,
  'q',
  'k',
  'v',
  'output',
  'causal',
  'scale',
  'kernel',
  'out',
  'pool',
  'matrix',
  'rows',
];
const ENCODE_KEYS = ['tokenizer', 'specialTokens'];
const ROTATE_KEYS = [...SHAPE_KEYS, 'x', 'role', 'branch'];
const POOL_OPTION_KEYS = [
  'matrix',
  'n',
  'causal',
  'rows',
  'cols',
  'region',
  'ratio',
  'raw',
  'rowMax',
];
const QK_KEYS = ['source', 'n', 'headDim', 'heads', 'tokenIds', 'seed'];

/** The API object returned by init(). */
export class HiRoPE {
  /**
   * mod: the Emscripten module; backend: 'wasm-simd' or 'wasm-scalar'; dataFiles: URLs of the
   * data files by name; options.gpu: the WebGPU executor (null: none found) when init() was asked
   * for a GPU backend; options.respawn / respawnAsync: fresh instances of the module (Runtime.reset);
   * options.grammars: wasm/grammars.js (the full module only).
   */
  constructor(mod, backend, dataFiles = {}, options = {}) {
    const catalogue = new Catalogue(mod.catalogue(), mod.limits());
    registerCatalogue(catalogue);
    const runtime = new Runtime(mod, catalogue, options);
    this._runtime = runtime;
    this._catalogue = catalogue;
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
    /** Languages analyze() parses. */
    this.languages = [...catalogue.languageNames];
    /** Tokenizer names; all but 'lexical' load their vocabulary on first use (loadTokenizer). */
    this.tokenizers = this.hasAnalysis ? ['lexical', ...TOKENIZER_DATA] : [];
    this._tokenizers = new Map(); // name -> TokenizerHandle in the current instance
    this._tokenizerData = new Map(); // name -> { bytes, json }, to load again into a fresh instance
    this._dataFiles = dataFiles;
    this._codec = this.hasAnalysis ? new AnalysisCodec(runtime) : null;
    // Each language's grammar, loaded when first needed (or ahead: loadLanguage); wasm/grammars.js
    // comes with the full module only (options.grammars), so that the core entry stays small.
    const grammarURL = (language) => dataFiles[`grammar:${language}`]?.() ?? null;
    this._grammars = this.hasAnalysis
      ? new options.grammars.Grammars(runtime, this.languages, grammarURL)
      : null;
    // A fresh instance (after a trap or abort) gets the tokenizers loaded so far; the codec's
    // buffer lived in the old one.
    runtime.onReset(() => {
      this._tokenizers = new Map();
      if (this._codec) this._codec.buffer = null;
      for (const [name, { bytes, json }] of this._tokenizerData)
        this._loadTokenizerBytes(name, bytes, json);
    });
    /** Where attentionAsync() runs: 'webgpu' (init({ backend: 'webgpu' | 'auto' })) or 'wasm'. */
    this._backend = 'wasm';
    this._gpu = null;
    /** The GPU adapter's description, or null. */
    this.gpuAdapter = null;
    if (options.gpu !== undefined) {
      this._gpu = options.gpu;
      this._backend = options.gpu ? 'webgpu' : 'wasm';
      this.gpuAdapter = options.gpu ? options.gpu.adapterInfo : null;
    }
    /** The code models: `await hr.model.load()` (full build only; null in core). */
    const modelFiles = Object.fromEntries(
      Object.keys(MODEL_FILES).map((name) => [name, dataFiles[`model:${name}`]]),
    );
    this.model = this.hasAnalysis
      ? new ModelLoader(runtime, modelFiles, {
          address: (name) => this._tokenizer(name),
          load: (name) => this.loadTokenizer(name),
          size: (name) => this._tokenizers.get(name).size(),
          grammar: (language) => this._grammars.address(language),
        })
      : null;
  }

  /** @deprecated The scheme catalogue's old name (until 0.2): use `catalogue`, the same object. */
  get vocabulary() {
    return this.catalogue;
  }

  /** The language of a file name by its extension, or null. */
  detectLanguage(filename) {
    this._runtime.needAnalysis();
    if (typeof filename !== 'string') fail(`filename must be a string, got ${describe(filename)}`);
    return this._runtime.mod.detectLanguage(filename) || null;
  }

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
    const runtime = this._runtime;
    runtime.needAnalysis();
    if (isPlainObject(name)) {
      if (options !== undefined) fail('loadTokenizer({ json }) takes no options');
      return this._loadTokenizerJson(name);
    }
    name = canonicalTokenizer(name);
    const { data } = readOptions(options, ['data'], { unknown: 'loadTokenizer options' });
    if (name === 'lexical') return name;
    if (!TOKENIZER_DATA.includes(name))
      fail(
        `tokenizer must be one of ${this.tokenizers.map((t) => `'${t}'`).join(', ')} or { json }, got ${describe(name)}`,
      );
    if (this._tokenizers.has(name)) return name;
    let bytes = data;
    if (bytes === undefined) {
      const url = this._dataFiles[name];
      if (!url)
        fail(
          `no location for the '${name}' tokenizer data: pass options.data or init({ dataURL })`,
        );
      bytes = await readData(url);
    }
    bytes = checkBytes(bytes, 'options.data');
    if (this._tokenizers.has(name)) return name; // loaded by a call that finished during the await
    const json = TOKENIZER_FILES[name].endsWith('.json');
    if (json && bytes.length > MAX_TOKENIZER_JSON_BYTES)
      fail(
        `the '${name}' tokenizer data is ${bytes.length} bytes, over the limit of ${MAX_TOKENIZER_JSON_BYTES} bytes`,
      );
    this._loadTokenizerBytes(name, bytes, json);
    this._tokenizerData.set(name, { bytes: bytes.slice(), json });
    return name;
  }

  _loadTokenizerJson(source) {
    const { json } = readOptions(source, ['json'], {
      name: 'the tokenizer source',
      unknown: 'the tokenizer source',
    });
    const max = MAX_TOKENIZER_JSON_BYTES;
    let bytes;
    if (typeof json === 'string') {
      // Sizes checked before anything is encoded or copied into the heap.
      if (json.length > max)
        fail(`json is ${json.length} characters, over the limit of ${max} bytes`);
      const n = utf8Length(json);
      if (n > max) fail(`json is ${n} bytes of UTF-8, over the limit of ${max} bytes`);
      bytes = ENCODER.encode(json);
    } else if (json === undefined) {
      fail('loadTokenizer needs a built-in name or { json } (a tokenizer.json as text or bytes)');
    } else {
      bytes = checkBytes(json, 'json');
      if (bytes.length > max) fail(`json is ${bytes.length} bytes, over the limit of ${max} bytes`);
    }
    const name = `json-${tokenizerHash(bytes)}`;
    if (!this._tokenizers.has(name)) {
      this._loadTokenizerBytes(name, bytes, true);
      this._tokenizerData.set(name, { bytes: bytes.slice(), json: true });
    }
    return name;
  }

  _loadTokenizerBytes(name, bytes, json) {
    const runtime = this._runtime;
    const handle = new runtime.mod.TokenizerHandle();
    try {
      runtime.run((heap) =>
        runtime.check(
          json ? handle.loadJson(...heap.bytes(bytes), name) : handle.load(...heap.bytes(bytes)),
        ),
      );
    } catch (e) {
      handle.delete();
      throw e;
    }
    this._tokenizers.set(name, handle);
  }

  _tokenizer(name) {
    name = canonicalTokenizer(name);
    if (name === 'lexical') return 0;
    const handle = typeof name === 'string' ? this._tokenizers.get(name) : undefined;
    if (handle) return handle.address();
    if (TOKENIZER_DATA.includes(name))
      fail(`tokenizer '${name}' is not loaded: call await hr.loadTokenizer('${name}') first`);
    if (typeof name === 'string' && /^json-[0-9a-f]{16}$/.test(name))
      fail(
        `tokenizer '${name}' is not loaded: pass its tokenizer.json to await hr.loadTokenizer({ json }) first`,
      );
    fail(
      `tokenizer must be one of ${this.tokenizers.map((t) => `'${t}'`).join(', ')} or a name hr.loadTokenizer({ json }) returned, got ${describe(name)}`,
    );
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
    this._runtime.needAnalysis();
    const { module, data } = readOptions(options, ['module', 'data'], {
      name: 'loadLanguage options',
      unknown: 'loadLanguage options',
    });
    this._catalogue.checkLanguage(name);
    return this._grammars.load(name, {
      module,
      data: data === undefined ? undefined : checkBytes(data, 'options.data'),
    });
  }

  /** The languages whose grammar is loaded in this instance. */
  get loadedLanguages() {
    return this.hasAnalysis ? this._grammars.loaded : [];
  }

  /** Parses code and nothing more: { hasError } (a validity check, and the bare-parse baseline). */
  parse(code, options) {
    const { language, timeoutMs } = readOptions(options, ['language', 'timeoutMs'], {
      unknown: 'parse options',
    });
    const runtime = this._runtime;
    runtime.needAnalysis();
    this._catalogue.checkLanguage(language);
    const timeout = timeoutOf(timeoutMs);
    const grammar = this._grammars.address(language);
    const r = runtime.run((heap) =>
      runtime.mod.parse(...heap.text(code), language, grammar, timeout),
    );
    runtime.check(r.error);
    return { hasError: r.hasError };
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
    const { vocab, specialTokens } = this._encodeOptions(options, 'encode');
    return this._encode(vocab, text, specialTokens);
  }

  /** The number of tokens of text: encode(text, options).length (options as encode's). */
  countTokens(text, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'countTokens');
    return this._encode(vocab, text, specialTokens).length;
  }

  /**
   * The token count of text when it is at most limit tokens, else false (as gpt-tokenizer's
   * isWithinTokenLimit); options as encode's.
   */
  isWithinTokenLimit(text, limit, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'isWithinTokenLimit');
    checkCount(limit, 'limit', { min: 0, max: Number.MAX_SAFE_INTEGER });
    const count = this._encode(vocab, text, specialTokens).length;
    return count <= limit ? count : false;
  }

  /** encode() of each text of an array, with one options object: an array of Int32Array. */
  encodeBatch(texts, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'encodeBatch');
    const list = readArray(texts, this.limits.maxTokens);
    if (!(list instanceof ArrayCopy))
      fail(`texts must be an array of strings, got ${describe(texts)}`);
    if (list.items === null)
      fail(`texts has ${list.length} entries, more than the limit of ${this.limits.maxTokens}`);
    list.items.forEach((text, i) => {
      if (typeof text !== 'string') fail(`texts[${i}] must be a string, got ${describe(text)}`);
    });
    return list.items.map((text) => this._encode(vocab, text, specialTokens));
  }

  // encode()'s options (tokenizer, default DEFAULT_TOKENIZER; specialTokens), read and checked.
  _encodeOptions(options, caller) {
    const { tokenizer = DEFAULT_TOKENIZER, specialTokens = false } = readOptions(
      options,
      ENCODE_KEYS,
      { unknown: `${caller} options` },
    );
    this._runtime.needAnalysis();
    if (typeof specialTokens !== 'boolean')
      fail(`options.specialTokens must be a boolean, got ${describe(specialTokens)}`);
    if (tokenizer === 'lexical')
      fail(`${caller}() needs a vocabulary tokenizer; 'lexical' tokens come from analyze()`);
    return { vocab: this._tokenizer(tokenizer), specialTokens };
  }

  _encode(vocab, text, specialTokens) {
    const runtime = this._runtime;
    const ids = runtime.run((heap) =>
      runtime.mod.encode(vocab, ...heap.text(text, 'text'), specialTokens),
    );
    if (typeof ids === 'string') runtime.check(ids);
    return ids;
  }

  /**
   * The text of token ids under a loaded tokenizer: their bytes concatenated, read as UTF-8 (a
   * sequence that is not UTF-8, as a token boundary inside a character, reads as U+FFFD).
   * decode(encode(text)) is text for well-formed text (NFC text for an NFC tokenizer).
   */
  decode(ids, options) {
    const { tokenizer = DEFAULT_TOKENIZER } = readOptions(options, ['tokenizer'], {
      unknown: 'decode options',
    });
    const runtime = this._runtime;
    runtime.needAnalysis();
    if (tokenizer === 'lexical')
      fail("decode() needs a vocabulary tokenizer; 'lexical' has no ids to decode");
    const vocab = this._tokenizer(tokenizer);
    let list;
    if (typedArrayName(ids) === 'Int32Array') list = ids;
    else if (Array.isArray(ids)) {
      list = new Int32Array(ids.length);
      ids.forEach((id, i) => {
        if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff)
          fail(`ids[${i}] must be a token id (an integer >= 0), got ${describe(id)}`);
        list[i] = id;
      });
    } else fail(`ids must be an Int32Array or an array of token ids, got ${describe(ids)}`);
    const bytes = runtime.run((heap) => runtime.mod.decode(vocab, heap.int32(list), list.length));
    if (typeof bytes === 'string') runtime.check(bytes);
    return DECODER.decode(bytes);
  }

  /**
   * Parses code with tree-sitter, tokenizes it, and builds hierarchical positions ready for
   * attention(): { language, tokenizer, tokens: { ids, start, end, byteStart, byteEnd, texts },
   * positions: { token, unit, statement }, units, errors, statements }. Offsets are UTF-16 code
   * units (start, end) and UTF-8 bytes (byteStart, byteEnd).
   */
  analyze(code, options) {
    options = readOptions(options, ANALYZE_KEYS, { unknown: 'analyze options' });
    this._runtime.needAnalysis();
    const catalogue = this._catalogue;
    let language = options.language;
    if (language === undefined && options.filename !== undefined) {
      language = this.detectLanguage(options.filename);
      if (!language)
        fail(
          `cannot detect the language of '${options.filename}' (known: ${this.languages.join(', ')}); pass options.language`,
        );
    }
    if (language === undefined) fail('options.language (or options.filename) is required');
    catalogue.checkLanguage(language);
    const vocab = this._tokenizer(options.tokenizer === undefined ? 'lexical' : options.tokenizer);
    const gap = catalogue.value(
      'gaps',
      options.gap === undefined ? 'own' : options.gap,
      'options.gap',
    );
    const descend = options.descendClasses === undefined ? false : options.descendClasses;
    if (typeof descend !== 'boolean')
      fail(`options.descendClasses must be a boolean, got ${describe(descend)}`);
    const hierarchy = catalogue.value(
      'hierarchies',
      options.hierarchy === undefined ? 'units' : options.hierarchy,
      'options.hierarchy',
    );
    const segmentSize = options.segmentSize === undefined ? 128 : options.segmentSize;
    checkCount(segmentSize, 'options.segmentSize');
    const timeoutMs = timeoutOf(options.timeoutMs);
    return this._codec.analyze(code, {
      language,
      grammar: this._grammars.address(language),
      vocab,
      gap,
      descend,
      hierarchy,
      segmentSize,
      timeoutMs,
    });
  }

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
    return this._attentionWasm(this._attentionArgs(args, 'attention'));
  }

  /** 'webgpu' or 'wasm': where attentionAsync() runs; set it to choose (webgpu needs an adapter). */
  get attentionBackend() {
    return this._gpu && this._backend === 'webgpu' ? 'webgpu' : 'wasm';
  }

  set attentionBackend(value) {
    if (value !== 'wasm' && value !== 'webgpu')
      fail(`attentionBackend must be 'wasm' or 'webgpu', got ${describe(value)}`);
    if (value === 'webgpu' && !this._gpu)
      fail(
        "attentionBackend cannot be 'webgpu': no WebGPU device (init({ backend: 'webgpu' | 'auto' }) found no adapter, or the device was lost)",
      );
    this._backend = value;
  }

  /**
   * attention() on the GPU when init({ backend }) chose WebGPU (a Promise of the same
   * Float32Array), else on WASM. A lost GPU device falls back to WASM for this and later calls.
   */
  async attentionAsync(args) {
    const a = this._attentionArgs(args, 'attentionAsync');
    if (this.attentionBackend !== 'webgpu' || a.rowEnd - a.rowBegin < a.n)
      return this._attentionWasm(a);
    // The GPU result arrives after an await, when the caller's code may have run: it is computed
    // into arrays of ours and copied into out and pool's arrays only if they still have their
    // lengths (a buffer detached or shrunk meanwhile is a HiRoPEError, not a partial write).
    const deliver = (result) => {
      if (a.pool) {
        const { ratio, raw, rowMax } = this.pool({
          matrix: result,
          n: a.n,
          rows: a.pool.rows,
          cols: a.pool.cols,
          region: a.pool.region,
          causal: a.causal,
        });
        const pool = poolStill(a.pool, a.n);
        pool.ratio.set(ratio);
        pool.raw.set(raw);
        pool.rowMax?.set(rowMax);
      }
      if (!a.matrix) return null;
      if (!a.out) return result;
      checkStill(a.out, a.outLength, 'out').set(result);
      return callerArray(a.out);
    };
    try {
      return deliver(await this._gpu.attention({ ...a, out: null }, this._runtime));
    } catch (e) {
      if (e instanceof HiRoPEError || !this._gpu.lost) throw e;
      this._gpu = null; // the device is gone: WASM from now on, same arguments, same result
      this._backend = 'wasm';
      return this._attentionWasm(a);
    }
  }

  // The checks that must happen before anything is copied into the heap (types, lengths, sizes,
  // limits) and those the GPU path needs, which never reaches the core's request checks; the core
  // checks the scheme's values.
  _attentionArgs(options, caller) {
    const runtime = this._runtime;
    const args = this._read(options, ATTENTION_KEYS, caller);
    const { n, headDim, heads, width } = runtime.shape(args);
    const scheme = this._catalogue.normalizeScheme(
      args.scheme === undefined ? 'rope' : args.scheme,
    );
    const output =
      args.output === undefined ? (args.v !== undefined ? 'values' : 'probs') : args.output;
    if (!['logits', 'probs', 'values'].includes(output))
      fail(`output must be 'logits', 'probs' or 'values', got ${describe(output)}`);
    const shape = 'n * heads * headDim';
    const q = checkFloat32(args.q, 'q', n * width, shape);
    const k = checkFloat32(args.k, 'k', n * width, shape);
    const v = args.v === undefined ? undefined : checkFloat32(args.v, 'v', n * width, shape);
    if (output === 'values' && !v) fail("output 'values' needs v");
    const causal = args.causal === undefined ? true : args.causal;
    if (typeof causal !== 'boolean') fail(`causal must be a boolean, got ${describe(causal)}`);
    if (scheme.windowed && !causal)
      fail(
        `scheme '${scheme.name}' is a windowed scheme, defined for causal attention: set causal to true`,
      );
    const scale = args.scale === undefined ? 0 : args.scale;
    if (
      args.scale !== undefined &&
      !(typeof scale === 'number' && Number.isFinite(scale) && scale > 0)
    ) {
      fail(`scale must be a positive finite number, got ${describe(scale)}`);
    }
    const kernelName = args.kernel === undefined ? 'tiled' : args.kernel;
    if (!KERNELS.has(kernelName))
      fail(
        `kernel must be one of ${[...KERNELS.keys()].map((x) => `'${x}'`).join(', ')}, got ${describe(kernelName)}`,
      );
    const kernel = this._catalogue.value('kernels', KERNELS.get(kernelName), 'kernel');
    if (heads * n * n > this.limits.maxOutputElements) {
      fail(
        `heads * n * n = ${heads * n * n} exceeds the output limit of ${this.limits.maxOutputElements} elements`,
      );
    }
    const pos = normalizePositions(args.positions, n, scheme);
    const matrix = args.matrix === undefined ? true : args.matrix;
    if (typeof matrix !== 'boolean') fail(`matrix must be a boolean, got ${describe(matrix)}`);
    if (!matrix && (args.pool === undefined || args.out !== undefined))
      fail('matrix: false needs pool (the matrix is only pooled) and no out');
    let rowBegin = 0;
    let rowEnd = n;
    if (args.rows !== undefined) {
      const rows = Array.isArray(args.rows) ? [args.rows[0], args.rows[1]] : args.rows;
      if (
        !Array.isArray(rows) ||
        !Number.isInteger(rows[0]) ||
        !Number.isInteger(rows[1]) ||
        rows[0] < 0 ||
        rows[0] >= rows[1] ||
        rows[1] > n
      )
        fail(`rows must be [r0, r1] with 0 <= r0 < r1 <= n = ${n}, got ${describe(args.rows)}`);
      [rowBegin, rowEnd] = rows;
    }
    const count = rowEnd - rowBegin;
    const outLength = output === 'values' ? count * width : heads * count * n;
    const out =
      args.out === undefined
        ? null
        : checkFloat32(
            args.out,
            'out',
            outLength,
            output === 'values'
              ? `${count < n ? 'rows' : 'n'} * heads * headDim`
              : `heads * ${count < n ? 'rows' : 'n'} * n`,
            { output: true },
          );
    let pool = null;
    if (args.pool !== undefined) {
      if (output !== 'probs' || heads !== 1) fail("pool needs output 'probs' and one head");
      pool = checkPool(args.pool, n, { outputs: true });
    }
    return {
      n,
      headDim,
      heads,
      width,
      scheme,
      output,
      q,
      k,
      v,
      causal,
      scale,
      kernel,
      pos,
      outLength,
      out,
      pool,
      matrix,
      rowBegin,
      rowEnd,
    };
  }

  _attentionWasm({
    n,
    headDim,
    heads,
    width,
    scheme,
    output,
    q,
    k,
    v,
    causal,
    scale,
    kernel,
    pos,
    outLength,
    out,
    pool,
    matrix = true,
    rowBegin = 0,
    rowEnd = n,
  }) {
    const runtime = this._runtime;
    // After attentionAsync's await (a lost GPU): the caller may have detached or shrunk a buffer.
    for (const [x, name] of [
      [q, 'q'],
      [k, 'k'],
      [v, 'v'],
      [out, 'out'],
    ])
      if (x) checkStill(x, name === 'out' ? outLength : n * width, name);
    const count = rowEnd - rowBegin;
    if (pool) poolStill(pool, n);
    const coreOutput = this._catalogue.value(
      'outputs',
      output === 'logits' ? 'logits' : 'probs',
      'output',
    );
    // Pooling some rows: the rows' maxima go to the caller's rowMax, the others stay as they are.
    const spec = pool?.rowMax && count < n ? { ...pool, rowMax: new Float32Array(n) } : pool;
    return runtime.run((heap) => {
      const pooling = spec && runtime.pooling(heap, spec, causal);
      const plan = new runtime.mod.Plan();
      try {
        const [tp, up, sp] = heap.positions(pos);
        const qp = heap.float32(q);
        const kp = heap.float32(k);
        const vp = v ? heap.float32(v) : 0;
        runtime.check(
          plan.prepare(
            scheme,
            qp,
            kp,
            vp,
            n,
            headDim,
            heads,
            tp,
            up,
            sp,
            causal,
            coreOutput,
            scale,
            kernel,
          ),
        );
        const rowWidth = output === 'values' ? width : n;
        // matrix: false keeps nothing: each strip is pooled while it is in the heap, then dropped;
        // its strips are a quarter of the size, so that the pooling reads them from the cache.
        const stripRows = runtime.stripRows(n, matrix ? rowWidth : rowWidth * 4);
        const strip = heap.alloc(stripRows * rowWidth * 4);
        const result = matrix ? out || new Float32Array(outLength) : null;
        for (let h = 0; h < (output === 'values' ? 1 : heads); h++) {
          for (let r0 = rowBegin; r0 < rowEnd; r0 += stripRows) {
            const r1 = Math.min(rowEnd, r0 + stripRows);
            runtime.check(
              output === 'values' ? plan.outputRows(r0, r1, strip) : plan.rows(h, r0, r1, strip),
            );
            result?.set(
              heap.readFloat32(strip, (r1 - r0) * rowWidth),
              h * count * n + (r0 - rowBegin) * rowWidth,
            );
            if (pooling) pooling.add(strip, r0, r1); // while the strip is in the heap
          }
        }
        pooling?.finish();
        if (spec !== pool) pool.rowMax.set(spec.rowMax.subarray(rowBegin, rowEnd), rowBegin);
        return result && callerArray(result);
      } finally {
        plan.delete();
      }
    });
  }

  /** Inverse frequencies theta_j after scaling (rotaryDim / 2 values). */
  inverseFrequencies(scheme, headDim, options) {
    return this._frequencies(scheme, headDim, options, 'inverseFrequencies').values;
  }

  /** The factor multiplying cos and sin (YaRN, LongRoPE); logits scale by its square. */
  attentionFactor(scheme, headDim, options) {
    return this._frequencies(scheme, headDim, options, 'attentionFactor').attentionFactor;
  }

  _frequencies(scheme, headDim, options, caller) {
    scheme = this._catalogue.readScheme(scheme);
    const { seqLen = 1 } = readOptions(options, ['seqLen'], { unknown: `${caller} options` });
    const s = this._catalogue.normalizeScheme(scheme);
    if (!s.rotary) fail(`scheme '${s.name}' has no rotary frequencies`);
    this._runtime.headDim(headDim);
    checkCount(seqLen, 'seqLen');
    const res = this._runtime.mod.inverseFrequencies(s, headDim, seqLen);
    this._runtime.check(res.error);
    return res;
  }

  /** Frequency bands: runs of pairs sharing one relative-distance rule. */
  bands(scheme, headDim) {
    return this._bands(this._catalogue.normalizeScheme(scheme), headDim);
  }

  _bands(s, headDim) {
    this._runtime.headDim(headDim);
    const res = this._runtime.mod.bands(s, headDim);
    this._runtime.check(res.error);
    return res.bands;
  }

  /**
   * Effective relative distance per band: for each band, an n x n Float32Array whose (i, j)
   * entry times theta_p is the angle of pair p between query i and key j (NaN where j > i for
   * windowed schemes).
   */
  relativeDistances(options) {
    const runtime = this._runtime;
    const args = this._read(options, SHAPE_KEYS, 'relativeDistances');
    const { n, headDim } = runtime.shape(args);
    const scheme = this._catalogue.normalizeScheme(
      args.scheme === undefined ? 'rope' : args.scheme,
    );
    if (!scheme.rotary) fail(`scheme '${scheme.name}' has no rotary bands`);
    if (n * n > this.limits.maxOutputElements)
      fail(
        `n * n = ${n * n} exceeds the output limit of ${this.limits.maxOutputElements} elements`,
      );
    const pos = normalizePositions(args.positions, n, scheme);
    const bands = this._bands(scheme, headDim);
    return runtime.run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const out = heap.alloc(n * n * 4);
      return bands.map((band, index) => {
        runtime.check(runtime.mod.relativeDistances(scheme, headDim, n, tp, up, sp, index, out));
        return { ...band, distances: heap.readFloat32(out, n * n).slice() };
      });
    });
  }

  /**
   * The scheme applied to x (n x heads*headDim) as a query or key, in the near or far branch
   * (far exists for windowed schemes). Includes attention factor, xPos scale and log-n scale.
   */
  rotate(options) {
    const runtime = this._runtime;
    const args = this._read(options, ROTATE_KEYS, 'rotate');
    const { n, headDim, heads, width } = runtime.shape(args);
    const scheme = this._catalogue.normalizeScheme(
      args.scheme === undefined ? 'rope' : args.scheme,
    );
    const x = checkFloat32(args.x, 'x', n * width, 'n * heads * headDim');
    const role = this._catalogue.value(
      'roles',
      args.role === undefined ? 'query' : args.role,
      'role',
    );
    const branch = this._catalogue.value(
      'branches',
      args.branch === undefined ? 'near' : args.branch,
      'branch',
    );
    const pos = normalizePositions(args.positions, n, scheme);
    return runtime.run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const xp = heap.float32(x);
      const out = heap.alloc(x.length * 4);
      runtime.check(
        runtime.mod.rotate(scheme, headDim, heads, n, tp, up, sp, role, branch, xp, out),
      );
      return heap.readFloat32(out, x.length).slice();
    });
  }

  /** RoFormer's long-term decay curve for r = 0 .. maxDistance. */
  longTermDecay(scheme, headDim, maxDistance) {
    const runtime = this._runtime;
    const s = this._catalogue.normalizeScheme(scheme);
    runtime.headDim(headDim);
    checkCount(maxDistance, 'maxDistance', { min: 0, max: this.limits.maxTokens - 1 });
    return runtime.run((heap) => {
      const out = heap.alloc((maxDistance + 1) * 4);
      runtime.check(runtime.mod.longTermDecay(s, headDim, maxDistance, out));
      return heap.readFloat32(out, maxDistance + 1).slice();
    });
  }

  /**
   * Mean-pools an n x n attention matrix (heads x n x n: the first head) into a grid of cells for
   * display: { ratio, raw, rowMax } (see hirope.h pool_rows). options: { matrix, n, rows, cols,
   * region?: { r0, r1, c0, c1 }, causal? (default true) }.
   */
  pool(options) {
    const runtime = this._runtime;
    options = readPool(
      readOptions(options, POOL_OPTION_KEYS, { name: 'pool options', required: true }),
    );
    const n = checkCount(options.n, 'n', { max: this.limits.maxTokens });
    const matrix = checkFloat32(options.matrix, 'matrix', n * n, 'n * n');
    const causal = options.causal === undefined ? true : options.causal;
    if (typeof causal !== 'boolean') fail(`causal must be a boolean, got ${describe(causal)}`);
    const spec = checkPool(options, n, { outputs: false });
    return runtime.run((heap) => {
      const pooling = runtime.pooling(heap, spec, causal);
      const stripRows = runtime.stripRows(n, n);
      const strip = heap.alloc(stripRows * n * 4);
      for (let r0 = 0; r0 < n; r0 += stripRows) {
        const r1 = Math.min(n, r0 + stripRows);
        runtime.mod.HEAPF32.set(matrix.subarray(r0 * n, r1 * n), strip >> 2);
        pooling.add(strip, r0, r1);
      }
      pooling.finish();
      return {
        ratio: callerArray(spec.ratio),
        raw: callerArray(spec.raw),
        rowMax: spec.rowMax && callerArray(spec.rowMax),
      };
    });
  }

  /** ALiBi slopes for any head count. */
  alibiSlopes(heads) {
    checkCount(heads, 'heads', { max: this.limits.maxHeads });
    return this._runtime.mod.alibiSlopes(heads);
  }

  /** Split% = log_base(trainingLength / 2 pi): the fraction of reliably trained pairs. */
  splitFraction(trainingLength, base = 10000) {
    // Types here (the binding would coerce); ranges in the core.
    if (typeof trainingLength !== 'number')
      fail(`trainingLength must be a positive number, got ${describe(trainingLength)}`);
    if (typeof base !== 'number') fail(`base must be a number > 1, got ${describe(base)}`);
    const r = this._runtime.mod.splitFraction(trainingLength, base);
    this._runtime.check(r.error);
    return r.value;
  }

  /**
   * Whether a HiRoPE scheme's token band stays within Split% at its trainingLength and base:
   * { split, pairs, tokenPairs, maxTokenPairs, maxRatio, over }. maxTokenPairs is the largest
   * token band within the bound and maxRatio = maxTokenPairs / pairs, a ratio that gives it.
   */
  splitBound(scheme, headDim) {
    const s = this._catalogue.normalizeScheme(scheme);
    this._runtime.headDim(headDim);
    const r = this._runtime.mod.splitBound(s, headDim);
    this._runtime.check(r.error);
    const { split, pairs, tokenPairs, maxTokenPairs, over } = r;
    return {
      split,
      pairs,
      tokenPairs,
      maxTokenPairs,
      maxRatio: pairs ? maxTokenPairs / pairs : 0,
      over,
    };
  }

  /**
   * Q/K (and V) for people without a model. source 'ones': every entry 1 (content-free, isolates
   * the position effect). source 'seeded': standard-normal vectors per token id (same id, same
   * vector), reproducible from seed.
   */
  qk(options) {
    const o = readOptions(options, QK_KEYS, { unknown: 'qk options' });
    if (o.tokenIds !== undefined) o.tokenIds = readArray(o.tokenIds, this.limits.maxTokens);
    const { source = 'seeded', n, headDim, heads = 1, tokenIds: ids, seed = 0 } = o;
    const runtime = this._runtime;
    const shape = runtime.shape({ n, headDim, heads });
    const count = n * shape.width;
    if (source === 'ones') {
      return {
        q: new Float32Array(count).fill(1),
        k: new Float32Array(count).fill(1),
        v: new Float32Array(count).fill(1),
      };
    }
    if (source !== 'seeded') fail(`source must be 'ones' or 'seeded', got ${describe(source)}`);
    if (!Number.isSafeInteger(seed) || seed < 0)
      fail(`seed must be a non-negative safe integer, got ${describe(seed)}`);
    const tokens = ids === undefined ? iota(n) : tokenIds(ids, n);
    return runtime.run((heap) => {
      const idp = heap.int32(tokens);
      const out = heap.alloc(count * 4);
      const result = {};
      for (const [role, name] of [
        [0, 'q'],
        [1, 'k'],
        [2, 'v'],
      ]) {
        runtime.mod.seededVectors(seed, idp, n, shape.width, role, out);
        result[name] = heap.readFloat32(out, count).slice();
      }
      return result;
    });
  }

  // Phase 1 of a call on an options object (see errors.js): its keys, the scheme, the positions
  // and the pooling spec read once, before anything is checked.
  _read(options, keys, caller) {
    const args = readOptions(options, keys, { unknown: `${caller} options`, required: true });
    if (args.scheme !== undefined) args.scheme = this._catalogue.readScheme(args.scheme);
    if (args.positions !== undefined)
      args.positions = readPositions(args.positions, this.limits.maxTokens);
    if (args.pool !== undefined) args.pool = readPool(args.pool);
    return args;
  }

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
guardMethods(HiRoPE, function () {
  return this._runtime;
});

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
    const hr = new HiRoPE(mod, backend, files, { gpu, respawn, respawnAsync, grammars });
    for (const name of options.tokenizers || []) await hr.loadTokenizer(name);
    if (grammars) await grammars.prepareSyncReads();
    for (const name of options.languages || []) await hr.loadLanguage(name);
    return hr;
  };
}
