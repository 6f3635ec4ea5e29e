// hr.model: hirope's byte-level code model (src/model/), with any position scheme applied at
// inference. A thin layer over the runtime (wasm/runtime.js): argument checks and defaults here,
// scheme and option names from the core's vocabulary, the work in WASM.
import {
  fail, describe, iota, orList, readOptions, readObject, readArray, isPlainObject, checkInt32s, checkBytes, typedArrayName, typedLength, fixedView,
} from './errors.js';
import { readData, guardMethods } from './runtime.js';

const OPTION_KEYS = {
  loss: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'positions'],
  logits: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'positions'],
  attention: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'layer', 'head'],
  generate: ['scheme', 'hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses', 'maxBytes', 'temperature', 'seed'],
  positions: ['hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses'],
};
const DECODER = new TextDecoder();

// The weights of a CodeModel that was garbage-collected without dispose(): its WASM handle is
// deleted here (dispose() stays the prompt way, and unregisters it).
const unreleased = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => {
    try {
      handle.delete();
    } catch {
      // already deleted, or the module is gone
    }
  })
  : null;

// A call's options read once (phase 1, see errors.js): its keys, the scheme and the positions.
function readModelOptions(options, kind, runtime, cap) {
  const o = readOptions(options, OPTION_KEYS[kind], { name: `${kind} options`, unknown: `${kind} options` });
  // Baselines ('sliding-window', 'truncate') are read by CodeModel._baseline.
  const limits = runtime.vocabulary.names('contextLimits');
  const type = isPlainObject(o.scheme) ? o.scheme.type : o.scheme;
  if (o.scheme !== undefined && !limits.includes(type)) o.scheme = runtime.vocabulary.readScheme(o.scheme);
  if (isPlainObject(o.positions)) {
    const p = readObject(o.positions, ['unit', 'statement']);
    for (const key of ['unit', 'statement']) if (p[key] !== undefined) p[key] = readArray(p[key], cap);
    o.positions = p;
  }
  return o;
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
    this._generation = runtime.generation; // the instance that holds the weights
    /** { name, version, vocab, dModel, layers, heads, headDim, ffnHidden, trainingContext, ropeBase, normEps, parameters } */
    this.config = Object.freeze(handle.config());
    /** Bytes one call accepts (input, or prompt plus maxBytes). */
    this.maxInputBytes = runtime.mod.modelLimits().maxInputBytes;
    unreleased?.register(this, handle, this);
  }

  _live() {
    if (!this._handle) fail('this model was disposed');
    if (this._generation !== this._runtime.generation) fail('this model was in a WebAssembly instance that stopped and was replaced: load it again (await hr.model.load())');
    return this._handle;
  }

  /** Frees the weights held in WASM memory. */
  dispose() {
    if (!this._handle) return;
    unreleased?.unregister(this);
    // A replaced instance took the weights with it.
    if (this._generation === this._runtime.generation) this._handle.delete();
    this._handle = null;
  }

  _read(options, kind) {
    return readModelOptions(options, kind, this._runtime, this.maxInputBytes);
  }

  /**
   * The scheme with the model's own defaults filled in: base and layout of its training RoPE,
   * trainingLength and scaling.originalLength = its training context, window = half of it.
   * The baselines 'sliding-window' ({ window }) and 'truncate' ({ length, stride }) default to the
   * training context (stride 1) and run the training RoPE: { name, window | length, stride,
   * rope, limit }.
   */
  scheme(scheme = 'rope') {
    const baseline = this._baseline(scheme);
    if (baseline) return baseline;
    const vocabulary = this._runtime.vocabulary;
    const spec = vocabulary.readScheme(scheme);
    if (!isPlainObject(spec)) fail(`scheme must be an object such as { type: 'hirope' }, got ${describe(spec)}`);
    const s = { ...spec };
    // The model runs rotary schemes (it was trained with RoPE) and NoPE (src/model check_scheme).
    const usable = vocabulary.data.schemes.filter((x) => x.rotary).map((x) => x.name).concat('nope');
    const info = vocabulary.scheme(s.type);
    if (!info || !usable.includes(s.type)) {
      const baselines = vocabulary.names('contextLimits').filter((name) => name !== 'none');
      fail(`the code model was trained with RoPE: scheme.type must be one of ${orList(usable.concat(baselines))}, got ${describe(s.type)}`);
    }
    const L = this.config.trainingContext;
    const takes = (key) => info.parameters.includes(key);
    if (takes('base') && s.base === undefined) s.base = this.config.ropeBase;
    if (takes('layout') && s.layout === undefined) s.layout = 'half';
    if (takes('scaling') && isPlainObject(s.scaling) && s.scaling.originalLength === undefined &&
      vocabulary.scaling(s.scaling.type)?.parameters.includes('originalLength')) {
      s.scaling = { ...s.scaling, originalLength: L };
    }
    if (takes('window') && s.window === undefined) s.window = Math.max(1, Math.floor(L / 2));
    if (takes('trainingLength') && s.trainingLength === undefined) s.trainingLength = L;
    const normalized = vocabulary.normalizeScheme(s);
    if (normalized.rotary && normalized.layout !== vocabulary.value('layouts', 'half')) fail("the code model rotates in the half-split layout: scheme.layout must be 'half'");
    return normalized;
  }

  // A baseline's normalised form, or null for a position scheme.
  _baseline(scheme) {
    const vocabulary = this._runtime.vocabulary;
    const names = vocabulary.names('contextLimits').filter((name) => name !== 'none');
    const type = typeof scheme === 'string' ? scheme : isPlainObject(scheme) ? scheme.type : undefined;
    if (!names.includes(type)) return null;
    const L = this.config.trainingContext;
    const max = this.maxInputBytes;
    const keys = type === 'truncate' ? ['type', 'length', 'stride'] : ['type', 'window'];
    const o = typeof scheme === 'string' ? { type } : readOptions(scheme, keys, { name: 'scheme', unknown: `scheme (type '${type}') options` });
    const size = type === 'truncate' ? 'length' : 'window';
    const length = integer(o[size] ?? L, `scheme.${size}`, 1, max);
    const stride = type === 'truncate' ? integer(o.stride ?? 1, 'scheme.stride', 1, length) : 1;
    const rope = this.scheme({ type: 'rope' });
    const limit = { type: vocabulary.value('contextLimits', type, 'scheme.type'), length, stride };
    return type === 'truncate' ? { name: type, length, stride, rope, limit } : { name: type, window: length, rope, limit };
  }

  // The core scheme and the context limit a call runs with.
  _plan(scheme) {
    const s = this.scheme(scheme);
    return s.limit ? { scheme: s.rope, limit: s.limit } : { scheme: s, limit: null };
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

  // The input in the heap: a string as UTF-8 (its length counted before anything is allocated) or
  // a Uint8Array's bytes, within the model's limit: [address, bytes].
  _bytes(heap, code, name, limit = this.maxInputBytes) {
    const whose = limit === this.maxInputBytes ? "the model's" : "the analysis's";
    const message = (bytes) => `${name} is ${bytes} bytes; ${whose} limit is ${limit}`;
    if (typeof code === 'string') return heap.text(code, name, { limit, message });
    if (typedArrayName(code) !== 'Uint8Array') fail(`${name} must be a string or a Uint8Array, got ${describe(code)}`);
    const bytes = fixedView(code, typedLength(code));
    if (bytes.length > limit) fail(message(bytes.length));
    return heap.bytes(bytes);
  }

  _positions(ptr, n, hierarchy) {
    const r = this._runtime.mod.bytePositions(ptr, n, hierarchy);
    this._runtime.check(r.error);
    return { token: iota(n), unit: r.unit, statement: r.statement };
  }

  // options: read by _read.
  _forward(code, options, outputs) {
    const handle = this._live();
    const { scheme, limit } = this._plan(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, code, 'code');
      const pos = options.positions ? this._explicitPositions(options.positions, n) : this._positions(ptr, n, hierarchy);
      const [tp, up, sp] = heap.positions(pos);
      const sizes = outputs(n);
      const ptrs = {};
      for (const [name, count] of Object.entries(sizes)) ptrs[name] = count ? heap.alloc(count * 4) : 0;
      this._runtime.check(handle.forward(scheme, limit, ptr, n, tp, up, sp, ptrs.logits || 0, ptrs.losses || 0,
        ptrs.attention || 0, options.layer ?? 0, options.head ?? 0));
      const out = { n, positions: pos };
      for (const [name, count] of Object.entries(sizes)) out[name] = heap.readFloat32(ptrs[name], count).slice();
      return out;
    });
  }

  _explicitPositions(p, n) {
    if (!isPlainObject(p)) fail(`positions must be an object, got ${describe(p)}`);
    // 32-bit integers, one per byte (the core's range for unit and statement indices).
    const column = (name) => (p[name] === undefined ? new Int32Array(n)
      : checkInt32s(p[name], `positions.${name}`, n, (length) => `positions.${name} must have ${n} entries (one per byte), got ${length}`));
    return { token: iota(n), unit: column('unit'), statement: column('statement') };
  }

  /**
   * Per-byte loss: { losses, bitsPerByte, n, positions }. losses[t] is the loss in bits of byte
   * t + 1 given bytes 0..t (n - 1 values); bitsPerByte is their mean.
   */
  loss(code, options) {
    const r = this._forward(code, this._read(options, 'loss'), (n) => ({ losses: Math.max(0, n - 1) }));
    let sum = 0;
    for (const x of r.losses) sum += x;
    return { losses: r.losses, bitsPerByte: r.losses.length ? sum / r.losses.length : NaN, n: r.n, positions: r.positions };
  }

  /** Next-byte logits: a Float32Array of n x 256 (row t predicts byte t + 1). */
  logits(code, options) {
    const vocab = this.config.vocab;
    return this._forward(code, this._read(options, 'logits'), (n) => ({ logits: n * vocab })).logits;
  }

  /**
   * The model's real attention probabilities for one layer and head: { matrix (n x n, rows =
   * queries, causal), n, positions }.
   */
  attention(code, options) {
    const o = this._read(options, 'attention');
    o.layer = integer(o.layer ?? 0, 'layer', 0, this.config.layers - 1);
    o.head = integer(o.head ?? 0, 'head', 0, this.config.heads - 1);
    const r = this._forward(code, o, (n) => ({ attention: n * n }));
    return { matrix: r.attention, n: r.n, positions: r.positions };
  }

  /**
   * Byte positions for a hierarchy: { token, unit, statement } (Int32Arrays, one per byte). Takes
   * whole files up to the analysis's limit: a window's positions cut from its file's parse can be
   * passed to loss() and logits() as options.positions.
   */
  positions(code, options) {
    options = this._read(options, 'positions');
    const hierarchy = this._hierarchy(options, null);
    return this._runtime.run((heap) => {
      // A whole file (up to the analysis's limit): windows cut from it keep its units.
      const [ptr, n] = this._bytes(heap, code, 'code', this._runtime.limits.maxSourceBytes);
      return this._positions(ptr, n, hierarchy);
    });
  }

  /**
   * Continues prompt with the KV-cache decoder: { text, bytes }. temperature 0 is greedy; seed
   * makes sampling repeatable. Positions follow the hierarchy, re-analysed after each newline.
   */
  generate(prompt, options) {
    options = this._read(options, 'generate');
    const handle = this._live();
    const { scheme, limit } = this._plan(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    const maxBytes = integer(options.maxBytes ?? 256, 'maxBytes', 0, this.maxInputBytes);
    const temperature = options.temperature ?? 0.8;
    if (typeof temperature !== 'number') fail(`temperature must be a number, got ${describe(temperature)}`);
    const seed = integer(options.seed ?? 1, 'seed', 0, Number.MAX_SAFE_INTEGER);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, prompt, 'prompt');
      // The core checks the rest: a prompt of at least 1 byte, prompt plus maxBytes within its
      // limit, a finite temperature >= 0.
      const r = handle.generate(scheme, limit, ptr, n, hierarchy, maxBytes, temperature, seed);
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
    const bytes = checkBytes(data, 'model data');
    const runtime = this._runtime;
    return runtime.run((heap) => {
      const r = runtime.mod.modelConfig(...heap.bytes(bytes));
      runtime.check(r.error);
      return r.config;
    });
  }

  /**
   * Loads a weights file: options.data (Uint8Array or ArrayBuffer) or options.url; by default
   * data/pybyte.hrm next to this module (fetched on first use, about 1.3 MB). A truncated,
   * corrupted or other-version file is a HiRoPEError and nothing stays allocated.
   */
  async load(options) {
    const { data, url } = readOptions(options, ['data', 'url']);
    const runtime = this._runtime;
    runtime.needAnalysis();
    let bytes = data;
    if (bytes === undefined) {
      const where = url === undefined ? this._url : new URL(String(url), globalThis.location?.href ?? import.meta.url);
      if (!where) fail('no location for the model weights: pass options.data or options.url');
      bytes = await readData(where);
    }
    bytes = checkBytes(bytes, 'model data');
    const limit = runtime.limits.maxModelFileBytes;
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
guardMethods(CodeModel, function () {
  return this._runtime;
}, { except: ['dispose'] });
guardMethods(ModelLoader, function () {
  return this._runtime;
});
