// hr.model: hirope's byte-level code model (src/model/), with any position scheme applied at
// inference. A thin layer over the runtime (wasm/runtime.js): argument checks and defaults here,
// scheme and option names from the core's vocabulary, the work in WASM.
import { fail, describe, iota, orList } from './errors.js';
import { readData } from './runtime.js';

const OPTION_KEYS = {
  loss: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses'],
  logits: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'positions'],
  attention: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'layer', 'head'],
  generate: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'maxBytes', 'temperature', 'seed'],
  positions: ['hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses'],
};
const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

function checkOptions(options, kind) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) fail(`${kind} options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS[kind].includes(key)) fail(`${kind} options have an unknown key '${key}' (known keys: ${OPTION_KEYS[kind].join(', ')})`);
  }
}

function integer(value, name, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) fail(`${name} must be an integer in [${min}, ${max}], got ${describe(value)}`);
  return value;
}

/** A loaded code model. Create with `await hr.model.load()`. */
export class CodeModel {
  constructor(runtime, handle) {
    this._runtime = runtime;
    this._handle = handle;
    /** { name, version, vocab, dModel, layers, heads, headDim, ffnHidden, trainingContext, ropeBase, normEps, parameters } */
    this.config = Object.freeze(handle.config());
    /** Bytes one call accepts (input, or prompt plus maxBytes). */
    this.maxInputBytes = runtime.mod.modelLimits().maxInputBytes;
  }

  _live() {
    if (!this._handle) fail('this model was disposed');
    return this._handle;
  }

  /** Frees the weights held in WASM memory. */
  dispose() {
    this._handle?.delete();
    this._handle = null;
  }

  /**
   * The scheme with the model's own defaults filled in: base and layout of its training RoPE,
   * trainingLength and scaling.originalLength = its training context, window = half of it.
   */
  scheme(scheme = 'rope') {
    const spec = typeof scheme === 'string' ? { type: scheme } : scheme;
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) fail(`scheme must be an object such as { type: 'hirope' }, got ${describe(spec)}`);
    const s = { ...spec };
    const vocabulary = this._runtime.vocabulary;
    // The model runs rotary schemes (it was trained with RoPE) and NoPE (src/model check_scheme).
    const usable = vocabulary.data.schemes.filter((x) => x.rotary).map((x) => x.name).concat('nope');
    const info = vocabulary.scheme(s.type);
    if (!info || !usable.includes(s.type)) fail(`the code model was trained with RoPE: scheme.type must be one of ${orList(usable)}, got ${describe(s.type)}`);
    const L = this.config.trainingContext;
    const takes = (key) => info.parameters.includes(key);
    if (takes('base') && s.base === undefined) s.base = this.config.ropeBase;
    if (takes('layout') && s.layout === undefined) s.layout = 'half';
    if (takes('scaling') && s.scaling && typeof s.scaling === 'object' && s.scaling.originalLength === undefined &&
      vocabulary.scaling(s.scaling.type)?.parameters.includes('originalLength')) {
      s.scaling = { ...s.scaling, originalLength: L };
    }
    if (takes('window') && s.window === undefined) s.window = Math.max(1, Math.floor(L / 2));
    if (takes('trainingLength') && s.trainingLength === undefined) s.trainingLength = L;
    const normalized = vocabulary.normalizeScheme(s);
    if (normalized.rotary && normalized.layout !== vocabulary.value('layouts', 'half')) fail("the code model rotates in the half-split layout: scheme.layout must be 'half'");
    return normalized;
  }

  _hierarchy(o, scheme) {
    const vocabulary = this._runtime.vocabulary;
    const option = (name, value, list) => {
      if (!vocabulary.names(list).includes(value)) fail(`${name} must be ${orList(vocabulary.names(list))}, got ${describe(value)}`);
      return vocabulary.value(list, value, name);
    };
    const level = option('hierarchy', o.hierarchy === undefined ? (scheme?.segmentSize ? 'segments' : 'units') : o.hierarchy, 'byteHierarchies');
    const language = vocabulary.checkLanguage(o.language === undefined ? 'python' : o.language);
    const gap = option('gap', o.gap === undefined ? 'own' : o.gap, 'gaps');
    const descend = o.descendClasses === undefined ? false : o.descendClasses;
    if (typeof descend !== 'boolean') fail(`descendClasses must be a boolean, got ${describe(descend)}`);
    const segmentSize = o.segmentSize === undefined ? (scheme?.segmentSize || 32) : o.segmentSize;
    integer(segmentSize, 'segmentSize', 1, 1 << 30);
    return { level, language, gap, descendClasses: descend, segmentSize };
  }

  _bytes(heap, code, name) {
    if (typeof code !== 'string' && !(code instanceof Uint8Array)) fail(`${name} must be a string or a Uint8Array, got ${describe(code)}`);
    const bytes = typeof code === 'string' ? ENCODER.encode(code) : code;
    if (bytes.length > this.maxInputBytes) fail(`${name} is ${bytes.length} bytes; the model's limit is ${this.maxInputBytes}`);
    return heap.bytes(bytes);
  }

  _positions(ptr, n, hierarchy) {
    const r = this._runtime.mod.bytePositions(ptr, n, hierarchy);
    this._runtime.check(r.error);
    return { token: iota(n), unit: r.unit, statement: r.statement };
  }

  _forward(code, options, kind, outputs) {
    checkOptions(options, kind);
    const handle = this._live();
    const scheme = this.scheme(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, code, 'code');
      const pos = options.positions ? this._explicitPositions(options.positions, n) : this._positions(ptr, n, hierarchy);
      const [tp, up, sp] = heap.positions(pos);
      const sizes = outputs(n);
      const ptrs = {};
      for (const [name, count] of Object.entries(sizes)) ptrs[name] = count ? heap.alloc(count * 4) : 0;
      this._runtime.check(handle.forward(scheme, ptr, n, tp, up, sp, ptrs.logits || 0, ptrs.losses || 0,
        ptrs.attention || 0, options.layer ?? 0, options.head ?? 0));
      const out = { n, positions: pos };
      for (const [name, count] of Object.entries(sizes)) out[name] = heap.readFloat32(ptrs[name], count).slice();
      return out;
    });
  }

  _explicitPositions(p, n) {
    if (p === null || typeof p !== 'object') fail(`positions must be an object, got ${describe(p)}`);
    const column = (name) => {
      const v = p[name] === undefined ? new Int32Array(n) : p[name];
      if (!(v instanceof Int32Array) && !Array.isArray(v)) fail(`positions.${name} must be an Int32Array or an array`);
      if (v.length !== n) fail(`positions.${name} must have ${n} entries (one per byte), got ${v.length}`);
      return Int32Array.from(v);
    };
    return { token: iota(n), unit: column('unit'), statement: column('statement') };
  }

  /**
   * Per-byte loss: { losses, bitsPerByte, n, positions }. losses[t] is the loss in bits of byte
   * t + 1 given bytes 0..t (n - 1 values); bitsPerByte is their mean.
   */
  loss(code, options = {}) {
    const r = this._forward(code, options, 'loss', (n) => ({ losses: Math.max(0, n - 1) }));
    let sum = 0;
    for (const x of r.losses) sum += x;
    return { losses: r.losses, bitsPerByte: r.losses.length ? sum / r.losses.length : NaN, n: r.n, positions: r.positions };
  }

  /** Next-byte logits: a Float32Array of n x 256 (row t predicts byte t + 1). */
  logits(code, options = {}) {
    const vocab = this.config.vocab;
    return this._forward(code, options, 'logits', (n) => ({ logits: n * vocab })).logits;
  }

  /**
   * The model's real attention probabilities for one layer and head: { matrix (n x n, rows =
   * queries, causal), n, positions }.
   */
  attention(code, options = {}) {
    const layer = integer(options.layer ?? 0, 'layer', 0, this.config.layers - 1);
    const head = integer(options.head ?? 0, 'head', 0, this.config.heads - 1);
    const r = this._forward(code, { ...options, layer, head }, 'attention', (n) => ({ attention: n * n }));
    return { matrix: r.attention, n: r.n, positions: r.positions };
  }

  /** Byte positions for a hierarchy: { token, unit, statement } (Int32Arrays, one per byte). */
  positions(code, options = {}) {
    checkOptions(options, 'positions');
    const hierarchy = this._hierarchy(options, null);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, code, 'code');
      return this._positions(ptr, n, hierarchy);
    });
  }

  /**
   * Continues prompt with the KV-cache decoder: { text, bytes }. temperature 0 is greedy; seed
   * makes sampling repeatable. Positions follow the hierarchy, re-analysed after each newline.
   */
  generate(prompt, options = {}) {
    checkOptions(options, 'generate');
    const handle = this._live();
    const scheme = this.scheme(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    const maxBytes = integer(options.maxBytes ?? 256, 'maxBytes', 0, this.maxInputBytes);
    const temperature = options.temperature ?? 0.8;
    if (typeof temperature !== 'number') fail(`temperature must be a number, got ${describe(temperature)}`);
    const seed = integer(options.seed ?? 1, 'seed', 0, Number.MAX_SAFE_INTEGER);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, prompt, 'prompt');
      // The core checks the rest: a prompt of at least 1 byte, prompt plus maxBytes within its
      // limit, a finite temperature >= 0.
      const r = handle.generate(scheme, ptr, n, hierarchy, maxBytes, temperature, seed);
      this._runtime.check(r.error);
      return { text: DECODER.decode(r.bytes), bytes: r.bytes };
    });
  }
}

