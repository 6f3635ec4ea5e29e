// The starter page in headless Chromium under its strict CSP: it loads the WASM module, draws the
// heatmap, and the pixels follow the causal mask.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { createServer } from '../../web/serve.mjs';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

describe('starter page (headless Chromium)', () => {
  let server, browser, url;
  before(async () => {
    server = createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}/`;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ARGS });
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('draws a causal heatmap with the WASM module', async () => {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(url);
    await page.waitForSelector('canvas[data-ready=true]', { timeout: 30000 });
    assert.match(await page.textContent('#status'), /hirope: 512 tokens, head dim 64; last runs: wasm-simd [\d.]+ ms/);
    const pixels = await page.evaluate(() => {
      const c = document.getElementById('heatmap');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const at = (i, j) => Array.from(d.subarray(4 * (i * c.width + j), 4 * (i * c.width + j) + 3));
      return { diagonal: at(100, 100), above: at(100, 300), size: c.width };
    });
    assert.equal(pixels.size, 512);
    assert.deepEqual(pixels.above, [0, 0, 4]); // masked: probability 0
    assert.ok(pixels.diagonal.reduce((a, b) => a + b) > 300); // the row maximum is bright
    assert.deepEqual(problems, []);
  });

  it('switches to the WebGPU backend and shows each backend\'s time', async () => {
    const gpuBrowser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [...ARGS, '--enable-unsafe-webgpu'] });
    try {
      const page = await gpuBrowser.newPage();
      await page.goto(url);
      await page.waitForSelector('canvas[data-ready=true]');
      await page.fill('input[name=n]', '64');
      await page.dispatchEvent('input[name=n]', 'input');
      await page.waitForFunction(() => document.getElementById('status').textContent.includes('64 tokens'));
      await page.selectOption('select[name=backend]', 'webgpu');
      await page.waitForFunction(() => document.getElementById('status').textContent.includes('WebGPU'), null, { timeout: 60000 });
      assert.match(await page.textContent('#status'), /last runs: wasm-simd [\d.]+ ms, WebGPU [\d.]+ ms/);
    } finally {
      await gpuBrowser.close();
    }
  });

  it('redraws on a control change and shows errors as text', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('canvas[data-ready=true]');
    await page.selectOption('select[name=scheme]', 'rope');
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('rope:'));
    await page.fill('input[name=headDim]', '7');
    await page.dispatchEvent('input[name=headDim]', 'input');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    assert.match(await page.textContent('#status'), /^HiRoPEError: headDim must be a positive even integer, got 7/);
  });
});
