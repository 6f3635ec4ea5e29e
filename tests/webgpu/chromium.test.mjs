// WebGPU against WASM in headless Chromium with --enable-unsafe-webgpu (SwiftShader).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

describe('WebGPU backend (headless Chromium)', () => {
  it('matches WASM on every scheme and shape within 1e-4', async () => {
    const server = http.createServer((req, res) => {
      const file = path.join(root, decodeURIComponent(req.url.split('?')[0]));
      const allowed = file.startsWith(path.join(root, 'dist')) || file.startsWith(path.join(root, 'tests', 'webgpu'));
      if (!allowed || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${server.address().port}/tests/webgpu/page.html`);
      await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 300000 });
      const r = JSON.parse(await page.evaluate(() => document.body.dataset.result));
      assert.equal(r.error, undefined, r.error);
      console.log(`# webgpu (chromium, ${r.adapter}): ${r.compared} comparisons, worst relative error ${r.worst.toExponential(2)}`);
      assert.equal(r.backend, 'webgpu');
      assert.deepEqual(r.failures, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
});
