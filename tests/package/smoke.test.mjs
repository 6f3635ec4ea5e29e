// The packed npm package in fresh projects, as users get it: `npm pack`, install the tarball,
// then run a small program in plain Node ESM, a page served as plain ES modules, a Vite build, a
// webpack 5 build and an esbuild bundle (each page in headless Chromium under a strict CSP), and
// type-check a typed usage example with tsc against the installed package.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { launchChromium } from '../../tools/chromium.mjs';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';
import { CSP, bin, installTarball, packTarball, root, tsconfig } from './packed.mjs';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.json': 'application/json',
};

// A byte-level BPE tokenizer.json small enough to inline: the 256 bytes (GPT-2's byte-to-character
// map, id = byte) and one merge, a + b = 256.
const TINY_TOKENIZER = JSON.stringify(tinyTokenizerFile());

// What every page and program computes: a tokenizer load, an analysis and an attention.
const PROGRAM = (importFrom, workerFrom) => `
import init, { HiRoPEError } from '${importFrom}';
${workerFrom ? `import { analyzeInWorker, createWorker } from '${workerFrom}';` : ''}
const TINY = ${JSON.stringify(TINY_TOKENIZER)};
export async function run() {
  const hr = await init();
  await hr.loadTokenizer('cl100k');
  // A tokenizer.json data file (the bundler copies it) and a tokenizer.json of one's own.
  const ds = await hr.loadTokenizer('deepseek-v3');
  const own = await hr.loadTokenizer({ json: TINY });
  const json = { deepseek: Array.from(hr.encode('def add(x, y):', { tokenizer: ds })), own: Array.from(hr.encode('ab a', { tokenizer: own })) };
  const code = 'def add(x, y):\\n    return x + y\\n\\nclass A:\\n    pass\\n';
  const a = hr.analyze(code, { language: 'python', tokenizer: 'cl100k' });
  const n = a.tokens.count;
  const { q, k } = hr.qk({ n, headDim: 8, tokenIds: a.tokens.ids, seed: 3 });
  const p = hr.attention({ q, k, n, headDim: 8, positions: a.positions, scheme: { type: 'hirope', window: 4 } });
  let error = '';
  try { hr.attention({ q, k, n, headDim: 7 }); } catch (e) { error = e instanceof HiRoPEError ? e.message : 'wrong error type'; }
  const result = { backend: hr.backend, ids: Array.from(a.tokens.ids), units: a.units.map((u) => u.kind), rowSum: p.slice(n * (n - 1)).reduce((s, x) => s + x, 0), error, json };
  const model = await hr.model.load();
  result.modelBits = model.loss(code, { scheme: { type: 'hirope', ratio: 0.3 } }).bitsPerByte;
  // What follows a trap or abort: a fresh instance, made synchronously (a page's main thread too).
  hr._runtime.reset();
  result.respawnedAtOnce = hr._runtime.mod !== null && Array.from(hr.analyze(code, { language: 'python', tokenizer: 'cl100k' }).tokens.ids).join() === result.ids.join();
  result.ownAfterReset = Array.from(hr.encode('ab a', { tokenizer: own }));
  ${workerFrom ? "const w = await analyzeInWorker(code, { language: 'python', tokenizer: 'cl100k' }); result.worker = Array.from(w.tokens.ids); result.workerTexts = w.tokens.texts.join('') === code;" : ''}
  ${workerFrom ? "const wk = createWorker(); const wn = await wk.loadTokenizer({ json: TINY }); result.workerOwn = [wn === own, Array.from((await wk.analyze('ab a', { language: 'python', tokenizer: wn })).tokens.ids)]; wk.terminate();" : ''}
  ${
    workerFrom
      ? `// A newer edit cancels an analysis under way: 40,000 quotes keep tree-sitter's error recovery
  // busy for many seconds; the abort answers at once and the next analysis runs in a fresh worker.
  const controller = new AbortController();
  // The outer limit (60 s) is generous: the parse itself would run for minutes.
  const limit = (what) => new Promise((resolve) => setTimeout(() => resolve(what), 60000));
  const slow = analyzeInWorker('"'.repeat(40000), { language: 'javascript', timeoutMs: 0, signal: controller.signal }).then(() => 'finished', (e) => e.name);
  setTimeout(() => controller.abort(), 300);
  result.cancelled = await Promise.race([slow, limit('not cancelled within 60 s')]);
  const after = await Promise.race([analyzeInWorker(code, { language: 'python', tokenizer: 'cl100k' }), limit(null)]);
  result.afterCancel = after !== null && Array.from(after.tokens.ids).join() === result.ids.join();`
      : ''
  }
  return result;
}
`;

const DEEPSEEK_IDS = [3465, 1258, 4042, 14, 383, 2605];

