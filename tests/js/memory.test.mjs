// Memory as a budget: work whose heap grows with its input stops with a HiRoPEError at the heap
// budget instead of aborting the module, and a module that does abort or trap is replaced by a
// fresh instance, so one failure never poisons the next call. The heap is filled with blocks
// from the module's own malloc first, so that a small input reaches the budget the way a huge one
// would on an empty heap (the same checks, in the same code paths), and every instance here is
// its own (init), never the shared one of the other tests.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import init, { HiRoPEError } from '../../dist/index.js';
import { BUILDS } from './support/both-builds.mjs';

const MiB = 2 ** 20;

/**
 * Fills the heap with 1 MiB malloc blocks, then frees the last ones (contiguous at its top) until
 * `headroom` bytes are free beyond the reserve that budget checks keep: returns a release().
 */
function fillHeap(hr, headroom) {
  const mod = hr._runtime.mod;
  const blocks = [];
  for (;;) {
    const p = mod._malloc(MiB);
    if (!p) break;
    blocks.push(p);
  }
  for (let freed = 0; freed < headroom + hr.memory().reserveBytes; freed += MiB)
    mod._free(blocks.pop());
  return () => {
    for (const p of blocks) mod._free(p);
  };
}

/** Takes every byte malloc can still give (the memory grown to its maximum). */
function exhaustHeap(hr) {
  const mod = hr._runtime.mod;
  for (let size = 256 * MiB; size >= 8; size = Math.floor(size / 2))
    while (mod._malloc(size)) {
      /* keep it */
    }
}

const oom = (e) => e instanceof HiRoPEError && /^out of memory/.test(e.message);

