// The attention library of the JS API: attention() on WASM, attentionAsync() on the GPU executor
// (webgpu.js) where one was started, pool() and qk(). HiRoPE (api.js) delegates to it.
import { HiRoPEError } from './errors.js';
import {
  fail,
  describe,
  iota,
  checkCount,
  checkFloat32,
  checkStill,
  readOptions,
  readArray,
  callerArray,
  orList,
  ArrayCopy,
} from './marshal.js';
import {
  SHAPE_KEYS,
  normalizePositions,
  checkPool,
  readPool,
  poolStill,
  tokenIds,
  guardMethods,
} from './runtime.js';

// attention()'s kernel option, as users name it -> the core's kernel.
const KERNELS = new Map([
  ['tiled', 'fast'],
  ['reference', 'reference'],
]);
// The options each call reads (phase 1, see marshal.js), each once.
const ATTENTION_KEYS = [
  ...SHAPE_KEYS,
  'q',
  'k',
  'v',
  'output',
  'causal',
  'scale',
  'softcap',
  'kernel',
  'out',
  'pool',
  'matrix',
  'rows',
  'mask',
  'sinks',
  'temperature',
];
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
// A layer's mask (hr.fromConfig's layer.attention) and query temperature (layer.temperature).
const MASK_TYPES = ['full', 'sliding', 'chunked'];
const MASK_SIZES = { sliding: 'window', chunked: 'chunkSize' };
const TEMPERATURE_KEYS = ['floorScale', 'scale', 'offset'];

/** The mask option as { type, window, chunkSize } (0 where unused); the core checks the values. */
function readMask(value, runtime) {
  if (value === undefined) return { type: 'full', window: 0, chunkSize: 0 };
  const m = readOptions(value, ['type', 'window', 'chunkSize'], { name: 'mask', required: true });
  const type = m.type === undefined ? 'full' : m.type;
  if (!MASK_TYPES.includes(type))
    fail(
      typeof type === 'string'
        ? runtime.mod.unknownMaskMessage(type) // the core's words ('linear': a linear layer)
        : `mask.type must be ${orList(MASK_TYPES)}, got ${describe(type)}`,
    );
  const sizes = { window: 0, chunkSize: 0 };
  for (const key of Object.keys(sizes)) {
    const x = m[key];
    if (MASK_SIZES[type] !== key) {
      if (x !== undefined)
        fail(`mask.${key} is for ${key === 'window' ? 'sliding' : 'chunked'} masks, not '${type}'`);
      continue;
    }
    if (x === undefined) fail(`mask '${type}' needs mask.${key} (an integer >= 1)`);
    if (!Number.isSafeInteger(x)) fail(`mask.${key} must be an integer, got ${describe(x)}`);
    sizes[key] = x;
  }
  return { type, ...sizes };
}

/** The sinks option: one finite logit per head, as a Float32Array. */
function readSinks(value, heads) {
  if (typeof value === 'boolean')
    fail(
      `sinks must be a Float32Array or an array of numbers (one logit per head), got ${value} ` +
        "(a setup's layer.sinks says only that the layer has them: the logits are weights)",
    );
  const read = readArray(value, heads);
  let out;
  if (read instanceof ArrayCopy) {
    if (read.length !== heads) fail(`sinks has length ${read.length}, expected heads = ${heads}`);
    out = new Float32Array(heads);
    for (let h = 0; h < heads; h++) {
      if (typeof read.items[h] !== 'number')
        fail(`sinks[${h}] must be a number, got ${describe(read.items[h])}`);
      out[h] = read.items[h];
    }
  } else {
    out = checkFloat32(value, 'sinks', heads, 'heads');
  }
  for (let h = 0; h < heads; h++)
    if (!Number.isFinite(out[h]))
      fail(
        `sinks[${h}] must be a finite number, got ${Number.isNaN(out[h]) ? 'NaN' : 'an infinity'}`,
      );
  return out;
}

/** The temperature option as { floorScale, scale, offset }; the core checks the values. */
function readTemperature(value) {
  const t = readOptions(value, TEMPERATURE_KEYS, { name: 'temperature', required: true });
  const out = {};
  for (const key of TEMPERATURE_KEYS) {
    if (typeof t[key] !== 'number')
      fail(`temperature.${key} must be a number, got ${describe(t[key])}`);
    out[key] = t[key];
  }
  if (!Number.isSafeInteger(out.offset))
    fail(`temperature.offset must be an integer, got ${describe(out.offset)}`);
  return out;
}

