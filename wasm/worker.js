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
  'parse',
  'relativeDistances',
  'rotate',
  'qk',
  'inverseFrequencies',
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

serve(requests, {
  notices: { init: (o) => (options = o) },
  unknown: (method) =>
    new HiRoPEError(
      `the worker has no method '${method}' (known: loadTokenizer, ${METHODS.join(', ')})`,
    ),
});
