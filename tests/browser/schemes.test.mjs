// Every scheme type on each side (A and B), chosen as a visitor chooses it, in the playground and
// in <hirope-attention>: each one computes (no error status), and the map of that side is then
// titled with the scheme chosen. A setting that cannot be computed (the element's leaky-factor
// below 1) shows its reason and never leaves a map titled with the previous scheme.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, outcome as pageOutcome } from './helpers.mjs';
import { SCHEME_TYPES } from '../../web/src/shared/schemes.js';
import {
  normalizeState,
  describeScheme,
  encodeState,
} from '../../web/src/shared/playground-state.js';

const mapTitle = (page, side) =>
  page.evaluate((side) => {
    const caption = document.querySelector(`#map-${side} figcaption`);
    return `${caption.querySelector('.hm-title').textContent} ${caption.querySelector('.hm-sub').textContent}`;
  }, side);

/** The element's next outcome after action(): 'ready' or 'error', with its status line. */
async function elementOutcome(page, id, action) {
  await page.evaluate((id) => {
    window.__outcome = null;
    const host = document.getElementById(id);
    host.addEventListener('hirope:ready', () => (window.__outcome ??= 'ready'), { once: true });
    host.addEventListener('hirope:error', () => (window.__outcome ??= 'error'), { once: true });
  }, id);
  await action();
  await page.waitForFunction(() => window.__outcome !== null, null, { timeout: 90000 });
  return page.evaluate((id) => {
    const root = document.getElementById(id).shadowRoot;
    const figures = [...root.querySelectorAll('figure')];
    return {
      outcome: window.__outcome,
      status: root.querySelector('[role=status]').textContent,
      captions: figures.map((f) => f.querySelector('figcaption').textContent),
      canvasShown: figures.map((f) => !f.querySelector('canvas').hidden),
    };
  }, id);
}

