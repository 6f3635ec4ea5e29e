// hr.model: hirope's code models (src/model/): a byte-level model and a token model (it reads the
// ids of a tokenizer its file names), with any position scheme applied at inference. A thin layer
// over the runtime (wasm/runtime.js): argument checks and defaults here, scheme and option names
// from the core's scheme catalogue, the work in WASM.
import {
  fail,
  describe,
  iota,
  orList,
  readOptions,
  readObject,
  readArray,
  isPlainObject,
  checkInt32s,
  checkBytes,
  typedArrayName,
  typedLength,
  fixedView,
  checkKnownKeys,
} from './marshal.js';
import {
  readData,
  guardMethods,
  MODEL_FILES,
  DEFAULT_MODEL,
  TOKENIZER_DATA,
  DECODER,
} from './runtime.js';
import { useEvaluationRuntime } from './recall.js';
import { openCheckpointFiles, fetchFolder, isFolderURL } from './checkpoint-files.js';
import { HiRoPEError } from './errors.js';

// The options every method takes for a text's positions; each method adds its own.
const HIERARCHY_KEYS = ['hierarchy', 'language', 'segmentSize', 'gap', 'descendClasses'];
const OPTION_KEYS = {
  loss: ['scheme', ...HIERARCHY_KEYS, 'positions'],
  logits: ['scheme', ...HIERARCHY_KEYS, 'positions'],
  attention: ['scheme', ...HIERARCHY_KEYS, 'layer', 'head'],
  attentionAll: ['scheme', ...HIERARCHY_KEYS, 'positions'],
  generate: ['scheme', ...HIERARCHY_KEYS, 'maxBytes', 'temperature', 'seed'],
  positions: HIERARCHY_KEYS,
};

// loss()'s output: n - 1 losses.
const LOSS_OUTPUTS = (n) => ({ losses: Math.max(0, n - 1) });

// The weights of a CodeModel that was garbage-collected without dispose(): its WASM handle is
// deleted here (dispose() stays the prompt way, and unregisters it).
const unreleased =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((handle) => {
        try {
          handle.delete();
        } catch {
          // already deleted, or the module is gone
        }
      })
    : null;

// A call's options read once (phase 1, see marshal.js): its keys, the scheme and the positions.
function readModelOptions(options, kind, runtime, cap) {
  const o = readOptions(options, OPTION_KEYS[kind], {
    name: `${kind} options`,
    unknown: `${kind} options`,
  });
  // Baselines ('sliding-window', 'truncate') are read by CodeModel._baseline.
  const limits = runtime.catalogue.names('contextLimits');
  const type = isPlainObject(o.scheme) ? o.scheme.type : o.scheme;
  // 'model': the model's own positions (a checkpoint's per-layer setup; RoPE for hirope's own).
  if (o.scheme !== undefined && o.scheme !== 'model' && !limits.includes(type))
    o.scheme = runtime.catalogue.readScheme(o.scheme);
  if (isPlainObject(o.positions)) {
    const p = readObject(o.positions, ['unit', 'statement']);
    checkKnownKeys(p, ['unit', 'statement'], 'positions'); // as Python's
    for (const key of ['unit', 'statement'])
      if (p[key] !== undefined) p[key] = readArray(p[key], cap);
    o.positions = p;
  }
  return o;
}

// fromPretrained's and downloadPretrained's options: onProgress and maxBytes (Infinity: none).
function checkpointOptions(options) {
  const { onProgress, maxBytes = Infinity } = readOptions(options, ['onProgress', 'maxBytes']);
  if (onProgress !== undefined && typeof onProgress !== 'function')
    fail(`onProgress must be a function, got ${describe(onProgress)}`);
  if (typeof maxBytes !== 'number' || !(maxBytes > 0))
    fail(`maxBytes must be a positive number of bytes, got ${describe(maxBytes)}`);
  return { onProgress, maxBytes };
}

function integer(value, name, min, max) {
  if (!Number.isInteger(value) || value < min || value > max)
    fail(`${name} must be an integer in [${min}, ${max}], got ${describe(value)}`);
  return value;
}

