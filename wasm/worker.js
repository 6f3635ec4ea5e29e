// The worker side of 'hirope/worker': one hirope instance per worker; calls arrive as messages
// { id, method, args, options } and results go back with their typed arrays transferred.
import init, { HiRoPEError } from './index.js';

const METHODS = ['analyze', 'attention', 'encode', 'decode', 'parse', 'relativeDistances', 'rotate', 'qk', 'inverseFrequencies', 'longTermDecay'];
let ready = null;

function buffers(value, out = []) {
  if (ArrayBuffer.isView(value)) out.push(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) buffers(v, out);
  return out;
}

self.onmessage = async ({ data: { id, method, args, options } }) => {
  try {
    ready ||= init(options);
    const hr = await ready;
    let result;
    if (method === 'loadTokenizer') {
      result = await hr.loadTokenizer(...args);
    } else if (METHODS.includes(method)) {
      result = hr[method](...args);
      if (method === 'analyze') {
        // texts is a lazy getter over the code; the client rebuilds it on its side.
        const { ids, start, end, byteStart, byteEnd, count } = result.tokens;
        result = { ...result, tokens: { ids, start, end, byteStart, byteEnd, count } };
      }
    } else {
      throw new HiRoPEError(`the worker has no method '${method}' (known: loadTokenizer, ${METHODS.join(', ')})`);
    }
    self.postMessage({ id, result }, [...new Set(buffers(result))]);
  } catch (e) {
    self.postMessage({ id, error: { name: e.name, message: e.message } });
  }
};
