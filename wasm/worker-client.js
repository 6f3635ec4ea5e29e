// 'hirope/worker': run analyses (and attention) off the main thread.
//
//   import { analyzeInWorker } from 'hirope/worker';
//   const a = await analyzeInWorker(code, { language: 'python', tokenizer: 'llama2' });
import { HiRoPEError } from './errors.js';
import { describe, checkKnownKeys } from './marshal.js';
import { WorkerClient } from './worker-protocol.js';
import { withTexts } from './analysis-codec.js';
import { isNode, DEFAULT_TOKENIZER } from './runtime.js';

/**
 * Starts a module worker holding its own hirope instance. options are init() options that can
 * cross to a worker: simd, analysis, dataURL, tokenizers, languages.
 *
 * Every call takes an AbortSignal (analyze's options.signal, call's third argument): aborting it
 * rejects the call with the signal's reason at once, and when the call is under way (a parse
 * cannot be interrupted from outside) the worker is terminated and a fresh one takes the other
 * pending calls, so a newer edit never waits for an older analysis (worker-protocol.js).
 */
const WORKER_INIT_KEYS = ['simd', 'analysis', 'dataURL', 'tokenizers', 'languages'];

/**
 * A Node worker thread behind the browser Worker's interface (onmessage, onerror, postMessage,
 * terminate), running the same worker.js. node:worker_threads is loaded only here, by a variable
 * name, so bundlers leave it out of browser code. A thread holds the process open only while a
 * call waits for it (a script that used the worker still exits when it is done).
 */
class NodeThreadWorker {
  constructor(url) {
    this.onmessage = null;
    this.onerror = null;
    this._thread = null;
    this._queued = []; // [data, transfer] posted before the thread exists (older Node only)
    this._waiting = new Set(); // ids of the requests posted and not yet answered
    this._stopped = false;
    this._failure = null; // why the thread stopped on its own
    const name = 'node:worker_threads'; // a variable, so bundlers leave it alone
    // Node >= 20.16 gives the module synchronously; older versions import it first.
    const threads = process.getBuiltinModule?.(name);
    if (threads) this._begin(threads, url);
    else
      import(/* webpackIgnore: true */ /* @vite-ignore */ name).then(
        (loaded) => this._begin(loaded, url),
        (e) => this._fail(`cannot load ${name}: ${e.message}`),
      );
  }

  _begin({ Worker: Thread }, url) {
    if (this._stopped) return;
    let thread;
    try {
      thread = new Thread(url);
    } catch (e) {
      return this._fail(`cannot start a worker thread for ${url.href}: ${e.message}`);
    }
    this._thread = thread;
    thread.on('message', (data) => {
      if (data && (data.kind === 'result' || data.kind === 'error')) this._waiting.delete(data.id);
      this._hold();
      this.onmessage?.({ data });
    });
    thread.on('error', (e) => this._fail(e?.message || String(e)));
    thread.on('exit', (code) => this._fail(`the worker thread exited with code ${code}`));
    for (const [data, transfer] of this._queued.splice(0)) {
      try {
        this.postMessage(data, transfer);
      } catch (e) {
        this._fail(`cannot send a request to the worker thread: ${e.message}`);
      }
    }
    this._hold();
  }

  // ref() while a call waits, unref() when none does.
  _hold() {
    if (!this._thread) return;
    if (this._waiting.size > 0) this._thread.ref();
    else this._thread.unref();
  }

  _fail(message) {
    if (this._stopped) return;
    this._stopped = true;
    this._failure = message;
    this._thread?.terminate();
    this.onerror?.({ message });
  }

  postMessage(data, transfer = []) {
    if (this._stopped) {
      // A dead thread answers a later call with the reason it died (terminate() is the client's
      // to answer).
      if (this._failure !== null && data?.id > 0) {
        const value = {
          name: 'HiRoPEError',
          message: `the hirope worker failed: ${this._failure}`,
          hirope: true,
        };
        queueMicrotask(() => this.onmessage?.({ data: { id: data.id, kind: 'error', value } }));
      }
      return;
    }
    if (data?.id > 0) this._waiting.add(data.id);
    if (!this._thread) return void this._queued.push([data, transfer]);
    this._thread.postMessage(data, transfer);
    this._hold();
  }

  terminate() {
    this._stopped = true;
    this._queued.length = 0;
    this._thread?.terminate();
  }
}

/** A module worker running worker.js: the browser's Worker, else a Node worker thread. */
function spawnWorker() {
  if (typeof Worker === 'function')
    return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  if (isNode()) {
    const file = './worker.js'; // a variable, so bundlers do not copy it a second time
    return new NodeThreadWorker(new URL(file, import.meta.url));
  }
  throw new HiRoPEError(
    'hirope/worker needs Web Workers (a browser, Deno) or node:worker_threads (Node); this environment has neither',
  );
}

