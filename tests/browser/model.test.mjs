// The playground's Model mode in headless Chromium under the strict CSP: loss numbers and the
// model's attention heatmaps equal the API's, the Split% warning, generation side by side equal
// to the API's, the mode links carrying the code, and errors shown as text. Screenshots go to
// build/screenshots/.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, screenshot, api, readCells, sampleCells } from './helpers.mjs';
import { encodeWith, MODEL_DEFAULTS, normalizeWith } from '../../web/src/state.js';
import { modelOptionsFor } from '../../web/src/model-engine.js';
import { LUTS, probIndex, rgb } from '../../web/src/colormap.js';
import { MARGIN } from '../../web/src/heatmap.js';

const CODE = `import math


def area(radius):
    return math.pi * radius ** 2


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return area(self.radius)

    def grow(self, by):
        self.radius += by
        return self


def total(circles):
    return sum(c.area() for c in circles)
`;

async function modelPage(site, partial, options) {
  const hash = await encodeWith(MODEL_DEFAULTS, partial);
  const page = await openPage(site.browser, `${site.url}model.html${hash}`, options);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000 });
  return page;
}

describe('playground Model mode (headless Chromium)', () => {
  let site;
  let model;
  before(async () => {
    site = await startSite();
    model = await (await api()).model.load();
  });
  after(async () => site?.close());

  it('shows the loss and the model\'s attention exactly as the API computes them', async () => {
    const state = normalizeWith(MODEL_DEFAULTS, { code: CODE, layer: 1, head: 2, b: { type: 'hirope', ratio: 0.35, hierarchy: 'segments', segment: 32 } });
    const page = await modelPage(site, state);
    const statusText = await page.locator('#status').textContent();
    assert.doesNotMatch(statusText, /Error/);
    const n = new TextEncoder().encode(CODE).length;
    for (const side of ['a', 'b']) {
      const options = modelOptionsFor(state[side], 'python');
      const { bitsPerByte } = model.loss(CODE, options);
      assert.match(statusText, new RegExp(`${side.toUpperCase()} ${bitsPerByte.toFixed(3)}\\b`));
      const { matrix } = model.attention(CODE, { ...options, layer: 1, head: 2 });
      const cells = sampleCells(n, 40);
      const got = await readCells(page, `#map-${side} canvas`, cells, { margin: MARGIN, n });
      cells.forEach(([i, j], c) => {
        const row = matrix.subarray(i * n, i * n + i + 1);
        const max = Math.max(...row);
        assert.deepEqual(got[c].slice(0, 3), rgb(LUTS.magma, probIndex(Math.fround(matrix[i * n + j] * Math.fround(1 / max)))), `${side} (${i}, ${j})`);
      });
    }
    // The loss chart and the code shading are drawn.
    assert.match(await page.locator('#loss-chart canvas').getAttribute('aria-label'), /bits\/byte within 128/);
    assert.match(await page.locator('#code-legend').textContent(), /bits to predict each character under B/);
    assert.ok((await page.evaluate(() => document.querySelector('#editor').shadowRoot.querySelectorAll('[class*="hr-heat"]').length)) > 50);
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'model-light');
    await page.context().close();
  });

  it('warns when HiRoPE\'s ratio is above the model\'s Split% bound', async () => {
    const page = await modelPage(site, { code: CODE });
    assert.match(await page.locator('#ratio-hint-b').textContent(), /above the bound/);
    assert.equal(await page.locator('#ratio-hint-b').getAttribute('class'), 'hint warn');
    await page.locator('#c-b-ratio').fill('0.3');
    await page.waitForFunction(() => /Within the bound/.test(document.getElementById('ratio-hint-b').textContent));
    assert.match(await page.locator('#ratio-hint-b').textContent(), /Split% for this model \(trained at 128 bytes\): 32\.7%/);
    await page.context().close();
  });

  it('continues the code under both schemes, as the API generates', async () => {
    const state = normalizeWith(MODEL_DEFAULTS, { code: CODE, maxBytes: 60, seed: 4, a: { type: 'rerope' } });
    const page = await modelPage(site, state, { colorScheme: 'dark' });
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, { timeout: 60000 });
    for (const side of ['a', 'b']) {
      const expected = model.generate(CODE, { ...modelOptionsFor(state[side], 'python'), maxBytes: 60, temperature: 0.8, seed: 4 }).text;
      assert.equal(await page.locator(`#gen-${side} mark.generated`).textContent(), expected);
      assert.match(await page.locator(`#gen-title-${side}`).textContent(), /bytes\/s/);
    }
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'model-dark');
    await page.context().close();
  });

  it('carries the code between modes and shows bad input as text', async () => {
    const page = await modelPage(site, { code: 'x = 1\n' + CODE });
    await page.locator('#mode-attention').click();
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && location.pathname.endsWith('index.html'), null, { timeout: 60000 });
    assert.match(await page.evaluate(() => document.querySelector('#editor').shadowRoot.textContent), /x = 1/);
    await page.locator('#mode-model').click();
    await page.waitForFunction(() => document.body.dataset.ready === 'true' && location.pathname.endsWith('model.html'), null, { timeout: 60000 });
    assert.match(await page.evaluate(() => document.querySelector('#editor').shadowRoot.textContent), /x = 1/);
    await page.context().close();
    const bad = await modelPage(site, { code: 'x' });
    assert.match(await bad.locator('#status').textContent(), /PlaygroundError: The model needs at least 2 bytes/);
    await bad.context().close();
  });
});
