// Model mode after a change, in headless Chromium: a change of model clears the generation and the
// query line of the old one; Back undoes a menu choice and stays on the page while a slider adds
// no entry; a cut file names the limit that cut it; an empty editor and pasted code in another
// language read as plain sentences; scalings carry the catalogue's names; the ratio label shows
// the slider's value; a cut prompt says so; a touch screen says "tap". Screenshots of the views
// it changes go to build/screenshots/model-changes-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startSite, openPage, screenshot, pasteCode, nextModelRun as nextRun } from './helpers.mjs';
import { encodeWith, normalizeWith } from '../../web/src/shared/link-state.js';
import {
  MODEL_DEFAULTS,
  TOKEN_MODEL_DEFAULTS,
  encodeModelState,
} from '../../web/src/shared/model-state.js';

const ready = (page) =>
  page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 180000 });
const statusText = (page) => page.textContent('#status');

async function open(site, defaults, partial = {}, options = undefined) {
  // The link names its model (a link without one is an old byte-model link).
  const hash = await encodeModelState(normalizeWith(defaults, partial));
  const page = await openPage(site.browser, `${site.url}model.html${hash}`, options);
  await ready(page);
  return page;
}

// Short code for the tests whose property does not depend on the code's length: every page load
// and every run (loss, attention, the thumbnails) costs in proportion to it. The long samples
// stay in the test of the cut (tasks.py) and in model-tokens.test.mjs's first view.
const SHORT = `import math


def area(radius):
    return math.pi * radius ** 2


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def grow(self, by):
        self.radius += by
        return area(self.radius)
`;

// asyncio/tasks.py: past one run's 8,192 bytes with fewer than 2,560 tokens (the file).
const TASKS = '/usr/lib/python3.11/asyncio/tasks.py';
const GO = `package main

import "fmt"

type point struct {
	x, y int
}

func (p point) add(q point) point {
	return point{p.x + q.x, p.y + q.y}
}

func main() {
	p := point{1, 2}
	for i := 0; i < 3; i++ {
		p = p.add(point{i, i})
	}
	fmt.Println(p)
}
`;

