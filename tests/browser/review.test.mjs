// Defects a first-time visitor found in the attention playground, each held by what the page now
// shows: the angle view's caption against the chart's own pixels, display names (schemes with
// their scaling, tokenizers) in the status and titles, choosing Q/K "from a file…", one format for
// probabilities in the hover card, superscript powers of ten and the embed's A vs B legend.
// Screenshots of the changed states go to build/screenshots/review-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, ready, quiet, outcome, screenshot } from './helpers.mjs';
import { normalizeState, describeScheme } from '../../web/src/shared/playground-state.js';
import { presetState } from '../../web/src/shared/presets.js';
import { MARGIN, PLOT } from '../../web/src/page/heatmap.js';
import { DIFF_LEGEND } from '../../web/src/shared/wording.js';

const isError = (page) =>
  page.evaluate(() => document.getElementById('status').classList.contains('error'));
// Chooses the Q/K select's last option ("from a file…") by keyboard, as a person does (a script's
// selectOption carries no user activation, so no page could open a picker from it).
async function chooseFileByKeyboard(page) {
  await page.focus('#c-source');
  await page.waitForFunction(() => document.activeElement?.id === 'c-source');
  await page.keyboard.press('End');
}
const preset = (page, id) => outcome(page, () => page.click(`.preset[data-preset=${id}]`));

