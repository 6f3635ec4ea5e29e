// The WebGPU path of attentionAsync(): the scheme's per-token transform, tiled q.k^T logits with
// mask, scale, ALiBi and the windowed near/far rule, row softmax and the output with v, as WGSL
// kernels (wasm/webgpu/*.wgsl). Buffers are kept and reused across calls, so calls run one at a
// time, in the order made. The scheme's transform comes from the core through the runtime
// (wasm/runtime.js).
import { HiRoPEError } from './errors.js';
import { LINEAR, LOGITS, OUTPUT, SOFTMAX, TRANSFORM } from './webgpu-kernels.js';

const STORAGE = 0x80 | 0x8 | 0x4; // STORAGE | COPY_DST | COPY_SRC
const UNIFORM = 0x40 | 0x8; // UNIFORM | COPY_DST
const READBACK = 0x1 | 0x8; // MAP_READ | COPY_DST

// A layer's mask reaches the kernels (logits.wgsl, softmax.wgsl) as each query row's first key
// row (the core's layer_rows, by the tokens' positions): mask 1 and a starts buffer, 0 for full.

/**
 * logits.wgsl's parameters for head h of a checked call `a` (AttentionCall): 12 words, as its
 * Params struct lays them out.
 */
export function logitsParams(a, h, scale, slope) {
  const params = new ArrayBuffer(48);
  const u = new Uint32Array(params),
    f = new Float32Array(params),
    s = new Int32Array(params);
  u.set([a.n, a.headDim, a.width, h, a.causal ? 1 : 0, a.scheme.windowed ? 1 : 0]);
  s[6] = Math.min(a.scheme.window, 2 ** 31 - 1);
  f[7] = scale;
  f[8] = slope;
  f[9] = -Infinity;
  u[10] = a.keyStarts ? 1 : 0;
  f[11] = a.softcap;
  return u;
}

/** softmax.wgsl's parameters for head h from row row0: 8 words, as its Params struct. */
export function softmaxParams(a, h, row0) {
  const params = new ArrayBuffer(32);
  const u = new Uint32Array(params),
    f = new Float32Array(params);
  u.set([a.n, a.causal ? 1 : 0, row0, a.keyStarts ? 1 : 0]);
  u[5] = a.sinks ? 1 : 0;
  f[6] = a.sinks ? a.sinks[h] : 0;
  return u;
}

/** A GPU attention executor on `gpu` (navigator.gpu, or Dawn's in Node), or null without an adapter. */
export async function createGPUAttention(gpu) {
  if (!gpu || typeof gpu.requestAdapter !== 'function') return null;
  const adapter = await gpu.requestAdapter();
  if (!adapter) return null;
  const requiredLimits = {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  };
  const device = await adapter.requestDevice({ requiredLimits });
  return new GPUAttention(gpu, adapter, device);
}

/** Thrown inside a call when the device was lost during it: the caller falls back to WASM. */
class GPUDeviceLost extends Error {
  constructor() {
    super('the GPU device was lost');
    this.name = 'GPUDeviceLost';
  }
}

class GPUAttention {
  constructor(gpu, adapter, device) {
    // Node's Dawn (the `webgpu` package) frees its native instance when the object create()
    // returned is garbage collected, even while a device made from it still works: its next event
    // poll then runs on freed memory and kills the process. So the executor owns the whole chain.
    this.gpu = gpu;
    this.adapter = adapter;
    this.device = device;
    this.lost = false;
    this.tail = Promise.resolve(); // the call in flight; the next one starts after it
    this.adapterInfo = adapter.info
      ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim()
      : '';
    this.limits = {
      maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
      maxBufferSize: device.limits.maxBufferSize,
    };
    device.lost.then(() => {
      this.lost = true;
    });
    const pipeline = (code) =>
      device.createComputePipeline({
        layout: 'auto',
        compute: { module: device.createShaderModule({ code }), entryPoint: 'main' },
      });
    this.pipelines = {
      transform: pipeline(TRANSFORM),
      logits: pipeline(LOGITS),
      softmax: pipeline(SOFTMAX),
      output: pipeline(OUTPUT),
      linear: pipeline(LINEAR),
    };
    this.buffers = new Map();
    // Checkpoints' weights uploaded once: owner (a model) -> Map(index -> GPUBuffer); a model
    // collected without dispose() takes its entry with it.
    this.weights = new WeakMap();
  }