/** A loaded code model. Create with `await hr.model.load()`. */
export class CodeModel {
  // tokenizer: a checkpoint's tokenizer.json, loaded (the name hr.loadTokenizer gave it), or null.
  constructor(runtime, handle, host, tokenizer = null) {
    this._runtime = runtime;
    this._handle = handle;
    this._host = host;
    this._generation = runtime.generation; // the instance that holds the weights
    /**
     * { name, version, vocab, dModel, layers, heads, headDim, ffnHidden, trainingContext, ropeBase,
     * normEps, parameters, tokenizer } (tokenizer: null for a byte model, else the tokenizer whose
     * ids it reads, e.g. 'llama2'; then n, positions and losses count tokens, not bytes).
     */
    this.config = Object.freeze(handle.config());
    /**
     * Whether this is a Hugging Face checkpoint (hr.model.fromPretrained); its config also has
     * kvHeads, weightBytes, modelType, setup (its per-layer setup as JSON) and warnings.
     */
    this.checkpoint = this.config.modelType !== undefined;
    /**
     * The tokenizer whose ids this model reads ('llama2', a checkpoint's tokenizer.json as
     * hr.loadTokenizer names it), or null (bytes; a checkpoint without tokenizer.json: ids only).
     */
    this.tokenizer = tokenizer ?? this.config.tokenizer;
    /** Bytes one call accepts (input, or prompt plus maxBytes). */
    this.maxInputBytes = runtime.mod.modelLimits().maxInputBytes;
    unreleased?.register(this, handle, this);
  }

  /**
   * Bytes of this checkpoint's weights held on the GPU (uploaded by lossAsync and logitsAsync as
   * each linear layer first runs there; freed by dispose()), 0 when none.
   */
  get gpuBytes() {
    return this._gpuWeights?.weightBytes(this) ?? 0;
  }

  _live() {
    if (!this._handle) fail('this model was disposed');
    if (this._generation !== this._runtime.generation)
      fail(
        'this model was in a WebAssembly instance that stopped and was replaced: load it again (await hr.model.load())',
      );
    return this._handle;
  }