describe('first-time-visitor review (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it('the angle view says the pairs above the Split% line turn a full period, and its red cells are below it', async () => {
    const page = await openPage(site.browser, site.url, { viewport: { width: 1440, height: 900 } });
    await ready(page);
    const got = await preset(page, 'rope-pi');
    assert.equal(got.outcome, 'redraw', got.status);
    await page.locator('#angles').scrollIntoViewIfNeeded();
    await page.waitForSelector('#angles-a figure canvas');
    await quiet(page);
    const caption = await page.textContent('#angles-a figcaption');
    assert.match(
      caption,
      /Split% \(the faster pairs above it turn a full period within 128 tokens; only the slower pairs below it can be out of distribution\)/,
    );
    assert.doesNotMatch(caption, /pairs below it turn/);
    // The chart as drawn: pair j's row starts at top + j / pairs × height (pair 0, the fastest, on
    // top); every red pixel lies below the Split% line, in the rows of pairs that never turn.
    const pairs = 32;
    const splitPair = (pairs * Math.log(128 / (2 * Math.PI))) / Math.log(10000);
    const red = await page.evaluate(() => {
      const c = document.querySelector('#angles-a canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const scale = c.width / c.getBoundingClientRect().width;
      let top = Infinity;
      let count = 0;
      for (let y = 0; y < c.height; y++) {
        for (let x = 60 * scale; x < c.width - 60 * scale; x++) {
          const o = 4 * (y * c.width + x);
          if (d[o] > 170 && d[o + 1] < 90 && d[o + 2] < 90) {
            count++;
            top = Math.min(top, y / scale);
          }
        }
      }
      return { top, count };
    });
    const height = Math.max(120, Math.min(300, pairs * 5));
    const splitY = 18 + (splitPair / pairs) * height;
    assert.ok(red.count > 0, 'red cells drawn');
    assert.ok(
      red.top >= splitY - 1,
      `the highest red pixel (y ${red.top}) is below the Split% line (y ${splitY.toFixed(1)})`,
    );
    assert.match(caption, /red: out of distribution — 21 of 32 pairs/);
    await screenshot(page, 'review-angles', { fullPage: false });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the status and the map titles name each side alike, scaling included, and the tokenizer as its control does', async () => {
    const page = await openPage(site.browser, site.url, { viewport: { width: 1440, height: 900 } });
    await ready(page);
    for (const id of ['rope-pi', 'scaling']) {
      const got = await preset(page, id);
      assert.equal(got.outcome, 'redraw', got.status);
      await quiet(page);
      const status = await page.textContent('#status');
      const state = presetState(id, normalizeState({}));
      for (const side of ['a', 'b']) {
        const name = describeScheme(state[side]);
        assert.equal(await page.textContent(`#map-${side} .hm-sub`), name);
        assert.ok(
          status.includes(`${side.toUpperCase()}, ${name},`),
          `${status} names ${side} as ${name}`,
        );
      }
      assert.doesNotMatch(status, /\((RoPE|linear|ntk|yarn) /);
    }
    assert.match(await page.textContent('#map-a .hm-sub'), /^RoPE with NTK-aware scaling ×4$/);
    assert.match(await page.textContent('#status'), /A, RoPE with NTK-aware scaling ×4, /);
    // A tokenizer under its control's label.
    await page.click('#shared-controls details.more summary');
    const got = await outcome(page, () => page.selectOption('#c-tokenizer', 'llama2'));
    assert.equal(got.outcome, 'redraw', got.status);
    assert.match(got.status, /; tokenizer: Llama 2 \/ Code Llama\./);
    assert.doesNotMatch(got.status, /llama2/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('choosing Q/K "from a file…" opens the file picker; until a file is loaded a plain hint, and cancelling goes back', async () => {
    const page = await openPage(site.browser, site.url, { viewport: { width: 1440, height: 900 } });
    // Listening from the start: Playwright intercepts pickers only once its listener is set up (a
    // picker opened before that is cancelled at once, which the page rightly treats as a cancel).
    const choosers = [];
    page.on('filechooser', (c) => choosers.push(c));
    const nextChooser = async (count) => {
      await page.waitForFunction(() => true); // a round trip
      for (let t = 0; t < 100 && choosers.length < count; t++) await page.waitForTimeout(100);
      assert.equal(choosers.length, count, 'the file picker opened');
      return choosers[count - 1];
    };
    await ready(page);
    const before = await page.textContent('#status');
    // Chosen by keyboard (a person's choice, so the page may open a picker).
    await chooseFileByKeyboard(page);
    const picker = await nextChooser(1);
    assert.equal(await picker.element().getAttribute('id'), 'qk-file');
    assert.equal(await page.inputValue('#c-source'), 'file');
    const hint = await page.textContent('#qk-hint');
    assert.match(hint, /^Choose a q\/k JSON file/);
    assert.doesNotMatch(hint, /"file"/);
    assert.equal(await isError(page), false);
    assert.equal(
      await page.textContent('#status'),
      before,
      'the maps and the status stay as they were',
    );
    assert.doesNotMatch(await page.textContent('body'), /Q\/K source "file"|cannot be computed/);
    await screenshot(page, 'review-qk-hint', { fullPage: false });
    // Cancelling the picker: back to the previous source, no hint.
    await page.dispatchEvent('#qk-file', 'cancel');
    await page.waitForSelector('#qk-hint', { state: 'hidden' });
    assert.equal(await page.inputValue('#c-source'), 'ones');
    assert.equal(await isError(page), false);
    // Choosing it again and picking a file draws the maps from it.
    const n = Number(/^(\d+) tokens/.exec(before)[1]);
    const rows = (seed) =>
      Array.from({ length: n }, (_, i) =>
        Array.from({ length: 8 }, (_, c) => Math.sin(seed * (i + 1) * (c + 1))),
      );
    await chooseFileByKeyboard(page);
    const again = await nextChooser(2);
    const got = await outcome(page, () =>
      again.setFiles({
        name: 'qk.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ headDim: 8, q: rows(1), k: rows(2) })),
      }),
    );
    assert.equal(got.outcome, 'redraw', got.status);
    assert.match(got.status, /Head dimension 8 comes from the q\/k file/);
    assert.equal(await page.inputValue('#c-source'), 'file');
    assert.equal(await page.isHidden('#qk-hint'), true);
    assert.match(await page.textContent('#qk-file-label'), /q\/k: qk\.json/);
    assert.deepEqual(
      page.problems.filter((p) => !/File chooser/.test(p)),
      [],
    );
    await page.context().close();
  });

  it('a link asking for q/k from a file opens with the hint, not an error', async () => {
    const { encodeState } = await import('../../web/src/shared/playground-state.js');
    const page = await openPage(
      site.browser,
      `${site.url}${await encodeState(normalizeState({ source: 'file' }))}`,
    );
    await ready(page);
    assert.equal(await isError(page), false, await page.textContent('#status'));
    assert.equal(await page.inputValue('#c-source'), 'file');
    assert.match(
      await page.textContent('#qk-hint'),
      /the maps keep the content-free \(all ones\) q\/k/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the hover card writes both probabilities in one format, and the colour bar says 10⁻⁴', async () => {
    const page = await openPage(site.browser, site.url, { viewport: { width: 1440, height: 900 } });
    await ready(page);
    assert.match(await page.textContent('#map-a'), /10⁻⁴× row max/);
    assert.doesNotMatch(await page.textContent('#maps'), /10⁻4/);
    const n = Number(/^(\d+) tokens/.exec(await page.textContent('#status'))[1]);
    const box = await page.evaluate(() => {
      const c = document.querySelector('#map-a canvas[role=img]');
      return { ...c.getBoundingClientRect().toJSON(), size: c.width };
    });
    const seen = [];
    for (const [i, j] of [
      [n - 1, 0],
      [300, 120],
      [200, 190],
      [57, 57],
    ]) {
      const at = (t, start) => start + ((MARGIN + ((t + 0.5) * PLOT) / n) * box.width) / box.size;
      await page.mouse.move(at(j, box.left) - 30, at(i, box.top) - 30);
      await page.mouse.move(at(j, box.left), at(i, box.top), { steps: 3 });
      await page.waitForSelector('.hm-tip:not([hidden])', { timeout: 10000 });
      await page.waitForTimeout(200);
      const rows = Object.fromEntries(
        await page.evaluate(() =>
          Array.from(document.querySelectorAll('.hm-tip dt'), (dt) => [
            dt.textContent,
            dt.nextElementSibling.textContent,
          ]),
        ),
      );
      for (const key of ['p under A', 'p under B']) {
        assert.match(
          rows[key],
          /^(\d+(\.\d+)?|\d\.\d\d × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)%$/,
          `${key}: ${rows[key]}`,
        );
        seen.push(rows[key]);
      }
      if (i === n - 1) await screenshot(page, 'review-hover', { fullPage: false });
    }
    assert.ok(
      seen.some((v) => /^0\.0/.test(v) || /×/.test(v)),
      `a small probability among ${seen}`,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("the article's embeds: a superscript 10⁻⁴ and a complete A vs B legend", async () => {
    const page = await openPage(site.browser, `${site.url}article.html`, {
      viewport: { width: 1100, height: 3000 },
    });
    const ids = await page.evaluate(() =>
      [...document.querySelectorAll('hirope-attention')].map((e) => e.id).filter(Boolean),
    );
    for (const id of ids) {
      // Each loads when scrolled near.
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      await page.waitForFunction((id) => document.getElementById(id).dataset.ready === 'true', id, {
        timeout: 60000,
      });
    }
    const texts = await page.evaluate(() =>
      [...document.querySelectorAll('hirope-attention')]
        .filter((e) => e.id)
        .map((e) => {
          const captions = [...e.shadowRoot.querySelectorAll('figcaption')];
          return {
            foot: e.shadowRoot.querySelector('.foot').textContent,
            captions: captions.map((c) => c.textContent),
            cut: captions.some((c) => c.scrollWidth > c.clientWidth + 1),
          };
        }),
    );
    assert.ok(texts.length >= 1);
    for (const t of texts) {
      assert.match(t.foot, /10⁻⁴/);
      assert.doesNotMatch(t.foot, /10⁻4/);
      assert.equal(t.captions[2], `A vs B ${DIFF_LEGEND}`);
      assert.equal(t.cut, false, `a caption is cut short: ${t.captions}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