describe('every scheme on each side (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it('the playground computes every scheme type for A and for B, and titles the map with it', async () => {
    const page = await openPage(site.browser, site.url);
    await page.waitForSelector('body[data-ready=true]', { timeout: 90000 });
    for (const side of ['a', 'b']) {
      // Start from a type other than the side's current one, so that every choice is a change.
      const current = await page.inputValue(`#c-${side}-type`);
      const order = [
        ...SCHEME_TYPES.filter(([t]) => t !== current),
        ...SCHEME_TYPES.filter(([t]) => t === current),
      ];
      for (const [type, label] of order) {
        const { outcome, status } = await pageOutcome(page, () =>
          page.selectOption(`#c-${side}-type`, type),
        );
        assert.equal(outcome, 'redraw', `${side.toUpperCase()} = ${type}: ${status}`);
        // A redraw already under way may land first: wait for the one of this choice (or an error).
        const want = `${side.toUpperCase()} ${label}`;
        await page.waitForFunction(
          ({ side, want }) => {
            const caption = document.querySelector(`#map-${side} figcaption`);
            return (
              `${caption.querySelector('.hm-title').textContent} ${caption.querySelector('.hm-sub').textContent}`.startsWith(
                want,
              ) || document.getElementById('status').classList.contains('error')
            );
          },
          { side, want },
          { timeout: 90000 },
        );
        const now = await page.textContent('#status');
        assert.equal(
          await page.$eval('#status', (e) => e.classList.contains('error')),
          false,
          `${side} = ${type}: ${now}`,
        );
        assert.doesNotMatch(now, /cannot be computed|Error/, `${side} = ${type}`);
        const title = await mapTitle(page, side);
        assert.ok(title.startsWith(want), `${side} = ${type}: the map is titled "${title}"`);
      }
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('a scheme that cannot be computed empties its map and titles it with that scheme', async () => {
    const page = await openPage(site.browser, site.url);
    await page.waitForSelector('body[data-ready=true]', { timeout: 90000 });
    await page.evaluate(() => (document.querySelector('#scheme-a details.more').open = true));
    await pageOutcome(page, () => page.selectOption('#c-a-type', 'leaky-rerope'));
    assert.match(await mapTitle(page, 'a'), /^A Leaky ReRoPE \(W 64, slope 1\/16\)/);
    // The field refuses 0.0625 in place (the core's leakyFactor is a divisor >= 1).
    await page.fill('#c-a-leakyFactor', '0.0625');
    assert.equal(await page.getAttribute('#c-a-leakyFactor', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#c-a-leakyFactor-error'), /at least 1/);
    await pageOutcome(page, () => page.selectOption('#c-a-type', 'rope'));
    assert.match(await mapTitle(page, 'a'), /^A RoPE/);
    // A link can still carry a value the core refuses: the status says why, and the map that
    // showed RoPE is emptied and titled with the scheme that could not be computed.
    const hash = await encodeState(
      normalizeState({ a: { type: 'leaky-rerope', leakyFactor: 0.5 } }),
    );
    const { outcome, status } = await pageOutcome(page, () =>
      page.evaluate((hash) => (location.hash = hash), hash),
    );
    assert.equal(outcome, 'error');
    assert.match(status, /leakyFactor must be a number >= 1, got 0\.5/);
    assert.match(
      await mapTitle(page, 'a'),
      /^A Leaky ReRoPE \(W 64, slope 1\/0\.5\): not computed/,
    );
    // No cell is drawn: the lower-left corner of the plot (a cell of every causal map) is empty,
    // and the map says why in words.
    assert.equal(
      await page.evaluate(() => {
        const c = document.querySelector('#map-a canvas');
        return c
          .getContext('2d')
          .getImageData(20, c.height - 40, 30, 30)
          .data.some((v) => v !== 0);
      }),
      false,
      'the map that showed RoPE is empty',
    );
    assert.match(
      await page.getAttribute('#map-a canvas[role=img]', 'aria-label'),
      /Not computed: see the status line above/,
    );
    page.problems = page.problems.filter((p) => !/cannot be computed/.test(p));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the element computes every scheme type for A and for B, and titles its map with it', async () => {
    const page = await openPage(site.browser, `${site.url}article.html`, {
      viewport: { width: 1100, height: 900 },
    });
    await page.waitForFunction(
      () => document.getElementById('first').dataset.ready === 'true',
      null,
      { timeout: 90000 },
    );
    const state = await page.evaluate(() => document.getElementById('first').state);
    for (const [index, side] of ['a', 'b'].entries()) {
      const attribute = `scheme-${side}`;
      const current = state[side].type;
      const order = [
        ...SCHEME_TYPES.filter(([t]) => t !== current),
        ...SCHEME_TYPES.filter(([t]) => t === current),
      ];
      for (const [type, label] of order) {
        const select = page
          .locator('#first')
          .locator(`select[aria-label="Scheme ${side.toUpperCase()}"]`);
        const got = await elementOutcome(page, 'first', () => select.selectOption(type));
        assert.equal(got.outcome, 'ready', `${attribute} = ${type}: ${got.status}`);
        assert.doesNotMatch(got.status, /cannot be computed|Error/);
        assert.ok(
          got.captions[index].startsWith(`${side.toUpperCase()} ${label}`),
          `${attribute} = ${type}: captioned "${got.captions[index]}"`,
        );
        assert.deepEqual(got.canvasShown, [true, true, true]);
      }
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the element takes leaky-factor; one below 1 is refused in words, under maps titled with the new scheme and empty', async () => {
    const page = await openPage(site.browser, `${site.url}article.html`, {
      viewport: { width: 1100, height: 900 },
    });
    await page.waitForFunction(
      () => document.getElementById('first').dataset.ready === 'true',
      null,
      { timeout: 90000 },
    );
    const set = (attrs) => () =>
      page.evaluate((attrs) => {
        const host = document.getElementById('first');
        for (const [k, v] of Object.entries(attrs)) host.setAttribute(k, v);
      }, attrs);
    let got = await elementOutcome(
      page,
      'first',
      set({ 'scheme-a': 'leaky-rerope', 'leaky-factor': '4' }),
    );
    assert.equal(got.outcome, 'ready', got.status);
    const expected = describeScheme(
      normalizeState({ a: { type: 'leaky-rerope', leakyFactor: 4, window: 16 } }).a,
    );
    assert.match(
      got.captions[0],
      /^A Leaky ReRoPE \(W \d+, slope 1\/4\)$/,
      `captioned like ${expected}`,
    );
    got = await elementOutcome(
      page,
      'first',
      set({ 'scheme-a': 'rerope', 'leaky-factor': '0.0625' }),
    );
    assert.equal(got.outcome, 'error');
    assert.match(
      got.status,
      /leaky-factor attribute must be at least 1 \(a number >= 1\), got "0\.0625"/,
    );
    assert.match(
      got.captions[0],
      /^A ReRoPE/,
      'titled with the scheme asked for, not the previous one',
    );
    assert.deepEqual(got.canvasShown, [false, false, false], 'no map is left under the new titles');
    got = await elementOutcome(page, 'first', set({ 'leaky-factor': '16' }));
    assert.equal(got.outcome, 'ready', got.status);
    assert.deepEqual(got.canvasShown, [true, true, true]);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
