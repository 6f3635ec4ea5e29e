// The worker side of 'hirope/worker': one hirope instance per worker, made with the options of the
// 'init' notice on the first request; each API method is a request (its payload the arguments),
// answered with its typed arrays transferred (worker-protocol.js).
import init, { HiRoPEError } from './index.js';
import { serve, transfer } from './worker-protocol.js';

const METHODS = [
  'analyze',
  'attention',
  'encode',
  'decode',
  'tokenBytes',
  'countTokens',
  'encodeBatch',
  'isWithinTokenLimit',
  'parse',
  'fromConfig',
  'relativeDistances',
  'rotate',
  'qk',
  'inverseFrequencies',
  'attentionFactor',
  'longTermDecay',
  'loadLanguage',
];
let options = {};
let ready = null;
const hirope = () => (ready ||= init(options));

const requests = { loadTokenizer: async (args) => (await hirope()).loadTokenizer(...args) };
for (const method of METHODS) {
  requests[method] = async (args) => {
    let result = await (await hirope())[method](...args); // loadLanguage resolves later
    if (method === 'analyze') {
      // texts is a lazy getter over the code; the client rebuilds it on its side.
      const { ids, start, end, byteStart, byteEnd, count } = result.tokens;
      result = { ...result, tokens: { ids, start, end, byteStart, byteEnd, count } };
    }
    return transfer(result);
  };
}

/**
 * The worker's scope: a Web Worker's self, or in a Node worker thread (worker-client.js) a stand-in
 * over its parentPort. node:worker_threads is imported by a variable name, so bundlers leave it
 * out; messages wait in the port until the import resolves and the handler is attached.
 */
function workerScope() {
  if (globalThis.self !== undefined) return globalThis.self;
  const scope = { onmessage: null, postMessage: null };
  const name = 'node:worker_threads';
  const attach = ({ parentPort }) => {
    scope.postMessage = (data, list) => parentPort.postMessage(data, list);
    parentPort.on('message', (data) => scope.onmessage?.({ data }));
  };
  const threads = globalThis.process?.getBuiltinModule?.(name);
  if (threads) attach(threads);
  else import(/* webpackIgnore: true */ /* @vite-ignore */ name).then(attach);
  return scope;
}

serve(requests, {
  scope: workerScope(),
  notices: { init: (o) => (options = o) },
  unknown: (method) =>
    new HiRoPEError(
      `the worker has no method '${method}' (known: loadTokenizer, ${METHODS.join(', ')})`,
    ),
});