/** hr.model: loading models. */
export class ModelLoader {
  constructor(runtime, url) {
    this._runtime = runtime;
    this._url = url;
  }

  /** The header of a weights file, without loading it: { name, layers, ..., parameters }. */
  inspect(data) {
    const bytes = toBytes(data);
    const runtime = this._runtime;
    return runtime.run((heap) => {
      const r = runtime.mod.modelConfig(...heap.bytes(bytes));
      runtime.check(r.error);
      return r.config;
    });
  }

  /**
   * Loads a weights file: options.data (Uint8Array or ArrayBuffer) or options.url; by default
   * data/pybyte.hrm next to this module (fetched on first use, about 3.6 MB). A truncated,
   * corrupted or other-version file is a HiRoPEError and nothing stays allocated.
   */
  async load({ data, url } = {}) {
    const runtime = this._runtime;
    runtime.needAnalysis();
    let bytes = data;
    if (bytes === undefined) {
      const where = url === undefined ? this._url : new URL(String(url), globalThis.location?.href ?? import.meta.url);
      if (!where) fail('no location for the model weights: pass options.data or options.url');
      bytes = await readData(where);
    }
    bytes = toBytes(bytes);
    const limit = runtime.mod.modelLimits().maxFileBytes;
    if (bytes.length > limit) fail(`model file of ${bytes.length} bytes exceeds the limit of ${limit}`);
    const handle = new runtime.mod.ModelHandle();
    try {
      runtime.run((heap) => runtime.check(handle.load(...heap.bytes(bytes))));
    } catch (e) {
      handle.delete();
      throw e;
    }
    return new CodeModel(runtime, handle);
  }
}

function toBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (data instanceof Uint8Array) return data;
  fail(`model data must be a Uint8Array or ArrayBuffer, got ${describe(data)}`);
}
