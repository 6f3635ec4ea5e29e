// The worker of tests/js/worker-protocol.test.mjs: requests and notices served by the protocol's
// worker half, each showing one thing the test checks.
import { threadId } from 'node:worker_threads';
import { HiRoPEError } from '../../../dist/errors.js';
import { serve, transfer } from '../../../dist/worker-protocol.js';

class ShapeError extends HiRoPEError {
  constructor(message) {
    super(message);
    this.name = 'ShapeError';
  }
}

let opened;
const gate = new Promise((resolve) => (opened = resolve));
const kept = []; // what the sticky 'keep' requests left in this worker
const sent = {}; // arrays this worker answered with, to see which were transferred
const busy = (ms) => {
  for (const end = Date.now() + ms; Date.now() < end; );
};

serve(
  {
    thread: async () => threadId,
    echo: async (payload) => payload,
    // Waits for the 'open' notice, which must not queue behind it.
    gated: async (payload) => [await gate, payload],
    sleep: async (ms) => new Promise((resolve) => setTimeout(() => resolve(`slept ${ms}`), ms)),
    spin: async (ms) => {
      busy(ms);
      return 'spun';
    },
    keep: async (payload) => kept.push(payload),
    // A sticky request that takes a while (a checkpoint's load): kept once it is done.
    keepSlowly: async ({ payload, ms }) => {
      busy(ms);
      return kept.push(payload);
    },
    kept: async () => kept,
    arrays: async () => {
      sent.fresh = new Float32Array([1, 2, 3, 4]);
      sent.alias = sent.fresh.subarray(2);
      sent.ints = new Int32Array([7, 8]);
      return transfer({ fresh: sent.fresh, alias: sent.alias, nested: [{ ints: sent.ints }] });
    },
    chosen: async () => {
      sent.image = new Uint8Array([1, 2]);
      sent.cached = new Uint8Array([3, 4]);
      return transfer({ image: sent.image, cached: sent.cached }, [sent.image.buffer]);
    },
    copied: async () => {
      sent.copied = new Float64Array([5]);
      return sent.copied;
    },
    lengths: async () =>
      Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, v.byteLength])),
    received: async ({ data }) => Array.from(data),
    progress: async (stages, { progress }) => {
      for (const stage of stages) progress(stage);
      return 'done';
    },
    fail: async (what) => {
      if (what === 'hirope') throw new HiRoPEError('bad headDim');
      if (what === 'subclass') throw new ShapeError('bad shape');
      if (what === 'type') throw new TypeError('not a function');
      if (what === 'named')
        throw Object.assign(new Error('nothing computed'), { name: 'PlaygroundError' });
      throw 'a string';
    },
    crash: async () => {
      setTimeout(() => {
        throw new Error('the worker crashed');
      });
      return new Promise(() => {});
    },
  },
  {
    notices: { open: (payload) => opened(payload) },
    unknown: (type) => new HiRoPEError(`no request '${type}'`),
  },
);
