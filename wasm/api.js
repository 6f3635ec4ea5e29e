// hirope: the JavaScript API over the WebAssembly core, shared by the entry points (index.js:
// everything; core.js: encodings and attention only).
//
//   import init from 'hirope';
//   const hr = await init();               // picks the SIMD build when the engine supports it
//   const probs = hr.attention({ q, k, n, headDim, positions, scheme: { type: 'hirope' } });
//
// Every array crosses into the WASM heap once per call and is freed before the call returns,
// errors included, so repeated calls never grow the heap. Bad arguments throw HiRoPEError with
// a message naming the argument.

import { HiRoPEError, fail, describe, iota } from './errors.js';
import { ModelLoader } from './model.js';

export { HiRoPEError };

// (module (func (result v128) (i32x4.splat (i32.const 0)))): valid only where SIMD is.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 17, 11,
]);

/** True when this engine validates a WebAssembly SIMD module. */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const SCHEME_TYPES = {
  nope: 0, sinusoidal: 1, rope: 2, xpos: 3, alibi: 4, rerope: 5, 'leaky-rerope': 6,
  'self-extend': 7, hirope: 8,
};
const ROTARY = new Set(['rope', 'xpos', 'rerope', 'leaky-rerope', 'self-extend', 'hirope']);
const WINDOWED = new Set(['rerope', 'leaky-rerope', 'self-extend', 'hirope']);
const LAYOUTS = { interleaved: 0, half: 1 };
const SCALINGS = { none: 0, linear: 1, ntk: 2, 'dynamic-ntk': 3, dynamic: 3, yarn: 4, longrope: 5, llama3: 6 };
const VARIANTS = { vaswani: 0, fairseq: 1 };
const OUTPUTS = { logits: 0, probs: 1 };
const KERNELS = { tiled: [1, false], eigen: [1, true], reference: [0, false] };

// Keys each scheme type accepts beyond `type` (unknown keys are errors: they are usually typos).
const COMMON_ROTARY = ['base', 'layout', 'rotaryFraction', 'scaling'];
const WINDOW_KEYS = ['window', 'logN', 'trainingLength'];
const SCHEME_KEYS = {
  nope: [],
  alibi: [],
  sinusoidal: ['base', 'variant'],
  rope: COMMON_ROTARY,
  xpos: [...COMMON_ROTARY, 'gamma', 'scaleBase'],
  rerope: [...COMMON_ROTARY, ...WINDOW_KEYS],
  'leaky-rerope': [...COMMON_ROTARY, ...WINDOW_KEYS, 'leakyFactor'],
  'self-extend': [...COMMON_ROTARY, ...WINDOW_KEYS, 'group'],
  hirope: [...COMMON_ROTARY, ...WINDOW_KEYS, 'ratio', 'levels', 'statementRatio', 'tokenOnHigh',
    'segmentSize'],
};
const SCALING_KEYS = {
  none: [],
  linear: ['factor'],
  ntk: ['factor'],
  'dynamic-ntk': ['factor', 'originalLength'],
  dynamic: ['factor', 'originalLength'],
  yarn: ['factor', 'originalLength', 'betaFast', 'betaSlow', 'truncate', 'mscale', 'mscaleAllDim',
    'attentionFactor'],
  longrope: ['factor', 'originalLength', 'shortFactor', 'longFactor', 'attentionFactor'],
  llama3: ['factor', 'originalLength', 'lowFreqFactor', 'highFreqFactor'],
};

function checkKeys(obj, allowed, where) {
  for (const key of Object.keys(obj)) {
    if (key !== 'type' && !allowed.includes(key)) {
      fail(`${where} has an unknown key '${key}'` +
        (allowed.length ? ` (known keys: ${allowed.join(', ')})` : ' (it takes no parameters)'));
    }
  }
}

function pick(obj, key, fallback, where, kind = 'number') {
  const value = obj[key];
  if (value === undefined) return fallback;
  if (kind === 'boolean') {
    if (typeof value !== 'boolean') fail(`${where}.${key} must be a boolean, got ${describe(value)}`);
  } else if (typeof value !== 'number') {
    fail(`${where}.${key} must be a number, got ${describe(value)}`);
  } else if (kind === 'integer' && !Number.isInteger(value)) {
    fail(`${where}.${key} must be an integer, got ${value}`);
  }
  return value;
}

function enumValue(table, value, where) {
  if (!Object.prototype.hasOwnProperty.call(table, value)) {
    fail(`${where} must be one of ${Object.keys(table).map((k) => `'${k}'`).join(', ')}, got ${describe(value)}`);
  }
  return table[value];
}

function factorList(value, where) {
  if (value === undefined) return [];
  if (!Array.isArray(value) && !(value instanceof Float64Array) && !(value instanceof Float32Array)) {
    fail(`${where} must be an array of numbers, got ${describe(value)}`);
  }
  const list = Array.from(value);
  list.forEach((x, i) => {
    if (typeof x !== 'number') fail(`${where}[${i}] must be a number, got ${describe(x)}`);
  });
  return list;
}

/**
 * Fills in a scheme's defaults and maps names to the core's enum numbers. Accepts a string
 * ('rope') as shorthand for { type: 'rope' }.
 */
