// 'hirope/worker': run analyses (and attention) off the main thread.
//
//   import { analyzeInWorker } from 'hirope/worker';
//   const a = await analyzeInWorker(code, { language: 'python', tokenizer: 'llama2' });
import { HiRoPEError, describe } from './errors.js';
import { WorkerClient } from './worker-protocol.js';
import { withTexts } from './analysis-codec.js';

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

export function createWorker(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new HiRoPEError(`worker options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!WORKER_INIT_KEYS.includes(key))
      throw new HiRoPEError(
        `worker options have an unknown key '${key}' (known keys: ${WORKER_INIT_KEYS.join(', ')})`,
      );
  }
  const client = new WorkerClient(
    () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
    {
      onStart: (notify) => notify('init', options),
      failed: (e) => new HiRoPEError(`the hirope worker failed: ${e.message || 'could not start'}`),
    },
  );
  const call = (method, args = [], { signal } = {}) => client.request(method, args, { signal });
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
    /** A built-in name, or { json } (a tokenizer.json as text or bytes): resolves to its name. */
    loadTokenizer: (name, options) =>
      call('loadTokenizer', options === undefined ? [name] : [name, options]),
    /** Loads a language's grammar in the worker ahead of its first analysis. */
    loadLanguage: (name) => call('loadLanguage', [name]),
    /** Any other API method by name, e.g. call('relativeDistances', [{ n, headDim, scheme }]). */
    call,
    terminate: () => client.terminate(new HiRoPEError('the hirope worker was terminated')),
  };
}

let shared = null;

/** One call: analyze(code, options) in a shared worker, started on first use (options.signal cancels it). */
export function analyzeInWorker(code, options) {
  shared ||= createWorker();
  return shared.analyze(code, options);
}
