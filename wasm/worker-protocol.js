// The one message protocol between a page and its Web Workers, for 'hirope/worker'
// (worker-client.js, worker.js) and the playground (web/src/page/worker-client.js,
// web/src/worker/main.js).
//
// On the wire:
//   page -> worker  { id, type, payload }             a request; id > 0 when a caller waits for it
//                   { type, payload }                 a notice: handled at once, never answered
//   worker -> page  { id, kind: 'result', value }     the answer (its fresh arrays transferred)
//                   { id, kind: 'error', value }      { name, message, hirope } of what was thrown
//                   { id, kind: 'progress', value }   a stage name, while the request runs
//
// The worker handles requests one at a time, in the order they came; notices skip the queue (the
// compiled module or the init options a request may be waiting for).
//
// The client keeps the pending map (id -> call), rejects a call at once when its AbortSignal
// fires and replaces the worker (a parse cannot be interrupted from outside); the fresh worker
// gets the start notices, the sticky requests (whose effect a worker keeps; an aborted one is
// forgotten, its type's previous one posted instead) and the calls still pending, in that order. restart(reason) replaces it on purpose, the pending calls rejected with
// the reason instead of posted again.
import { HiRoPEError } from './errors.js';

/** The ArrayBuffers under the typed arrays of a value (each once), for a transfer list. */
export function buffers(value, out = [], seen = new Set()) {
  if (ArrayBuffer.isView(value)) {
    if (!out.includes(value.buffer)) out.push(value.buffer);
  } else if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const v of Object.values(value)) buffers(v, out, seen);
  }
  return out;
}

/** A handler's answer with the buffers that go with it (transferred, so gone from the worker). */
export class Transfer {
  constructor(value, list) {
    this.value = value;
    this.list = list;
  }
}

/** An answer whose buffers are transferred: by default every buffer under it. */
export const transfer = (value, list = buffers(value)) => new Transfer(value, list);

/** What crosses postMessage for something a handler threw. */
export const serializeError = (e) => ({
  name: (e && typeof e.name === 'string' && e.name) || 'Error',
  message: e && typeof e.message === 'string' ? e.message : String(e),
  hirope: e instanceof HiRoPEError,
});

/**
 * The error a caller sees for a serialized one: the class registered under its name (HiRoPEError
 * by default), a HiRoPEError for any other subclass of it (its name kept), else fallback(name,
 * message).
 */
export function rehydrateError(
  { name, message, hirope },
  { classes = {}, fallback = (_, m) => new Error(m) } = {},
) {
  const Class = Object.hasOwn(classes, name)
    ? classes[name]
    : name === 'HiRoPEError'
      ? HiRoPEError
      : null;
  if (Class) return new Class(message);
  if (hirope) return Object.assign(new HiRoPEError(message), { name });
  return fallback(name, message);
}

/**
 * The worker's half. requests: { type: async (payload, { progress }) => value or transfer(...) };
 * notices: { type: (payload) => void }; unknown(type): the error for a request with no handler.
 */
export function serve(
  requests,
  {
    notices = {},
    unknown = (type) => new Error(`unknown request ${type}`),
    scope = globalThis.self,
  } = {},
) {
  let queue = Promise.resolve();
  const handle = async (id, type, payload) => {
    const post = (kind, value, list = []) => scope.postMessage({ id, kind, value }, list);
    try {
      if (!Object.hasOwn(requests, type)) throw unknown(type);
      const answer = await requests[type](payload, {
        progress: (stage) => post('progress', stage),
      });
      if (answer instanceof Transfer) post('result', answer.value, answer.list);
      else post('result', answer);
    } catch (e) {
      post('error', serializeError(e));
    }
  };
  scope.onmessage = ({ data }) => {
    const { id, type, payload } = data ?? {};
    if (id === undefined) {
      if (Object.hasOwn(notices, type)) notices[type](payload);
      return;
    }
    queue = queue.then(() => handle(id, type, payload));
  };
  // The client counts a failure before this as a worker that did not start (WorkerClient).
  scope.postMessage({ kind: 'started' });
}

/** Why a call was cancelled: the signal's reason, or an AbortError. */
export const abortReason = (signal) =>
  signal.reason ?? new DOMException('the call was aborted', 'AbortError');

/**
 * A fresh error of an error's class, name and message (each later call rejects with its own).
 * Not through its constructor, whose arguments may be other than (message).
 */
function copyError(error) {
  const copy = Object.setPrototypeOf(new Error(error.message), Object.getPrototypeOf(error));
  if (copy.name !== error.name) copy.name = error.name;
  return copy;
}

