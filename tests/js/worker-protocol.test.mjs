// The one worker protocol of the package and the page (wasm/worker-protocol.js), in Node's worker
// threads (tests/js/support/node-web-worker.mjs stands in for the browser's module Worker) against the
// worker of tests/js/support/protocol-worker.mjs: the pending map, transfer lists, errors rehydrated into
// their classes, progress, cancellation, and restarts that post the start notices, the sticky
// requests and the pending calls again. tests/js/worker.test.mjs runs the package's client on it,
// and the page's browser tests its playground client.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HiRoPEError } from '../../dist/errors.js';
import {
  WorkerClient,
  buffers,
  rehydrateError,
  serializeError,
  transfer,
} from '../../dist/worker-protocol.js';
import { installWorker } from './support/node-web-worker.mjs';

installWorker();

const clients = [];
const client = (options = {}) => {
  const c = new WorkerClient(
    () => new Worker(new URL('./support/protocol-worker.mjs', import.meta.url), { type: 'module' }),
    {
      onStart: (notify) => notify('open', 'opened'),
      ...options,
    },
  );
  clients.push(c);
  return c;
};
const settled = (promise) =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
// A promise that a broken protocol would leave waiting for a worker busy for a minute.
const within = (promise, ms = 10000) => {
  let timer;
  const limit = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
};
const isAbort = (e) => e instanceof DOMException && e.name === 'AbortError';