  /** Frees the weights held in WASM memory. */
  dispose() {
    if (!this._handle) return;
    this._gpuWeights?.releaseWeights(this);
    this._gpuWeights = null;
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
   * training context (stride length / 8: the core's model::truncate_stride) and run the training
   * RoPE: { name, window | length, stride, rope, limit }.
   */
  scheme(scheme = 'rope') {
    const baseline = this._baseline(scheme);
    if (baseline) return baseline;
    const catalogue = this._runtime.catalogue;
    const spec = catalogue.readScheme(scheme);
    if (!isPlainObject(spec))
      fail(`scheme must be an object such as { type: 'hirope' }, got ${describe(spec)}`);
    const s = { ...spec };
    // The model's defaults (model::model_scheme_defaults) where the user left a key out.
    const scaling =
      isPlainObject(s.scaling) &&
      s.scaling.originalLength === undefined &&
      typeof s.scaling.type === 'string'
        ? s.scaling.type
        : null;
    const r = this._live().schemeDefaults(
      typeof s.type === 'string' ? s.type : '',
      describe(s.type),
      scaling,
    );
    if (r.error) fail(r.error);
    for (const { key, value } of r.defaults) {
      if (key === 'scaling.originalLength') s.scaling = { ...s.scaling, originalLength: value };
      else if (s[key] === undefined) s[key] = value;
    }
    return catalogue.normalizeScheme(s);
  }

  // A baseline's normalised form, or null for a position scheme.
  _baseline(scheme) {
    const catalogue = this._runtime.catalogue;
    const names = catalogue.names('contextLimits').filter((name) => name !== 'none');
    const type =
      typeof scheme === 'string' ? scheme : isPlainObject(scheme) ? scheme.type : undefined;
    if (!names.includes(type)) return null;
    const keys = type === 'truncate' ? ['type', 'length', 'stride'] : ['type', 'window'];
    const o =
      typeof scheme === 'string'
        ? { type }
        : readOptions(scheme, keys, { name: 'scheme', unknown: `scheme (type '${type}') options` });
    const size = o[type === 'truncate' ? 'length' : 'window'];
    const limitType = catalogue.value('contextLimits', type, 'scheme.type');
    // The defaults and ranges are the core's (model::model_baseline).
    const r = this._live().baseline(
      limitType,
      this.maxInputBytes,
      size,
      describe(size),
      o.stride,
      describe(o.stride),
    );
    if (r.error) fail(r.error);
    const { length, stride } = r;
    const rope = this.scheme({ type: 'rope' });
    const limit = { type: limitType, length, stride };
    return type === 'truncate'
      ? { name: type, length, stride, rope, limit }
      : { name: type, window: length, rope, limit };
  }

  // The core scheme and the context limit a call runs with; own: the model's own positions (a
  // checkpoint's per-layer setup, with no scheme given or 'model'; 'model' on hirope's own: RoPE).
  _plan(scheme) {
    if (scheme === 'model' || (scheme === undefined && this.checkpoint))
      return { scheme: null, limit: null, own: true };
    const s = this.scheme(scheme);
    // A baseline runs the model's own positions: a checkpoint's per layer, else its RoPE.
    if (s.limit && this.checkpoint) return { scheme: null, limit: s.limit, own: true };
    return s.limit ? { scheme: s.rope, limit: s.limit } : { scheme: s, limit: null };
  }

  _hierarchy(o, scheme) {
    const catalogue = this._runtime.catalogue;
    const option = (name, value, list) => {
      if (!catalogue.names(list).includes(value))
        fail(`${name} must be ${orList(catalogue.names(list))}, got ${describe(value)}`);
      return catalogue.value(list, value, name);
    };
    const level = option(
      'hierarchy',
      o.hierarchy === undefined ? (scheme?.segmentSize ? 'segments' : 'units') : o.hierarchy,
      'byteHierarchies',
    );
    const language = catalogue.checkLanguage(o.language === undefined ? 'python' : o.language);
    const gap = option('gap', o.gap === undefined ? 'own' : o.gap, 'gaps');
    const descend = o.descendClasses === undefined ? false : o.descendClasses;
    if (typeof descend !== 'boolean')
      fail(`descendClasses must be a boolean, got ${describe(descend)}`);
    const segmentSize = o.segmentSize === undefined ? scheme?.segmentSize || 32 : o.segmentSize;
    integer(segmentSize, 'segmentSize', 1, 1 << 30);
    // Segments need no parse, so no grammar.
    const grammar =
      level === catalogue.value('byteHierarchies', 'segments') ? 0 : this._host.grammar(language);
    return { level, language, grammar, gap, descendClasses: descend, segmentSize };
  }

  // The input in the heap: a string as UTF-8 (its length counted before anything is allocated) or
  // a Uint8Array's bytes, within the model's limit: [address, bytes].
  _bytes(heap, code, name, limit = this.maxInputBytes) {
    const whose = limit === this.maxInputBytes ? "the model's" : "the analysis's";
    const message = (bytes) => `${name} is ${bytes} bytes; ${whose} limit is ${limit}`;
    if (typeof code === 'string') return heap.text(code, name, { limit, message });
    if (typedArrayName(code) !== 'Uint8Array')
      fail(`${name} must be a string or a Uint8Array, got ${describe(code)}`);
    const bytes = fixedView(code, typedLength(code));
    if (bytes.length > limit) fail(message(bytes.length));
    return heap.bytes(bytes);
  }

  _positions(ptr, n, hierarchy) {
    const r = this._runtime.mod.bytePositions(ptr, n, hierarchy);
    this._runtime.check(r.error);
    return { token: iota(n), unit: r.unit, statement: r.statement };
  }

  // A token model's tokens of the text at ptr (n bytes) and their positions: { ids, start, end,
  // positions }.
  _tokenPositions(ptr, n, hierarchy) {
    const r = this._runtime.mod.tokenPositions(
      ptr,
      n,
      this._host.address(this.tokenizer),
      hierarchy,
    );
    this._runtime.check(r.error);
    return {
      ids: r.ids,
      start: r.start,
      end: r.end,
      positions: { token: iota(r.ids.length), unit: r.unit, statement: r.statement },
    };
  }

  // The input of a call in the heap: { bytes, ids (addresses, one of them 0), n, positions,
  // tokens ({ ids, start, end } for a token model's text, else null) }. A token model takes text
  // (tokenized here) or an Int32Array of its token ids (with options.positions for a parsed
  // hierarchy, which ids alone cannot give).
  _input(heap, code, options, hierarchy, needsHierarchy) {
    const what = this.tokenizer || this.checkpoint ? 'token' : 'byte';
    if (this.checkpoint && !this.tokenizer && typedArrayName(code) !== 'Int32Array')
      fail(
        `this checkpoint has no tokenizer.json: pass an Int32Array of token ids, got ${describe(code)}`,
      );
    if (!this.tokenizer && !this.checkpoint) {
      const [ptr, n] = this._bytes(heap, code, 'code');
      const pos = options.positions
        ? this._explicitPositions(options.positions, n, what)
        : this._positions(ptr, n, hierarchy);
      return { bytes: ptr, ids: 0, n, positions: pos, tokens: null };
    }
    const max = this.maxInputBytes;
    if (typedArrayName(code) === 'Int32Array') {
      const ids = fixedView(code, typedLength(code));
      if (ids.length > max) fail(`code is ${ids.length} tokens; the model's limit is ${max}`);
      let pos;
      if (options.positions) {
        pos = this._explicitPositions(options.positions, ids.length, what);
      } else if (
        hierarchy.level === this._runtime.catalogue.value('byteHierarchies', 'segments') ||
        !needsHierarchy
      ) {
        const unit = new Int32Array(ids.length).map((_, k) =>
          Math.floor(k / hierarchy.segmentSize),
        );
        pos = { token: iota(ids.length), unit, statement: unit.slice() };
      } else {
        fail(
          "token ids carry no parse: pass options.positions (from model.positions(text)) or use hierarchy 'segments'",
        );
      }
      return { bytes: 0, ids: heap.int32(ids), n: ids.length, positions: pos, tokens: null };
    }
    const [ptr, size] = this._bytes(heap, code, 'code', this._runtime.limits.maxSourceBytes);
    const t = this._tokenPositions(ptr, size, hierarchy);
    const n = t.ids.length;
    if (n > max) fail(`code is ${n} tokens; the model's limit is ${max}`);
    const pos = options.positions
      ? this._explicitPositions(options.positions, n, what)
      : t.positions;
    return {
      bytes: 0,
      ids: heap.int32(t.ids),
      n,
      positions: pos,
      tokens: { ids: t.ids, start: t.start, end: t.end },
    };
  }

  // options: read by _read. outputs(n): the float counts of the outputs asked for, by name.
  _forward(code, options, outputs) {
    const handle = this._live();
    const { scheme, limit, own } = this._plan(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    return this._runtime.run((heap) => {
      const { input, sizes, positions } = this._prepare(heap, code, options, hierarchy, outputs);
      const [tp, up, sp] = positions;
      const { n } = input;
      const ptrs = {};
      for (const [name, count] of Object.entries(sizes))
        ptrs[name] = count ? heap.alloc(count * 4) : 0;
      this._runtime.check(
        handle.forward(
          scheme,
          limit,
          input.bytes,
          input.ids,
          n,
          tp,
          up,
          sp,
          ...this._outputArgs(ptrs, options, own),
        ),
      );
      return this._outputs(input, sizes, (name, count) =>
        heap.readFloat32(ptrs[name], count).slice(),
      );
    });
  }

  // A call's input in the heap, its outputs' float counts by name, and its positions' addresses.
  _prepare(heap, code, options, hierarchy, outputs) {
    const type = isPlainObject(options.scheme) ? options.scheme.type : options.scheme;
    const input = this._input(heap, code, options, hierarchy, type === 'hirope');
    return { input, sizes: outputs(input.n), positions: heap.positions(input.positions) };
  }

  // The output addresses and the call's layer, head and own-positions flag, as forward() takes them.
  _outputArgs(ptrs, options, own) {
    return [
      ptrs.logits || 0,
      ptrs.losses || 0,
      ptrs.attention || 0,
      ptrs.attentionAll || 0,
      options.layer ?? 0,
      options.head ?? 0,
      Boolean(own),
    ];
  }

  _outputs(input, sizes, read) {
    const out = { n: input.n, positions: input.positions };
    if (input.tokens) out.tokens = input.tokens;
    for (const [name, count] of Object.entries(sizes)) out[name] = read(name, count);
    return out;
  }

  /**
   * _forward with a checkpoint's products on the GPU (the core's forward in steps,
   * model::ForwardSteps): its linear layers (webgpu.js's linear kernel on the weights as the core
   * packs them) and each layer's attention (hr.attentionAsync with the call the core gives for
   * the layer); the rest in WASM, as _forward computes it. Where the API has a WebGPU device and
   * the call has no baseline's context limit; otherwise _forward itself. A linear layer too large
   * for the device's buffers, or every product after the device is lost, runs on the CPU.
   */
  async _forwardAsync(code, options, outputs) {
    const gpu = this.checkpoint ? (this._host.gpu?.() ?? null) : null;
    const plan = this._plan(options.scheme);
    if (!gpu || plan.limit) return this._forward(code, options, outputs);
    const handle = this._live();
    const runtime = this._runtime;
    const mod = runtime.mod;
    const hierarchy = this._hierarchy(options, plan.scheme);
    const steps = new mod.ForwardStepsHandle();
    // The outputs live across awaits: outside the call's heap scope, freed at the end.
    const ptrs = {};
    let started = null;
    try {
      started = runtime.run((heap) => {
        const prepared = this._prepare(heap, code, options, hierarchy, outputs);
        const { input, sizes } = prepared;
        for (const [name, count] of Object.entries(sizes)) {
          ptrs[name] = count ? mod._malloc(count * 4) : 0;
          if (count && !ptrs[name]) fail(`out of WebAssembly memory allocating ${count * 4} bytes`);
        }
        const [tp, up, sp] = prepared.positions;
        runtime.check(
          steps.start(
            handle,
            plan.scheme,
            input.ids,
            input.n,
            tp,
            up,
            sp,
            ...this._outputArgs(ptrs, options, plan.own),
          ),
        );
        return { input, sizes };
      });
      let device = gpu;
      this._gpuWeights = gpu; // where dispose() frees the weights this call uploads
      const { heads, headDim } = this.config;
      // A copy of count floats of the heap (a view would not survive the memory growing).
      const floats = (at, count) => runtime.mod.HEAPF32.slice(at >> 2, (at >> 2) + count);
      while (true) {
        const step = steps.next();
        if (step.error) runtime.check(step.error);
        if (!step.more) break;
        const size = step.rows * step.in;
        if (step.weight < 0) {
          // A layer's attention through the attention API, on the GPU while it has one.
          const call = JSON.parse(steps.attentionCall(step.layer));
          const values = await this._host.attentionAsync({
            q: floats(step.x, size),
            k: floats(step.k, size),
            v: floats(step.v, size),
            n: step.rows,
            headDim,
            heads,
            scheme: call.scheme,
            positions: started.input.positions,
            mask: call.attention,
            ...(call.temperature && { temperature: call.temperature }),
            ...(call.scale !== undefined && { scale: call.scale }),
            ...(call.softcap !== undefined && { softcap: call.softcap }),
            output: 'values',
          });
          this._live();
          runtime.mod.HEAPF32.set(values, step.y >> 2);
          continue;
        }
        const view = handle.linearView(step.weight);
        if (!device?.fitsLinear(view, step.rows)) {
          runtime.check(steps.apply());
          continue;
        }
        const x = floats(step.x, size);
        const bytes = () => mod.HEAPU8.slice(view.data, view.data + view.bytes);
        let y;
        try {
          y = await device.linear(this, step.weight, view, bytes, x, step.rows);
        } catch (e) {
          if (e instanceof HiRoPEError || !device.lost) throw e;
          device = null; // the device is gone: the CPU from here on, the same numbers
        }
        this._live(); // disposed, or its module replaced, while the GPU ran
        if (y) runtime.mod.HEAPF32.set(y, step.y >> 2);
        else runtime.check(steps.apply());
      }
      return this._outputs(started.input, started.sizes, (name, count) =>
        floats(ptrs[name], count),
      );
    } finally {
      steps.delete();
      if (this._generation === runtime.generation)
        for (const ptr of Object.values(ptrs)) if (ptr) runtime.mod._free(ptr);
    }
  }

  _explicitPositions(p, n, what = 'byte') {
    if (!isPlainObject(p)) fail(`positions must be an object, got ${describe(p)}`);
    // 32-bit integers, one per byte or token (the core's range for unit and statement indices).
    const column = (name) =>
      p[name] === undefined
        ? new Int32Array(n)
        : checkInt32s(
            p[name],
            `positions.${name}`,
            n,
            (length) => `positions.${name} must have ${n} entries (one per ${what}), got ${length}`,
          );
    return { token: iota(n), unit: column('unit'), statement: column('statement') };
  }

  /**
   * Per-byte loss: { losses, bitsPerByte, n, positions }. losses[t] is the loss in bits of byte
   * t + 1 given bytes 0..t (n - 1 values); bitsPerByte is their mean. A token model's losses are
   * per token (losses[t]: token t + 1 given tokens 0..t), with bitsPerToken their mean,
   * bitsPerByte their sum over the bytes of tokens 1..n-1 (for text input), and tokens
   * ({ ids, start, end }: byte spans in the UTF-8 text).
   */
  loss(code, options) {
    return this._lossOf(this._forward(code, this._read(options, 'loss'), LOSS_OUTPUTS));
  }

  /**
   * loss() with a checkpoint's linear layers on the GPU where the API has a WebGPU device
   * (init({ backend: 'webgpu' | 'auto' })); the same result as loss() to float rounding.
   */
  async lossAsync(code, options) {
    return this._lossOf(await this._forwardAsync(code, this._read(options, 'loss'), LOSS_OUTPUTS));
  }

  /** logits() as lossAsync() runs loss(). */
  async logitsAsync(code, options) {
    const vocab = this.config.vocab;
    const r = await this._forwardAsync(code, this._read(options, 'logits'), (n) => ({
      logits: n * vocab,
    }));
    return r.logits;
  }

  _lossOf(r) {
    let sum = 0;
    for (const x of r.losses) sum += x;
    const mean = r.losses.length ? sum / r.losses.length : NaN;
    if (!this.tokenizer && !this.checkpoint)
      return { losses: r.losses, bitsPerByte: mean, n: r.n, positions: r.positions };
    const out = { losses: r.losses, bitsPerToken: mean, n: r.n, positions: r.positions };
    if (r.tokens) {
      const bytes = r.n > 1 ? r.tokens.end[r.n - 1] - r.tokens.start[1] : 0;
      out.bitsPerByte = bytes > 0 ? sum / bytes : NaN;
      out.tokens = r.tokens;
    }
    return out;
  }

  /** Next-byte logits: a Float32Array of n x vocab (row t predicts byte, or token, t + 1). */
  logits(code, options) {
    const vocab = this.config.vocab;
    return this._forward(code, this._read(options, 'logits'), (n) => ({ logits: n * vocab }))
      .logits;
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
    const out = { matrix: r.attention, n: r.n, positions: r.positions };
    if (r.tokens) out.tokens = r.tokens; // a token model's tokens of the text
    return out;
  }

  /**
   * Every layer's and head's attention probabilities from one forward: { matrices (layers x heads
   * x n x n, layer-major: layer l, head h at (l * heads + h) * n * n), n, layers, heads,
   * positions } (no baseline: their windows differ per row).
   */
  attentionAll(code, options) {
    const o = this._read(options, 'attentionAll');
    const { layers, heads } = this.config;
    const r = this._forward(code, o, (n) => ({ attentionAll: layers * heads * n * n }));
    const out = { matrices: r.attentionAll, n: r.n, layers, heads, positions: r.positions };
    if (r.tokens) out.tokens = r.tokens;
    return out;
  }

  /**
   * Byte positions for a hierarchy: { token, unit, statement } (Int32Arrays, one per byte). Takes
   * whole files up to the analysis's limit: a window's positions cut from its file's parse can be
   * passed to loss() and logits() as options.positions. A token model's are per token (a token
   * takes its first byte's unit and statement; segments count tokens), with its tokens
   * ({ ids, start, end }): a window of them goes to loss() as an Int32Array of ids.
   */
  positions(code, options) {
    options = this._read(options, 'positions');
    const hierarchy = this._hierarchy(options, null);
    return this._runtime.run((heap) => {
      // A whole file (up to the analysis's limit): windows cut from it keep its units.
      const [ptr, n] = this._bytes(heap, code, 'code', this._runtime.limits.maxSourceBytes);
      if (!this.tokenizer) return this._positions(ptr, n, hierarchy);
      const t = this._tokenPositions(ptr, n, hierarchy);
      return { ...t.positions, tokens: { ids: t.ids, start: t.start, end: t.end } };
    });
  }

  /**
   * Continues prompt with the KV-cache decoder: { text, bytes }. temperature 0 is greedy; seed
   * makes sampling repeatable. Positions follow the hierarchy, re-analysed after each newline.
   */
  generate(prompt, options) {
    options = this._read(options, 'generate');
    const handle = this._live();
    const { scheme, limit, own } = this._plan(options.scheme);
    const hierarchy = this._hierarchy(options, scheme);
    const maxBytes = integer(options.maxBytes ?? 256, 'maxBytes', 0, this.maxInputBytes);
    const temperature = options.temperature ?? 0.8;
    if (typeof temperature !== 'number')
      fail(`temperature must be a number, got ${describe(temperature)}`);
    const seed = integer(options.seed ?? 1, 'seed', 0, Number.MAX_SAFE_INTEGER);
    return this._runtime.run((heap) => {
      const [ptr, n] = this._bytes(heap, prompt, 'prompt');
      // The core checks the rest: a prompt of at least 1 byte, prompt plus maxBytes within its
      // limit, a finite temperature >= 0.
      const vocab = this.tokenizer ? this._host.address(this.tokenizer) : 0;
      const r = handle.generate(
        scheme,
        limit,
        ptr,
        n,
        hierarchy,
        maxBytes,
        temperature,
        seed,
        vocab,
        Boolean(own),
      );
      this._runtime.check(r.error);
      return { text: DECODER.decode(r.bytes), bytes: r.bytes };
    });
  }
}

/** hr.model: loading models. */
export class ModelLoader {
  // files: the shipped weights' URLs by model name (MODEL_FILES); host: what the model uses of
  // the API object: a token model's tokenizer ({ address(name), load(name), size(name) }), the
  // grammar of the language that gives it units and statements (grammar(language): an address)
  // and the WebGPU executor a checkpoint's async calls use (gpu(): null without one), with the
  // attention API's attentionAsync for its layers' attention.
  constructor(runtime, files, host) {
    this._runtime = runtime;
    this._files = files;
    this._host = host;
    useEvaluationRuntime(runtime); // the evaluation's rules (wasm/recall.js) run in this module
    /** The shipped models' names (load({ name })); the first is the default. */
    this.names = Object.keys(MODEL_FILES);
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
   * Loads a weights file: options.data (Uint8Array or ArrayBuffer), options.url, or a shipped
   * model by options.name: 'pybyte' (the default: bytes, data/pybyte.hrm next to this module,
   * about 1.3 MB) or 'pyjs-llama2' (llama2 tokens, data/pyjs-llama2.hrm, about 9.5 MB), fetched
   * on first use. A token model loads its tokenizer too. A truncated, corrupted or other-version
   * file is a HiRoPEError and nothing stays allocated.
   */
  async load(options) {
    const { data, url, name } = readOptions(options, ['data', 'url', 'name']);
    const runtime = this._runtime;
    runtime.needAnalysis();
    if (name !== undefined && !this.names.includes(name))
      fail(`name must be ${orList(this.names)}, got ${describe(name)}`);
    if (name !== undefined && (data !== undefined || url !== undefined))
      fail('load takes one of name, data or url');
    let bytes = data;
    if (bytes === undefined) {
      const where =
        url === undefined
          ? this._files[name ?? DEFAULT_MODEL]
          : new URL(String(url), globalThis.location?.href ?? import.meta.url);
      if (!where) fail('no location for the model weights: pass options.data or options.url');
      bytes = await readData(where);
    }
    bytes = checkBytes(bytes, 'model data');
    const limit = runtime.limits.maxModelFileBytes;
    if (bytes.length > limit)
      fail(`model file of ${bytes.length} bytes exceeds the limit of ${limit}`);
    // A token model needs its tokenizer (loaded once; the header names it).
    const { tokenizer, vocab } = this.inspect(bytes);
    if (tokenizer) {
      if (!TOKENIZER_DATA.includes(tokenizer))
        fail(
          `the model reads '${tokenizer}' tokens, which is not one of hirope's tokenizers (${orList(TOKENIZER_DATA)})`,
        );
      await this._host.load(tokenizer);
      const size = this._host.size(tokenizer);
      if (vocab < size)
        fail(
          `the model's vocabulary of ${vocab} is smaller than the '${tokenizer}' tokenizer's ${size} ids`,
        );
    }
    const handle = new runtime.mod.ModelHandle();
    try {
      runtime.run((heap) => runtime.check(handle.load(...heap.bytes(bytes))));
    } catch (e) {
      handle.delete();
      throw e;
    }
    return new CodeModel(runtime, handle, this._host);
  }

  /**
   * The files of a checkpoint folder served over HTTP(S), downloaded as fromPretrained(url) does
   * (options.maxBytes and options.onProgress({ stage: 'download', loaded, total }) as there): a
   * Map of file names to bytes, for fromPretrained or inspectPretrained, or to hand as Blobs to
   * several workers that each load it.
   */
  async downloadPretrained(url, options) {
    const { onProgress, maxBytes } = checkpointOptions(options);
    if (!isFolderURL(url)) fail(`url must be an http(s) folder URL, got ${describe(url)}`);
    return fetchFolder(String(url), maxBytes, onProgress);
  }

  /**
   * What loading a checkpoint would take, from its config.json and safetensors headers alone (no
   * weight is read; a URL's files are fetched first, as fromPretrained does): { modelType,
   * layers, heads, kvHeads, parameters, weightBytes (at their stored width, what the model keeps),
   * workingBytes (a forward at the input limit), budgetBytes (the WASM heap's), fits, memoryError
   * (the figures when it does not fit, else '') }. A folder the core refuses is a HiRoPEError.
   */
  async inspectPretrained(files) {
    const runtime = this._runtime;
    const folder = await openCheckpointFiles(files);
    try {
      const r = runtime.run(() =>
        runtime.mod.inspectPretrained(
          (name) => folder.size(name),
          (name, offset, size) => folder.read(name, offset, size),
        ),
      );
      if (folder.error) fail(folder.error);
      runtime.check(r.error);
      return r;
    } finally {
      folder.close();
    }
  }

  /**
   * A Hugging Face checkpoint: files is a folder path (Node), a folder's http(s) URL (a string or
   * a URL; its files fetched whole, CORS where it is another origin), or an object (or Map) of file
   * names to bytes, text or Blobs: config.json, model.safetensors (or its shards with
   * model.safetensors.index.json) and, for text input, tokenizer.json. Architectures llama,
   * mistral, qwen2, qwen3, gemma2, gemma3_text, phi3 and starcoder2, in F32, F16 or BF16. Every
   * header is checked before a tensor is read, and only the weights' ranges are read (a Blob
   * slice at a time in a worker). options.maxBytes refuses a checkpoint whose files take more,
   * before its weights are read (a URL's: before they download, from the server's sizes).
   * options.onProgress({ stage, loaded, total }): stage 'download' as a URL's weights arrive
   * (bytes; total null where the server gives no size), then 'load' after each weight. The
   * model has the API of hirope's own: its calls run each layer's own positions unless given a
   * scheme, which goes on every RoPE layer; a file that does not fit is a HiRoPEError.
   */
  async fromPretrained(files, options) {
    const { onProgress, maxBytes } = checkpointOptions(options);
    const runtime = this._runtime;
    runtime.needAnalysis();
    const folder = await openCheckpointFiles(files, { maxBytes, onProgress });
    try {
      const json = folder.whole('tokenizer.json');
      if (folder.error) fail(folder.error);
      const tokenizer = json === undefined ? null : await this._host.load({ json });
      const handle = new runtime.mod.ModelHandle();
      let thrown = null;
      const progress = onProgress
        ? (loaded, total) => {
            try {
              onProgress({ stage: 'load', loaded, total });
            } catch (e) {
              thrown ??= e; // after the load: nothing may throw through the WASM frames
            }
          }
        : undefined;
      try {
        const error = runtime.run(() =>
          handle.fromPretrained(
            (name) => folder.size(name),
            (name, offset, size) => folder.read(name, offset, size),
            progress,
          ),
        );
        if (folder.error) fail(folder.error);
        runtime.check(error);
        if (thrown) throw thrown;
      } catch (e) {
        handle.delete();
        throw e;
      }
      return new CodeModel(runtime, handle, this._host, tokenizer);
    } finally {
      folder.close();
    }
  }
}
guardMethods(
  CodeModel,
  function () {
    return this._runtime;
  },
  { except: ['dispose'] },
);
guardMethods(ModelLoader, function () {
  return this._runtime;
});