for (const { name, simd } of BUILDS) {
  describe(`memory budget (${name})`, () => {
    it('hr.memory() reports the heap against the ceiling the limits are derived from', async () => {
      const hr = await init({ simd });
      const m = hr.memory();
      assert.equal(m.ceilingBytes, 2 ** 31);
      // The core's ceiling and the memory maximum the module was linked with are one fact.
      assert.equal(hr._runtime.mod.heapStats().linkedMaximumBytes, m.ceilingBytes);
      assert.ok(m.reserveBytes > 0 && m.reserveBytes < m.ceilingBytes / 8);
      assert.ok(m.inUseBytes > 0 && m.inUseBytes <= m.peakBytes && m.peakBytes <= m.memoryBytes);
      hr.analyze('x = 1\n'.repeat(10000), { language: 'python' });
      assert.ok(hr.memory().peakBytes > m.peakBytes, 'the peak follows the work');
      assert.ok(hr.limits.maxSourceBytes >= 8 * MiB && hr.limits.maxSourceBytes < 64 * MiB);
    });

    it('a parse that outgrows the heap stops at the budget with a HiRoPEError, and the next call works', async () => {
      const hr = await init({ simd });
      const release = fillHeap(hr, 40 * MiB);
      // 400 KB of nesting needs ~130 MB of syntax tree: over the 40 MB left.
      const nested = '('.repeat(200000) + ')'.repeat(200000);
      assert.throws(
        () => hr.parse(nested, { language: 'python', timeoutMs: 0 }),
        (e) => oom(e) && /parsing stopped at byte \d+ of 400000 with the heap full/.test(e.message),
      );
      assert.throws(() => hr.analyze(nested, { language: 'javascript', timeoutMs: 0 }), oom);
      release();
      assert.equal(hr._runtime.generation, 0, 'no abort: the same instance');
      assert.deepEqual(hr.parse('x = (1)\n', { language: 'python' }), { hasError: false });
      assert.equal(hr.analyze('def f():\n    return 1\n', { language: 'python' }).units.length, 1);
    });

    it('tokenizing and the model check their memory before they allocate', async () => {
      const hr = await init({ simd, tokenizers: ['cl100k'] });
      const model = await hr.model.load();
      const ids = hr.encode('x = 1');
      const release = fillHeap(hr, 8 * MiB);
      assert.throws(
        () => hr.encode('x = 1\n'.repeat(50000)),
        (e) => oom(e) && /tokenizing/.test(e.message),
      );
      assert.throws(
        () => model.loss('x = 1\n'.repeat(1300)),
        (e) => oom(e) && /model's forward pass/.test(e.message),
      );
      release();
      assert.deepEqual(hr.encode('x = 1'), ids);
      assert.ok(Number.isFinite(model.loss('x = 1\n'.repeat(100)).bitsPerByte));
      model.dispose();
    });

    it('loading a tokenizer.json checks its memory before it parses', async () => {
      const hr = await init({ simd });
      const release = fillHeap(hr, 40 * MiB);
      // qwen3.json is 5.1 MB: its load reserves 12 bytes per byte, over the 40 MB left.
      await assert.rejects(
        hr.loadTokenizer('qwen3'),
        (e) => oom(e) && /loading a tokenizer\.json/.test(e.message),
      );
      release();
      assert.equal(hr._runtime.generation, 0, 'no abort: the same instance');
      await hr.loadTokenizer('qwen3');
      assert.deepEqual(
        hr.decode(hr.encode('def f(): pass', { tokenizer: 'qwen3' }), { tokenizer: 'qwen3' }),
        'def f(): pass',
      );
    });

    it('a module that aborts is replaced: the failing call throws a HiRoPEError, the next one works', async () => {
      const hr = await init({ simd, tokenizers: ['cl100k'] });
      const model = await hr.model.load();
      const before = hr.inverseFrequencies('rope', 64);
      exhaustHeap(hr);
      // A C++ allocation with nothing left: operator new aborts the module.
      assert.throws(
        () => hr.inverseFrequencies('rope', 64),
        (e) =>
          e instanceof HiRoPEError &&
          /stopped \(.*Aborted/.test(e.message) &&
          /fresh instance/.test(e.message),
      );
      assert.equal(hr._runtime.generation, 1);
      assert.ok(hr.memory().memoryBytes < 256 * MiB, 'the fresh instance starts small');
      assert.deepEqual(hr.inverseFrequencies('rope', 64), before);
      // What lived in the old instance: tokenizers are loaded again, the analysis buffer remade,
      // models say they must be loaded again.
      assert.deepEqual([...hr.encode('def f(): pass')], [755, 282, 4658, 1522]);
      assert.equal(
        hr.analyze('def f():\n    pass\n', { language: 'python', tokenizer: 'cl100k' }).units[0]
          .name,
        'f',
      );
      assert.throws(
        () => model.loss('x'),
        (e) => e instanceof HiRoPEError && /load it again/.test(e.message),
      );
      model.dispose(); // no error: its weights went with the old instance
      const again = await hr.model.load();
      assert.ok(Number.isFinite(again.loss('x = 1\n').bitsPerByte));
      again.dispose();
    });

    it('while a fresh instance is still being made, calls say so and dispose() still works', async () => {
      const hr = await init({ simd });
      const model = await hr.model.load();
      const runtime = hr._runtime;
      const respawn = runtime._respawn;
      runtime._respawn = () => {
        throw new Error('refused, as a browser main thread may');
      };
      runtime.reset(); // the asynchronous path
      runtime._respawn = respawn;
      assert.throws(
        () => hr.inverseFrequencies('rope', 8),
        (e) => e instanceof HiRoPEError && /being instantiated again/.test(e.message),
      );
      model.dispose();
      await runtime._pending;
      assert.equal(hr.inverseFrequencies('rope', 8).length, 4);
    });

    it('a trap inside WebAssembly is handled the same way', async () => {
      const hr = await init({ simd, tokenizers: ['cl100k'] });
      const ids = hr.encode('x = 1');
      // A corrupted handle (standing in for a bug in the core): the core reads far outside memory.
      hr._tokenizers.handles.get('cl100k').address = () => 2 ** 31 - 64;
      assert.throws(
        () => hr.encode('x'),
        (e) =>
          e instanceof HiRoPEError &&
          /stopped/.test(e.message) &&
          e.cause instanceof WebAssembly.RuntimeError,
      );
      assert.equal(hr._runtime.generation, 1);
      assert.deepEqual(hr.encode('x = 1'), ids);
    });
  });
}