describe('worker protocol', () => {
  after(() => {
    for (const c of clients) c.terminate();
  });

  it('buffers lists each buffer under a value once, through arrays, objects and cycles', () => {
    const a = new Float32Array(4);
    const b = new Int32Array(2);
    const cyclic = { a, list: [a.subarray(1), { b }], text: 'x', n: 3 };
    cyclic.self = cyclic;
    assert.deepEqual(buffers(cyclic), [a.buffer, b.buffer]);
    assert.deepEqual(buffers('text'), []);
    const t = transfer({ a });
    assert.equal(t.value.a, a);
    assert.deepEqual(t.list, [a.buffer]);
    assert.deepEqual(transfer({ a, b }, [b.buffer]).list, [b.buffer]);
  });

  it('answers each pending call with its own result, in the order they were posted', async () => {
    const c = client();
    const order = [];
    const calls = [
      c.request('sleep', 60),
      c.request('echo', { x: 1 }),
      c.request('echo', [2, 'two']),
      c.request('sleep', 10),
    ];
    calls.forEach((p, i) => {
      p.then(() => order.push(i));
    });
    assert.deepEqual(await Promise.all(calls), ['slept 60', { x: 1 }, [2, 'two'], 'slept 10']);
    // One at a time, in order: the short sleep waited for the long one.
    assert.deepEqual(order, [0, 1, 2, 3]);
    assert.equal(c._pending.size, 0);
  });

  it('a notice skips the queue: a request waiting for it is answered', async () => {
    const c = client({
      onStart: (notify) => {
        notify('nothing', 'ignored');
        setTimeout(() => notify('open', 'late'), 50);
      },
    });
    assert.deepEqual(await within(Promise.all([c.request('gated', 1), c.request('echo', 2)])), [
      ['late', 1],
      2,
    ]);
    // Unknown notices are ignored; unknown requests get the server's own error.
    await assert.rejects(
      c.request('toString'),
      (e) => e instanceof HiRoPEError && e.message === "no request 'toString'",
    );
  });

  it('transfers the buffers of an answer (each once) and of a request, copies the rest', async () => {
    const c = client();
    const got = await c.request('arrays');
    assert.deepEqual(Array.from(got.fresh), [1, 2, 3, 4]);
    assert.deepEqual(Array.from(got.alias), [3, 4]);
    assert.equal(got.alias.buffer, got.fresh.buffer);
    assert.deepEqual(Array.from(got.nested[0].ints), [7, 8]);
    const chosen = await c.request('chosen');
    assert.deepEqual(
      [Array.from(chosen.image), Array.from(chosen.cached)],
      [
        [1, 2],
        [3, 4],
      ],
    );
    await c.request('copied');
    // What was transferred is gone from the worker; what the handler did not list was copied.
    assert.deepEqual(await c.request('lengths'), {
      fresh: 0,
      alias: 0,
      ints: 0,
      image: 0,
      cached: 2,
      copied: 8,
    });
    const data = new Uint8Array([9, 8, 7]);
    assert.deepEqual(await c.request('received', { data }, { transfer: [data.buffer] }), [9, 8, 7]);
    assert.equal(data.byteLength, 0);
    const kept = new Uint8Array([1]);
    assert.deepEqual(await c.request('received', { data: kept }), [1]);
    assert.equal(kept.byteLength, 1);
    // A payload that cannot cross fails its own call only.
    await assert.rejects(c.request('echo', { f: () => {} }), (e) => e.name === 'DataCloneError');
    assert.equal(c._pending.size, 0);
    assert.equal(await c.request('echo', 'still'), 'still');
  });

  it('rehydrates errors: HiRoPEError and its subclasses, registered classes, a fallback', async () => {
    class PlaygroundError extends Error {}
    const c = client();
    const page = client({
      errors: {
        classes: { PlaygroundError },
        fallback: (name, message) => Object.assign(new Error(message), { name: `worker ${name}` }),
      },
    });
    const hirope = await settled(c.request('fail', 'hirope'));
    assert.ok(hirope.error instanceof HiRoPEError);
    assert.equal(hirope.error.name, 'HiRoPEError');
    assert.equal(hirope.error.message, 'bad headDim');
    const sub = await settled(c.request('fail', 'subclass'));
    assert.ok(sub.error instanceof HiRoPEError);
    assert.deepEqual([sub.error.name, sub.error.message], ['ShapeError', 'bad shape']);
    // Anything else: a plain Error by default, the client's fallback or its registered class.
    const type = await settled(c.request('fail', 'type'));
    assert.ok(!(type.error instanceof HiRoPEError));
    assert.deepEqual(
      [type.error.constructor, type.error.name, type.error.message],
      [Error, 'Error', 'not a function'],
    );
    const fallback = await settled(page.request('fail', 'type'));
    assert.deepEqual(
      [fallback.error.name, fallback.error.message],
      ['worker TypeError', 'not a function'],
    );
    assert.ok((await settled(page.request('fail', 'named'))).error instanceof PlaygroundError);
    assert.ok((await settled(page.request('fail', 'hirope'))).error instanceof HiRoPEError);
    const thrown = await settled(page.request('fail', 'string'));
    assert.deepEqual([thrown.error.name, thrown.error.message], ['worker Error', 'a string']);
    // The two halves on their own.
    assert.deepEqual(serializeError(new HiRoPEError('x')), {
      name: 'HiRoPEError',
      message: 'x',
      hirope: true,
    });
    assert.deepEqual(serializeError(undefined), {
      name: 'Error',
      message: 'undefined',
      hirope: false,
    });
    assert.ok(rehydrateError({ name: 'HiRoPEError', message: 'x' }) instanceof HiRoPEError);
  });

  it('passes progress to the call that asked for it, before its answer', async () => {
    const c = client();
    const seen = [];
    const answer = await c.request('progress', ['analysis', 'attention'], {
      progress: (stage) => seen.push(stage),
    });
    assert.deepEqual([...seen, answer], ['analysis', 'attention', 'done']);
    assert.equal(await c.request('progress', ['unheard']), 'done');
  });

  it('cancels: an aborted signal never posts, an abort under way replaces the worker for the other calls', async () => {
    const c = client();
    const first = await c.request('thread');
    const done = new AbortController();
    done.abort(new Error('before'));
    await assert.rejects(
      c.request('spin', 5000, { signal: done.signal }),
      (e) => e.message === 'before',
    );
    assert.equal(await c.request('thread'), first); // the same worker: nothing was posted
    const controller = new AbortController();
    const busy = settled(c.request('spin', 60000, { signal: controller.signal }));
    const waiting = c.request('echo', 'after', { signal: new AbortController().signal });
    const behind = c.request('thread');
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const { error } = await busy;
    assert.ok(isAbort(error), String(error));
    assert.ok(Date.now() - started < 5000);
    // The calls behind it went to a fresh worker.
    assert.equal(await within(waiting), 'after');
    assert.notEqual(await within(behind), first);
    // An abort after the answer changes nothing.
    const late = new AbortController();
    const second = await c.request('thread', undefined, { signal: late.signal });
    late.abort();
    assert.equal(await c.request('thread'), second);
  });

  it('restart(reason) rejects the pending calls; the fresh worker gets the start notices and the sticky requests again', async () => {
    const c = client({ sticky: ['keep'] });
    assert.deepEqual(
      await Promise.all([
        c.request('keep', 'q/k file'),
        c.request('keep', 'q/k file 2'),
        c.request('echo', 'plain'),
      ]),
      [1, 2, 'plain'],
    );
    const first = await c.request('thread');
    const pending = [settled(c.request('spin', 60000)), settled(c.request('echo', 'lost'))];
    const superseded = new Error('a newer request replaced this one');
    c.restart(superseded);
    for (const { error } of await Promise.all(pending)) assert.equal(error, superseded);
    assert.notEqual(await within(c.request('thread')), first);
    // The last payload of each sticky type, posted before anything new; 'gated' needs the notice.
    assert.deepEqual(await c.request('kept'), ['q/k file 2']);
    assert.deepEqual(await c.request('gated', 'x'), ['opened', 'x']);
  });

  it('an aborted sticky request is forgotten: the fresh worker gets the one before it', async () => {
    const c = client({ sticky: ['keepSlowly'] });
    await c.request('keepSlowly', { payload: 'shipped model', ms: 0 });
    const first = await c.request('thread');
    const controller = new AbortController();
    const loading = settled(
      c.request('keepSlowly', { payload: 'checkpoint', ms: 60000 }, { signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 100);
    assert.ok(isAbort((await loading).error));
    assert.notEqual(await within(c.request('thread')), first);
    assert.deepEqual(await c.request('kept'), ['shipped model']);
    // With none before it, nothing is posted again.
    const d = client({ sticky: ['keepSlowly'] });
    const only = new AbortController();
    const alone = settled(
      d.request('keepSlowly', { payload: 'checkpoint', ms: 60000 }, { signal: only.signal }),
    );
    setTimeout(() => only.abort(), 100);
    assert.ok(isAbort((await alone).error));
    assert.deepEqual(await within(d.request('kept')), []);
  });

  it('restart() posts the pending calls again, after the sticky requests; a transferred payload cannot be posted again', async () => {
    const c = client({ sticky: ['keep'] });
    await c.request('keep', 'weights');
    const first = await c.request('thread');
    const busy = c.request('spin', 300);
    const data = new Uint8Array([1, 2]);
    const moved = settled(c.request('received', { data }, { transfer: [data.buffer] }));
    const kept = c.request('kept');
    const thread = c.request('thread');
    c.restart();
    assert.equal(await busy, 'spun');
    const { error } = await moved;
    assert.equal(error.name, 'DataCloneError');
    assert.deepEqual(await kept, ['weights']);
    assert.notEqual(await thread, first);
  });

  it("a failing worker rejects the pending calls with the client's error; terminate(reason) rejects them too", async () => {
    const c = client({ failed: (event) => new HiRoPEError(`failed: ${event.message}`) });
    const pending = [c.request('crash'), c.request('echo', 1)];
    for (const p of pending)
      await assert.rejects(
        p,
        (e) => e instanceof HiRoPEError && e.message === 'failed: the worker crashed',
      );
    const t = client();
    const waiting = t.request('spin', 60000);
    t.terminate(new HiRoPEError('terminated'));
    await assert.rejects(waiting, (e) => e.message === 'terminated');
    assert.equal(t._pending.size, 0);
    // A request after terminate rejects at once with the same kind of error, and never posts.
    for (const type of ['echo', 'spin'])
      await assert.rejects(
        t.request(type, 1),
        (e) => e instanceof HiRoPEError && e.message === 'terminated',
      );
    assert.equal(t._pending.size, 0);
    // Without a reason the later requests still reject (with a plain Error) rather than hang.
    const u = client();
    u.terminate();
    await assert.rejects(u.request('echo', 1), /the worker was terminated/);
  });

  it('a worker that fails to start fails every request with its cause, later ones at once, until a restart', async () => {
    class StartError extends Error {
      constructor(name, message) {
        super(message); // arguments other than (message): a copy must not go through them
        this.name = name;
      }
    }
    let script = './support/failing-worker.mjs';
    const c = new WorkerClient(
      () => new Worker(new URL(script, import.meta.url), { type: 'module' }),
      {
        failed: (event) => new StartError('StartError', `did not start: ${event.message}`),
      },
    );
    clients.push(c);
    const cause = (e) =>
      e instanceof StartError &&
      e.name === 'StartError' &&
      e.message === 'did not start: the import was blocked';
    await within(assert.rejects(c.request('echo', 1), cause));
    // The worker will never answer: a later request rejects at once, with its own error.
    const later = await settled(within(c.request('echo', 2), 2000));
    assert.ok(cause(later.error), String(later.error));
    assert.equal(c._pending.size, 0);
    // restart() tries a fresh worker, which starts this time.
    script = './support/protocol-worker.mjs';
    c.restart();
    assert.equal(await within(c.request('echo', 3)), 3);
  });
});
