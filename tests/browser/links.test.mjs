// The playground's links and history in headless Chromium: a cut or garbled link says that it could
// not be read (and the page shows the default view), a link made by an earlier version still
// loads, a long file's code round-trips through the URL and a shorter link without the code is
// offered, and discrete choices (presets, menus, checkboxes, samples) add history entries that
// Back undoes, while numbers replace the entry.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, screenshot, pasteCode, ready, quiet } from './helpers.mjs';
import { SAMPLES } from '../../web/src/shared/samples.js';
import { normalizeState, encodeState, decodeState } from '../../web/src/shared/playground-state.js';
import { LINK_UNREADABLE } from '../../web/src/shared/wording.js';
import { OLD_LINK, OLD_LINK_STATE } from '../js/support/old-link.mjs';

const hash = (page) => page.evaluate(() => location.hash);
const urlState = async (page) => decodeState(await hash(page));
/** Waits until the URL's hash is no longer `before` (it is written shortly after a redraw). */
async function hashChange(page, before) {
  await page.waitForFunction((h) => location.hash !== h, before, { timeout: 60000 });
  await quiet(page);
  return hash(page);
}
/** The editor's first lines (CodeMirror draws only the lines in view). */
const editorStart = (page, lines = 5) =>
  page.evaluate(
    (k) =>
      Array.from(
        document.querySelector('#editor').shadowRoot.querySelectorAll('.cm-line'),
        (l) => l.textContent,
      )
        .slice(0, k)
        .join('\n'),
    lines,
  );
const start = (code, lines = 5) => code.split('\n').slice(0, lines).join('\n');
const pressed = (page) =>
  page.evaluate(() => document.querySelector('.preset[aria-pressed=true]')?.dataset.preset ?? '');
const historyLength = (page) => page.evaluate(() => history.length);