export function normalizeScheme(scheme) {
  if (typeof scheme === 'string') scheme = { type: scheme };
  if (scheme === null || typeof scheme !== 'object' || Array.isArray(scheme)) {
    fail(`scheme must be an object such as { type: 'rope' }, got ${describe(scheme)}`);
  }
  const type = scheme.type;
  enumValue(SCHEME_TYPES, type, 'scheme.type');
  checkKeys(scheme, SCHEME_KEYS[type], `scheme (type '${type}')`);
  const s = scheme;
  const where = 'scheme';
  const scaling = s.scaling === undefined ? { type: 'none' } : s.scaling;
  if (scaling === null || typeof scaling !== 'object' || Array.isArray(scaling)) {
    fail(`scheme.scaling must be an object such as { type: 'yarn', factor: 4, originalLength: 4096 }, got ${describe(scaling)}`);
  }
  const scalingType = scaling.type === undefined ? 'none' : scaling.type;
  enumValue(SCALINGS, scalingType, 'scheme.scaling.type');
  checkKeys(scaling, SCALING_KEYS[scalingType], `scheme.scaling (type '${scalingType}')`);
  const sw = 'scheme.scaling';
  const windowed = WINDOWED.has(type);
  const levels = pick(s, 'levels', 2, where, 'integer');
  const ratio = pick(s, 'ratio', 0.5, where);
  const segmentSize = pick(s, 'segmentSize', 0, where, 'integer');
  if (s.segmentSize !== undefined && segmentSize < 1) fail(`scheme.segmentSize must be an integer >= 1, got ${segmentSize}`);
  return {
    name: type,
    type: SCHEME_TYPES[type],
    base: pick(s, 'base', 10000, where),
    layout: enumValue(LAYOUTS, s.layout === undefined ? 'half' : s.layout, 'scheme.layout'),
    rotaryFraction: pick(s, 'rotaryFraction', 1, where),
    scaling: {
      type: SCALINGS[scalingType],
      factor: pick(scaling, 'factor', scalingType === 'none' ? 1 : NaN, sw),
      originalLength: pick(scaling, 'originalLength', 0, sw),
      betaFast: pick(scaling, 'betaFast', 32, sw),
      betaSlow: pick(scaling, 'betaSlow', 1, sw),
      truncate: pick(scaling, 'truncate', true, sw, 'boolean'),
      mscale: pick(scaling, 'mscale', 0, sw),
      mscaleAllDim: pick(scaling, 'mscaleAllDim', 0, sw),
      attentionFactor: pick(scaling, 'attentionFactor', -1, sw),
      lowFreqFactor: pick(scaling, 'lowFreqFactor', 1, sw),
      highFreqFactor: pick(scaling, 'highFreqFactor', 4, sw),
      shortFactor: factorList(scaling.shortFactor, 'scheme.scaling.shortFactor'),
      longFactor: factorList(scaling.longFactor, 'scheme.scaling.longFactor'),
    },
    window: pick(s, 'window', 512, where, 'integer'),
    leakyFactor: pick(s, 'leakyFactor', 16, where),
    group: pick(s, 'group', 8, where, 'integer'),
    // ReRoPE's reference patch scales queries by log n; the HiRoPE paper never says (off).
    logN: pick(s, 'logN', type === 'rerope' || type === 'leaky-rerope', where, 'boolean'),
    trainingLength: pick(s, 'trainingLength', 4096, where),
    ratio,
    levels,
    statementRatio: pick(s, 'statementRatio', levels === 3 ? (1 - ratio) / 2 : 0, where),
    tokenOnHigh: pick(s, 'tokenOnHigh', false, where, 'boolean'),
    gamma: pick(s, 'gamma', 0.4, where),
    scaleBase: pick(s, 'scaleBase', 512, where),
    variant: enumValue(VARIANTS, s.variant === undefined ? 'vaswani' : s.variant, 'scheme.variant'),
    segmentSize,
    rotary: ROTARY.has(type),
    windowed,
  };
}

function checkCount(value, name, { min = 1, max = Infinity } = {}) {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(`${name} must be an integer, got ${describe(value)}`);
  if (value < min) fail(`${name} must be at least ${min}, got ${value}`);
  if (value > max) fail(`${name} must be at most ${max}, got ${value}`);
  return value;
}

function checkFloat32(value, name, length, shape) {
  if (!(value instanceof Float32Array)) fail(`${name} must be a Float32Array, got ${describe(value)}`);
  if (value.length !== length) fail(`${name} has length ${value.length}, expected ${shape} = ${length}`);
  return value;
}

function int32Positions(value, name, n) {
  let arr = value;
  if (Array.isArray(value)) {
    value.forEach((x, i) => {
      if (!Number.isInteger(x) || x < -2147483648 || x > 2147483647) fail(`${name}[${i}] must be a 32-bit integer, got ${describe(x)}`);
    });
    arr = Int32Array.from(value);
  } else if (!(value instanceof Int32Array)) {
    fail(`${name} must be an Int32Array (or an array of integers), got ${describe(value)}`);
  }
  if (arr.length !== n) fail(`${name} has length ${arr.length}, expected n = ${n}`);
  return arr;
}

/**
 * Positions as { token, unit?, statement? } Int32Arrays. Accepts an Int32Array of token indices,
 * an object, or nothing (tokens 0..n-1). For hirope, scheme.segmentSize derives unit = floor(t / S).
 */
