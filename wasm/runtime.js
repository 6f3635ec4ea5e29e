// The runtime: one loaded WebAssembly module and the internal API the other modules work through.
// A Heap per call (every block freed when the call returns, errors included, so repeated calls
// never grow the heap), strips and pooling, reading data files, position and shape checks, text
// encoded into the heap, and the core's Status strings turned into HiRoPEErrors that name
// arguments as users write them (through the scheme catalogue). Its members without an underscore are
// public to the other modules of wasm/.
import { HiRoPEError } from './errors.js';
import {
  fail,
  describe,
  iota,
  checkCount,
  checkFloat32,
  checkStill,
  checkInt32s,
  readObject,
  readOptions,
  readArray,
  isPlainObject,
  ArrayCopy,
  typedArrayName,
  typedBuffer,
  utf8Length,
  checkKnownKeys,
  sizeOverLimit,
} from './marshal.js';

// Shared with the page and the element: the "did you mean" rule (closestName), the wording of
// a size over its limit, and the UTF-8 count it is checked by.
export { closestName, sizeOverLimit, textOverLimit, grouped, utf8Length } from './marshal.js';

/** The options that give a call's shape, scheme and positions (Runtime.shape, readCall). */
export const SHAPE_KEYS = Object.freeze(['n', 'headDim', 'heads', 'scheme', 'positions']);
/** Floats per strip buffer in the heap (4 MB): outputs are computed and copied out in strips. */
export const STRIP_ELEMENTS = 1 << 20;
// The data files' names (models/registry.json, through registry.js: the one list).
import {
  TOKENIZER_FILES,
  MODEL_FILES,
  DEFAULT_MODEL,
  MAX_TOKENIZER_JSON_BYTES,
} from './registry.js';
export { TOKENIZER_FILES, MODEL_FILES, DEFAULT_MODEL, MAX_TOKENIZER_JSON_BYTES };
export const TOKENIZER_DATA = Object.keys(TOKENIZER_FILES);
/**
 * The tokenizer encode(), decode(), countTokens() and encodeBatch() use when options.tokenizer is
 * left out: cl100k, as it always was (kept so that existing callers get the same ids).
 */
export const DEFAULT_TOKENIZER = 'cl100k';
/** Other names of the built-in tokenizers: tiktoken's encoding names. */
export const TOKENIZER_ALIASES = Object.freeze({ cl100k_base: 'cl100k', o200k_base: 'o200k' });
/**
 * Model names -> the built-in tokenizer whose ids the model reads (tokenizerForModel), written
 * once here. Only models whose tokenizer ships: a name followed by '-' and more ('gpt-4o-2024-08-06',
 * 'llama-3.1-8b-instruct', 'qwen3-8b') takes its longest listed prefix, as tiktoken's
 * encoding_for_model does.
 */
export const MODEL_TOKENIZERS = Object.freeze({
  'gpt-5': 'o200k',
  'gpt-4.1': 'o200k',
  'gpt-4o': 'o200k',
  o1: 'o200k',
  o3: 'o200k',
  'o4-mini': 'o200k',
  'gpt-4': 'cl100k',
  'gpt-3.5-turbo': 'cl100k',
  'text-embedding-3-small': 'cl100k',
  'text-embedding-3-large': 'cl100k',
  'text-embedding-ada-002': 'cl100k',
  'llama-2': 'llama2',
  'llama-3': 'llama3',
  'llama-3.1': 'llama3',
  'llama-3.2': 'llama3',
  'llama-3.3': 'llama3',
  qwen3: 'qwen3',
  'deepseek-v3': 'deepseek-v3',
  'deepseek-r1': 'deepseek-v3',
  'gemma-3': 'gemma3',
  // Code Llama reads Llama 2's vocabulary; its infilling markers (▁<PRE>, ▁<MID>, ▁<SUF>, ▁<EOT>)
  // are pieces of its own (vocab_size 32016) that llama2 lacks, met only by text that has them.
  codellama: 'llama2',
});
/**
 * Models whose tokenizer is one of tiktoken's that hirope does not ship (tiktoken's model.py,
 * MODEL_TO_ENCODING): Codex and the GPT-3 models. tokenizerForModel names the encoding.
 */