export function createWorker(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new HiRoPEError(`worker options must be an object, got ${describe(options)}`);
  checkKnownKeys(options, WORKER_INIT_KEYS, 'worker options');
  const client = new WorkerClient(spawnWorker, {
    onStart: (notify) => notify('init', options),
    failed: (e) => new HiRoPEError(`the hirope worker failed: ${e.message || 'could not start'}`),
  });
  const call = (method, args = [], { signal } = {}) => client.request(method, args, { signal });
  // A call without its trailing arguments left out, so the worker's method sees them as absent.
  const callWith = (method, ...args) => {
    while (args.length && args.at(-1) === undefined) args.pop();
    return call(method, args);
  };
  // A method whose last argument's `tokenizer` (default cl100k, as the API's) is a built-in
  // vocabulary: loaded in the worker first (a json-<hash> name is loaded already). Bad options
  // go to the worker as they are, for the API's own error.
  const withTokenizer = async (method, ...args) => {
    const last = args.at(-1);
    const tokenizer =
      last === undefined
        ? DEFAULT_TOKENIZER
        : last !== null && typeof last === 'object'
          ? (last.tokenizer ?? DEFAULT_TOKENIZER)
          : null;
    if (typeof tokenizer === 'string' && tokenizer !== 'lexical' && !tokenizer.startsWith('json-'))
      await call('loadTokenizer', [tokenizer]).catch(() => {}); // the call below names the problem
    return callWith(method, ...args);
  };
  return {
    /**
     * analyze() in the worker; loads the language's grammar (without blocking the worker on a
     * synchronous request) and a vocabulary tokenizer first when one is named.
     * analyzeOptions.signal: an AbortSignal that cancels it.
     */
    async analyze(code, analyzeOptions = {}) {
      // Anything but an options object goes to the worker as it is, for hr.analyze's own error.
      if (analyzeOptions === null || typeof analyzeOptions !== 'object')
        return call('analyze', [code, analyzeOptions]);
      const { signal, ...rest } = analyzeOptions;
      const tokenizer = rest.tokenizer;
      // A built-in loads on first use; a name loadTokenizer({ json }) returned is loaded already.
      if (
        typeof tokenizer === 'string' &&
        tokenizer !== 'lexical' &&
        !tokenizer.startsWith('json-')
      )
        await call('loadTokenizer', [tokenizer], { signal });
      if (typeof rest.language === 'string')
        await call('loadLanguage', [rest.language], { signal });
      const analysis = await call('analyze', [code, rest], { signal });
      withTexts(analysis.tokens, code);
      return analysis;
    },
    attention: (args, { signal } = {}) => call('attention', [args], { signal }),
    // The tokenizer methods load a built-in vocabulary in the worker first, as analyze() does.
    encode: (text, tokenOptions) => withTokenizer('encode', text, tokenOptions),
    decode: (ids, tokenOptions) => withTokenizer('decode', ids, tokenOptions),
    tokenBytes: (ids, tokenOptions) => withTokenizer('tokenBytes', ids, tokenOptions),
    countTokens: (text, tokenOptions) => withTokenizer('countTokens', text, tokenOptions),
    encodeBatch: (texts, tokenOptions) => withTokenizer('encodeBatch', texts, tokenOptions),
    isWithinTokenLimit: (text, limit, tokenOptions) =>
      withTokenizer('isWithinTokenLimit', text, limit, tokenOptions),
    /** hr.fromConfig in the worker: a config.json's text or object as a model setup. */
    fromConfig: (config) => call('fromConfig', [config]),
    inverseFrequencies: (scheme, headDim, schemeOptions) =>
      callWith('inverseFrequencies', scheme, headDim, schemeOptions),
    attentionFactor: (scheme, headDim, schemeOptions) =>
      callWith('attentionFactor', scheme, headDim, schemeOptions),
    /** A built-in name, or { json } (a tokenizer.json as text or bytes): resolves to its name. */
    loadTokenizer: (name, options) => callWith('loadTokenizer', name, options),
    /** Loads a language's grammar in the worker ahead of its first analysis. */
    loadLanguage: (name) => call('loadLanguage', [name]),
    /** Any other API method by name, e.g. call('relativeDistances', [{ n, headDim, scheme }]). */
    call,
    terminate: () => client.terminate(new HiRoPEError('the hirope worker was terminated')),
  };
}

let shared = null;

/** One call: analyze(code, options) in a shared worker, started on first use (options.signal cancels it). */
export async function analyzeInWorker(code, options) {
  shared ||= createWorker();
  return shared.analyze(code, options);
}
