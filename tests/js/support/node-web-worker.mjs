// A browser-style module Worker (new Worker(url, { type: 'module' }), onmessage, postMessage with
// transfers, terminate) on Node's worker_threads, so that hirope/worker's client and its worker
// run under node --test. Install with installWorker(); the worker side sets `self` the same way.
import { Worker as ThreadWorker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export function installWorker() {
  globalThis.Worker = class Worker {
    constructor(url, options = {}) {
      if (options.type !== 'module') throw new Error('only module workers are emulated');
      this._thread = new ThreadWorker(new URL(import.meta.url), {
        workerData: { url: String(url) },
      });
      this.onmessage = null;
      this.onerror = null;
      this._thread.on('message', (data) => this.onmessage?.({ data }));
      this._thread.on('error', (e) => this.onerror?.(e));
    }
    postMessage(data, transfer) {
      this._thread.postMessage(data, transfer);
    }
    terminate() {
      this._thread.terminate();
    }
  };
}

// The worker side: `self` as in a dedicated worker, messages held until the script set onmessage.
if (!isMainThread && workerData?.url) {
  const early = [];
  globalThis.self = globalThis;
  self.postMessage = (data, transfer) => parentPort.postMessage(data, transfer);
  parentPort.on('message', (data) =>
    self.onmessage ? self.onmessage({ data }) : early.push(data),
  );
  await import(workerData.url);
  for (const data of early.splice(0)) self.onmessage({ data });
}
