// The playground in headless Chromium under its strict CSP: it loads, redraws on edits and control
// changes, its heatmap pixels equal the colours of the API's probabilities, a shared URL gives the
// same view back, pasted markup stays text, the controls work from the keyboard, exports work, big
// inputs degrade gracefully, and errors show as text. Screenshots go to build/screenshots/.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startSite, openPage, screenshot, expectedHeatmaps, readCells, fingerprint, sampleCells, api, ARGS } from './helpers.mjs';
import { chromium } from 'playwright-core';
import { MARGIN } from '../../web/src/heatmap.js';
import { SAMPLES } from '../../web/src/samples.js';

const SMALL = `def area(r):
    return 3.14159 * r * r


class Box:
    def __init__(self, w, h):
        self.w = w
        self.h = h
`;

async function ready(page) {
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
}
/** Waits for the next redraw after action() and returns the status text. */
async function redraw(page, action) {
  const done = page.evaluate(() => new Promise((resolve) => document.addEventListener('hirope:redraw', () => resolve(), { once: true })));
  await action();
  await done;
  return page.textContent('#status');
}
async function setCode(page, code) {
  return redraw(page, () =>
    page.evaluate((text) => {
      const content = document.querySelector('#editor').shadowRoot.querySelector('.cm-content');
      content.focus();
      document.execCommand('selectAll');
      const data = new DataTransfer();
      data.setData('text/plain', text);
      content.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, code),
  );
}
const editorText = (page) => page.evaluate(() => Array.from(document.querySelector('#editor').shadowRoot.querySelectorAll('.cm-line'), (l) => l.textContent).join('\n'));
const canvasPixels = (page, id) => fingerprint(page, `#${id} canvas`);

describe('playground (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it('loads under the strict CSP, draws everything, and looks right in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const page = await openPage(site.browser, site.url, { colorScheme });
      await ready(page);
      const status = await page.textContent('#status');
      assert.match(status, /^\d+ tokens \(Python, lexical\), 5 units, \d+ statements · redraw [\d.]+ ms/);
      assert.match(status, /attention A\+B: wasm-simd [\d.]+ ms/);
      for (const id of ['map-a', 'map-b', 'map-diff']) assert.ok(await page.$(`#${id} canvas`));
      assert.equal(await page.locator('#distances canvas').count(), 5); // RoPE, ReRoPE, Self-Extend, HiRoPE x 2 bands
      assert.equal(await page.locator('#angles canvas').count(), 2);
      assert.equal(await page.locator('#decay canvas').count(), 1);
      // Tokens are marked in the editor, coloured by unit.
      assert.ok((await page.locator('#editor .hr-tok').count()) > 100);
      assert.match(await page.textContent('#ratio-hint-b'), /Split% for training length 512: 47\.8% \(16 of 32 pairs\); the token band has 16\. Within it\./);
      await screenshot(page, `playground-${colorScheme}`);
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });

  it('draws the colours of the API\'s probabilities, and redraws on scheme and parameter changes', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const n = (await expectedHeatmaps(SMALL, {})).n;
    const cells = sampleCells(n);
    const check = async (state) => {
      const expected = await expectedHeatmaps(SMALL, state);
      for (const which of ['a', 'b', 'diff']) {
        const got = await readCells(page, `#map-${which} canvas`, cells, { margin: MARGIN, n });
        cells.forEach(([i, j], c) => assert.deepEqual(got[c].slice(0, 3), expected.colour(which, i, j), `${which} cell (${i}, ${j})`));
      }
      const masked = await readCells(page, '#map-a canvas', [[0, n - 1], [3, 5]], { margin: MARGIN, n });
      assert.deepEqual(masked.map((p) => p[3]), [0, 0]); // above the diagonal: transparent
    };
    await check({});
    // The sample has fewer tokens than the default window, so a small window makes schemes differ.
    let before = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.fill('#c-b-window', '5'));
    assert.notEqual(await canvasPixels(page, 'map-b'), before);
    before = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.selectOption('#c-b-type', 'rerope'));
    assert.notEqual(await canvasPixels(page, 'map-b'), before);
    await check({ b: { type: 'rerope', window: 5 } });
    await redraw(page, () => page.selectOption('#c-b-type', 'hirope'));
    const half = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.fill('#c-b-ratio', '0.25'));
    assert.notEqual(await canvasPixels(page, 'map-b'), half);
    await check({ b: { type: 'hirope', window: 5, ratio: 0.25 } });
    await redraw(page, () => page.selectOption('#c-source', 'seeded'));
    await check({ source: 'seeded', b: { type: 'hirope', window: 5, ratio: 0.25 } });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('puts the whole state in the URL: a shared link gives the same view back', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    await redraw(page, () => page.selectOption('#c-a-type', 'self-extend'));
    await redraw(page, () => page.fill('#c-headDim', '32'));
    await redraw(page, () => page.fill('#c-train', '64'));
    await page.waitForFunction(() => location.hash.startsWith('#s='));
    await page.waitForTimeout(300); // the URL is written shortly after the redraw
    const link = page.url();
    const views = await Promise.all(['map-a', 'map-b', 'map-diff'].map((id) => canvasPixels(page, id)));
    const other = await openPage(site.browser, link);
    await ready(other);
    assert.equal(await other.inputValue('#c-a-type'), 'self-extend');
    assert.equal(await other.inputValue('#c-headDim'), '32');
    assert.equal(await other.inputValue('#c-train'), '64');
    assert.equal(await editorText(other), SMALL);
    assert.deepEqual(await Promise.all(['map-a', 'map-b', 'map-diff'].map((id) => canvasPixels(other, id))), views);
    assert.deepEqual([...page.problems, ...other.problems], []);
    await page.context().close();
    await other.context().close();
  });

  it('detects the language of pasted code and shows pasted markup only as text', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SAMPLES.go);
    await page.waitForFunction(() => document.querySelector('#c-language').value === 'go');
    const attack = '<img src=x onerror=alert(1)>\n</script><script>alert(2)</script>\n<b onmouseover=alert(3)>x</b>\n';
    await setCode(page, attack);
    assert.equal(await editorText(page), attack);
    // Hover a token: the card shows its text as characters. (Pasting may have re-detected the
    // language and redrawn; let that settle first.)
    await page.waitForTimeout(500);
    await page.waitForFunction(() => document.getElementById('progress').hidden);
    const box = await page.locator('#editor .hr-tok').first().boundingBox();
    await page.mouse.move(box.x + 40, box.y + 200);
    await page.mouse.move(box.x + 2, box.y + box.height / 2, { steps: 4 });
    await page.waitForSelector('#editor .hr-card', { timeout: 10000 });
    assert.match(await page.textContent('#editor .hr-card'), /token0 of \d+text"<"/);
    // A row click writes token texts into the query line, also as text.
    await page.click('#map-a canvas', { position: { x: 300, y: 400 } });
    await page.waitForFunction(() => document.getElementById('query-info').textContent.startsWith('Query'));
    const injected = await page.evaluate(() => {
      const shadow = document.querySelector('#editor').shadowRoot;
      return document.querySelectorAll('img, b, script:not([src])').length + shadow.querySelectorAll('img, b, script').length;
    });
    assert.equal(injected, 0);
    await page.waitForTimeout(200);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('works from the keyboard: controls in tab order, heatmap rows with the arrow keys', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const reached = new Set();
    await page.focus('#c-tokenizer');
    for (let i = 0; i < 40; i++) {
      reached.add(await page.evaluate(() => document.activeElement.id || document.activeElement.closest('figure')?.id || document.activeElement.tagName));
      await page.keyboard.press('Tab');
    }
    for (const id of ['c-headDim', 'c-source', 'backend', 'c-a-type', 'c-b-type', 'c-b-ratio', 'c-b-window', 'map-a', 'map-b', 'map-diff']) assert.ok(reached.has(id), `${id} is reachable by Tab`);
    await page.focus('#c-b-type');
    await redraw(page, () => page.keyboard.press('ArrowUp')); // HiRoPE -> RoPE
    assert.equal(await page.inputValue('#c-b-type'), 'rope');
    await page.focus('#c-b-type');
    await redraw(page, () => page.keyboard.press('ArrowDown'));
    assert.equal(await page.inputValue('#c-b-type'), 'hirope');
    await page.focus('#c-b-ratio');
    await redraw(page, () => page.keyboard.press('ArrowLeft'));
    assert.equal(await page.inputValue('#c-b-ratio'), '0.45');
    await page.focus('#map-a canvas');
    await page.keyboard.press('End');
    await page.waitForFunction(() => /^Query \d+/.test(document.getElementById('query-info').textContent));
    const last = Number((await page.textContent('#query-info')).match(/^Query (\d+)/)[1]);
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction((q) => document.getElementById('query-info').textContent.startsWith(`Query ${q - 1} `), last);
    assert.ok((await page.locator('#editor [class*=hr-heat]').count()) > 0, 'the query row is highlighted in the code');
    await page.keyboard.press('+');
    await page.waitForFunction(() => document.getElementById('zoom-info').textContent.startsWith('Zoomed'));
    await page.keyboard.press('0');
    await page.waitForFunction(() => document.getElementById('zoom-info').textContent === '');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('exports a heatmap as PNG and its numbers as CSV', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#map-b button:text("PNG")')]);
    const bytes = fs.readFileSync(await png.path());
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    assert.equal(png.suggestedFilename(), 'hirope-b.png');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#map-a button:text("CSV")')]);
    const rows = fs.readFileSync(await csv.path(), 'utf8').trim().split('\n').map((l) => l.split(','));
    const expected = await expectedHeatmaps(SMALL, {});
    assert.equal(rows.length, expected.n + 1);
    assert.equal(rows[0][0], 'query\\key');
    for (const [i, j] of sampleCells(expected.n, 20)) assert.equal(Number(rows[i + 1][j + 1]), expected.probs.a[i * expected.n + j]);
    assert.equal(rows[1][2], ''); // masked
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('degrades gracefully on a big input: downsampled, progress shown, the page stays responsive', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const big = SAMPLES.python.repeat(16); // ~6,000 tokens
    await page.evaluate(() => {
      window.longestGap = 0;
      let last = performance.now();
      setInterval(() => {
        const now = performance.now();
        window.longestGap = Math.max(window.longestGap, now - last);
        last = now;
      }, 10);
      window.progressSeen = false;
      new MutationObserver(() => (window.progressSeen ||= !document.getElementById('progress').hidden)).observe(document.getElementById('progress'), { attributes: true });
    });
    const status = await setCode(page, big);
    assert.match(status, /The heatmaps show the first 4096 of \d+ tokens\./);
    assert.match(await page.textContent('#map-a .legend'), /Downsampled/);
    assert.ok(await page.evaluate(() => window.progressSeen), 'the progress indicator showed');
    const gap = await page.evaluate(() => window.longestGap);
    assert.ok(gap < 1000, `the main thread was blocked for ${gap} ms`);
    // Zoom by dragging: the region shrinks to real cells.
    await page.locator('#map-a canvas').scrollIntoViewIfNeeded();
    const box = await page.locator('#map-a canvas').boundingBox();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.55, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => document.getElementById('zoom-info').textContent.startsWith('Zoomed'));
    assert.doesNotMatch(await page.textContent('#map-a .legend'), /Downsampled/);
    await screenshot(page, 'playground-big-zoomed');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('shows bad settings and bad q/k files as clear errors', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await page.fill('#c-headDim', '7');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    assert.match(await page.textContent('#status'), /^HiRoPEError: headDim must be a positive even integer, got 7/);
    await page.fill('#c-headDim', '64');
    await page.waitForFunction(() => !document.getElementById('status').classList.contains('error'));
    await page.selectOption('#c-source', 'file');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    assert.match(await page.textContent('#status'), /load a q\/k JSON file first/);
    await page.setInputFiles('#qk-file', { name: 'qk.json', mimeType: 'application/json', buffer: Buffer.from('{"headDim": 4, "q": [[1,2,3,4]], "k": [[1,2,3,4]]}') });
    await page.waitForFunction(() => /q\/k file has 1 rows but the code has \d+ tokens/.test(document.getElementById('status').textContent));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('takes q/k rows from a file', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const hr = await api();
    const n = hr.analyze(SMALL, { language: 'python' }).tokens.count;
    const rows = (seed) => Array.from({ length: n }, (_, i) => Array.from({ length: 8 }, (_, c) => Math.sin(seed * (i + 1) * (c + 1))));
    await page.selectOption('#c-source', 'file');
    await redraw(page, () => page.setInputFiles('#qk-file', { name: 'qk.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ headDim: 8, q: rows(1), k: rows(2) })) }));
    assert.match(await page.textContent('#status'), /Head dimension 8 comes from the q\/k file/);
    assert.match(await page.textContent('#qk-file-label'), /q\/k: qk\.json/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('runs the scalar build (browsers without WebAssembly SIMD) with the same colours', async () => {
    const page = await openPage(site.browser, `${site.url}?simd=0`);
    await ready(page);
    await setCode(page, SMALL);
    assert.match(await page.textContent('#status'), /attention A\+B: wasm-scalar [\d.]+ ms/);
    const expected = await expectedHeatmaps(SMALL, {});
    const cells = sampleCells(expected.n);
    for (const which of ['a', 'b']) {
      const got = await readCells(page, `#map-${which} canvas`, cells, { margin: MARGIN, n: expected.n });
      // The scalar kernels round differently from the SIMD ones: allow one colour step.
      cells.forEach(([i, j], c) => expected.colour(which, i, j).forEach((v, k) => assert.ok(Math.abs(got[c][k] - v) <= 4, `${which} (${i}, ${j})`)));
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('switches to the WebGPU backend and shows each backend\'s time', async () => {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [...ARGS, '--enable-unsafe-webgpu'] });
    try {
      const page = await openPage(browser, site.url);
      await ready(page);
      await setCode(page, SMALL);
      await page.selectOption('#backend', 'webgpu');
      await page.waitForFunction(() => document.getElementById('status').textContent.includes('WebGPU'), null, { timeout: 60000 });
      assert.match(await page.textContent('#status'), /attention A\+B: wasm-simd [\d.]+ ms, WebGPU [\d.]+ ms/);
    } finally {
      await browser.close();
    }
  });
});