/**
 * One attention() call's arguments, read once and checked before anything is copied into the
 * heap (types, lengths, sizes, limits), with the checks the GPU path needs, which never reaches
 * the core's request checks; the core checks the scheme's values. What the WASM path
 * (Attention.runWasm), the GPU executor (webgpu.js) and Runtime.transformCoefficients read.
 */
export class AttentionCall {
  constructor(runtime, options, caller) {
    const catalogue = runtime.catalogue;
    const limits = runtime.limits;
    const args = runtime.readCall(options, ATTENTION_KEYS, caller);
    const { n, headDim, heads, width } = runtime.shape(args);
    /** Tokens, per-head dimension, heads, and heads * headDim (a row of q, k, v). */
    this.n = n;
    this.headDim = headDim;
    this.heads = heads;
    this.width = width;
    /** The scheme, normalized (catalogue.normalizeScheme). */
    this.scheme = catalogue.normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    const scheme = this.scheme;
    /** 'logits', 'probs' or 'values'. */
    this.output =
      args.output === undefined ? (args.v !== undefined ? 'values' : 'probs') : args.output;
    const output = this.output;
    if (!['logits', 'probs', 'values'].includes(output))
      fail(`output must be 'logits', 'probs' or 'values', got ${describe(output)}`);
    const shape = 'n * heads * headDim';
    /** The inputs as fixed views (v: undefined without values). */
    this.q = checkFloat32(args.q, 'q', n * width, shape);
    this.k = checkFloat32(args.k, 'k', n * width, shape);
    this.v = args.v === undefined ? undefined : checkFloat32(args.v, 'v', n * width, shape);
    if (output === 'values' && !this.v) fail("output 'values' needs v");
    this.causal = args.causal === undefined ? true : args.causal;
    if (typeof this.causal !== 'boolean')
      fail(`causal must be a boolean, got ${describe(this.causal)}`);
    const causalRule = runtime.mod.causalRule(scheme.type, this.causal); // the core's rule
    if (causalRule) fail(causalRule);
    /** The layer's mask { type, window, chunkSize } (0 where unused). */
    this.mask = readMask(args.mask, runtime);
    /** One sink logit per head (a Float32Array), or null. */
    this.sinks = args.sinks === undefined ? null : readSinks(args.sinks, heads);
    /** The query temperature { floorScale, scale, offset }, or null. */
    this.temperature = args.temperature === undefined ? null : readTemperature(args.temperature);
    /** The logits' scale; 0: the core's 1 / sqrt(headDim). */
    this.scale = args.scale === undefined ? 0 : args.scale;
    if (
      args.scale !== undefined &&
      !(typeof this.scale === 'number' && Number.isFinite(this.scale) && this.scale > 0)
    ) {
      fail(`scale must be a positive finite number, got ${describe(this.scale)}`);
    }
    /** Logit soft-capping (Gemma 2: softcap * tanh(x / softcap)); 0: none. */
    this.softcap = args.softcap === undefined ? 0 : args.softcap;
    if (
      args.softcap !== undefined &&
      !(typeof this.softcap === 'number' && Number.isFinite(this.softcap) && this.softcap > 0)
    ) {
      fail(`softcap must be a positive finite number, got ${describe(this.softcap)}`);
    }
    const kernelName = args.kernel === undefined ? 'tiled' : args.kernel;
    if (!KERNELS.has(kernelName))
      fail(
        `kernel must be one of ${[...KERNELS.keys()].map((x) => `'${x}'`).join(', ')}, got ${describe(kernelName)}`,
      );
    /** The core's kernel code. */
    this.kernel = catalogue.value('kernels', KERNELS.get(kernelName), 'kernel');
    /** Positions as { token, unit?, statement? } Int32Arrays (normalizePositions). */
    this.pos = normalizePositions(args.positions, n, scheme);
    // The core's checks of the mask and the temperature, which follow the tokens' positions, and
    // their per-row values for the GPU kernels: each row's first key, each query's factor.
    const t = this.temperature;
    const layer = runtime.mod.layerRows(
      this.mask.type,
      this.mask.window,
      this.mask.chunkSize,
      this.causal,
      t !== null,
      t ? t.floorScale : 0,
      t ? t.scale : 0,
      t ? t.offset : 0,
      this.pos.token,
    );
    if (layer.error) fail(layer.error);
    /** Per query row: the first key row the mask lets it see (Int32Array), null: full. */
    this.keyStarts = layer.starts;
    /** Per query row: the temperature's factor (Float32Array), null: none. */
    this.queryScales = layer.queryScales;
    /** false: the matrix is only pooled, never kept (the call returns null). */
    this.matrix = args.matrix === undefined ? true : args.matrix;
    if (typeof this.matrix !== 'boolean')
      fail(`matrix must be a boolean, got ${describe(this.matrix)}`);
    if (!this.matrix && (args.pool === undefined || args.out !== undefined))
      fail('matrix: false needs pool (the matrix is only pooled) and no out');
    /** The query rows computed: rowBegin .. rowEnd - 1. */
    this.rowBegin = 0;
    this.rowEnd = n;
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
      [this.rowBegin, this.rowEnd] = rows;
    }
    const count = this.rowEnd - this.rowBegin;
    /** The result's length, and the caller's array for it (an output view) or null. */
    this.outLength = output === 'values' ? count * width : heads * count * n;
    // Held to the limit: the matrix returned (the rows asked for), never the pooled-only strips.
    if (this.matrix && output !== 'values' && this.outLength > limits.maxOutputElements) {
      fail(
        `heads * ${count < n ? 'rows' : 'n'} * n = ${this.outLength} exceeds the output limit of ${limits.maxOutputElements} elements`,
      );
    }
    this.out =
      args.out === undefined
        ? null
        : checkFloat32(
            args.out,
            'out',
            this.outLength,
            output === 'values'
              ? `${count < n ? 'rows' : 'n'} * heads * headDim`
              : `heads * ${count < n ? 'rows' : 'n'} * n`,
            { output: true },
          );
    /** The pooling spec (checkPool, with the caller's output arrays) or null. */
    this.pool = null;
    if (args.pool !== undefined) {
      if (output !== 'probs' || heads !== 1) fail("pool needs output 'probs' and one head");
      this.pool = checkPool(args.pool, n, { outputs: true });
    }
  }

  /** Whether every query row is computed (no `rows` option, or rows [0, n]). */
  get allRows() {
    return this.rowEnd - this.rowBegin === this.n;
  }
}