describe('playground links and history', { timeout: 600000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });

  it('says that a cut or garbled link could not be read, and shows the default view', async () => {
    const good = await encodeState(
      normalizeState({ train: 100, code: 'def f(x):\n    return x + 1\n' }),
    );
    for (const [name, bad] of [
      ['cut', good.slice(0, Math.floor(good.length / 2))],
      ['garbled', `${good.slice(0, 10)}QQQQ${good.slice(14)}`],
    ]) {
      const page = await openPage(site.browser, `${site.url}${bad}`);
      await ready(page);
      const notice = page.locator('#link-notice');
      assert.equal(await notice.isVisible(), true, name);
      assert.equal(await notice.locator('p').textContent(), LINK_UNREADABLE);
      assert.equal(await notice.getAttribute('role'), 'alert');
      // The page still loads: the default preset over the Python sample.
      assert.equal(await pressed(page), 'hirope');
      assert.equal(await editorStart(page), start(SAMPLES.python));
      assert.match(await page.textContent('#status'), /tokens of Python/);
      if (name === 'cut') await screenshot(page, 'link-unreadable', { fullPage: false });
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal(await page.locator('#link-notice').count(), 0);
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
    // A page opened without a link, or with a good one, shows no notice.
    for (const h of ['', good]) {
      const page = await openPage(site.browser, `${site.url}${h}`);
      await ready(page);
      assert.equal(await page.locator('#link-notice').count(), 0);
      await page.context().close();
    }
  });

  it('says so in Model mode too', async () => {
    const good = await encodeState(
      normalizeState({ train: 100, code: 'def f(x):\n    return x + 1\n' }),
    );
    const page = await openPage(site.browser, `${site.url}model.html${good.slice(0, 20)}`);
    await page.waitForSelector('#link-notice', { timeout: 60000 });
    assert.equal(await page.textContent('#link-notice p'), LINK_UNREADABLE);
    await page.click('#link-notice button');
    assert.equal(await page.locator('#link-notice').count(), 0);
    await page.context().close();
  });

  it('loads a link made by an earlier version', async () => {
    const page = await openPage(site.browser, `${site.url}${OLD_LINK}`);
    await ready(page);
    assert.equal(await page.locator('#link-notice').count(), 0);
    assert.equal(await editorStart(page, 2), start(OLD_LINK_STATE.code, 2));
    assert.equal(await page.inputValue('#c-a-type'), 'rerope');
    assert.equal(await page.inputValue('#c-train'), '128');
    const state = await urlState(page);
    assert.equal(state.headDim, 32);
    assert.equal(state.b.ratio, 0.25);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('keeps a long file in the URL and offers a link without the code', async () => {
    const context = await site.browser.newContext({
      viewport: { width: 1440, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(site.url);
    await ready(page);
    assert.equal(await page.locator('#link-size').isVisible(), false);
    // 160 lines that do not repeat: the deflated link is far over the 2,000 characters chat apps keep.
    const code =
      Array.from(
        { length: 160 },
        (_, i) =>
          `def step_${i}(value_${i}):\n    return value_${i} * ${(i * 7919) % 1009} + ${(i * 104729) % 997}  # ${(i * 31337).toString(36)}`,
      ).join('\n') + '\n';
    const before = await hash(page);
    await pasteCode(page, code);
    const long = await hashChange(page, before);
    // The whole code round-trips through the compressed URL.
    assert.equal((await decodeState(long)).code, code);
    await page.waitForSelector('#link-size:not([hidden])');
    assert.match(
      await page.textContent('#link-size'),
      new RegExp(
        `link is ${long.length.toLocaleString('en')} characters long because the code is in it`,
      ),
    );
    await page.click('#copy-short-link');
    await page.waitForFunction(() =>
      /^Copied/.test(document.getElementById('copy-short-link').textContent),
    );
    const link = await page.getAttribute('#copy-short-link', 'data-link');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    assert.ok(link.length < 300, `${link.length} characters: ${link}`);
    await screenshot(page, 'link-long', { fullPage: false });
    // The short link opens the sample with the same settings and says that the code was left out.
    const other = await context.newPage();
    await other.goto(link);
    await ready(other);
    assert.match(
      await other.textContent('#link-notice'),
      /shared without its code: the maps show the Python sample/,
    );
    assert.equal(await editorStart(other), start(SAMPLES.python));
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('adds a history entry for each discrete choice, and Back undoes it', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const entries = await historyLength(page);
    assert.equal(await hash(page), '');
    // A preset.
    await page.click('.preset[data-preset=split]');
    const afterPreset = await hashChange(page, '');
    assert.equal(await historyLength(page), entries + 1);
    // A menu (scheme A).
    await page.selectOption('#c-a-type', 'rerope');
    const afterMenu = await hashChange(page, afterPreset);
    assert.equal(await historyLength(page), entries + 2);
    // A number replaces the entry (typing and sliders too).
    await page.fill('#c-train', '200');
    const afterNumber = await hashChange(page, afterMenu);
    assert.equal(await historyLength(page), entries + 2);
    assert.equal((await urlState(page)).train, 200);
    // A checkbox and a sample push.
    await page.evaluate(
      () => (document.querySelector('#shared-controls details.more').open = true),
    );
    await page.check('#c-descend');
    const afterCheckbox = await hashChange(page, afterNumber);
    assert.equal(await historyLength(page), entries + 3);
    await page.selectOption('#sample', 'go');
    await hashChange(page, afterCheckbox);
    assert.equal(await historyLength(page), entries + 4);
    assert.equal((await urlState(page)).language, 'go');

    // Back undoes one choice at a time, restoring the controls, the code and the maps.
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, afterCheckbox);
    await quiet(page);
    assert.equal(await page.inputValue('#c-language'), 'python');
    assert.equal(await editorStart(page), start(SAMPLES.python));
    assert.equal(await page.isChecked('#c-descend'), true);
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, afterNumber);
    await quiet(page);
    assert.equal(await page.isChecked('#c-descend'), false);
    assert.equal(await page.inputValue('#c-train'), '200');
    assert.equal(await page.inputValue('#c-a-type'), 'rerope');
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, afterPreset);
    await quiet(page);
    assert.equal(await page.inputValue('#c-a-type'), (await decodeState(afterPreset)).a.type);
    assert.notEqual(await page.inputValue('#c-a-type'), 'rerope');
    assert.equal(await pressed(page), 'split');
    await page.goBack();
    await page.waitForFunction(() => location.hash === '');
    await quiet(page);
    assert.equal(await pressed(page), 'hirope');
    assert.equal(page.url(), site.url);
    // Forward redoes it; the restore itself adds no entry.
    await page.goForward();
    await page.waitForFunction((h) => location.hash === h, afterPreset);
    await quiet(page);
    assert.equal(await pressed(page), 'split');
    assert.equal(await historyLength(page), entries + 4);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