  // A storage or readback buffer kept across calls, grown when too small.
  buffer(name, bytes, usage = STORAGE) {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const old = this.buffers.get(name);
    if (old && old.size >= size) return old;
    old?.destroy();
    const b = this.device.createBuffer({ size, usage });
    this.buffers.set(name, b);
    return b;
  }

  upload(name, data) {
    const b = this.buffer(name, data.byteLength);
    this.device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  }

  // A uniform buffer for one dispatch, destroyed (in `list`) when its call ends.
  uniform(list, words) {
    const b = this.device.createBuffer({
      size: Math.ceil((words.length * 4) / 16) * 16,
      usage: UNIFORM,
    });
    this.device.queue.writeBuffer(b, 0, words);
    list.push(b);
    return b;
  }

  bind(pipeline, buffers) {
    return this.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
  }

  dispatch(encoder, pipeline, buffers, x, y = 1) {
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bind(pipeline, buffers));
    pass.dispatchWorkgroups(x, y);
    pass.end();
  }

  checkLimits(a) {
    const largest = Math.max(a.n * a.n, a.n * a.width) * 4;
    if (largest > this.limits.maxStorageBufferBindingSize || largest > this.limits.maxBufferSize) {
      throw new HiRoPEError(
        `n = ${a.n} needs GPU buffers of ${largest} bytes, over this device's limit of ${Math.min(this.limits.maxStorageBufferBindingSize, this.limits.maxBufferSize)} bytes`,
      );
    }
    // Workgroup counts per dimension: 16 x 16 tiles of the n x n logits, and of the head's columns.
    const groups = Math.max(Math.ceil(a.n / 16), Math.ceil(a.headDim / 16));
    const most = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (groups > most)
      throw new HiRoPEError(
        `n = ${a.n} needs ${groups} workgroups in one dimension, over this device's limit of ${most}`,
      );
  }

  // Transformed q or k (role 0/1) in a branch (0 near, 1 far) into buffer `name`.
  transform(encoder, uniforms, runtime, a, x, role, branch, name) {
    const { a: ca, b: cb, c: cc, partner } = runtime.transformCoefficients(a, role, branch);
    const tag = `${name}:`;
    const groups = Math.ceil((a.n * a.width) / 64);
    const gx = Math.min(groups, 65535);
    const out = this.buffer(name, a.n * a.width * 4);
    this.dispatch(
      encoder,
      this.pipelines.transform,
      [
        this.uniform(uniforms, new Uint32Array([a.n, a.headDim, a.width, gx * 64])),
        this.upload(tag + 'x', x),
        this.upload(tag + 'a', ca),
        this.upload(tag + 'b', cb),
        this.upload(tag + 'c', cc),
        this.upload(tag + 'partner', partner),
        out,
      ],
      gx,
      Math.ceil(groups / gx),
    );
    return out;
  }

  /**
   * Whether a checkpoint's linear layer (view: ModelHandle.linearView) over `rows` rows fits this
   * device's buffers; one that does not runs on the CPU instead.
   */
  fitsLinear(view, rows) {
    const most = Math.min(this.limits.maxStorageBufferBindingSize, this.limits.maxBufferSize);
    const groups = this.device.limits.maxComputeWorkgroupsPerDimension;
    return (
      view.bytes <= most &&
      rows * Math.max(view.in, view.out) * 4 <= most &&
      Math.ceil(view.out / 16) <= groups &&
      Math.ceil(rows / 16) <= groups
    );
  }

  /**
   * y (rows x view.out) = x (rows x view.in) . W^T for linear layer `index` of `owner` (a
   * checkpoint model), its weights uploaded on first use from bytes() (the packed panels), kept
   * until releaseWeights(owner). Runs after the calls before it, as attention() does.
   */
  linear(owner, index, view, bytes, x, rows) {
    return this.queued(() => this.runLinear(owner, index, view, bytes, x, rows));
  }

  // fn() once the calls made before it are done: they share the buffers, and one call's readback
  // must be done before the next writes.
  queued(fn) {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => {});
    return run;
  }

  // Copies `bytes` of `source` into the readback buffer after the work `encoder` holds, submits
  // it, and gives use() the mapped floats (valid only during the call); use()'s result.
  async readBack(encoder, source, bytes, use) {
    const read = this.buffer('read', bytes, READBACK);
    encoder.copyBufferToBuffer(source, 0, read, 0, bytes);
    this.device.queue.submit([encoder.finish()]);
    await read.mapAsync(1);
    const result = use(new Float32Array(read.getMappedRange(0, bytes)));
    read.unmap();
    return result;
  }

  async runLinear(owner, index, view, bytes, x, rows) {
    if (this.lost) throw new GPUDeviceLost();
    return this.scoped(async (uniforms) => {
      const device = this.device;
      if (!this.weights.has(owner)) this.weights.set(owner, new Map());
      const held = this.weights.get(owner);
      let w = held.get(index);
      if (!w) {
        // A buffer's size is whole words: 16-bit panels of an odd count get a zero half-word.
        const data = bytes();
        const size = Math.ceil(data.byteLength / 4) * 4;
        w = device.createBuffer({ size: Math.max(16, size), usage: STORAGE });
        const padded = size === data.byteLength ? data : new Uint8Array(size);
        if (padded !== data) padded.set(data);
        device.queue.writeBuffer(w, 0, padded.buffer, padded.byteOffset, size);
        held.set(index, w);
      }
      const out = rows * view.out;
      const y = this.buffer('linear:y', out * 4);
      const encoder = device.createCommandEncoder();
      const params = new Uint32Array([rows, view.in, view.out, view.panelWidth, view.format]);
      this.dispatch(
        encoder,
        this.pipelines.linear,
        [this.uniform(uniforms, params), this.upload('linear:x', x), w, y],
        Math.ceil(view.out / 16),
        Math.ceil(rows / 16),
      );
      return this.readBack(encoder, y, out * 4, (mapped) => mapped.slice());
    });
  }

  /**
   * work(uniforms) inside the device's out-of-memory and validation error scopes, its uniform
   * buffers destroyed after it: its result, or a HiRoPEError naming what failed, or
   * GPUDeviceLost where the device was lost (the caller falls back to WASM).
   */
  async scoped(work) {
    const device = this.device;
    const uniforms = [];
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let result = null,
      failure = null;
    try {
      result = await work(uniforms);
    } catch (e) {
      failure = e;
    }
    const scoped = (
      await Promise.all([device.popErrorScope(), device.popErrorScope()]).catch(() => [])
    ).find(Boolean);
    for (const b of uniforms) b.destroy(); // after the readback: no submitted work uses them now
    if (failure instanceof HiRoPEError) throw failure;
    // A map, submit or scope that failed because the device was lost: its lost promise settles
    // later than the failure that revealed it.
    if (this.lost || ((failure || scoped) && (await this.settlesLost()))) throw new GPUDeviceLost();
    const error = failure || scoped;
    if (error) throw new HiRoPEError(`the WebGPU backend failed: ${error.message || error}`);
    return result;
  }

  /** Bytes of the weights uploaded for `owner`. */
  weightBytes(owner) {
    let bytes = 0;
    for (const b of this.weights.get(owner)?.values() ?? []) bytes += b.size;
    return bytes;
  }

  /** Frees the weights uploaded for `owner` (a checkpoint model disposed of). */
  releaseWeights(owner) {
    const held = this.weights.get(owner);
    if (!held) return;
    for (const b of held.values()) b.destroy();
    this.weights.delete(owner);
  }

  // a: attention arguments as HiRoPE checks them; runtime: the module's runtime. Calls run in
  // turn: the buffers are shared, and one call's readback must be done before the next writes.
  attention(a, runtime) {
    return this.queued(() => this.run(a, runtime));
  }

  async run(a, runtime) {
    if (this.lost) throw new GPUDeviceLost();
    for (const [name, x] of [
      ['q', a.q],
      ['k', a.k],
      ['v', a.v],
    ]) {
      if (!x) continue;
      for (let i = 0; i < x.length; i++) {
        if (!Number.isFinite(x[i]))
          throw new HiRoPEError(
            `${name} contains a non-finite value (${Number.isNaN(x[i]) ? 'NaN' : 'Infinity'}) at index ${i}`,
          );
      }
    }
    this.checkLimits(a);
    return this.scoped((uniforms) => this.dispatchAll(a, runtime, uniforms));
  }

  // Whether the device turns out to be lost within a short wait (its promise settles later than
  // the failed map that revealed it).
  settlesLost() {
    return Promise.race([
      this.device.lost.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 200)),
    ]);
  }

  async dispatchAll(a, runtime, uniforms) {
    const device = this.device;
    const encoder = device.createCommandEncoder();
    const windowed = a.scheme.windowed;
    const code = (list, name) => runtime.catalogue.value(list, name);
    const roles = { query: code('roles', 'query'), key: code('roles', 'key') };
    const branches = { near: code('branches', 'near'), far: code('branches', 'far') };
    const qn = this.transform(encoder, uniforms, runtime, a, a.q, roles.query, branches.near, 'qn');
    const kn = this.transform(encoder, uniforms, runtime, a, a.k, roles.key, branches.near, 'kn');
    const qf = windowed
      ? this.transform(encoder, uniforms, runtime, a, a.q, roles.query, branches.far, 'qf')
      : qn;
    const kf = windowed
      ? this.transform(encoder, uniforms, runtime, a, a.k, roles.key, branches.far, 'kf')
      : kn;
    const tokens = this.upload('tokens', a.pos.token);
    // The query temperature's factor per row (the core's query_scale of each query's position),
    // 1 without one; each row's first key under the mask (0 without one).
    const qscale = this.upload('qscale', a.queryScales ?? new Float32Array(a.n).fill(1));
    const starts = this.upload('starts', a.keyStarts ?? new Int32Array(a.n));
    const v = a.v ? this.upload('v', a.v) : null;
    device.queue.submit([encoder.finish()]);

    const slopes = a.scheme.name === 'alibi' ? runtime.mod.alibiSlopes(a.heads) : null;
    const scale = a.scale || 1 / Math.sqrt(a.headDim);
    const tiles = Math.ceil(a.n / 16);
    const values = a.output === 'values';
    const result = a.out || new Float32Array(a.outLength);
    const logits = this.buffer('logits', a.n * a.n * 4);
    const out = values ? this.buffer('out', a.n * a.width * 4) : null;
    for (let h = 0; h < a.heads; h++) {
      const enc = device.createCommandEncoder();
      const u = logitsParams(a, h, scale, slopes ? slopes[h] : 0);
      this.dispatch(
        enc,
        this.pipelines.logits,
        [this.uniform(uniforms, u), qn, kn, qf, kf, tokens, qscale, starts, logits],
        tiles,
        tiles,
      );
      if (a.output !== 'logits') {
        for (let row0 = 0; row0 < a.n; row0 += 65535) {
          this.dispatch(
            enc,
            this.pipelines.softmax,
            [this.uniform(uniforms, softmaxParams(a, h, row0)), starts, logits],
            Math.min(65535, a.n - row0),
          );
        }
      }
      if (values) {
        this.dispatch(
          enc,
          this.pipelines.output,
          [this.uniform(uniforms, new Uint32Array([a.n, a.headDim, a.width, h])), logits, v, out],
          Math.ceil(a.headDim / 16),
          tiles,
        );
      } else {
        await this.readBack(enc, logits, a.n * a.n * 4, (mapped) =>
          result.set(mapped, h * a.n * a.n),
        );
        continue;
      }
      device.queue.submit([enc.finish()]);
    }
    if (values) {
      await this.readBack(device.createCommandEncoder(), out, a.n * a.width * 4, (mapped) =>
        result.set(mapped),
      );
    }
    return result;
  }
}