function checkResult(r, { worker = false } = {}) {
  assert.equal(r.backend, 'wasm-simd');
  // cl100k ids of the snippet, from gpt-tokenizer: def add(x, y):\n    return x + y\n\nclass A:\n    pass\n
  assert.deepEqual(r.ids.slice(0, 4), [755, 923, 2120, 11]);
  assert.deepEqual(r.units, ['function', 'class']);
  assert.ok(Math.abs(r.rowSum - 1) < 1e-5);
  assert.match(r.error, /^headDim must be a positive even integer, got 7/);
  // The code model's weights travel with the bundle (data/pybyte.hrm) and load lazily.
  assert.ok(r.modelBits > 0.5 && r.modelBits < 6, `model bits/byte ${r.modelBits}`);
  assert.equal(r.respawnedAtOnce, true);
  // DeepSeek V3's ids of 'def add(x, y):' (@huggingface/tokenizers on its tokenizer.json).
  assert.deepEqual(r.json.deepseek, DEEPSEEK_IDS);
  assert.deepEqual(r.json.own, [256, 32, 97]);
  assert.deepEqual(r.ownAfterReset, [256, 32, 97]);
  if (worker) {
    assert.deepEqual(r.worker, r.ids);
    assert.equal(r.workerTexts, true);
    assert.equal(r.cancelled, 'AbortError');
    assert.equal(r.afterCancel, true);
    assert.deepEqual(r.workerOwn, [true, [256, 32, 97]]);
  }
}