describe('Model mode after a change (headless Chromium)', { timeout: 900000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it("a change of model clears the old model's generation and query line", async () => {
    const page = await open(site, TOKEN_MODEL_DEFAULTS, {
      code: SHORT,
      maxBytes: 16,
      temperature: 0,
    });
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
      timeout: 120000,
    });
    assert.match(await page.textContent('#gen-title-a'), /Sliding window \(W 512\) — /);
    const map = await page.locator('#map-a canvas[role=img]').boundingBox();
    await page.mouse.click(map.x + map.width * 0.6, map.y + map.height * 0.7);
    await page.waitForFunction(() =>
      /^Token \d+ .* layer 0, head 0/.test(document.getElementById('query-info').textContent),
    );
    await screenshot(page, 'model-changes-before-switch', { fullPage: false });
    // The byte model: nothing of the token model's stays on the page.
    await nextRun(page, () => page.locator('#c-model').selectOption('pybyte'));
    assert.equal(await page.textContent('#query-info'), '');
    for (const side of ['a', 'b']) {
      assert.equal(await page.textContent(`#gen-title-${side}`), side.toUpperCase());
      assert.match(await page.textContent(`#gen-${side}`), /^Nothing generated for these settings/);
    }
    assert.equal(await page.inputValue('#c-layer'), '0');
    // A scheme change clears a generation too.
    await page.locator('#generate').click();
    await page.waitForFunction(() => !document.getElementById('generate').disabled, null, {
      timeout: 120000,
    });
    assert.match(await page.textContent('#gen-title-b'), /^B: HiRoPE/);
    await nextRun(page, () => page.locator('#c-b-type').selectOption('rerope'));
    assert.match(await page.textContent('#gen-b'), /^Nothing generated for these settings/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('Back undoes a menu choice and stays on the page; a slider adds no entry', async () => {
    const page = await open(site, MODEL_DEFAULTS, { code: SHORT });
    const start = await page.evaluate(() => history.length);
    await nextRun(page, () => page.locator('#c-head').selectOption('2'));
    await page.waitForFunction((n) => history.length === n + 1, start);
    await nextRun(page, () => page.locator('#c-b-type').selectOption('rerope'));
    await page.waitForFunction((n) => history.length === n + 2, start);
    // The Window field and the ratio slider replace the entry.
    const before = await page.evaluate(() => location.hash);
    await nextRun(page, () => page.locator('#c-b-window').fill('96'));
    await page.waitForFunction((h) => location.hash !== h, before);
    assert.equal(await page.evaluate(() => history.length), start + 2);
    // Back: the scheme comes back, then the head, and the page stays.
    await nextRun(page, () => page.goBack());
    assert.equal(await page.inputValue('#c-b-type'), 'hirope');
    assert.equal(await page.inputValue('#c-head'), '2');
    await nextRun(page, () => page.goBack());
    assert.equal(await page.inputValue('#c-head'), '0');
    assert.match(page.url(), /model\.html/);
    // Two menu choices in quick succession are two entries (a new entry drops the forward ones:
    // the first view, then layer 1, then head 3).
    // Both in one task, so the second comes well before the first's link is written.
    await page.evaluate(() => {
      for (const [id, value] of [
        ['c-layer', '1'],
        ['c-head', '3'],
      ]) {
        const select = document.getElementById(id);
        select.value = value;
        select.dispatchEvent(new Event('input', { bubbles: true }));
      }
    });
    await ready(page);
    await page.waitForFunction((n) => history.length === n + 2, start);
    await nextRun(page, () => page.goBack());
    assert.equal(await page.inputValue('#c-layer'), '1');
    assert.equal(await page.inputValue('#c-head'), '0');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('a cut file names the limit that cut it; an empty editor reads as a sentence', async () => {
    const code = fs.readFileSync(TASKS, 'utf8');
    const page = await open(site, TOKEN_MODEL_DEFAULTS, { code });
    const text = await statusText(page);
    assert.match(text, /^[\d,]+ tokens \([\d,]+ bytes\) read by pyjs-llama2/);
    assert.match(
      text,
      new RegExp(
        `Only the first [\\d,]+ of the code's ${Buffer.byteLength(code).toLocaleString('en')} bytes were read, because one run of the model reads at most 8,192 bytes`,
      ),
    );
    assert.doesNotMatch(text, /2,560 tokens/);
    await screenshot(page, 'model-changes-cut-file', { fullPage: false });
    // The whole file continues from its cut, and says so.
    await page.locator('#c-maxBytes').fill('8');
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
      timeout: 120000,
    });
    assert.match(
      await page.textContent('#gen-title-a'),
      /after the first [\d,]+ of the code's [\d,]+ bytes \(a prompt holds at most [\d,]+ bytes here, so the model continues from there, not from the code's end\)/,
    );
    // An empty editor.
    await pasteCode(page, '');
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    const empty = await statusText(page);
    assert.equal(empty, 'The editor is empty: paste or type some code for the model to read.');
    await screenshot(page, 'model-changes-empty', { fullPage: false });
    await page.context().close();
  });

  it('pasted Go: detected, and the note says the model was not trained on it', async () => {
    const page = await open(site, MODEL_DEFAULTS, { code: SHORT });
    await pasteCode(page, GO);
    await page.waitForFunction(() => document.getElementById('c-language').value === 'go', null, {
      timeout: 60000,
    });
    await ready(page);
    assert.match(
      await page.textContent('#language-note'),
      /^Detected: Go\. The byte model was trained on Python only, not Go/,
    );
    // The picker lists the model's languages first.
    const groups = await page.$$eval('#c-language optgroup', (gs) =>
      gs.map((g) => [g.label, [...g.children].map((o) => o.value)]),
    );
    assert.deepEqual(groups[0], ['Trained on', ['python']]);
    assert.ok(groups[1][1].includes('go'));
    await screenshot(page, 'model-changes-go', { fullPage: false });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("scalings under the catalogue's names; the ratio label shows the slider's value", async () => {
    const page = await open(site, TOKEN_MODEL_DEFAULTS, {
      code: SHORT,
      b: { type: 'rope', scaling: 'ntk', factor: 4 },
    });
    assert.match(await page.textContent('#map-b'), /RoPE with NTK-aware scaling ×4/);
    assert.doesNotMatch(await page.textContent('#map-b'), /ntk ×4/);
    const label = () =>
      page
        .locator('#c-a-ratio')
        .evaluate((input) => input.closest('label').querySelector('output').textContent);
    await nextRun(page, () => page.locator('#c-a-type').selectOption('hirope'));
    const value = await page.inputValue('#c-a-ratio');
    assert.equal(value, '0.3125');
    await page.waitForFunction(
      () =>
        document.getElementById('c-a-ratio').closest('label').querySelector('output')
          .textContent !== '0.3125',
    );
    assert.equal((await label()).split(' · ')[0], value);
    await page.context().close();
  });

  for (const colorScheme of ['light', 'dark'])
    it(`on a phone the hint says tap (${colorScheme})`, async () => {
      const context = await site.browser.newContext({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        deviceScaleFactor: 2,
        colorScheme,
      });
      const page = await context.newPage();
      await page.goto(
        `${site.url}model.html${await encodeWith(MODEL_DEFAULTS, { model: 'pybyte', code: SHORT })}`,
      );
      await ready(page);
      const hint = await page.textContent('#maps-how');
      assert.match(hint, /^Tap a row to shade the bytes/);
      assert.doesNotMatch(hint, /click/i);
      await page.locator('#maps').scrollIntoViewIfNeeded();
      await screenshot(page, `model-changes-phone-${colorScheme}`, { fullPage: false });
      await context.close();
    });
});
