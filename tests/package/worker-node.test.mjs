// 'hirope/worker' in plain Node, as a user gets it: the packed tarball installed offline into a
// fresh project, used with no Worker shim (Node has no global Worker; the entry runs its worker on
// node:worker_threads). The results equal the same calls on the main thread; terminate() rejects
// the calls waiting and every later call with a HiRoPEError; the script exits by itself. And a
// browser bundle of the entry does not pull node:worker_threads in.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { installTarball, packTarball, root } from './packed.mjs';

const PROGRAM = `
import init, { HiRoPEError } from 'hirope';
import { analyzeInWorker, createWorker } from 'hirope/worker';
const result = { globalWorker: typeof globalThis.Worker };
const code = 'def add(x, y):\\n    return x + y\\n\\nclass A:\\n    pass\\n';
const hr = await init();
await hr.loadTokenizer('cl100k');
const here = hr.analyze(code, { language: 'python', tokenizer: 'cl100k' });
const a = await analyzeInWorker(code, { language: 'python', tokenizer: 'cl100k' });
result.sameIds = Array.from(a.tokens.ids).join() === Array.from(here.tokens.ids).join();
result.units = a.units.map((u) => u.kind);
result.texts = a.tokens.texts.join('') === code;
const n = 6, headDim = 8;
const q = Float32Array.from({ length: n * headDim }, (_, i) => Math.sin(i));
const k = Float32Array.from({ length: n * headDim }, (_, i) => Math.cos(i));
const w = createWorker({ simd: true });
const got = await w.attention({ q, k, n, headDim, scheme: 'rope' });
const want = hr.attention({ q, k, n, headDim, scheme: 'rope' });
result.attention = got instanceof Float32Array && got.every((x, i) => x === want[i]);
const describeError = (e) => (e instanceof HiRoPEError ? 'HiRoPEError: ' : (e?.name ?? typeof e) + ': ') + e?.message;
result.badCall = await w.attention({ q, k, n, headDim: 7 }).then(() => 'resolved', describeError);
// Pending when terminate() comes (the promises exist before it), then called after it.
const pending = [w.attention({ q, k, n, headDim }), w.analyze(code, { language: 'python', tokenizer: 'o200k' })];
w.terminate();
const later = [w.analyze(code, { language: 'python' }), w.attention({ q, k, n, headDim })];
result.afterTerminate = await Promise.all([...pending, ...later].map((p) => p.then(() => 'resolved', describeError)));
console.log(JSON.stringify(result));
// No process.exit: the script must end by itself (an idle worker thread does not hold it open).
`;

describe('hirope/worker in Node from the packed tarball, with no Worker shim', () => {
  let tmp, dir;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-worker-node-'));
    const tarball = packTarball(tmp);
    dir = installTarball(path.join(tmp, 'project'), tarball, 'worker-node');
  });
  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('analyzeInWorker and createWorker run on worker_threads and give the main thread results', () => {
    fs.writeFileSync(path.join(dir, 'main.mjs'), PROGRAM);
    // The timeout fails the test (instead of hanging it) if a call never settles or the worker
    // keeps the process alive.
    const r = JSON.parse(
      execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60000 }),
    );
    assert.equal(r.globalWorker, 'undefined');
    assert.equal(r.sameIds, true);
    assert.deepEqual(r.units, ['function', 'class']);
    assert.equal(r.texts, true);
    assert.equal(r.attention, true);
    assert.match(r.badCall, /^HiRoPEError: headDim must be a positive even integer, got 7/);
    assert.deepEqual(
      r.afterTerminate,
      Array(4).fill('HiRoPEError: the hirope worker was terminated'),
    );
  });

  it('where there is neither Worker nor Node, createWorker throws and analyzeInWorker rejects with a HiRoPEError', () => {
    // Node without its process global stands for such a runtime (before: a ReferenceError, thrown).
    fs.writeFileSync(
      path.join(dir, 'bare.mjs'),
      `const real = globalThis.process;
delete globalThis.process;
const { createWorker, analyzeInWorker } = await import('hirope/worker');
const { HiRoPEError } = await import('hirope');
const seen = (e) => (e instanceof HiRoPEError ? 'HiRoPEError: ' : e?.name + ': ') + e?.message;
const out = [];
try { createWorker(); out.push('created'); } catch (e) { out.push(seen(e)); }
const call = analyzeInWorker('x = 1', { language: 'python' });
out.push(call instanceof Promise ? 'a promise' : 'not a promise');
await call.then(() => out.push('resolved'), (e) => out.push(seen(e)));
globalThis.process = real;
console.log(JSON.stringify(out));
`,
    );
    const out = JSON.parse(
      execFileSync(process.execPath, ['bare.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60000 }),
    );
    const refused =
      'HiRoPEError: hirope/worker needs Web Workers (a browser, Deno) or node:worker_threads (Node); this environment has neither';
    assert.deepEqual(out, [refused, 'a promise', refused]);
  });

  it('a browser bundle of hirope/worker does not import node:worker_threads', () => {
    fs.writeFileSync(
      path.join(dir, 'page.js'),
      "import { analyzeInWorker } from 'hirope/worker';\nglobalThis.run = analyzeInWorker;\n",
    );
    // No --external: a static import of a node: module fails a browser-platform bundle.
    execFileSync(
      path.join(root, 'node_modules/esbuild/bin/esbuild'),
      [
        'page.js',
        '--bundle',
        '--format=esm',
        '--platform=browser',
        '--outfile=out/page.js',
        '--log-level=error',
      ],
      { cwd: dir },
    );
    const bundle = fs.readFileSync(path.join(dir, 'out/page.js'), 'utf8');
    assert.doesNotMatch(bundle, /from\s*["']node:worker_threads["']/);
    assert.doesNotMatch(bundle, /require\(["']node:worker_threads["']\)/);
    // The browser path keeps the literal new Worker(new URL(...)) that bundlers rewrite.
    assert.match(
      bundle,
      /new Worker\(new URL\("\.\/worker\.js", import\.meta\.url\), \{ type: "module" \}\)/,
    );
  });
});