function normalizePositions(positions, n, scheme) {
  let token, unit, statement;
  if (positions === undefined) {
    token = iota(n);
  } else if (positions instanceof Int32Array || Array.isArray(positions)) {
    token = int32Positions(positions, 'positions', n);
  } else if (positions && typeof positions === 'object') {
    for (const key of Object.keys(positions)) {
      if (!['token', 'unit', 'statement'].includes(key)) fail(`positions has an unknown key '${key}' (known keys: token, unit, statement)`);
    }
    if (positions.token === undefined) fail('positions.token is required');
    token = int32Positions(positions.token, 'positions.token', n);
    if (positions.unit !== undefined) unit = int32Positions(positions.unit, 'positions.unit', n);
    if (positions.statement !== undefined) statement = int32Positions(positions.statement, 'positions.statement', n);
  } else {
    fail(`positions must be an Int32Array or { token, unit?, statement? }, got ${describe(positions)}`);
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

/**
 * Checks a pooling spec { rows, cols, region?, ratio?, raw?, rowMax? } for an n x n matrix. With
 * outputs, ratio and raw (rows * cols) must be given and rowMax (n) may be; otherwise they are made.
 */
function checkPool(pool, n, { outputs }) {
  if (!pool || typeof pool !== 'object') fail(`pool must be an object, got ${describe(pool)}`);
  const r = pool.region === undefined || pool.region === null ? { r0: 0, r1: n, c0: 0, c1: n } : pool.region;
  if (typeof r !== 'object') fail(`pool.region must be an object { r0, r1, c0, c1 }, got ${describe(r)}`);
  for (const key of ['r0', 'r1', 'c0', 'c1']) {
    if (!Number.isInteger(r[key]) || r[key] < 0 || r[key] > n) fail(`pool.region.${key} must be an integer from 0 to n = ${n}, got ${describe(r[key])}`);
  }
  if (r.r0 >= r.r1 || r.c0 >= r.c1) fail(`pool.region must have r0 < r1 and c0 < c1, got ${JSON.stringify(r)}`);
  const rows = checkCount(pool.rows, 'pool.rows', { max: r.r1 - r.r0 });
  const cols = checkCount(pool.cols, 'pool.cols', { max: r.c1 - r.c0 });
  const cells = rows * cols;
  const array = (name, length, required) => {
    if (pool[name] === undefined && !required) return outputs ? null : new Float32Array(length);
    return checkFloat32(pool[name], `pool.${name}`, length, name === 'rowMax' ? 'n' : 'rows * cols');
  };
  return { grid: [n, r.r0, r.r1, r.c0, r.c1, rows, cols], region: { ...r }, rows, cols, ratio: array('ratio', cells, outputs), raw: array('raw', cells, outputs), rowMax: array('rowMax', n, false) };
}

/** Grid sums in the heap that strips of rows are added into, then copied out as means. */
class Pooling {
  constructor(hr, heap, spec, causal) {
    this.hr = hr;
    this.spec = spec;
    this.causal = causal;
    const cells = spec.rows * spec.cols;
    const mod = hr._mod;
    this.ratio = heap.alloc(cells * 4);
    this.raw = heap.alloc(cells * 4);
    mod.HEAPF32.fill(0, this.ratio >> 2, (this.ratio >> 2) + cells);
    mod.HEAPF32.fill(0, this.raw >> 2, (this.raw >> 2) + cells);
    this.rowMax = spec.rowMax ? heap.alloc(spec.grid[0] * 4) : 0;
    this.heap = heap;
  }
  add(strip, r0, r1) {
    this.hr._check(this.hr._mod.poolRows(this.spec.grid, strip, r0, r1, this.causal, this.ratio, this.raw, this.rowMax));
  }
  finish() {
    const { spec, heap } = this;
    this.hr._mod.poolFinish(spec.grid, this.ratio, this.raw);
    const cells = spec.rows * spec.cols;
    spec.ratio.set(heap.readFloat32(this.ratio, cells));
    spec.raw.set(heap.readFloat32(this.raw, cells));
    if (spec.rowMax) spec.rowMax.set(heap.readFloat32(this.rowMax, spec.grid[0]));
  }
}

class Heap {
  constructor(mod) {
    this.mod = mod;
    this.blocks = [];
  }
  alloc(bytes) {
    const ptr = this.mod._malloc(Math.max(bytes, 4));
    if (!ptr) fail(`out of WebAssembly memory allocating ${bytes} bytes`);
    this.blocks.push(ptr);
    return ptr;
  }
  float32(data) {
    const ptr = this.alloc(data.length * 4);
    this.mod.HEAPF32.set(data, ptr >> 2);
    return ptr;
  }
  int32(data) {
    if (!data) return 0;
    const ptr = this.alloc(data.length * 4);
    this.mod.HEAP32.set(data, ptr >> 2);
    return ptr;
  }
  positions(pos) {
    return [this.int32(pos.token), this.int32(pos.unit), this.int32(pos.statement)];
  }
  readFloat32(ptr, length) {
    return this.mod.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + length);
  }
  free() {
    for (const ptr of this.blocks) this.mod._free(ptr);
    this.blocks = [];
  }
}

const STRIP_ELEMENTS = 1 << 20; // floats per strip buffer in the heap (4 MB)
const VOCABULARIES = ['cl100k', 'llama2'];
const GAPS = { own: 0, next: 1, previous: 2 };
const HIERARCHIES = { units: 0, segments: 1 };
const ANALYZE_KEYS = ['language', 'filename', 'tokenizer', 'gap', 'descendClasses', 'hierarchy', 'segmentSize'];
const MAX_CODE_BYTES = 64 * 1024 * 1024;
const ENCODER = new TextEncoder();

const UNIT_KINDS = ['code', 'function', 'class', 'segment'];

function errorObjects(e) {
  const out = [];
  for (let i = 0; i < e.length; i += 5) {
    out.push({ start: e[i], end: e[i + 1], byteStart: e[i + 2], byteEnd: e[i + 3], missing: e[i + 4] === 1 });
  }
  return out;
}

const isNode = () => typeof process === 'object' && !!process.versions?.node;

async function readData(url) {
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

/** The API object returned by init(). */
export class HiRoPE {
  constructor(mod, backend, dataFiles = {}) {
    this._mod = mod;
    /** 'wasm-simd' or 'wasm-scalar': which build runs. */
    this.backend = backend;
    /** The kernel family compiled into that build ('wasm-simd128' or 'scalar'). */
    this.kernel = mod.kernelName();
    /** Size limits, checked before any allocation. */
    this.limits = Object.freeze(mod.limits());
    /** The scheme type names accepted by every function. */
    this.schemes = Object.keys(SCHEME_TYPES);
    /** The RoPE scaling names accepted in scheme.scaling.type. */
    this.scalings = Object.keys(SCALINGS);
    /** True when code analysis (tree-sitter grammars, tokenizers) is compiled in. */
    this.hasAnalysis = typeof mod.AnalysisBuffer === 'function';
    /** Languages analyze() parses. */
    this.languages = this.hasAnalysis ? mod.languages() : [];
    /** Tokenizer names; all but 'lexical' load their vocabulary on first use (loadTokenizer). */
    this.tokenizers = this.hasAnalysis ? ['lexical', ...VOCABULARIES] : [];
    this._vocab = new Map();
    this._dataFiles = dataFiles;
    /** Where attentionAsync() runs: 'webgpu' (init({ backend: 'webgpu' | 'auto' })) or 'wasm'. */
    this.attentionBackend = 'wasm';
    this._gpu = null;
    /** The byte-level code model: `await hr.model.load()` (full build only; null in core). */
    this.model = this.hasAnalysis ? new ModelLoader(this, dataFiles.model) : null;
  }

  _readData(url) {
    return readData(url);
  }

  _needAnalysis() {
    if (!this.hasAnalysis) fail('code analysis is not in this build (load the full hirope module)');
  }

  /** The language of a file name by its extension, or null. */
  detectLanguage(filename) {
    this._needAnalysis();
    if (typeof filename !== 'string') fail(`filename must be a string, got ${describe(filename)}`);
    return this._mod.detectLanguage(filename) || null;
  }

  /**
   * Loads a tokenizer's vocabulary (once). By default the bytes come from data/NAME.bin next to
   * this module (a file read in Node, a fetch in browsers); options.data supplies them instead.
   */
  async loadTokenizer(name, { data } = {}) {
    this._needAnalysis();
    if (name === 'lexical') return;
    if (!VOCABULARIES.includes(name)) fail(`tokenizer must be one of ${this.tokenizers.map((t) => `'${t}'`).join(', ')}, got ${describe(name)}`);
    if (this._vocab.has(name)) return;
    let bytes = data;
    if (bytes === undefined) {
      const url = this._dataFiles[name];
      if (!url) fail(`no location for the '${name}' tokenizer data: pass options.data or init({ dataURL })`);
      bytes = await readData(url);
    }
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array)) fail(`options.data must be a Uint8Array or ArrayBuffer, got ${describe(bytes)}`);
    const handle = new this._mod.TokenizerHandle();
    try {
      this._run((heap) => {
        const ptr = heap.alloc(bytes.length);
        this._mod.HEAPU8.set(bytes, ptr);
        this._check(handle.load(ptr, bytes.length));
      });
    } catch (e) {
      handle.delete();
      throw e;
    }
    if (this._vocab.has(name)) handle.delete();
    else this._vocab.set(name, handle);
  }

  _vocabulary(name) {
    if (name === 'lexical') return 0;
    if (!VOCABULARIES.includes(name)) fail(`tokenizer must be one of ${this.tokenizers.map((t) => `'${t}'`).join(', ')}, got ${describe(name)}`);
    const handle = this._vocab.get(name);
    if (!handle) fail(`tokenizer '${name}' is not loaded: call await hr.loadTokenizer('${name}') first`);
    return handle.address();
  }

  _text(heap, code, name = 'code') {
    if (typeof code !== 'string') fail(`${name} must be a string, got ${describe(code)}`);
    if (code.length > MAX_CODE_BYTES) fail(`${name} is ${code.length} characters, over the limit of ${MAX_CODE_BYTES} bytes`);
    const capacity = code.length * 3 + 1;
    const ptr = heap.alloc(capacity);
    const { written } = ENCODER.encodeInto(code, this._mod.HEAPU8.subarray(ptr, ptr + capacity));
    if (written > MAX_CODE_BYTES) fail(`${name} is ${written} bytes of UTF-8, over the limit of ${MAX_CODE_BYTES} bytes`);
    return [ptr, written];
  }

  _language(language) {
    if (!this.languages.includes(language)) fail(`language must be one of ${this.languages.map((l) => `'${l}'`).join(', ')}, got ${describe(language)}`);
  }

  /** Parses code and nothing more: { hasError } (a validity check, and the bare-parse baseline). */
  parse(code, { language } = {}) {
    this._needAnalysis();
    this._language(language);
    const r = this._run((heap) => {
      const [ptr, size] = this._text(heap, code);
      return this._mod.parse(ptr, size, language);
    });
    this._check(r.error);
    return { hasError: r.hasError };
  }

  /** Token ids of text under a loaded tokenizer (no parsing). */
  encode(text, { tokenizer = 'cl100k' } = {}) {
    this._needAnalysis();
    if (tokenizer === 'lexical') fail("encode() needs a vocabulary tokenizer; 'lexical' tokens come from analyze()");
    const vocab = this._vocabulary(tokenizer);
    return this._run((heap) => {
      const [ptr, size] = this._text(heap, text, 'text');
      return this._mod.encode(vocab, ptr, size);
    });
  }

  /**
   * Parses code with tree-sitter, tokenizes it, and builds hierarchical positions ready for
   * attention(): { language, tokenizer, tokens: { ids, start, end, byteStart, byteEnd, texts },
   * positions: { token, unit, statement }, units, errors, statements }. Offsets are UTF-16 code
   * units (start, end) and UTF-8 bytes (byteStart, byteEnd).
   */
  analyze(code, options = {}) {
    this._needAnalysis();
    if (options === null || typeof options !== 'object') fail(`options must be an object, got ${describe(options)}`);
    for (const key of Object.keys(options)) {
      if (!ANALYZE_KEYS.includes(key)) fail(`analyze options have an unknown key '${key}' (known keys: ${ANALYZE_KEYS.join(', ')})`);
    }
    let language = options.language;
    if (language === undefined && options.filename !== undefined) {
      language = this.detectLanguage(options.filename);
      if (!language) fail(`cannot detect the language of '${options.filename}' (known: ${this.languages.join(', ')}); pass options.language`);
    }
    if (language === undefined) fail('options.language (or options.filename) is required');
    this._language(language);
    const vocab = this._vocabulary(options.tokenizer === undefined ? 'lexical' : options.tokenizer);
    const gap = enumValue(GAPS, options.gap === undefined ? 'own' : options.gap, 'options.gap');
    const descend = options.descendClasses === undefined ? false : options.descendClasses;
    if (typeof descend !== 'boolean') fail(`options.descendClasses must be a boolean, got ${describe(descend)}`);
    const hierarchy = enumValue(HIERARCHIES, options.hierarchy === undefined ? 'units' : options.hierarchy, 'options.hierarchy');
    const segmentSize = options.segmentSize === undefined ? 128 : options.segmentSize;
    checkCount(segmentSize, 'options.segmentSize');
    const buffer = (this._analysisBuffer ||= new this._mod.AnalysisBuffer());
    this._run((heap) => {
      const [ptr, size] = this._text(heap, code);
      this._check(buffer.run(ptr, size, language, vocab, gap, descend, hierarchy, segmentSize));
    });
    // One copy per column out of the packed result (see AnalysisBuffer in wasm/bindings.cpp).
    const heap32 = this._mod.HEAPU32;
    let at = buffer.data() >> 2;
    const [n, unitCount, errorCount, statements] = heap32.subarray(at, at + 4);
    at += 4;
    const column = (Ctor, length) => {
      const out = new Ctor(heap32.buffer.slice(at * 4, (at + length) * 4));
      at += length;
      return out;
    };
    const tokens = { count: n, ids: column(Int32Array, n), start: column(Uint32Array, n), end: column(Uint32Array, n), byteStart: column(Uint32Array, n), byteEnd: column(Uint32Array, n) };
    const positions = { token: iota(n), unit: column(Int32Array, n), statement: column(Int32Array, n) };
    const kinds = column(Uint32Array, unitCount);
    const [us, ue, ubs, ube] = [0, 1, 2, 3].map(() => column(Uint32Array, unitCount));
    const errs = column(Uint32Array, 5 * errorCount);
    const names = buffer.names().split('\0');
    const types = buffer.types().split('\0');
    const units = Array.from(kinds, (kind, index) => ({
      index, kind: UNIT_KINDS[kind], name: names[index], nodeType: types[index],
      start: us[index], end: ue[index], byteStart: ubs[index], byteEnd: ube[index],
    }));
    let texts = null;
    Object.defineProperty(tokens, 'texts', {
      enumerable: true,
      get() {
        if (!texts) texts = Array.from({ length: n }, (_, i) => code.slice(tokens.start[i], tokens.end[i]));
        return texts;
      },
    });
    return { language: buffer.language(), tokenizer: buffer.tokenizer(), tokens, positions, units, errors: errorObjects(errs), statements };
  }

  _run(fn) {
    const heap = new Heap(this._mod);
    try {
      return fn(heap);
    } finally {
      heap.free();
    }
  }

  _check(message) {
    if (message) fail(message);
  }

  _headDim(headDim) {
    checkCount(headDim, 'headDim', { max: this.limits.maxHeadDim });
    if (headDim % 2 !== 0) fail(`headDim must be a positive even integer, got ${headDim}`);
    return headDim;
  }

  _shape(args) {
    if (args === null || typeof args !== 'object') fail(`expected an options object, got ${describe(args)}`);
    const n = checkCount(args.n, 'n', { max: this.limits.maxTokens });
    const headDim = this._headDim(args.headDim);
    const heads = checkCount(args.heads === undefined ? 1 : args.heads, 'heads', { max: this.limits.maxHeads });
    return { n, headDim, heads, width: heads * headDim };
  }

  /**
   * Attention logits, probabilities or outputs. Returns a Float32Array: heads x n x n for
   * 'logits' (masked = -Infinity) and 'probs' (masked = 0), n x heads*headDim for 'values'.
   * Pass `out` (a Float32Array of that length) to reuse a buffer across calls, and `pool`
   * ({ rows, cols, region?, ratio, raw, rowMax? }) to also get the matrix mean-pooled for display,
   * as hr.pool() computes it, without another pass over it.
   */
  attention(args) {
    return this._attentionWasm(this._attentionArgs(args));
  }

  /**
   * attention() on the GPU when init({ backend }) chose WebGPU (a Promise of the same
   * Float32Array), else on WASM. A lost GPU device falls back to WASM for this and later calls.
   */
  async attentionAsync(args) {
    const a = this._attentionArgs(args);
    if (!this._gpu) return this._attentionWasm(a);
    const poolFromResult = (result) => {
      if (a.pool) {
        const { ratio, raw, rowMax } = this.pool({ matrix: result, n: a.n, rows: a.pool.rows, cols: a.pool.cols, region: a.pool.region, causal: a.causal });
        a.pool.ratio.set(ratio);
        a.pool.raw.set(raw);
        a.pool.rowMax?.set(rowMax);
      }
      return result;
    };
    try {
      return poolFromResult(await this._gpu.attention(a, this));
    } catch (e) {
      if (e instanceof HiRoPEError || !this._gpu.lost) throw e;
      this._gpu = null; // the device is gone: WASM from now on, same arguments, same result
      this.attentionBackend = 'wasm';
      return this._attentionWasm(a);
    }
  }

  _attentionArgs(args) {
    const { n, headDim, heads, width } = this._shape(args);
    const scheme = normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    const output = args.output === undefined ? (args.v !== undefined ? 'values' : 'probs') : args.output;
    if (!['logits', 'probs', 'values'].includes(output)) fail(`output must be 'logits', 'probs' or 'values', got ${describe(output)}`);
    const shape = 'n * heads * headDim';
    const q = checkFloat32(args.q, 'q', n * width, shape);
    const k = checkFloat32(args.k, 'k', n * width, shape);
    const v = args.v === undefined ? undefined : checkFloat32(args.v, 'v', n * width, shape);
    if (output === 'values' && !v) fail("output 'values' needs v");
    const causal = args.causal === undefined ? true : args.causal;
    if (typeof causal !== 'boolean') fail(`causal must be a boolean, got ${describe(causal)}`);
    if (scheme.windowed && !causal) fail(`scheme '${scheme.name}' is a windowed scheme, defined for causal attention: set causal to true`);
    const scale = args.scale === undefined ? 0 : args.scale;
    if (args.scale !== undefined && !(typeof scale === 'number' && Number.isFinite(scale) && scale > 0)) {
      fail(`scale must be a positive finite number, got ${describe(scale)}`);
    }
    const [kernel, useEigen] = enumValue(KERNELS, args.kernel === undefined ? 'tiled' : args.kernel, 'kernel');
    if (heads * n * n > this.limits.maxOutputElements) {
      fail(`heads * n * n = ${heads * n * n} exceeds the output limit of ${this.limits.maxOutputElements} elements`);
    }
    const pos = normalizePositions(args.positions, n, scheme);
    const outLength = output === 'values' ? n * width : heads * n * n;
    const out = args.out === undefined ? null : checkFloat32(args.out, 'out', outLength, output === 'values' ? 'n * heads * headDim' : 'heads * n * n');
    let pool = null;
    if (args.pool !== undefined) {
      if (output !== 'probs' || heads !== 1) fail("pool needs output 'probs' and one head");
      pool = checkPool(args.pool, n, { outputs: true });
    }
    return { n, headDim, heads, width, scheme, output, q, k, v, causal, scale, kernel, useEigen, pos, outLength, out, pool };
  }

  /** Per-token transform coefficients (a, b, c, partner) of a scheme, for the GPU kernels. */
  _coefficients(a, role, branch) {
    return this._run((heap) => {
      const [tp, up, sp] = heap.positions(a.pos);
      const size = a.n * a.headDim;
      const [ap, bp, cp] = [heap.alloc(size * 4), heap.alloc(size * 4), heap.alloc(size * 4)];
      const pp = heap.alloc(a.headDim * 4);
      this._check(this._mod.transformCoefficients(a.scheme, a.headDim, a.n, tp, up, sp, role, branch, ap, bp, cp, pp));
      return {
        a: heap.readFloat32(ap, size).slice(),
        b: heap.readFloat32(bp, size).slice(),
        c: heap.readFloat32(cp, size).slice(),
        partner: this._mod.HEAPU32.slice(pp >> 2, (pp >> 2) + a.headDim),
      };
    });
  }

  _attentionWasm({ n, headDim, heads, width, scheme, output, q, k, v, causal, scale, kernel, useEigen, pos, outLength, out, pool }) {
    return this._run((heap) => {
      const pooling = pool && new Pooling(this, heap, pool, causal);
      const plan = new this._mod.Plan();
      try {
        const [tp, up, sp] = heap.positions(pos);
        const qp = heap.float32(q);
        const kp = heap.float32(k);
        const vp = v ? heap.float32(v) : 0;
        this._check(plan.prepare(scheme, qp, kp, vp, n, headDim, heads, tp, up, sp, causal,
          output === 'logits' ? OUTPUTS.logits : OUTPUTS.probs, scale, useEigen, kernel));
        const rowWidth = output === 'values' ? width : n;
        const stripRows = Math.max(1, Math.min(n, Math.floor(STRIP_ELEMENTS / rowWidth)));
        const strip = heap.alloc(stripRows * rowWidth * 4);
        const result = out || new Float32Array(outLength);
        for (let h = 0; h < (output === 'values' ? 1 : heads); h++) {
          for (let r0 = 0; r0 < n; r0 += stripRows) {
            const r1 = Math.min(n, r0 + stripRows);
            this._check(output === 'values' ? plan.outputRows(r0, r1, strip) : plan.rows(h, r0, r1, strip));
            result.set(heap.readFloat32(strip, (r1 - r0) * rowWidth), h * n * n + r0 * rowWidth);
            if (pooling) pooling.add(strip, r0, r1); // while the strip is in the heap
          }
        }
        pooling?.finish();
        return result;
      } finally {
        plan.delete();
      }
    });
  }

  /** Inverse frequencies theta_j after scaling (rotaryDim / 2 values). */
  inverseFrequencies(scheme, headDim, { seqLen = 1 } = {}) {
    return this._frequencies(scheme, headDim, seqLen).values;
  }

  /** The factor multiplying cos and sin (YaRN, LongRoPE); logits scale by its square. */
  attentionFactor(scheme, headDim, { seqLen = 1 } = {}) {
    return this._frequencies(scheme, headDim, seqLen).attentionFactor;
  }

  _frequencies(scheme, headDim, seqLen) {
    const s = normalizeScheme(scheme);
    if (!s.rotary) fail(`scheme '${s.name}' has no rotary frequencies`);
    this._headDim(headDim);
    checkCount(seqLen, 'seqLen');
    const res = this._mod.inverseFrequencies(s, headDim, seqLen);
    this._check(res.error);
    return res;
  }

  /** Frequency bands: runs of pairs sharing one relative-distance rule. */
  bands(scheme, headDim) {
    return this._bands(normalizeScheme(scheme), headDim);
  }

  _bands(s, headDim) {
    this._headDim(headDim);
    const res = this._mod.bands(s, headDim);
    this._check(res.error);
    return res.bands;
  }

  /**
   * Effective relative distance per band: for each band, an n x n Float32Array whose (i, j)
   * entry times theta_p is the angle of pair p between query i and key j (NaN where j > i for
   * windowed schemes).
   */
  relativeDistances(args) {
    const { n, headDim } = this._shape(args);
    const scheme = normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    if (!scheme.rotary) fail(`scheme '${scheme.name}' has no rotary bands`);
    if (n * n > this.limits.maxOutputElements) fail(`n * n = ${n * n} exceeds the output limit of ${this.limits.maxOutputElements} elements`);
    const pos = normalizePositions(args.positions, n, scheme);
    const bands = this._bands(scheme, headDim);
    return this._run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const out = heap.alloc(n * n * 4);
      return bands.map((band, index) => {
        this._check(this._mod.relativeDistances(scheme, headDim, n, tp, up, sp, index, out));
        return { ...band, distances: heap.readFloat32(out, n * n).slice() };
      });
    });
  }

  /**
   * The scheme applied to x (n x heads*headDim) as a query or key, in the near or far branch
   * (far exists for windowed schemes). Includes attention factor, xPos scale and log-n scale.
   */
  rotate(args) {
    const { n, headDim, heads, width } = this._shape(args);
    const scheme = normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    const x = checkFloat32(args.x, 'x', n * width, 'n * heads * headDim');
    const role = enumValue({ query: 0, key: 1 }, args.role === undefined ? 'query' : args.role, 'role');
    const branch = enumValue({ near: 0, far: 1 }, args.branch === undefined ? 'near' : args.branch, 'branch');
    const pos = normalizePositions(args.positions, n, scheme);
    return this._run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const xp = heap.float32(x);
      const out = heap.alloc(x.length * 4);
      this._check(this._mod.rotate(scheme, headDim, heads, n, tp, up, sp, role, branch, xp, out));
      return heap.readFloat32(out, x.length).slice();
    });
  }

  /** RoFormer's long-term decay curve for r = 0 .. maxDistance. */
  longTermDecay(scheme, headDim, maxDistance) {
    const s = normalizeScheme(scheme);
    this._headDim(headDim);
    checkCount(maxDistance, 'maxDistance', { min: 0, max: this.limits.maxTokens - 1 });
    return this._run((heap) => {
      const out = heap.alloc((maxDistance + 1) * 4);
      this._check(this._mod.longTermDecay(s, headDim, maxDistance, out));
      return heap.readFloat32(out, maxDistance + 1).slice();
    });
  }

  /**
   * Mean-pools an n x n attention matrix (heads x n x n: the first head) into a grid of cells for
   * display: { ratio, raw, rowMax } (see hirope.h pool_rows). options: { matrix, n, rows, cols,
   * region?: { r0, r1, c0, c1 }, causal? (default true) }.
   */
  pool(options) {
    if (!options || typeof options !== 'object') fail(`pool options must be an object, got ${describe(options)}`);
    const n = checkCount(options.n, 'n', { max: this.limits.maxTokens });
    const matrix = checkFloat32(options.matrix, 'matrix', n * n, 'n * n');
    const causal = options.causal === undefined ? true : options.causal;
    if (typeof causal !== 'boolean') fail(`causal must be a boolean, got ${describe(causal)}`);
    const spec = checkPool(options, n, { outputs: false });
    return this._run((heap) => {
      const pooling = new Pooling(this, heap, spec, causal);
      const stripRows = Math.max(1, Math.min(n, Math.floor(STRIP_ELEMENTS / n)));
      const strip = heap.alloc(stripRows * n * 4);
      for (let r0 = 0; r0 < n; r0 += stripRows) {
        const r1 = Math.min(n, r0 + stripRows);
        this._mod.HEAPF32.set(matrix.subarray(r0 * n, r1 * n), strip >> 2);
        pooling.add(strip, r0, r1);
      }
      pooling.finish();
      return { ratio: spec.ratio, raw: spec.raw, rowMax: spec.rowMax };
    });
  }

  /** ALiBi slopes for any head count. */
  alibiSlopes(heads) {
    checkCount(heads, 'heads', { max: this.limits.maxHeads });
    return this._mod.alibiSlopes(heads);
  }

  /** Split% = log_base(trainingLength / 2 pi): the fraction of reliably trained pairs. */
  splitFraction(trainingLength, base = 10000) {
    if (typeof trainingLength !== 'number' || !(trainingLength > 0)) fail(`trainingLength must be a positive number, got ${describe(trainingLength)}`);
    if (typeof base !== 'number' || !(base > 1)) fail(`base must be a number > 1, got ${describe(base)}`);
    return this._mod.splitFraction(trainingLength, base);
  }

  /**
   * Q/K (and V) for people without a model. source 'ones': every entry 1 (content-free, isolates
   * the position effect). source 'seeded': standard-normal vectors per token id (same id, same
   * vector), reproducible from seed.
   */
  qk({ source = 'seeded', n, headDim, heads = 1, tokenIds, seed = 0 } = {}) {
    const shape = this._shape({ n, headDim, heads });
    const count = n * shape.width;
    if (source === 'ones') {
      return { q: new Float32Array(count).fill(1), k: new Float32Array(count).fill(1), v: new Float32Array(count).fill(1) };
    }
    if (source !== 'seeded') fail(`source must be 'ones' or 'seeded', got ${describe(source)}`);
    if (!Number.isSafeInteger(seed) || seed < 0) fail(`seed must be a non-negative safe integer, got ${describe(seed)}`);
    const ids = tokenIds === undefined ? iota(n) : int32Positions(tokenIds, 'tokenIds', n);
    return this._run((heap) => {
      const idp = heap.int32(ids);
      const out = heap.alloc(count * 4);
      const result = {};
      for (const [role, name] of [[0, 'q'], [1, 'k'], [2, 'v']]) {
        this._mod.seededVectors(seed, idp, n, shape.width, role, out);
        result[name] = heap.readFloat32(out, count).slice();
      }
      return result;
    });
  }

  /** Bytes the WASM heap holds now (it only grows; tests use it to check for leaks). */
  heapBytes() {
    return this._mod.HEAPU8.buffer.byteLength;
  }
}

