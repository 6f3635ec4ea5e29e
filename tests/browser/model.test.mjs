// The playground's Model mode in headless Chromium under the strict CSP: loss numbers and the
// model's attention heatmaps equal the API's, B's default at the model's Split% bound and the
// warning above it, a layer or head switch that runs no loss pass, every layer's and head's
// thumbnail equal to the API's pooled attention, one fetch of the weights per visit, the loss
// chart's width and smoothing, no horizontal scroll on a phone, generation side by side equal to
// the API's, the mode links carrying the code, and errors shown as text. Screenshots go to
// build/screenshots/.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite,
  openPage,
  screenshot,
  api,
  readCells,
  sampleCells,
  pasteCode,
  root,
  VIEW_PAIRS,
  PHONE_VIEWPORT,
  resizeTo,
  switchTheme,
  fingerprint,
} from './helpers.mjs';
import { recallClasses, RECALL_CLASSES } from '../../dist/index.js';
import { encodeWith, decodeWith, normalizeWith } from '../../web/src/shared/link-state.js';
import { MODEL_DEFAULTS } from '../../web/src/shared/model-state.js';
import { modelOptionsFor, ATTENTION_BYTES } from '../../web/src/worker/model-engine.js';
import { THUMB_SIZE } from '../../web/src/shared/models.js';
import { maskUpper } from '../../dist/colormap.js';
import { LUTS, probIndex, probPixels, rgb } from '../../dist/colormap.js';
import { MARGIN } from '../../web/src/page/heatmap.js';

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
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, {
    timeout: 120000,
  });
  return page;
}

/** Runs action() and resolves with the detail of the next hirope:model-run event (what ran). */
async function nextRun(page, action) {
  await page.evaluate(() => {
    window.__run = new Promise((resolve) =>
      document.addEventListener(
        'hirope:model-run',
        (e) => resolve({ ...e.detail, at: performance.now() }),
        { once: true },
      ),
    );
  });
  const t0 = await page.evaluate(() => performance.now());
  await action();
  const detail = await page.evaluate(() => window.__run);
  return { ...detail, ms: detail.at - t0 };
}