/**
 * The page's half: one worker at a time, from spawn().
 *
 * - onStart(notify): posts the notices a fresh worker needs first (notify(type, payload, transfer)
 *   reaches that worker only, even after a later restart).
 * - sticky: request types whose last payload a fresh worker gets again (answers not awaited; a
 *   sticky payload is posted again, so it is never transferred).
 * - failed(event): the error every pending call rejects with when the worker fails (one that fails
 *   before serve() ran in it did not start: every later call rejects with it, until restart()).
 * - errors: { classes, fallback } for rehydrateError.
 */
export class WorkerClient {
  constructor(
    spawn,
    {
      onStart = null,
      sticky = [],
      failed = (event) => new Error(event?.message || 'the worker failed'),
      errors = {},
    } = {},
  ) {
    this._spawn = spawn;
    this._onStart = onStart;
    this._stickyTypes = sticky;
    this._failed = failed;
    this._errors = errors;
    this._next = 1;
    this._terminated = null; // after terminate(): makes the error a later request rejects with
    this._pending = new Map(); // id -> { resolve, reject, progress, message }, in the order posted
    this._sticky = new Map(); // type -> payload of the last sticky request
    this._start();
  }

  _start() {
    const worker = this._spawn();
    this.worker = worker;
    this._startFailure = null;
    let started = false; // serve() ran in the worker
    worker.onmessage = ({ data }) => {
      if (worker !== this.worker) return; // a replaced worker's last words
      if (data?.kind === 'started') {
        started = true;
        return;
      }
      const call = this._pending.get(data?.id);
      if (!call) return; // a sticky request posted again, or a call already settled
      if (data.kind === 'progress') return call.progress?.(data.value);
      this._pending.delete(data.id);
      if (data.kind === 'error') call.reject(rehydrateError(data.value, this._errors));
      else call.resolve(data.value);
    };
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      const error = this._failed(event);
      // An error before the worker served: it did not start (its script or an import could not
      // be loaded), and will never answer; later requests fail the same way at once instead of
      // waiting on it, until restart() starts a fresh one.
      if (!started) this._startFailure = () => copyError(error);
      this._rejectAll(error);
    };
    this._onStart?.((type, payload, list = []) => worker.postMessage({ type, payload }, list));
  }

  _rejectAll(error) {
    const calls = [...this._pending.values()];
    this._pending.clear();
    for (const call of calls) call.reject(error);
  }

  /**
   * One request. signal: an AbortSignal that rejects it with its reason and, when it was posted,
   * replaces the worker; progress(stage): called with the worker's progress messages; transfer:
   * buffers of the payload to transfer (a call that transferred cannot be posted again).
   */
  request(type, payload, { signal = null, progress = null, transfer = [] } = {}) {
    return new Promise((resolve, reject) => {
      if (this._terminated) return reject(this._terminated());
      if (this._startFailure) return reject(this._startFailure());
      if (signal?.aborted) return reject(abortReason(signal));
      const id = this._next++;
      const message = { id, type, payload };
      const sticky = this._stickyTypes.includes(type);
      const before = this._sticky.get(type);
      if (sticky) this._sticky.set(type, payload);
      const onAbort = () => {
        if (!this._pending.delete(id)) return; // already answered
        reject(abortReason(signal));
        // An aborted sticky request is as if never made: the fresh worker gets the one before.
        if (sticky && this._sticky.get(type) === payload) {
          if (before === undefined) this._sticky.delete(type);
          else this._sticky.set(type, before);
        }
        this.restart();
      };
      const settle = (done) => (value) => {
        signal?.removeEventListener('abort', onAbort);
        done(value);
      };
      this._pending.set(id, {
        resolve: settle(resolve),
        reject: settle(reject),
        progress,
        message,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.worker.postMessage(message, transfer);
      } catch (e) {
        // A payload that cannot be cloned (DataCloneError): this call fails, the others go on.
        this._pending.get(id)?.reject(e);
        this._pending.delete(id);
      }
    });
  }

  /**
   * Replaces the worker: the fresh one gets the start notices and the sticky requests again, then
   * the pending calls, or (reason given) these reject with reason.
   */
  restart(reason) {
    if (this._terminated) return; // stopped for good: nothing to replace
    this.worker.terminate();
    if (reason !== undefined) this._rejectAll(reason);
    this._start();
    for (const [type, payload] of this._sticky) this.worker.postMessage({ id: 0, type, payload });
    for (const [id, call] of this._pending) {
      try {
        this.worker.postMessage(call.message);
      } catch (e) {
        // Its transferred buffers went with the old worker (DataCloneError).
        this._pending.delete(id);
        call.reject(e);
      }
    }
  }

  /**
   * Stops the worker for good: the pending calls reject with reason (when given), and so does every
   * later request (a fresh error of reason's class and message each time), so none waits forever.
   */
  terminate(reason) {
    this.worker.terminate();
    const error = reason ?? new Error('the worker was terminated');
    this._terminated ??= () => copyError(error);
    if (reason !== undefined) this._rejectAll(reason);
  }
}
