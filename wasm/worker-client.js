// 'hirope/worker': run analyses (and attention) off the main thread.
//
//   import { analyzeInWorker } from 'hirope/worker';
//   const a = await analyzeInWorker(code, { language: 'python', tokenizer: 'llama2' });
import { HiRoPEError, describe } from './errors.js';

function withTexts(code, analysis) {
  let texts = null;
  const tokens = analysis.tokens;
  Object.defineProperty(tokens, 'texts', {
    enumerable: true,
    get() {
      if (!texts) texts = Array.from({ length: tokens.count }, (_, i) => code.slice(tokens.start[i], tokens.end[i]));
      return texts;
    },
  });
  return analysis;
}

/**
 * Starts a module worker holding its own hirope instance. options are init() options that can
 * cross to a worker: simd, analysis, dataURL, tokenizers.
 */
export function createWorker(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new HiRoPEError(`worker options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!['simd', 'analysis', 'dataURL', 'tokenizers'].includes(key)) throw new HiRoPEError(`worker options have an unknown key '${key}' (known keys: simd, analysis, dataURL, tokenizers)`);
  }
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const pending = new Map();
  let next = 0;
  const failAll = (message) => {
    for (const p of pending.values()) p.reject(new HiRoPEError(message));
    pending.clear();
  };
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p) return;
    pending.delete(data.id);
    if (data.error) {
      const e = data.error.name === 'HiRoPEError' ? new HiRoPEError(data.error.message) : new Error(data.error.message);
      p.reject(e);
    } else {
      p.resolve(data.result);
    }
  };
  worker.onerror = (e) => failAll(`the hirope worker failed: ${e.message || 'could not start'}`);
  const call = (method, args = []) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args, options });
    });
  return {
    /** analyze() in the worker; loads a vocabulary tokenizer first when one is named. */
    async analyze(code, analyzeOptions = {}) {
      const tokenizer = analyzeOptions?.tokenizer;
      if (tokenizer && tokenizer !== 'lexical') await call('loadTokenizer', [tokenizer]);
      return withTexts(code, await call('analyze', [code, analyzeOptions]));
    },
    attention: (args) => call('attention', [args]),
    loadTokenizer: (name) => call('loadTokenizer', [name]),
    /** Any other API method by name, e.g. call('relativeDistances', [{ n, headDim, scheme }]). */
    call,
    terminate() {
      worker.terminate();
      failAll('the hirope worker was terminated');
    },
  };
}

let shared = null;

/** One call: analyze(code, options) in a shared worker, started on first use. */
export function analyzeInWorker(code, options) {
  shared ||= createWorker();
  return shared.analyze(code, options);
}