/** attention(), attentionAsync(), pool() and qk() over one runtime. */
export class Attention {
  /** gpu: the WebGPU executor (webgpu.js) that init() started, null when none was found or asked for. */
  constructor(runtime, gpu) {
    this.runtime = runtime;
    /** The GPU executor, or null (none, or its device was lost). */
    this.gpu = gpu;
    this._choice = gpu ? 'webgpu' : 'wasm';
  }

  /** hr.attention (see api.js). */
  attention(options) {
    return this.runWasm(new AttentionCall(this.runtime, options, 'attention'));
  }

  /** hr.attentionBackend (see api.js). */
  get backend() {
    return this.gpu && this._choice === 'webgpu' ? 'webgpu' : 'wasm';
  }

  set backend(value) {
    if (value !== 'wasm' && value !== 'webgpu')
      fail(`attentionBackend must be 'wasm' or 'webgpu', got ${describe(value)}`);
    if (value === 'webgpu' && !this.gpu)
      fail(
        "attentionBackend cannot be 'webgpu': no WebGPU device (init({ backend: 'webgpu' | 'auto' }) found no adapter, or the device was lost)",
      );
    this._choice = value;
  }

  /** hr.attentionAsync (see api.js). */
  async attentionAsync(options) {
    const call = new AttentionCall(this.runtime, options, 'attentionAsync');
    // The GPU computes the whole matrix: past the output limit (a pooled map of 32,768 tokens)
    // the core's strips do it instead.
    if (
      this.backend !== 'webgpu' ||
      !call.allRows ||
      call.heads * call.n * call.n > this.runtime.limits.maxOutputElements
    )
      return this.runWasm(call);
    // The GPU result arrives after an await, when the caller's code may have run: it is computed
    // into arrays of ours and copied into out and pool's arrays only if they still have their
    // lengths (a buffer detached or shrunk meanwhile is a HiRoPEError, not a partial write).
    const deliver = (result) => {
      if (call.pool) {
        const { ratio, raw, rowMax } = this.pool({
          matrix: result,
          n: call.n,
          rows: call.pool.rows,
          cols: call.pool.cols,
          region: call.pool.region,
          causal: call.causal,
        });
        const pool = poolStill(call.pool, call.n);
        pool.ratio.set(ratio);
        pool.raw.set(raw);
        pool.rowMax?.set(rowMax);
      }
      if (!call.matrix) return null;
      if (!call.out) return result;
      checkStill(call.out, call.outLength, 'out').set(result);
      return callerArray(call.out);
    };
    try {
      return deliver(await this.gpu.attention({ ...call, out: null }, this.runtime));
    } catch (e) {
      if (e instanceof HiRoPEError || !this.gpu.lost) throw e;
      this.gpu = null; // the device is gone: WASM from now on, same arguments, same result
      this._choice = 'wasm';
      return this.runWasm(call);
    }
  }

