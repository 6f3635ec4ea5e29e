// The playground on a touch screen (headless Chromium with touch and a phone's viewport): the hint
// over the maps says "tap", and tapping a cell selects its row and shows the cell's card, which
// stays until a tap elsewhere. With a mouse the hint says "hover".
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, screenshot } from './helpers.mjs';
import { MARGIN, PLOT } from '../../web/src/page/heatmap.js';
import { mapHint } from '../../web/src/shared/wording.js';

async function ready(page) {
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  await page.waitForFunction(() => document.getElementById('progress').hidden);
}

/** The point of cell (i, j) in a map's canvas (the default view: n tokens, PLOT / n pixels each). */
async function cellPoint(page, id, i, j, n) {
  const { width, pixels } = await page.evaluate((id) => {
    const c = document.querySelector(`#${id} canvas`);
    c.scrollIntoView({ block: 'center' });
    return { width: c.getBoundingClientRect().width, pixels: c.width };
  }, id);
  const scale = width / pixels;
  return {
    x: (MARGIN + ((j + 0.5) * PLOT) / n) * scale,
    y: (MARGIN + ((i + 0.5) * PLOT) / n) * scale,
  };
}

describe('playground on a touch screen', { timeout: 300000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });

  for (const colorScheme of ['light', 'dark']) {
    it(`shows a tapped cell's card and says "tap" (${colorScheme})`, async () => {
      const context = await site.browser.newContext({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        deviceScaleFactor: 2,
        colorScheme,
      });
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(site.url);
      await ready(page);
      assert.equal(await page.textContent('.section-head .how'), mapHint(true));
      assert.match(mapHint(true), /Tap a cell/);
      const n = Number((await page.textContent('#status')).match(/^(\d+) tokens/)[1]);
      const i = Math.floor(n * 0.75);
      const j = Math.floor(n * 0.25);
      await page.tap('#map-b canvas', { position: await cellPoint(page, 'map-b', i, j, n) });
      // The tap selects the row (the code is shaded by it) and shows the cell's card.
      await page.waitForFunction(() => !document.querySelector('.hm-tip').hidden, null, {
        timeout: 30000,
      });
      assert.equal(await page.getAttribute('.hm-tip', 'data-cell'), `${i},${j}`);
      assert.match(await page.textContent('.hm-tip'), new RegExp(`token distance\\s*${i - j}`));
      await page.waitForFunction(() =>
        /^Query \d+/.test(document.getElementById('query-info').textContent),
      );
      assert.match(await page.textContent('#query-info'), new RegExp(`^Query ${i} `));
      // The map stays where it was tapped (selecting the row scrolls the editor, not the page).
      const map = await page.evaluate(() =>
        document.querySelector('#map-b canvas').getBoundingClientRect().toJSON(),
      );
      assert.ok(map.top < 844 && map.bottom > 0, `the map is on screen: ${JSON.stringify(map)}`);
      // The card is within the screen.
      const tip = await page.evaluate(() =>
        document.querySelector('.hm-tip').getBoundingClientRect().toJSON(),
      );
      assert.ok(tip.left >= 0 && tip.right <= 390, JSON.stringify(tip));
      await screenshot(page, `touch-card-${colorScheme}`, { fullPage: false });
      // A tap elsewhere hides it.
      await page.tap('#caption');
      await page.waitForFunction(() => document.querySelector('.hm-tip').hidden);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  it('says "hover" with a mouse', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    assert.equal(await page.textContent('.section-head .how'), mapHint(false));
    assert.match(mapHint(false), /Hover a cell/);
    await page.context().close();
  });
});