function serve(dir) {
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const file = path.join(
      dir,
      decodeURIComponent(req.url.split('?')[0]) === '/'
        ? 'index.html'
        : decodeURIComponent(req.url.split('?')[0]),
    );
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-security-policy': CSP,
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const PAGE = (src) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>hirope smoke</title></head><body><script type="module" src="${src}"></script></body></html>`;
const PAGE_MAIN = (importFrom, workerFrom) => `${PROGRAM(importFrom, workerFrom)}
run().then((r) => { document.body.dataset.result = JSON.stringify(r); }, (e) => { document.body.dataset.result = JSON.stringify({ failed: String(e && e.stack || e) }); });
`;

describe('the npm package in other projects', () => {
  let tmp, tarball, browser;
  const project = (name) => {
    const dir = path.join(tmp, name);
    installTarball(dir, tarball, `smoke-${name}`);
    return dir;
  };
  async function runPage(dir) {
    const server = await serve(dir);
    try {
      const page = await browser.newPage();
      const problems = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      await page.goto(`http://127.0.0.1:${server.address().port}/`);
      await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 60000 });
      const r = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      assert.equal(r.failed, undefined, r.failed);
      assert.deepEqual(problems, []);
      await page.close();
      return r;
    } finally {
      server.close();
    }
  }

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-smoke-'));
    tarball = packTarball(tmp);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('ships only what it needs', () => {
    // The files of the tarball users install (npm puts each under package/), not a second pack.
    const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 1 << 24 })
      .split('\n')
      .filter((entry) => entry && !entry.endsWith('/'))
      .map((entry) => entry.replace(/^package\//, ''));
    for (const f of [
      'dist/index.js',
      'dist/core.js',
      'dist/api.js',
      'dist/worker.js',
      'dist/index.d.ts',
      'dist/hirope-simd.wasm',
      'dist/hirope-core-scalar.wasm',
      'dist/data/cl100k.bin',
      'dist/data/o200k.bin',
      'dist/data/llama3.json',
      'dist/data/qwen3.json',
      'dist/data/deepseek-v3.json',
      'dist/data/gemma3.json',
      'dist/model.js',
      'dist/data/pybyte.hrm',
      'dist/data/pyjs-llama2.hrm',
      'bin/hirope.mjs',
      'lib/model-eval.mjs',
      'lib/png.mjs',
      'dist/registry.js',
      'dist/registry-data.js',
      'dist/model-urls.js',
      'dist/colormap.js',
    ]) {
      assert.ok(list.includes(f), f);
    }
    // The runtime data (models/registry.json) ships as dist/registry-data.js: nothing of training/.
    assert.ok(
      !list.some((f) => /^(src|tests|build|training|models)\//.test(f)),
      list.filter((f) => /^(src|tests|build|training|models)\//.test(f)).join(', '),
    );
  });

  it('runs in plain Node ESM, full and core entries', () => {
    const dir = project('node');
    fs.writeFileSync(
      path.join(dir, 'main.mjs'),
      `${PROGRAM('hirope')}
import core from 'hirope/core';
import { MODEL_NAMES, DEFAULT_MODEL, truncateStride } from 'hirope/registry';
import { LUTS } from 'hirope/colormap';
import { WorkerClient } from 'hirope/protocol';
import { RECALL_CLASSES } from 'hirope/recall';
const r = await run();
const c = await core();
r.core = { hasAnalysis: c.hasAnalysis, backend: c.backend };
r.entries = { models: MODEL_NAMES, model: DEFAULT_MODEL, stride: truncateStride(256),
  luts: typeof LUTS, client: typeof WorkerClient, classes: RECALL_CLASSES.length };
console.log(JSON.stringify(r));`,
    );
    const r = JSON.parse(
      execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' }),
    );
    checkResult(r);
    assert.deepEqual(r.core, { hasAnalysis: false, backend: 'wasm-simd' });
    // The subpath entries the playground imports (package.json "exports"), from an installed package.
    assert.deepEqual(r.entries, {
      models: ['pybyte', 'pyjs-llama2'],
      model: 'pybyte',
      stride: 32,
      luts: 'object',
      client: 'function',
      classes: 4,
    });
    const cli = execFileSync(path.join(dir, 'node_modules/.bin/hirope'), ['--help'], {
      encoding: 'utf8',
    });
    assert.match(cli, /usage: hirope/);
  });

  it('runs in a page served as plain ES modules, with the worker helper', async () => {
    const dir = project('esm');
    fs.writeFileSync(
      path.join(dir, 'main.js'),
      PAGE_MAIN(
        './node_modules/hirope/dist/index.js',
        './node_modules/hirope/dist/worker-client.js',
      ),
    );
    fs.writeFileSync(path.join(dir, 'index.html'), PAGE('./main.js'));
    checkResult(await runPage(dir), { worker: true });
  });

  it('runs in a Vite build', async () => {
    const dir = project('vite');
    fs.writeFileSync(path.join(dir, 'src/main.js'), PAGE_MAIN('hirope', 'hirope/worker'));
    fs.writeFileSync(path.join(dir, 'index.html'), PAGE('/src/main.js'));
    execFileSync(process.execPath, [bin('vite', 'bin/vite.js'), 'build', '--logLevel', 'error'], {
      cwd: dir,
    });
    checkResult(await runPage(path.join(dir, 'dist')), { worker: true });
  });

  it('runs in a webpack 5 build', async () => {
    const dir = project('webpack');
    fs.writeFileSync(path.join(dir, 'src/main.js'), PAGE_MAIN('hirope', 'hirope/worker'));
    fs.writeFileSync(
      path.join(dir, 'webpack.config.cjs'),
      `module.exports = { mode: 'production', entry: './src/main.js', output: { path: require('path').resolve(__dirname, 'dist'), filename: 'main.js', publicPath: '' }, performance: { hints: false } };`,
    );
    execFileSync(
      process.execPath,
      [bin('webpack-cli', 'bin/cli.js'), '--config', 'webpack.config.cjs'],
      { cwd: dir, stdio: 'pipe' },
    );
    fs.writeFileSync(path.join(dir, 'dist/index.html'), PAGE('./main.js'));
    checkResult(await runPage(path.join(dir, 'dist')), { worker: true });
  });

  it('runs in an esbuild bundle (with the .wasm files copied beside it, as README says)', async () => {
    const dir = project('esbuild');
    fs.writeFileSync(path.join(dir, 'src/main.js'), PAGE_MAIN('hirope'));
    execFileSync(
      bin('esbuild', 'bin/esbuild'),
      [
        'src/main.js',
        '--bundle',
        '--format=esm',
        '--splitting',
        '--outdir=out',
        '--log-level=error',
      ],
      { cwd: dir },
    );
    const dist = path.join(dir, 'node_modules/hirope/dist');
    for (const f of fs.readdirSync(dist))
      if (f.endsWith('.wasm')) fs.copyFileSync(path.join(dist, f), path.join(dir, 'out', f));
    fs.cpSync(path.join(dist, 'data'), path.join(dir, 'out/data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'out/index.html'), PAGE('./main.js'));
    checkResult(await runPage(path.join(dir, 'out')));
  });

  it('type-checks a typed usage example with tsc', () => {
    const dir = project('types');
    fs.copyFileSync(path.join(root, 'tests/package/usage.ts'), path.join(dir, 'usage.ts'));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), tsconfig('usage.ts'));
    execFileSync(process.execPath, [bin('typescript', 'bin/tsc'), '-p', '.'], {
      cwd: dir,
      encoding: 'utf8',
    });
    fs.writeFileSync(
      path.join(dir, 'usage.ts'),
      "import init from 'hirope';\nconst hr = await init();\nhr.attention({ q: new Float32Array(4), k: new Float32Array(4), n: 2, headDim: '2' });\n",
    );
    // And a wrong call is caught: the string headDim, and nothing else.
    assert.throws(
      () =>
        execFileSync(process.execPath, [bin('typescript', 'bin/tsc'), '-p', '.'], {
          cwd: dir,
          encoding: 'utf8',
          stdio: 'pipe',
        }),
      (e) => {
        assert.equal(e.status, 2, e.stdout);
        assert.equal(
          e.stdout.trim(),
          "usage.ts(3,70): error TS2322: Type 'string' is not assignable to type 'number'.",
        );
        return true;
      },
    );
  });
});
