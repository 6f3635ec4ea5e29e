// Long maps in the playground (issue 42 section 6), in headless Chromium: a 32,768-token input
// runs without freezing the page (a task queued on the main thread runs while the maps compute)
// and shows its share done under the status line; Cancel stops a long map, 20 times in a row,
// each time driven by the page's own hook: the progress panel shows once a worker has reported a
// chunk of its map (web/src/worker/pooled-map.js), with dozens of chunks still to come, and Cancel
// posts the notice that the worker reads before its next chunk. Screenshots of the panel go to
// build/screenshots/ (light and dark, 1440 and 390 px wide).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, pasteCode, ready, screenshot, api, switchTheme } from './helpers.mjs';
import { SAMPLES } from '../../web/src/shared/samples.js';

// More than 32,768 tokens of real code (the Python sample, repeated), as the page tokenizes it.
let LONG = '';

/** Waits for the next redraw after action() (at most 180 s) and returns the status text. */
async function redraw(page, action) {
  await page.evaluate(() => {
    window.__redrawn = false;
    document.addEventListener('hirope:redraw', () => (window.__redrawn = true), { once: true });
  });
  await action();
  await page.waitForFunction(() => window.__redrawn, null, { timeout: 180000 });
  return page.textContent('#status');
}

/** The progress panel with a share done: the hook (a chunk reported, more to come). */
const panelShown = (page) =>
  page.waitForFunction(
    () => {
      const box = document.getElementById('run-progress');
      return box && !box.hidden && box.querySelector('progress').value > 0;
    },
    null,
    { timeout: 180000 },
  );

/**
 * Head dim 8, as tests/js/playground.test.mjs runs the engine at the cap: the same 64 chunks of a
 * 32,768-token map, the same cap, progress and Cancel, at an eighth of the products
 * (bench/pooled-map.mjs times the cap at head dim 128).
 */
async function smallHeads(page) {
  await page.evaluate(() => (document.querySelector('#shared-controls details.more').open = true));
  await redraw(page, () => page.fill('#c-headDim', '8'));
}

describe('long maps (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
    const hr = await api();
    while (hr.analyze(LONG, { language: 'python' }).tokens.count <= 32768) LONG += SAMPLES.python;
  });
  after(async () => site?.close());

  it('a 32,768-token input computes with its progress shown, and the page stays responsive', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await smallHeads(page);
    // Responsive, as behaviour rather than a measured gap: once the panel shows, a task queued on
    // the main thread runs while the maps are still computing (the panel still showing).
    await page.evaluate(() => {
      const box = document.getElementById('run-progress');
      window.panelSeen = false;
      window.answeredDuringRun = false;
      new MutationObserver(() => {
        if (box.hidden) return;
        window.panelSeen = true;
        setTimeout(() => (window.answeredDuringRun ||= !box.hidden), 0);
      }).observe(box, { attributes: true, subtree: true, childList: true });
    });
    const status = await redraw(page, () => pasteCode(page, LONG));
    assert.match(status, /The heatmaps show the first 32,768 of [\d,]+ tokens\./);
    assert.ok(await page.evaluate(() => window.panelSeen), 'the progress panel showed');
    assert.ok(
      await page.evaluate(() => window.answeredDuringRun),
      'the main thread ran a task while the maps computed',
    );
    assert.equal(await page.locator('#run-progress').isHidden(), true, 'the panel goes at the end');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('Cancel stops a long map, 20 times in a row; the maps keep the last result', async () => {
    const page = await openPage(site.browser, site.url, { viewport: { width: 1440, height: 900 } });
    await ready(page);
    await smallHeads(page);
    for (let i = 0; i < 20; i++) {
      // Each round asks for a new map of B: the long code first, then another window for B.
      if (i === 0) await pasteCode(page, LONG);
      else await page.fill('#c-b-window', String(64 + i));
      await panelShown(page);
      if (i === 0)
        for (const [scheme, width] of [
          ['light', 1440],
          ['dark', 1440],
        ]) {
          await switchTheme(page, scheme);
          await page.setViewportSize({ width, height: 900 });
          await screenshot(page, `long-map-progress-${scheme}-${width}`, { fullPage: false });
        }
      await page.evaluate(() => {
        window.__cancelled = false;
        document.addEventListener('hirope:cancelled', () => (window.__cancelled = true), {
          once: true,
        });
      });
      await page.click('#run-progress button');
      await page.waitForFunction(() => window.__cancelled, null, { timeout: 60000 });
      assert.match(await page.textContent('#status'), /^Cancelled: the maps still show/);
      assert.equal(await page.locator('#run-progress').isHidden(), true, `round ${i}`);
      assert.equal(
        await page.evaluate(() => document.getElementById('status').classList.contains('error')),
        false,
      );
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the panel reads well on a phone, light and dark', async () => {
    // One long run, the colour scheme switched under it (the page follows a switch).
    const page = await openPage(site.browser, site.url, { viewport: { width: 390, height: 844 } });
    await ready(page);
    await pasteCode(page, LONG);
    await panelShown(page);
    for (const colorScheme of ['light', 'dark']) {
      if (colorScheme === 'dark') await switchTheme(page, 'dark');
      await screenshot(page, `long-map-progress-${colorScheme}-390`, { fullPage: false });
      const box = await page.locator('#run-progress').boundingBox();
      assert.ok(box.width <= 390, `${colorScheme}: ${box.width} px wide`);
      const button = await page.locator('#run-progress button').boundingBox();
      assert.ok(button.height >= 40, `${colorScheme}: Cancel is ${button.height} px tall`);
    }
    await page.click('#run-progress button');
    await page.waitForFunction(() =>
      /^Cancelled/.test(document.getElementById('status').textContent),
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
