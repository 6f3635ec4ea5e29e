// WebGPU against WASM in headless Chromium with --enable-unsafe-webgpu (SwiftShader): every scheme
// on fixed shapes, then the property of property.mjs (random shapes, scales, calls in flight, a
// device lost and recovered), then checkpoints' linear layers and attention on the GPU
// (checkpoints.mjs, the folders served at /checkpoints/), and Model mode's checkpoint loss on the
// GPU. A crashed tab fails the test with the last case it logged.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { launchChromium } from '../../tools/chromium.mjs';
import { propertySeed } from './seed.mjs';
import { writeCheckpointFixtures } from '../js/support/checkpoint-fixtures.mjs';
import { checkpointSideOptions, checkpointSite } from '../browser/checkpoint-site.mjs';
import { nextModelRun } from '../browser/helpers.mjs';
import { encodeModelState, CHECKPOINT_DEFAULTS } from '../../web/src/shared/model-state.js';
import { normalizeWith } from '../../web/src/shared/link-state.js';
import init from '../../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = {
  '.html': 'text/html',
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json', // JSON modules (cases.mjs: the real layers' fixture and configs)
};
const FAST_CHECK = '/tests/webgpu/fast-check.bundle.mjs';

describe('WebGPU backend (headless Chromium)', () => {
  let server, browser, base, checkpoints;
  before(async () => {
    // Checkpoints of every architecture with transformers' float64 logits.
    checkpoints = writeCheckpointFixtures('hirope-gpu-checkpoints-');
    // fast-check as one ES module for the page (its package imports pure-rand by bare names).
    const bundle = await esbuild.build({
      stdin: { contents: "export { default } from 'fast-check';", resolveDir: root },
      bundle: true,
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const fastCheck = bundle.outputFiles[0].contents;
    await esbuild.stop(); // its service process would keep this file's process alive
    server = http.createServer((req, res) => {
      const url = decodeURIComponent(req.url.split('?')[0]);
      if (url === FAST_CHECK) {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(fastCheck);
        return;
      }
      const file = url.startsWith('/checkpoints/')
        ? path.join(checkpoints, url.slice('/checkpoints/'.length))
        : path.join(root, url);
      const allowed =
        file.startsWith(`${checkpoints}${path.sep}`) ||
        file.startsWith(path.join(root, 'dist')) ||
        file.startsWith(path.join(root, 'tests', 'webgpu')) ||
        file === path.join(root, 'tests', 'fixtures', 'real-layers.json');
      if (!allowed || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    base = `http://localhost:${server.address().port}`;
    browser = await launchChromium({ webgpu: true, gpu: true });
  });
  after(async () => {
    await browser?.close();
    server?.close();
    if (checkpoints) fs.rmSync(checkpoints, { recursive: true, force: true });
  });

  // Opens a page and waits for its result; a crash rejects with the last case the page logged.
  async function result(url) {
    const page = await browser.newPage();
    let last = '(none)';
    page.on('console', (m) => {
      if (m.text().startsWith('case ')) last = m.text();
    });
    try {
      const crashed = new Promise((_, reject) =>
        page.on('crash', () => reject(new Error(`the tab crashed; last case: ${last}`))),
      );
      await page.goto(url);
      const done = page.waitForFunction(() => document.body.dataset.result, null, {
        timeout: 600000,
      });
      await Promise.race([done, crashed]);
      const r = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      if (r.error) r.error += `\nlast case: ${last}`;
      return r;
    } finally {
      await page.close();
    }
  }

  it('matches WASM on every scheme and shape within 1e-4', async () => {
    const r = await result(`${base}/tests/webgpu/page.html`);
    assert.equal(r.error, undefined, r.error);
    console.log(
      `# webgpu (chromium, ${r.adapter}): ${r.compared} comparisons, worst relative error ${r.worst.toExponential(2)}; ${r.realLayers.cases} real layers against transformers, worst |error| ${r.realLayers.worst.toExponential(2)}`,
    );
    assert.equal(r.backend, 'webgpu');
    assert.deepEqual(r.failures, []);
  });

  it("runs a checkpoint's linear layers and attention on the GPU: WASM's logits and losses, transformers' logits", async () => {
    const r = await result(`${base}/tests/webgpu/checkpoints.html`);
    assert.equal(r.error, undefined, r.error);
    console.log(
      `# webgpu (chromium, ${r.adapter}): ${r.checkpoints} checkpoints, worst ${r.worst.toExponential(2)} of the logits' range`,
    );
    assert.ok(r.checkpoints >= 9);
  });

  it("runs a checkpoint's loss on the GPU in Model mode (?gpu=any takes SwiftShader): the API's loss under A and B", async () => {
    const site = await checkpointSite('hirope-gpu-page-');
    const code =
      'class Circle:\n    def __init__(self, radius):\n        self.radius = radius\n\n    def area(self):\n        return 3.14159 * self.radius ** 2\n';
    const state = normalizeWith(CHECKPOINT_DEFAULTS, {
      ...CHECKPOINT_DEFAULTS,
      code,
      b: { ...CHECKPOINT_DEFAULTS.b, window: 32 },
    });
    const page = await browser.newPage();
    try {
      await page.goto(`${site.url}model.html?gpu=any${await encodeModelState(state)}`);
      await page.waitForSelector('#checkpoint-source:not([hidden])');
      const folder = path.join(site.fixtures, 'pybyte-llama');
      await nextModelRun(page, () =>
        page.setInputFiles(
          '#checkpoint-files',
          ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => path.join(folder, f)),
        ),
      );
      const status = await page.locator('#status').textContent();
      assert.match(status, /parameters, wasm-simd, its loss on WebGPU\): A [\d.]+ bits\/token/);
      // The same loss as the API's WebAssembly forward (the status gives 3 decimals).
      const hr = await init();
      const model = await hr.model.fromPretrained(folder);
      try {
        const sides = checkpointSideOptions(state.b);
        for (const [side, options] of Object.entries(sides)) {
          const label = side.toUpperCase();
          const shown = Number(new RegExp(`\\b${label} ([\\d.]+)( bits)?`).exec(status)[1]);
          const { bitsPerToken } = model.loss(code, options);
          assert.ok(
            Math.abs(shown - bitsPerToken) <= 6e-4,
            `${label}: ${shown} against ${bitsPerToken}`,
          );
        }
      } finally {
        model.dispose();
      }
    } finally {
      await page.close();
      site.close();
    }
  });

  it('holds the property on random shapes, scales and calls in flight; a lost device falls back and a new one works', async () => {
    const { seed, runs } = propertySeed('chromium');
    const r = await result(`${base}/tests/webgpu/property.html?seed=${seed}&runs=${runs}`);
    assert.equal(r.error, undefined, `seed ${seed}: ${r.error}`);
    assert.equal(r.runs, runs);
    assert.equal(r.backend, 'webgpu');
    assert.equal(r.recovered, 'webgpu');
  });
});
