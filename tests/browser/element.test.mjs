// The <hirope-attention> element on the demo article, in headless Chromium under the strict CSP:
// one script tag, lazy loading when scrolled into view, colours from the API (A, B and the A vs B
// map on the theme's ramp), compact controls, light and dark from the surrounding page, and a
// responsive layout. Screenshots go to build/screenshots/.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startSite,
  openPage,
  screenshot,
  expectedHeatmaps,
  readCells,
  fingerprint,
  sampleCells,
} from './helpers.mjs';

const MARGIN = 10; // web/src/element/hirope-attention.js

const code = (page, id) => page.evaluate((id) => document.getElementById(id).code, id);
const isReady = (page, id) =>
  page.evaluate((id) => document.getElementById(id).dataset.ready === 'true', id);

describe('<hirope-attention> on the demo article (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it('draws the visible elements, loads the one below the fold only when scrolled to', async () => {
    const page = await openPage(site.browser, `${site.url}article.html`, {
      viewport: { width: 1100, height: 900 },
    });
    await page.waitForFunction(
      () => document.getElementById('first').dataset.ready === 'true',
      null,
      { timeout: 60000 },
    );
    assert.equal(await isReady(page, 'below'), false);
    assert.match(
      await page.evaluate(() => document.getElementById('below').shadowRoot.textContent),
      /loads when visible/,
    );
    await page.locator('#below').scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () => document.getElementById('below').dataset.ready === 'true',
      null,
      { timeout: 60000 },
    );
    assert.match(
      await page.evaluate(
        () =>
          document.getElementById('first').shadowRoot.querySelector('[role=status]').textContent,
      ),
      /\d+ tokens, \d+ units · \d+ ms/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("draws the colours of the API's probabilities (A, B and A vs B, light and dark), from a template and from the code attribute", async () => {
    const page = await openPage(site.browser, `${site.url}article.html`, {
      viewport: { width: 1100, height: 3000 },
    });
    for (const [id, state, theme] of [
      [
        'first',
        {
          language: 'python',
          a: { type: 'rope', window: 16, ratio: 0.3 },
          b: { type: 'hirope', window: 16, ratio: 0.3 },
        },
        'light',
      ],
      [
        'second',
        {
          language: 'javascript',
          a: { type: 'rerope', window: 24 },
          b: { type: 'self-extend', window: 24 },
        },
        'light',
      ],
      // On the article's dark panel: the A vs B map on the dark ramp.
      [
        'third',
        {
          language: 'go',
          a: { type: 'rope', window: 32 },
          b: { type: 'hirope', window: 32, ratio: 0.35 },
        },
        'dark',
      ],
    ]) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      await page.waitForFunction((id) => document.getElementById(id).dataset.ready === 'true', id, {
        timeout: 60000,
      });
      assert.equal(
        await page.evaluate((id) => document.getElementById(id).dataset.theme, id),
        theme,
      );
      const text = await code(page, id);
      const expected = await expectedHeatmaps(text, state);
      assert.ok(expected.n <= 320, 'cells are 1:1 with tokens (the element pools to 320)');
      const cells = sampleCells(expected.n, 40);
      let coloured = 0;
      for (const [index, which] of ['a', 'b', 'diff'].entries()) {
        const got = await readCells(page, { host: id, index }, cells, {
          margin: MARGIN,
          n: expected.n,
        });
        cells.forEach(([i, j], c) => {
          assert.deepEqual(
            got[c].slice(0, 3),
            expected.colour(which, i, j, theme),
            `${id} ${which} (${i}, ${j})`,
          );
        });
        if (which === 'diff')
          coloured = cells.filter(
            ([i, j]) =>
              expected.colour(which, i, j, theme).join() !==
              expected.colour(which, i, i, theme).join(),
          ).length;
      }
      assert.ok(coloured > 0, `${id}: the A vs B cells checked are not all neutral`);
    }
    assert.match(await code(page, 'second'), /return x >= this\.lo && x <= this\.hi;/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('redraws from its compact controls and from attribute changes', async () => {
    const page = await openPage(site.browser, `${site.url}article.html`);
    await page.waitForFunction(
      () => document.getElementById('first').dataset.ready === 'true',
      null,
      { timeout: 60000 },
    );
    const pixelsOfB = () => fingerprint(page, { host: 'first', index: 1 });
    const redrawn = () =>
      page.evaluate(
        () =>
          new Promise((resolve) =>
            document
              .getElementById('first')
              .addEventListener('hirope:ready', resolve, { once: true }),
          ),
      );
    const before = await pixelsOfB();
    let done = redrawn();
    await page.locator('#first').locator('select[aria-label="Scheme B"]').selectOption('rerope');
    await done;
    assert.notEqual(await pixelsOfB(), before);
    assert.equal(await page.getAttribute('#first', 'scheme-b'), 'rerope');
    // The ratio control shows only when a side is HiRoPE.
    assert.equal(
      await page.locator('#first').locator('input[aria-label="HiRoPE ratio"]').isVisible(),
      false,
    );
    done = redrawn();
    await page.evaluate(() => document.getElementById('first').setAttribute('scheme-b', 'hirope'));
    await done;
    const half = await pixelsOfB();
    done = redrawn();
    await page.locator('#first').locator('input[aria-label="HiRoPE ratio"]').fill('0.2');
    await done;
    assert.notEqual(await pixelsOfB(), half);
    // Keyboard: the selects take focus and change with arrow keys.
    await page.locator('#first').locator('select[aria-label="Scheme A"]').focus();
    done = redrawn();
    await page.keyboard.press('ArrowDown');
    await done;
    assert.equal(await page.getAttribute('#first', 'scheme-a'), 'hirope');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('follows the page: light text on the dark panel and in dark mode gives the dark theme', async () => {
    const light = await openPage(site.browser, `${site.url}article.html`, {
      colorScheme: 'light',
      viewport: { width: 1100, height: 2600 },
    });
    await light.waitForFunction(
      () => document.getElementById('third').dataset.ready === 'true',
      null,
      { timeout: 60000 },
    );
    const themes = (page) =>
      page.evaluate(() =>
        ['first', 'second', 'third'].map((id) => document.getElementById(id).dataset.theme),
      );
    assert.deepEqual(await themes(light), ['light', 'light', 'dark']);
    await screenshot(light, 'article-light');
    // The page switching to dark mode while open re-themes the elements.
    await light.emulateMedia({ colorScheme: 'dark' });
    await light.waitForFunction(() => document.getElementById('first').dataset.theme === 'dark');
    assert.deepEqual(await themes(light), ['dark', 'dark', 'dark']);
    // The A vs B map is redrawn on the dark ramp (its neutral middle matches the dark background).
    const expected = await expectedHeatmaps(await code(light, 'first'), {
      language: 'python',
      a: { type: 'rope', window: 16, ratio: 0.3 },
      b: { type: 'hirope', window: 16, ratio: 0.3 },
    });
    const cells = sampleCells(expected.n, 30);
    const got = await readCells(light, { host: 'first', index: 2 }, cells, {
      margin: MARGIN,
      n: expected.n,
    });
    cells.forEach(([i, j], c) => {
      assert.deepEqual(
        got[c].slice(0, 3),
        expected.colour('diff', i, j, 'dark'),
        `first diff (${i}, ${j}) dark`,
      );
    });
    await screenshot(light, 'article-dark');
    assert.deepEqual(light.problems, []);
    await light.context().close();
  });

  it('sizes itself to its container: side by side when wide, stacked when narrow', async () => {
    for (const [width, stacked] of [
      [1100, false],
      [420, true],
    ]) {
      const page = await openPage(site.browser, `${site.url}article.html`, {
        viewport: { width, height: 900 },
      });
      await page.waitForFunction(
        () => document.getElementById('first').dataset.ready === 'true',
        null,
        { timeout: 60000 },
      );
      const boxes = await page.evaluate(() =>
        Array.from(document.getElementById('first').shadowRoot.querySelectorAll('canvas'), (c) =>
          c.getBoundingClientRect().toJSON(),
        ),
      );
      const host = await page.evaluate(
        () => document.getElementById('first').getBoundingClientRect().width,
      );
      assert.equal(boxes.length, 3); // A, B, A vs B
      for (const k of [1, 2])
        assert.equal(boxes[k].top > boxes[k - 1].bottom - 1, stacked, `width ${width}, map ${k}`);
      if (!stacked)
        for (const k of [1, 2]) assert.ok(Math.abs(boxes[k].top - boxes[0].top) < 1, 'one row');
      for (const b of boxes)
        assert.ok(
          b.width <= host && b.width > host * (stacked ? 0.8 : 0.28),
          `width ${width}: ${b.width} of ${host}`,
        );
      if (stacked) await screenshot(page, 'article-narrow');
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });
});