  /** A checked call computed by the core, strip by strip (see attention in api.js). */
  runWasm(call) {
    const runtime = this.runtime;
    const { n, width, output, q, k, v, out, pool, matrix, rowBegin, rowEnd } = call;
    // After attentionAsync's await (a lost GPU): the caller may have detached or shrunk a buffer.
    for (const [x, name] of [
      [q, 'q'],
      [k, 'k'],
      [v, 'v'],
      [out, 'out'],
    ])
      if (x) checkStill(x, name === 'out' ? call.outLength : n * width, name);
    const count = rowEnd - rowBegin;
    if (pool) poolStill(pool, n);
    const coreOutput = runtime.catalogue.value(
      'outputs',
      output === 'logits' ? 'logits' : 'probs',
      'output',
    );
    // Pooling some rows: the rows' maxima go to the caller's rowMax, the others stay as they are.
    const spec = pool?.rowMax && count < n ? { ...pool, rowMax: new Float32Array(n) } : pool;
    return runtime.run((heap) => {
      const pooling = spec && runtime.pooling(heap, spec, call.causal);
      const plan = new runtime.mod.Plan();
      try {
        const [tp, up, sp] = heap.positions(call.pos);
        const qp = heap.float32(q);
        const kp = heap.float32(k);
        const vp = v ? heap.float32(v) : 0;
        runtime.check(
          plan.prepare(
            call.scheme,
            qp,
            kp,
            vp,
            n,
            call.headDim,
            call.heads,
            tp,
            up,
            sp,
            call.causal,
            coreOutput,
            call.scale,
            call.kernel,
            call.mask.type,
            call.mask.window,
            call.mask.chunkSize,
            call.sinks ? heap.float32(call.sinks) : 0,
            call.temperature !== null,
            call.temperature?.floorScale ?? 0,
            call.temperature?.scale ?? 0,
            call.temperature?.offset ?? 0,
            call.softcap,
          ),
        );
        const rowWidth = output === 'values' ? width : n;
        // matrix: false keeps nothing: each strip is pooled while it is in the heap, then dropped;
        // its strips are a quarter of the size, so that the pooling reads them from the cache.
        const stripRows = runtime.stripRows(n, matrix ? rowWidth : rowWidth * 4);
        const strip = heap.alloc(stripRows * rowWidth * 4);
        const result = matrix ? out || new Float32Array(call.outLength) : null;
        for (let h = 0; h < (output === 'values' ? 1 : call.heads); h++) {
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

  /** hr.pool (see api.js). */
  pool(options) {
    const runtime = this.runtime;
    options = readPool(
      readOptions(options, POOL_OPTION_KEYS, { name: 'pool options', required: true }),
    );
    const n = checkCount(options.n, 'n', { max: runtime.limits.maxTokens });
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

  /** hr.qk (see api.js). */
  qk(options) {
    const runtime = this.runtime;
    const o = readOptions(options, QK_KEYS, { unknown: 'qk options' });
    if (o.tokenIds !== undefined) o.tokenIds = readArray(o.tokenIds, runtime.limits.maxTokens);
    const { source = 'seeded', n, headDim, heads = 1, tokenIds: ids, seed = 0 } = o;
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
}
guardMethods(Attention, function () {
  return this.runtime;
});