const INIT_KEYS = ['simd', 'analysis', 'locateFile', 'wasmBinary', 'wasmModule', 'dataURL', 'tokenizers', 'backend', 'gpu'];

/**
 * Builds an entry point's init(). `modules` maps 'full' and/or 'core' to { simd, scalar }, each a
 * [.wasm file name, loader of the Emscripten factory]; `wasm` maps .wasm file names to their URLs
 * and `data` tokenizer
 * names to their URLs, each written as new URL('./literal', import.meta.url) in the entry so that
 * bundlers copy the files.
 */
export function makeInit({ modules, wasm, data = {}, webgpu }) {
  return async function init(options = {}) {
    if (options === null || typeof options !== 'object') fail(`init options must be an object, got ${describe(options)}`);
    for (const key of Object.keys(options)) {
      if (!INIT_KEYS.includes(key)) fail(`init options have an unknown key '${key}' (known keys: ${INIT_KEYS.join(', ')})`);
    }
    const supported = simdSupported();
    const simd = options.simd === undefined ? supported : options.simd;
    if (typeof simd !== 'boolean') fail(`options.simd must be a boolean, got ${describe(simd)}`);
    if (simd && !supported) fail('options.simd is true but this engine does not support WebAssembly SIMD');
    const analysis = options.analysis === undefined ? 'full' in modules : options.analysis;
    if (typeof analysis !== 'boolean') fail(`options.analysis must be a boolean, got ${describe(analysis)}`);
    if (analysis && !('full' in modules)) fail("options.analysis: this entry point ('hirope/core') has no code analysis; import 'hirope'");
    if (!analysis && options.tokenizers?.length) fail('options.tokenizers needs the analysis build (analysis: true)');
    const [file, load] = modules[analysis ? 'full' : 'core'][simd ? 'simd' : 'scalar'];
    const factory = (await load()).default;
    const moduleOptions = {
      locateFile: (name, dir) => {
        if (options.locateFile) return options.locateFile(name, dir);
        return wasm[name] ? wasm[name]().href : dir + name;
      },
    };
    if (options.wasmModule !== undefined) {
      // A module compiled once (e.g. by a page) and posted to each worker: no fetch, no compile.
      if (!(options.wasmModule instanceof WebAssembly.Module)) fail(`options.wasmModule must be a WebAssembly.Module, got ${describe(options.wasmModule)}`);
      moduleOptions.instantiateWasm = (imports, receive) => {
        // The loader's import object names exactly what its own .wasm imports: another build's
        // module would instantiate and then fail deep inside the runtime's start-up.
        const wanted = new Set(Object.values(imports).flatMap((ns) => Object.keys(ns)));
        const given = WebAssembly.Module.imports(options.wasmModule);
        if (given.length !== wanted.size || given.some((i) => !wanted.has(i.name))) {
          ready.reject(new HiRoPEError(`options.wasmModule could not be instantiated: it is not ${file} (its imports differ)`));
          return {};
        }
        WebAssembly.instantiate(options.wasmModule, imports).then(
          (instance) => receive(instance, options.wasmModule),
          (e) => ready.reject(new HiRoPEError(`options.wasmModule could not be instantiated (is it ${file}?): ${e.message}`)),
        );
        return {};
      };
    } else if (options.wasmBinary) moduleOptions.wasmBinary = options.wasmBinary;
    else if (isNode() && !options.locateFile) moduleOptions.wasmBinary = await readData(wasm[file]());
    const ready = {};
    const failed = new Promise((_, reject) => (ready.reject = reject));
    const mod = await Promise.race([factory(moduleOptions), failed]);
    let files = {};
    if (options.dataURL !== undefined) {
      const base = new URL(String(options.dataURL).replace(/\/?$/, '/'), globalThis.location?.href ?? import.meta.url);
      for (const name of VOCABULARIES) files[name] = new URL(`${name}.bin`, base);
      files.model = new URL('pybyte.hrm', base);
    } else {
      for (const [name, url] of Object.entries(data)) files[name] = url();
    }
    const hr = new HiRoPE(mod, simd ? 'wasm-simd' : 'wasm-scalar', files);
    for (const name of options.tokenizers || []) await hr.loadTokenizer(name);
    const backend = options.backend === undefined ? 'wasm' : options.backend;
    if (!['wasm', 'webgpu', 'auto'].includes(backend)) fail(`options.backend must be 'wasm', 'webgpu' or 'auto', got ${describe(backend)}`);
    if (backend !== 'wasm') {
      const gpu = options.gpu ?? globalThis.navigator?.gpu;
      const { createGPUAttention } = await webgpu();
      let executor = null;
      try {
        executor = await createGPUAttention(gpu);
      } catch (e) {
        if (backend === 'webgpu') fail(`WebGPU is not usable here: ${e.message}`);
      }
      if (!executor && backend === 'webgpu') fail('options.backend is \'webgpu\' but no WebGPU adapter is available (use \'auto\' to fall back to WASM)');
      hr._gpu = executor;
      hr.attentionBackend = executor ? 'webgpu' : 'wasm';
      hr.gpuAdapter = executor ? executor.adapterInfo : null;
    }
    return hr;
  };
}