export const MODEL_ENCODINGS_NOT_SHIPPED = Object.freeze({
  'code-davinci-002': 'p50k_base',
  'code-davinci-001': 'p50k_base',
  'code-cushman-002': 'p50k_base',
  'code-cushman-001': 'p50k_base',
  'davinci-codex': 'p50k_base',
  'cushman-codex': 'p50k_base',
  'text-davinci-003': 'p50k_base',
  'text-davinci-002': 'p50k_base',
  'text-davinci-001': 'r50k_base',
  davinci: 'r50k_base',
  curie: 'r50k_base',
  babbage: 'r50k_base',
  ada: 'r50k_base',
});
/** A built-in tokenizer's own name for one of its aliases ('cl100k_base' -> 'cl100k'); else the name. */
export const canonicalTokenizer = (name) =>
  typeof name === 'string' && Object.hasOwn(TOKENIZER_ALIASES, name)
    ? TOKENIZER_ALIASES[name]
    : name;
/**
 * Each language's grammar is a side module beside the main module's .wasm (wasm/grammars.js):
 * its file name, and the language of such a file name (null for any other file).
 */
const GRAMMAR_PREFIX = 'tree-sitter-';
const GRAMMAR_SUFFIX = '.wasm';
export const grammarFile = (language) => GRAMMAR_PREFIX + language + GRAMMAR_SUFFIX;
export const grammarLanguage = (file) =>
  file.startsWith(GRAMMAR_PREFIX) && file.endsWith(GRAMMAR_SUFFIX)
    ? file.slice(GRAMMAR_PREFIX.length, -GRAMMAR_SUFFIX.length)
    : null;

const ENCODER = new TextEncoder();
// UTF-8 out of the heap. ignoreBOM: a text that starts with U+FEFF decodes back to itself (by
// default TextDecoder drops it).
export const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

export const isNode = () => typeof process === 'object' && !!process.versions?.node;

