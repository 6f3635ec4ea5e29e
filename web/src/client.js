// The page side of the playground workers: promise-based requests, and "latest wins" scheduling
// (PairClient) so that a burst of edits or slider moves computes only the newest state.
import { simdSupported } from '../../dist/api.js';
import { assetURL } from './assets.js';

export class WorkerError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name === 'Error' ? 'WorkerError' : name;
  }
}

// One download and one compile of the .wasm per page, shared by every worker (both sides of the
// playground, every <hirope-attention> on a page): a compiled WebAssembly.Module can be posted to
// a worker, which then only instantiates it. Null when compiling here fails (the worker then loads
// the file itself).
let compiled = null;
export function compiledModule(simd) {
  compiled ??= (async () => {
    const url = assetURL(simd ? 'hirope-simd.wasm' : 'hirope-scalar.wasm', import.meta.url);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return WebAssembly.compileStreaming ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
  })().catch(() => null);
  return compiled;
}

export class PlaygroundClient {
  constructor(workerURL) {
    this.worker = new Worker(workerURL, { type: 'module', name: 'hirope' });
    const simd = new URL(workerURL, location.href).searchParams.get('simd') !== '0' && simdSupported();
    compiledModule(simd).then((module) => this.worker.postMessage({ type: 'module', module }));
    this._next = 1;
    this._pending = new Map();
    this.worker.onmessage = ({ data }) => {
      const entry = this._pending.get(data.id);
      if (!entry) return;
      if (data.type === 'progress') {
        entry.progress?.(data.stage);
        return;
      }
      this._pending.delete(data.id);
      if (data.type === 'error') entry.reject(new WorkerError(data.name, data.message));
      else entry.resolve(data.value);
    };
    this.worker.onerror = (event) => {
      const error = new WorkerError('WorkerError', event.message || 'the worker failed to start');
      for (const entry of this._pending.values()) entry.reject(error);
      this._pending.clear();
    };
  }

  /** One request; resolves with the worker's result. */
  request(type, payload = {}, progress = null, transfer = []) {
    const id = this._next++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject, progress });
      this.worker.postMessage({ id, type, ...payload }, transfer);
    });
  }

  terminate() {
    this.worker.terminate();
  }
}

/**
 * Two workers, one per scheme, driven as one: a run computes A and B at the same time (each
 * worker analyses the code itself, which costs less than shipping the analysis across), and
 * "latest wins" applies to the pair.
 */
export class PairClient {
  constructor(workerURL) {
    this.a = new PlaygroundClient(workerURL);
    this.b = new PlaygroundClient(workerURL);
    this._running = false;
    this._queued = null;
  }

  side(name) {
    return name === 'b' ? this.b : this.a;
  }

  /** The same request to both workers. */
  both(type, payload = {}) {
    return Promise.all([this.a.request(type, { ...payload, side: 'a' }), this.b.request(type, { ...payload, side: 'b' })]);
  }

  /** A run of both sides: resolves with { a, b }, the two workers' results. */
  run(payload, progress = null) {
    return Promise.all([
      // The distance views depend on both schemes; B's worker computes them, so that moving a
      // slider of scheme B (the HiRoPE side by default) leaves A's worker nothing to send.
      this.a.request('run', { ...payload, side: 'a', summary: true }, progress),
      this.b.request('run', { ...payload, side: 'b', distances: payload.distancesWanted ?? payload.views !== false }, progress),
    ]).then(([a, b]) => ({ a, b }));
  }

  /**
   * Per-row TV and KL between the two sides' current matrices, and each side's per-row numbers
   * (own-unit mass, mean distance): A's worker hands a copy of its matrix over (transferred, not
   * copied again) and B's worker compares.
   */
  async compare() {
    const a = await this.a.request('probs');
    const b = await this.b.request('compare', { other: { n: a.n, probs: a.probs } }, null, [a.probs.buffer]);
    return { tv: b.tv, kl: b.kl, stats: { a: a.stats, b: b.stats } };
  }

  /**
   * A run of both sides where only the newest matters; superseded calls resolve with null.
   * `run(payload, progress)` replaces the playground's run (Model mode passes its own).
   */
  latest(payload, progress, run = (p, pr) => this.run(p, pr)) {
    if (this._queued) this._queued.resolve(null);
    return new Promise((resolve, reject) => {
      this._queued = { payload, progress, resolve, reject, run };
      this._pump();
    });
  }

  async _pump() {
    if (this._running || !this._queued) return;
    const job = this._queued;
    this._queued = null;
    this._running = true;
    try {
      job.resolve(await job.run(job.payload, job.progress));
    } catch (e) {
      job.reject(e);
    } finally {
      this._running = false;
      this._pump();
    }
  }

  terminate() {
    this.a.terminate();
    this.b.terminate();
  }
}