/** The state in the page's URL once it satisfies test(state) (the page writes the URL after a short delay). */
async function waitForState(page, test, timeout = 10000) {
  const end = Date.now() + timeout;
  for (;;) {
    const state = await decodeWith(MODEL_DEFAULTS, await page.evaluate(() => location.hash));
    if (test(state) || Date.now() > end) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const thumbsReady = (page) =>
  page.waitForFunction(() => document.body.dataset.thumbs === 'ready', null, { timeout: 120000 });

describe('playground Model mode (headless Chromium)', () => {
  let site;
  let model;
  before(async () => {
    site = await startSite();
    model = await (await api()).model.load();
  });
  after(async () => site?.close());

  it("shows the loss and the model's attention exactly as the API computes them", async () => {
    const state = normalizeWith(MODEL_DEFAULTS, {
      code: CODE,
      layer: 1,
      head: 2,
      b: { type: 'hirope', ratio: 0.35, hierarchy: 'segments', segment: 32 },
    });
    const page = await modelPage(site, state);
    const statusText = await page.locator('#status').textContent();
    assert.doesNotMatch(statusText, /Error/);
    const n = new TextEncoder().encode(CODE).length;
    // The API options this state means, written by hand (not through the page's modelOptionsFor):
    // A is the defaults' plain RoPE; B is HiRoPE at ratio 0.35 on 32-byte segments, window 128.
    const expected = {
      a: { scheme: { type: 'rope' }, language: 'python', hierarchy: 'units' },
      b: {
        scheme: { type: 'hirope', window: 128, ratio: 0.35 },
        language: 'python',
        hierarchy: 'segments',
        segmentSize: 32,
      },
    };
    for (const side of ['a', 'b']) {
      assert.deepEqual(modelOptionsFor(state[side], 'python'), expected[side]);
      const options = expected[side];
      const { bitsPerByte } = model.loss(CODE, options);
      assert.match(statusText, new RegExp(`${side.toUpperCase()} ${bitsPerByte.toFixed(3)}\\b`));
      const { matrix } = model.attention(CODE, { ...options, layer: 1, head: 2 });
      const cells = sampleCells(n, 40);
      const got = await readCells(page, `#map-${side} canvas`, cells, { margin: MARGIN, n });
      cells.forEach(([i, j], c) => {
        const row = matrix.subarray(i * n, i * n + i + 1);
        const max = Math.max(...row);
        assert.deepEqual(
          got[c].slice(0, 3),
          rgb(LUTS.magma, probIndex(Math.fround(matrix[i * n + j] * Math.fround(1 / max)))),
          `${side} (${i}, ${j})`,
        );
      });
    }
    // The loss chart and the code shading are drawn.
    assert.match(
      await page.locator('#loss-chart canvas').getAttribute('aria-label'),
      new RegExp(`bits/byte within ${model.config.trainingContext}`),
    );
    assert.match(
      await page.locator('#code-legend').textContent(),
      /bits to predict each character under B/,
    );
    assert.ok(
      (await page.evaluate(
        () =>
          document.querySelector('#editor').shadowRoot.querySelectorAll('[class*="hr-heat"]')
            .length,
      )) > 50,
    );
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'model-light');
    await page.context().close();
  });

  it("starts B at the model's Split% bound and warns above it (the paper's 0.5)", async () => {
    // The default ratio, written for the shipped model, is the largest within the bound that the
    // loaded model's own config gives: one pair more would be over it.
    const hr = await api();
    const { ropeBase: base, trainingContext: trainingLength, headDim } = model.config;
    const splitBound = (ratio) =>
      hr.splitBound({ type: 'hirope', ratio, base, trainingLength }, headDim);
    const bound = splitBound(MODEL_DEFAULTS.b.ratio);
    assert.equal(MODEL_DEFAULTS.b.type, 'hirope');
    assert.equal(bound.over, false);
    assert.equal(bound.maxTokenPairs, bound.tokenPairs);
    assert.equal(MODEL_DEFAULTS.b.ratio, bound.maxRatio);
    assert.equal(splitBound((bound.tokenPairs + 1) / bound.pairs).over, true);
    assert.equal(model.config.headDim / 2, bound.pairs);

    const page = await modelPage(site, { code: CODE });
    assert.match(await page.locator('#ratio-hint-b').textContent(), /Within the bound/);
    assert.equal(await page.locator('#ratio-hint-b').getAttribute('class'), 'hint');
    assert.equal(
      await page
        .locator('#c-b-ratio')
        .evaluate((input) => input.closest('label').querySelector('output').textContent),
      `${bound.maxRatio} · ${bound.tokenPairs} of ${bound.pairs} pairs`,
    );
    assert.equal(await page.locator('#preset-bound').getAttribute('aria-pressed'), 'true');
    const { bitsPerByte } = model.loss(CODE, modelOptionsFor(MODEL_DEFAULTS.b, 'python'));
    assert.match(
      await page.locator('#status').textContent(),
      new RegExp(`B ${bitsPerByte.toFixed(3)}\\b`),
    );

    // The paper's 0.5, one click: the warning.
    let run = await nextRun(page, () => page.locator('#preset-paper').click());
    assert.equal(run.parts.b.loss, true);
    assert.equal(run.parts.a.loss, false, 'a change to B leaves A alone');
    assert.match(await page.locator('#ratio-hint-b').textContent(), /above the bound/);
    assert.equal(await page.locator('#ratio-hint-b').getAttribute('class'), 'hint warn');
    assert.equal(await page.locator('#preset-paper').getAttribute('aria-pressed'), 'true');
    const paper = model.loss(
      CODE,
      modelOptionsFor({ ...MODEL_DEFAULTS.b, ratio: 0.5 }, 'python'),
    ).bitsPerByte;
    assert.match(
      await page.locator('#status').textContent(),
      new RegExp(`B ${paper.toFixed(3)}\\b`),
    );
    assert.equal((await waitForState(page, (s) => s.b.ratio === 0.5)).b.ratio, 0.5); // in the URL: not the default

    run = await nextRun(page, () => page.locator('#c-b-ratio').fill('0.3'));
    assert.deepEqual(run.parts.b, { loss: true, attention: true });
    await page.waitForFunction(() =>
      /Within the bound/.test(document.getElementById('ratio-hint-b').textContent),
    );
    assert.match(
      await page.locator('#ratio-hint-b').textContent(),
      new RegExp(
        `Split% for this model \\(trained at ${trainingLength} bytes\\): ${(100 * bound.split).toFixed(1)}%`,
      ),
    );

    // Back to the bound exactly: the state equals the defaults again (the code aside).
    await nextRun(page, () => page.locator('#preset-bound').click());
    assert.match(
      await page.locator('#ratio-hint-b').textContent(),
      new RegExp(`ratio ${bound.maxRatio} keeps ${bound.tokenPairs} pairs.*Within the bound`),
    );
    assert.match(
      await page.locator('#status').textContent(),
      new RegExp(`B ${bitsPerByte.toFixed(3)}\\b`),
    );
    // (Compared decoded: Chromium's and Node's deflate may write different bytes.)
    const back = await waitForState(page, (s) => s.b.ratio === MODEL_DEFAULTS.b.ratio);
    assert.deepEqual(back, normalizeWith(MODEL_DEFAULTS, { code: CODE }));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('switches layer and head with the attention alone: no loss pass, thumbnails computed once', async () => {
    const page = await modelPage(site, { code: CODE });
    await thumbsReady(page);
    const n = new TextEncoder().encode(CODE).length;
    // Every thumbnail once: layers x heads per side, one of them from the main heatmap's own pass.
    const last = model.config.layers - 1;
    const before = await nextRun(page, () => page.locator('#c-layer').selectOption('1'));
    const perSide = model.config.layers * model.config.heads;
    for (const side of ['a', 'b']) {
      assert.deepEqual(before.parts[side], { loss: false, attention: true }, side);
      assert.equal(before.counts[side].loss, 1, `${side}: one loss pass in all`);
      assert.equal(before.counts[side].thumbnails, perSide - 1, side);
    }
    // The heatmaps are layer 1's, as the API computes it.
    for (const side of ['a', 'b']) {
      const options = modelOptionsFor(MODEL_DEFAULTS[side], 'python');
      const { matrix } = model.attention(CODE, { ...options, layer: 1, head: 0 });
      const cells = sampleCells(n, 30);
      const got = await readCells(page, `#map-${side} canvas`, cells, { margin: MARGIN, n });
      cells.forEach(([i, j], c) => {
        const max = Math.max(...matrix.subarray(i * n, i * n + i + 1));
        assert.deepEqual(
          got[c].slice(0, 3),
          rgb(LUTS.magma, probIndex(Math.fround(matrix[i * n + j] * Math.fround(1 / max)))),
          `${side} (${i}, ${j})`,
        );
      });
      assert.match(await page.locator(`#map-${side} .hm-sub`).textContent(), /layer 1, head 0/);
    }
    // A thumbnail opens its layer and head in the main heatmaps; again no loss pass.
    const click = await nextRun(page, () =>
      page.locator(`#thumbs-b .thumb[aria-label^="Layer ${last}, head 1"]`).click(),
    );
    for (const side of ['a', 'b']) {
      assert.deepEqual(click.parts[side], { loss: false, attention: true }, side);
      assert.equal(click.counts[side].loss, 1);
      assert.equal(click.counts[side].thumbnails, perSide - 1, `${side}: no thumbnail recomputed`);
    }
    assert.equal(await page.locator('#c-layer').inputValue(), String(last));
    assert.equal(await page.locator('#c-head').inputValue(), '1');
    assert.equal(
      await page.locator('#thumbs-a .thumb[aria-pressed=true]').getAttribute('aria-label'),
      `Layer ${last}, head 1 (A)`,
    );
    assert.equal(
      await page.locator('#thumbs-b .thumb[aria-pressed=true]').getAttribute('aria-label'),
      `Layer ${last}, head 1 (B)`,
    );
    assert.equal(await page.evaluate(() => document.body.dataset.thumbs), 'ready');
    // A full run for comparison: a change to the code runs the loss again on both sides.
    const edited = `# more\n${CODE}`;
    const full = await nextRun(page, () => pasteCode(page, edited));
    for (const side of ['a', 'b'])
      assert.deepEqual(full.parts[side], { loss: true, attention: true });
    // (Times for the record, not asserted: this machine's load varies.)
    console.log(
      `# layer switch ${before.ms.toFixed(0)} ms, thumbnail click ${click.ms.toFixed(0)} ms, code edit (loss + attention) ${full.ms.toFixed(0)} ms`,
    );

    // Thumbnails equal the API's attention pooled to 64 x 64 in the heatmaps' colours.
    await thumbsReady(page);
    const bytes = new TextEncoder().encode(edited);
    const k = Math.min(bytes.length, ATTENTION_BYTES);
    const hr = await api();
    for (const [side, layer, head] of [
      ['b', 2, 3],
      ['a', 0, 1],
    ]) {
      const { matrix } = model.attention(bytes.subarray(0, k), {
        ...modelOptionsFor(MODEL_DEFAULTS[side], 'python'),
        layer,
        head,
      });
      const size = Math.min(THUMB_SIZE, k);
      const region = { r0: 0, r1: k, c0: 0, c1: k };
      const { ratio } = hr.pool({ matrix, n: k, rows: size, cols: size, region, causal: true });
      const rgba = new Uint8ClampedArray(size * size * 4);
      probPixels(ratio, LUTS.magma, new Uint32Array(rgba.buffer));
      maskUpper(rgba, size, size, region);
      const got = await page
        .locator(`#thumbs-${side} .thumb[aria-label^="Layer ${layer}, head ${head} "] canvas`)
        .evaluate((c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data));
      assert.equal(got.length, rgba.length);
      assert.deepEqual(got, Array.from(rgba), `${side} thumbnail layer ${layer}, head ${head}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('fetches the weights once per visit and draws the loss chart at its full width, crisp and smoothed', async () => {
    const context = await site.browser.newContext({
      viewport: { width: 1200, height: 900 },
      deviceScaleFactor: 2,
    });
    const page = await context.newPage();
    const weights = [];
    // Downloads only: the model picker's size comes from a HEAD request.
    page.on(
      'request',
      (r) =>
        r.method() === 'GET' &&
        /pybyte(\.[0-9a-f]{10})?\.hrm$/.test(new URL(r.url()).pathname) &&
        weights.push(r.url()),
    );
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // A short generation (16 bytes, not 256): what is counted is the fetches, not the bytes.
    await page.goto(
      `${site.url}model.html${await encodeWith(MODEL_DEFAULTS, { code: CODE, maxBytes: 16 })}`,
    );
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, {
      timeout: 120000,
    });
    await thumbsReady(page);
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
      timeout: 60000,
    });
    assert.equal(weights.length, 1, `requests for the weights: ${weights.join(', ')}`);

    const size = () =>
      page.evaluate(() => {
        const c = document.querySelector('#loss-chart canvas');
        return {
          box: document.getElementById('loss-chart').clientWidth,
          css: c.getBoundingClientRect().width,
          width: c.width,
          height: c.height,
          cssHeight: c.getBoundingClientRect().height,
          label: c.getAttribute('aria-label'),
        };
      });
    let s = await size();
    assert.equal(s.css, s.box, 'the chart fills its box');
    assert.equal(s.width, 2 * s.css, 'drawn at the device pixel ratio');
    assert.equal(s.height, 2 * s.cssHeight);
    assert.match(s.label, /runs of 8 bytes/);
    // Smoothing redraws the chart without asking the workers for anything.
    await page.evaluate(() => {
      window.__runs = 0;
      document.addEventListener('hirope:model-run', () => window.__runs++);
    });
    for (const smooth of ['1', '32', '128']) {
      await page.locator('#c-smooth').selectOption(smooth);
      await page.waitForFunction(
        (n) =>
          document
            .querySelector('#loss-chart canvas')
            .getAttribute('aria-label')
            .includes(n === '1' ? '(every byte)' : `runs of ${n} bytes`),
        smooth,
      );
    }
    assert.match(await page.locator('#smooth-bytes').textContent(), /128 bytes/);
    assert.equal(await page.evaluate(() => window.__runs), 0);
    // A narrower window: the chart follows.
    await page.setViewportSize({ width: 800, height: 900 });
    await page.waitForFunction(
      () =>
        Math.abs(
          document.querySelector('#loss-chart canvas').getBoundingClientRect().width -
            document.getElementById('loss-chart').clientWidth,
        ) < 1,
    );
    s = await size();
    assert.ok(s.css < 800 && s.width === 2 * s.css);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('runs the baselines and shows the loss on far-recall bytes only', async () => {
    const L = model.config.trainingContext;
    // The fixture's first 1,600 bytes (whole functions, to the first blank lines past 1,500): 11
    // far-recall names past L = 256, for about half the truncation passes of the whole 2,109.
    const whole = fs.readFileSync(path.join(root, 'tests/fixtures/model/sample.py'), 'utf8');
    const SAMPLE = whole.slice(0, whole.indexOf('\n\n\n', 1500) + 1);
    const state = normalizeWith(MODEL_DEFAULTS, {
      code: SAMPLE,
      bytes: 'far',
      a: { type: 'sliding-window', window: L },
      b: { type: 'truncate', window: L },
    });
    const bytes = new TextEncoder().encode(SAMPLE);
    const recall = recallClasses(bytes, L);
    const far = RECALL_CLASSES.indexOf('far');
    let names = 0;
    for (let t = 1; t < recall.length; t++) if (recall[t] === far && recall[t - 1] !== far) names++;
    assert.ok(names > 3, `the sample has ${names} far-recall names`);
    // The API's numbers once, not once per view: the four views read the same state.
    const expected = Object.fromEntries(
      ['a', 'b'].map((side) => [side, model.loss(bytes, modelOptionsFor(state[side], 'python'))]),
    );
    // The light page, switched to dark at the phone's width, draws its loss chart and maps as the
    // page opened dark at that width does (the page follows the system's colour scheme).
    const pixels = (page) =>
      Promise.all(
        ['#loss-chart canvas', '#map-a canvas[role=img]', '#map-b canvas[role=img]'].map((target) =>
          fingerprint(page, target),
        ),
      );
    let switched = null;
    for (const { colorScheme, load, resize } of VIEW_PAIRS) {
      const page = await modelPage(site, state, { colorScheme, viewport: load });
      const statusText = await page.locator('#status').textContent();
      if (colorScheme === 'dark') {
        assert.equal(load.width, PHONE_VIEWPORT.width);
        assert.deepEqual(await pixels(page), switched, 'switched to dark, drawn as opened dark');
      }
      for (const viewport of [load, resize]) {
        if (viewport !== load) await resizeTo(page, viewport);
        const key = await page.locator('#loss-chart .chart-key').textContent();
        for (const side of ['a', 'b']) {
          const { bitsPerByte, losses } = expected[side];
          assert.match(
            statusText,
            new RegExp(`${side.toUpperCase()} ${bitsPerByte.toFixed(3)}\\b`),
          );
          let sum = 0;
          let count = 0;
          for (let t = 1; t <= losses.length; t++)
            if (recall[t] === far) {
              sum += losses[t - 1];
              count++;
            }
          assert.match(
            key,
            new RegExp(
              `${side.toUpperCase()} ${side === 'a' ? 'Sliding window' : 'Truncate'}[^:]*: ${(sum / count).toFixed(2)} bits/byte on far-recall bytes`,
            ),
          );
        }
        assert.match(
          key,
          new RegExp(`in ${names} names: each dot is one name used again more than ${L} bytes`),
        );
        assert.match(await page.locator('#smooth-bytes').textContent(), /one dot per name/);
        assert.equal(await page.locator('#c-smooth').isVisible(), false);
        assert.equal(await page.locator('#c-b-scaling').isVisible(), false);
        assert.ok(
          (await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width,
        );
        // The line saying what runs (shown during a long run) never covers the mode tabs, at
        // the top of the page or scrolled (it is fixed to the window).
        for (const y of [0, 400]) {
          const overlap = await page.evaluate((y) => {
            scrollTo(0, y);
            const line = document.getElementById('progress-line');
            line.hidden = false;
            line.textContent =
              'Running the model over the code under A and B (the loss at every byte, then the attention)…';
            const a = line.getBoundingClientRect();
            const b = document.querySelector('nav.modes').getBoundingClientRect();
            line.hidden = true;
            return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          }, y);
          assert.equal(
            overlap,
            false,
            `the progress line covers the mode tabs at ${viewport.width} px`,
          );
        }
        await page.locator('#loss').scrollIntoViewIfNeeded();
        const phone = viewport.width < 500 ? '-phone' : '';
        await screenshot(page, `model-far${phone}-${colorScheme}`, { fullPage: false });
      }
      if (colorScheme === 'light') {
        assert.equal(resize.width, PHONE_VIEWPORT.width);
        const light = await pixels(page);
        await switchTheme(page, 'dark');
        switched = await pixels(page);
        assert.notEqual(switched[0], light[0], 'the loss chart is drawn again in dark colours');
      }
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });

  it('fits a phone: no horizontal scroll at 390 px, touch-sized controls', async () => {
    // One page, in each colour scheme (the page follows the system's).
    const page = await modelPage(site, {}, { colorScheme: 'dark', viewport: PHONE_VIEWPORT });
    await thumbsReady(page);
    for (const colorScheme of ['dark', 'light']) {
      await switchTheme(page, colorScheme);
      assert.ok(
        (await page.evaluate(() => document.documentElement.scrollWidth)) <= 390,
        `scrollWidth ${await page.evaluate(() => document.documentElement.scrollWidth)}`,
      );
      // Controls in the page's sections are at least 40 px tall; thumbnails at least 44 px wide.
      const small = await page.evaluate(() =>
        Array.from(
          document.querySelectorAll(
            'main select, main button:not(.thumb), main input:not([type=range])',
          ),
        )
          .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 40)
          .map((e) => e.id || e.textContent),
      );
      assert.deepEqual(small, []);
      const thumb = await page.locator('#thumbs-a .thumb').first().boundingBox();
      assert.ok(thumb.width >= 44, `thumbnail ${thumb.width} px`);
      await screenshot(page, `model-phone-${colorScheme}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('continues the code under both schemes, as the API generates', async () => {
    const state = normalizeWith(MODEL_DEFAULTS, {
      code: CODE,
      maxBytes: 60,
      seed: 4,
      a: { type: 'rerope' },
    });
    const page = await modelPage(site, state, { colorScheme: 'dark' });
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
      timeout: 60000,
    });
    for (const side of ['a', 'b']) {
      const expected = model.generate(CODE, {
        ...modelOptionsFor(state[side], 'python'),
        maxBytes: 60,
        temperature: 0.8,
        seed: 4,
      }).text;
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
    await page.waitForFunction(
      () => document.body.dataset.ready === 'true' && location.pathname.endsWith('index.html'),
      null,
      { timeout: 60000 },
    );
    assert.match(
      await page.evaluate(() => document.querySelector('#editor').shadowRoot.textContent),
      /x = 1/,
    );
    await page.locator('#mode-model').click();
    await page.waitForFunction(
      () => document.body.dataset.ready === 'true' && location.pathname.endsWith('model.html'),
      null,
      { timeout: 60000 },
    );
    assert.match(
      await page.evaluate(() => document.querySelector('#editor').shadowRoot.textContent),
      /x = 1/,
    );
    await page.context().close();
    const bad = await modelPage(site, { code: 'x' });
    assert.match(
      await bad.locator('#status').textContent(),
      /^The model needs at least 2 bytes of code/,
    );
    await bad.context().close();
  });
});