/** The bytes at a URL: a file read in Node (file: URLs), a fetch elsewhere. */
export async function readData(url) {
  if (url.protocol === 'file:') {
    const fsName = 'node:fs/promises'; // a variable, so bundlers leave Node's fs alone
    const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
    try {
      return new Uint8Array(await fs.readFile(url));
    } catch (e) {
      fail(`cannot read ${url.href}: ${e.message}`);
    }
  }
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    fail(`cannot fetch ${url.href}: ${e.message}`);
  }
  if (!res.ok) fail(`cannot fetch ${url.href}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Blocks of one call in the WASM heap; Runtime.run frees them when the call returns. */
class Heap {
  constructor(runtime) {
    this.mod = runtime.mod;
    this.maxTextBytes = runtime.limits.maxSourceBytes;
    this.blocks = [];
  }
  alloc(bytes) {
    const ptr = this.mod._malloc(Math.max(bytes, 4));
    if (!ptr) fail(`out of WebAssembly memory allocating ${bytes} bytes`);
    this.blocks.push(ptr);
    return ptr;
  }
  // Typed arrays arrive checked, of fixed length (marshal.js). One that views the heap itself is
  // copied first: an allocation that grows the memory would detach it.
  _own(data) {
    return typedArrayName(data) && typedBuffer(data) === this.mod.HEAPU8.buffer
      ? data.slice()
      : data;
  }
  float32(data) {
    data = this._own(data);
    const ptr = this.alloc(data.length * 4);
    this.mod.HEAPF32.set(data, ptr >> 2);
    return ptr;
  }
  int32(data) {
    if (!data) return 0;
    data = this._own(data);
    const ptr = this.alloc(data.length * 4);
    this.mod.HEAP32.set(data, ptr >> 2);
    return ptr;
  }
  /** A copy of a Uint8Array: [address, length]. */
  bytes(data) {
    data = this._own(data);
    const ptr = this.alloc(data.length);
    this.mod.HEAPU8.set(data, ptr);
    return [ptr, data.length];
  }
  /**
   * A string as UTF-8 in exactly its length, counted before anything is allocated and checked
   * against `limit` (by default the analysis size limit; `message(bytes)` names a text over it):
   * [address, bytes].
   */
  text(code, name = 'code', { limit = this.maxTextBytes, message = null } = {}) {
    if (typeof code !== 'string') fail(`${name} must be a string, got ${describe(code)}`);
    // A UTF-16 code unit is at least one byte: longer strings are over without counting.
    if (!message && code.length > limit)
      fail(sizeOverLimit(name, { characters: code.length }, limit));
    const bytes = utf8Length(code);
    if (bytes > limit)
      fail(message ? message(bytes) : sizeOverLimit(name, { bytes, utf8: true }, limit));
    const ptr = this.alloc(bytes);
    const { written } = ENCODER.encodeInto(code, this.mod.HEAPU8.subarray(ptr, ptr + bytes));
    return [ptr, written];
  }
  /** Addresses of { token, unit?, statement? } (0 for an absent one). */
  positions(pos) {
    return [this.int32(pos.token), this.int32(pos.unit), this.int32(pos.statement)];
  }
  /** A view of floats in the heap (copy it before the next allocation). */
  readFloat32(ptr, length) {
    return this.mod.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + length);
  }
  free() {
    for (const ptr of this.blocks) this.mod._free(ptr);
    this.blocks = [];
  }
}

/** Grid sums in the heap that strips of rows are added into, then copied out as means. */
class Pooling {
  constructor(runtime, heap, spec, causal) {
    this.runtime = runtime;
    this.spec = spec;
    this.causal = causal;
    const cells = spec.rows * spec.cols;
    const mod = runtime.mod;
    this.ratio = heap.alloc(cells * 4);
    this.raw = heap.alloc(cells * 4);
    mod.HEAPF32.fill(0, this.ratio >> 2, (this.ratio >> 2) + cells);
    mod.HEAPF32.fill(0, this.raw >> 2, (this.raw >> 2) + cells);
    this.rowMax = spec.rowMax ? heap.alloc(spec.grid[0] * 4) : 0;
    this.heap = heap;
  }
  add(strip, r0, r1) {
    this.runtime.check(
      this.runtime.mod.poolRows(
        this.spec.grid,
        strip,
        r0,
        r1,
        this.causal,
        this.ratio,
        this.raw,
        this.rowMax,
      ),
    );
  }
  finish() {
    const { spec, heap } = this;
    this.runtime.mod.poolFinish(spec.grid, this.ratio, this.raw);
    const cells = spec.rows * spec.cols;
    spec.ratio.set(heap.readFloat32(this.ratio, cells));
    spec.raw.set(heap.readFloat32(this.raw, cells));
    if (spec.rowMax) spec.rowMax.set(heap.readFloat32(this.rowMax, spec.grid[0]));
  }
}

/**
 * One loaded module: `mod` (the Emscripten module) and `catalogue` are public to wasm/. `mod` is
 * replaced by a fresh instance when a call traps or aborts (see reset): read it per call, never
 * keep it.
 */
export class Runtime {
  /** respawn / respawnAsync: fresh instances of the same compiled module (init.js). */
  constructor(mod, catalogue, { respawn = null, respawnAsync = null } = {}) {
    this.mod = mod;
    this.catalogue = catalogue;
    /** Counts the instances discarded: objects holding handles of an older one are stale. */
    this.generation = 0;
    this._respawn = respawn;
    this._respawnAsync = respawnAsync;
    this._resetHooks = [];
    this._pending = null;
    /** True when code analysis (tree-sitter grammars, tokenizers, the code model) is compiled in. */
    this.hasAnalysis = typeof mod.AnalysisBuffer === 'function';
    /** Size limits, checked before any allocation (the analysis and model ones 0 in the core build). */
    this.limits = Object.freeze({
      ...mod.limits(),
      maxSourceBytes: this.hasAnalysis ? mod.analysisLimits().maxBytes : 0,
      maxModelFileBytes: this.hasAnalysis ? mod.modelLimits().maxFileBytes : 0,
      // The config.json reader's (the full module's; 0 in the core build).
      maxConfigBytes: typeof mod.hfConfigMaxBytes === 'function' ? mod.hfConfigMaxBytes() : 0,
    });
  }

  /** Runs fn(runtime) after every reset, to rebuild what lived in the discarded instance. */
  onReset(fn) {
    this._resetHooks.push(fn);
  }

  /**
   * What a guarded call (guardMethods) throws for `error`. A trap or an abort inside WebAssembly
   * (an allocation that failed outside every budget check, a bug) leaves the instance in an
   * unknown state, its memory never returned: the instance is discarded and a fresh one of the
   * same compiled module takes its place before the next call, and the caller gets a HiRoPEError
   * that says so. Every other error passes through.
   */
  failed(error) {
    const fatal =
      error instanceof WebAssembly.RuntimeError ||
      (error instanceof RangeError && /call stack/i.test(error.message));
    if (!fatal) return error;
    this.reset();
    const e = new HiRoPEError(
      `the WebAssembly module stopped (${error.message}); it was discarded and a fresh instance serves the next call (models loaded before must be loaded again)`,
    );
    e.cause = error;
    return e;
  }

  /** Replaces the module with a fresh instance (synchronously where the engine allows). */
  reset() {
    this.generation++;
    let mod = null;
    try {
      mod = this._respawn ? this._respawn() : null;
    } catch {
      // synchronous instantiation refused (a browser's main thread): instantiate asynchronously
    }
    if (mod) return this._install(mod);
    this.mod = null;
    const generation = this.generation;
    this._pending = (
      this._respawnAsync
        ? this._respawnAsync()
        : Promise.reject(new Error('no module to instantiate'))
    )
      .then((m) => generation === this.generation && this._install(m))
      .catch((e) => {
        this._lost = e;
      });
  }

  _install(mod) {
    this.mod = mod;
    this._pending = null;
    for (const hook of this._resetHooks) hook(this);
  }

  /** Throws unless a module is ready (after a reset that instantiates asynchronously it may not be yet). */
  ready() {
    if (this.mod) return;
    if (this._lost)
      fail(
        `the WebAssembly module could not be instantiated again after it stopped: ${this._lost.message}`,
      );
    fail(
      'the WebAssembly module is being instantiated again after it stopped; try again in a moment',
    );
  }

  /** fn(heap) with a fresh Heap, freed when fn returns or throws. */
  run(fn) {
    const heap = new Heap(this);
    try {
      return fn(heap);
    } finally {
      heap.free();
    }
  }

  /** Throws a core Status string ('' is success) as a HiRoPEError in the JS layer's names. */
  check(status) {
    if (status) fail(this.catalogue.coreMessage(status));
  }

  needAnalysis() {
    if (!this.hasAnalysis) fail('code analysis is not in this build (load the full hirope module)');
  }

  /** Bytes the WASM heap holds now (it only grows). */
  heapBytes() {
    return this.mod.HEAPU8.buffer.byteLength;
  }

  /** Rows per strip of `rowWidth` floats. */
  stripRows(n, rowWidth) {
    return Math.max(1, Math.min(n, Math.floor(STRIP_ELEMENTS / rowWidth)));
  }

  /** Pooling of strips into spec's grid (see checkPool), its sums allocated in heap. */
  pooling(heap, spec, causal) {
    return new Pooling(this, heap, spec, causal);
  }

  headDim(headDim) {
    checkCount(headDim, 'headDim', { max: this.limits.maxHeadDim });
    if (headDim % 2 !== 0) fail(`headDim must be a positive even integer, got ${headDim}`);
    return headDim;
  }

  /**
   * Phase 1 of a call on an options object (see marshal.js): its keys, and in them the scheme,
   * the positions and the pooling spec, read once before anything is checked.
   */
  readCall(options, keys, caller) {
    const args = readOptions(options, keys, { unknown: `${caller} options`, required: true });
    if (args.scheme !== undefined) args.scheme = this.catalogue.readScheme(args.scheme);
    if (args.positions !== undefined)
      args.positions = readPositions(args.positions, this.limits.maxTokens);
    if (args.pool !== undefined) args.pool = readPool(args.pool);
    return args;
  }

  /** n, headDim and heads of an options object, within the limits: { n, headDim, heads, width }. */
  shape(args) {
    if (args === null || typeof args !== 'object')
      fail(`options must be an object, got ${describe(args)}`);
    const n = checkCount(args.n, 'n', { max: this.limits.maxTokens });
    const headDim = this.headDim(args.headDim);
    const heads = checkCount(args.heads === undefined ? 1 : args.heads, 'heads', {
      max: this.limits.maxHeads,
    });
    return { n, headDim, heads, width: heads * headDim };
  }

  /**
   * Per-token transform coefficients (a, b, c, partner) of a scheme for attention arguments `a`
   * (as HiRoPE checks them), for executors other than the core (the WebGPU kernels).
   */
  transformCoefficients(a, role, branch) {
    return this.run((heap) => {
      const [tp, up, sp] = heap.positions(a.pos);
      const size = a.n * a.headDim;
      const [ap, bp, cp] = [heap.alloc(size * 4), heap.alloc(size * 4), heap.alloc(size * 4)];
      const pp = heap.alloc(a.headDim * 4);
      this.check(
        this.mod.transformCoefficients(
          a.scheme,
          a.headDim,
          a.n,
          tp,
          up,
          sp,
          role,
          branch,
          ap,
          bp,
          cp,
          pp,
        ),
      );
      return {
        a: heap.readFloat32(ap, size).slice(),
        b: heap.readFloat32(bp, size).slice(),
        c: heap.readFloat32(cp, size).slice(),
        partner: this.mod.HEAPU32.slice(pp >> 2, (pp >> 2) + a.headDim),
      };
    });
  }
}

/**
 * Wraps every method of cls (a class whose instances reach a Runtime through runtimeOf, called
 * with the instance as `this`)
 * so that an error escaping it goes through runtime.failed: a trap or abort discards the module
 * and becomes a HiRoPEError. Calls made while no module is ready fail with a HiRoPEError.
 * Methods named in `except` stay as they are (dispose(), which must work whatever the module);
 * with `only`, the methods named there are the only ones wrapped.
 */
export function guardMethods(cls, runtimeOf, { except = [], only = null } = {}) {
  for (const name of Object.getOwnPropertyNames(cls.prototype)) {
    const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
    if (name === 'constructor' || except.includes(name) || typeof d.value !== 'function') continue;
    if (only && !only.includes(name)) continue;
    const f = d.value;
    const wrapped =
      f.constructor.name === 'AsyncFunction'
        ? async function (...args) {
            const runtime = runtimeOf.call(this);
            try {
              runtime.ready();
              return await f.apply(this, args);
            } catch (e) {
              throw runtime.failed(e);
            }
          }
        : function (...args) {
            const runtime = runtimeOf.call(this);
            try {
              runtime.ready();
              return f.apply(this, args);
            } catch (e) {
              throw runtime.failed(e);
            }
          };
    Object.defineProperty(wrapped, 'name', { value: name });
    Object.defineProperty(cls.prototype, name, { ...d, value: wrapped });
  }
}

/** Token ids: an Int32Array or an array of integers, n of them. */
export function tokenIds(value, n) {
  return checkInt32s(value, 'tokenIds', n);
}

const POSITION_KEYS = ['token', 'unit', 'statement'];

/**
 * Positions read once (phase 1, see marshal.js): an array's elements (at most `cap`), or an
 * object's token, unit and statement and their elements. Typed arrays stay as they are.
 */
export function readPositions(positions, cap) {
  if (Array.isArray(positions)) return readArray(positions, cap);
  if (!isPlainObject(positions)) return positions;
  const p = readObject(positions, POSITION_KEYS);
  for (const key of POSITION_KEYS) if (p[key] !== undefined) p[key] = readArray(p[key], cap);
  return p;
}

/**
 * Positions as { token, unit?, statement? } Int32Arrays. Accepts an Int32Array of token indices,
 * an object, or nothing (tokens 0..n-1). With scheme.segmentSize, unit = floor(t / S) when the
 * positions carry no unit.
 */
export function normalizePositions(positions, n, scheme) {
  let token, unit, statement;
  positions = readPositions(positions, n);
  if (positions === undefined) {
    token = iota(n);
  } else if (positions instanceof ArrayCopy || typedArrayName(positions) === 'Int32Array') {
    token = checkInt32s(positions, 'positions', n);
  } else if (isPlainObject(positions)) {
    checkKnownKeys(positions, POSITION_KEYS, 'positions');
    if (positions.token === undefined) fail('positions.token is required');
    token = checkInt32s(positions.token, 'positions.token', n);
    if (positions.unit !== undefined) unit = checkInt32s(positions.unit, 'positions.unit', n);
    if (positions.statement !== undefined)
      statement = checkInt32s(positions.statement, 'positions.statement', n);
  } else {
    fail(
      `positions must be an Int32Array or { token, unit?, statement? }, got ${describe(positions)}`,
    );
  }
  if (scheme && scheme.segmentSize > 0 && !unit) {
    unit = token.map((t) => Math.floor(t / scheme.segmentSize));
  }
  return { token, unit, statement };
}

/** Fixed-size segments for text with no structure: unit = floor(t / size). */
export function segmentPositions(n, size) {
  checkCount(n, 'n');
  checkCount(size, 'size');
  const token = new Int32Array(n);
  const unit = new Int32Array(n);
  for (let t = 0; t < n; t++) {
    token[t] = t;
    unit[t] = Math.floor(t / size);
  }
  return { token, unit };
}

const POOL_KEYS = ['rows', 'cols', 'region', 'ratio', 'raw', 'rowMax'];
const REGION_KEYS = ['r0', 'r1', 'c0', 'c1'];

/** A pooling spec read once (phase 1, see marshal.js). */
export function readPool(pool) {
  if (!isPlainObject(pool)) return pool;
  const p = readObject(pool, POOL_KEYS);
  if (isPlainObject(p.region)) p.region = readObject(p.region, REGION_KEYS);
  return p;
}

/** A checked pooling spec (checkPool) whose output arrays still have their lengths (checkStill). */
export function poolStill(spec, n) {
  checkStill(spec.ratio, spec.rows * spec.cols, 'pool.ratio');
  checkStill(spec.raw, spec.rows * spec.cols, 'pool.raw');
  if (spec.rowMax) checkStill(spec.rowMax, n, 'pool.rowMax');
  return spec;
}

/**
 * Checks a pooling spec { rows, cols, region?, ratio?, raw?, rowMax? } for an n x n matrix. With
 * outputs, ratio and raw (rows * cols) must be given and rowMax (n) may be; otherwise they are made.
 */
export function checkPool(pool, n, { outputs }) {
  if (!isPlainObject(pool)) fail(`pool must be an object, got ${describe(pool)}`);
  pool = readPool(pool);
  // hr.pool()'s options are the spec itself, their keys checked by pool(); attention's pool here.
  if (outputs) checkKnownKeys(pool, POOL_KEYS, 'pool');
  const r =
    pool.region === undefined || pool.region === null
      ? { r0: 0, r1: n, c0: 0, c1: n }
      : pool.region;
  if (!isPlainObject(r))
    fail(`pool.region must be an object { r0, r1, c0, c1 }, got ${describe(r)}`);
  checkKnownKeys(r, REGION_KEYS, 'pool.region');
  for (const key of REGION_KEYS) {
    if (!Number.isInteger(r[key]) || r[key] < 0 || r[key] > n)
      fail(`pool.region.${key} must be an integer from 0 to n = ${n}, got ${describe(r[key])}`);
  }
  if (r.r0 >= r.r1 || r.c0 >= r.c1)
    fail(
      `pool.region must have r0 < r1 and c0 < c1, got ${JSON.stringify({ r0: r.r0, r1: r.r1, c0: r.c0, c1: r.c1 })}`,
    );
  const rows = checkCount(pool.rows, 'pool.rows', { max: r.r1 - r.r0 });
  const cols = checkCount(pool.cols, 'pool.cols', { max: r.c1 - r.c0 });
  const cells = rows * cols;
  const array = (name, length, required) => {
    if (pool[name] === undefined && !required) return outputs ? null : new Float32Array(length);
    return checkFloat32(
      pool[name],
      `pool.${name}`,
      length,
      name === 'rowMax' ? 'n' : 'rows * cols',
      { output: true },
    );
  };
  return {
    grid: [n, r.r0, r.r1, r.c0, r.c1, rows, cols],
    region: { r0: r.r0, r1: r.r1, c0: r.c0, c1: r.c1 },
    rows,
    cols,
    ratio: array('ratio', cells, outputs),
    raw: array('raw', cells, outputs),
    rowMax: array('rowMax', n, false),
  };
}
