// A second first-time visitor's defects in the attention playground (headless Chromium), each
// held by what the page shows: the Split% hint within 0–100%, the language note after opening a
// file, detection and "the closest" on one measure (glibc's stdio.h), the Head dim of a q/k file,
// readable token labels on a zoomed map, 40 px touch targets, a history entry per discrete choice
// however quick, an empty editor's outline, ALiBi's slope, a Timings line that adds up and the
// first heatmap near the top on a phone. Screenshots go to build/screenshots/review2-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  root,
  startSite,
  openPage,
  pasteCode,
  ready,
  quiet,
  outcome,
  screenshot,
  api,
} from './helpers.mjs';
import { LABEL_MIN_PX } from '../../web/src/page/heatmap.js';
import { errorBytes } from '../../web/src/shared/language-detection.js';
import { LANGUAGE_NAMES } from '../../web/src/shared/samples.js';

const STDIO = fs.readFileSync(path.join(root, 'tests/fixtures/glibc/stdio.h'), 'utf8');
const openMore = (page, panel) =>
  page.evaluate((panel) => (document.querySelector(`#${panel} details.more`).open = true), panel);
async function redraw(page, action) {
  await page.evaluate(() => {
    window.__redrawn = false;
    document.addEventListener('hirope:redraw', () => (window.__redrawn = true), { once: true });
  });
  await action();
  await page.waitForFunction(() => window.__redrawn, null, { timeout: 60000 });
  return page.textContent('#status');
}
const hash = (page) => page.evaluate(() => location.hash);
// A Python snippet of 41 lexical tokens: its whole view carries token labels, as a 41-token zoom.
const SNIPPET =
  'def area(r):\n    return 3.14159 * r * r\n\n\ndef twice(x):\n    y = x + x\n    return y * area(x)\n\n\nz = twice(3) + area(2)\n';

describe('a second first-time visitor (headless Chromium)', { timeout: 600000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close()); // closing the browser closes the shared pages too

  // Two default pages loaded once each (a load costs seconds of CPU), each shared by a test that
  // only reads it and then by one that changes it: the Timings line, then ALiBi's slope; the phone's
  // first screen, then its light-mode targets. A test on a shared page checks only the problems
  // that arose while it ran; a load with problems fails both tests that use it.
  const shared = {};
  const sharedPage = (key, options) => {
    shared[key] ??= (async () => {
      const page = await openPage(site.browser, site.url, options);
      await ready(page);
      assert.deepEqual(page.problems, [], `the ${key} page loads cleanly`);
      return page;
    })();
    return shared[key];
  };
  const PHONE = { viewport: { width: 390, height: 844 } };

  it('the Split% hint stays within 0–100% and says where the bound fell (training length 2, 100000; base 2)', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const hint = () => page.textContent('#ratio-hint-b');
    await redraw(page, () => page.fill('#c-train', '2'));
    await quiet(page);
    let text = await hint();
    assert.match(
      text,
      /^Split% at L = 2: 0% of the pairs\. The bound falls before the fastest pair/,
    );
    assert.doesNotMatch(text, /-\d/);
    // The angle view draws no Split% line then, and its caption says why.
    await page.locator('#angles').scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      /No Split% line: its bound falls before the fastest pair/.test(
        document.querySelector('#angles-b figcaption')?.textContent ?? '',
      ),
    );
    await screenshot(page, 'review2-split-below', { fullPage: false });
    await page.evaluate(() => scrollTo(0, 0));
    await redraw(page, () => page.fill('#c-train', '100000'));
    await quiet(page);
    text = await hint();
    assert.match(
      text,
      /^Split% at L = 100,000: 100% of the pairs\. The bound falls past the slowest pair: all 32/,
    );
    await redraw(page, () => page.fill('#c-train', '256'));
    await openMore(page, 'scheme-b');
    await redraw(page, () => page.fill('#c-b-base', '2'));
    await quiet(page);
    text = await hint();
    assert.match(
      text,
      /^Split% at L = 256: 100% of the pairs\. The bound falls past the slowest pair/,
    );
    assert.doesNotMatch(text, /\d{3,}\.\d%/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("the language note follows the file opened: a binary file's detected language, then tasks.py's", async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    let seed = 7;
    const binary = Buffer.from(
      Array.from({ length: 600 }, () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 16) & 255;
      }),
    );
    await redraw(page, () =>
      page.setInputFiles('#open-file', {
        name: 'blob.bin',
        mimeType: 'application/octet-stream',
        buffer: binary,
      }),
    );
    await page.waitForFunction(() =>
      /^Language: /.test(document.getElementById('note').textContent),
    );
    const detected = await page.textContent('#note');
    await quiet(page);
    await redraw(page, () =>
      page.setInputFiles('#open-file', {
        name: 'tasks.py',
        mimeType: 'text/x-python',
        buffer: Buffer.from('import asyncio\n\n\nasync def main():\n    await asyncio.sleep(1)\n'),
      }),
    );
    await quiet(page);
    assert.equal(await page.inputValue('#c-language'), 'python');
    const note = await page.textContent('#note');
    assert.equal(note, 'Language: Python (from the file name).', `after ${detected}`);
    // A language picked by hand clears a note that names another.
    await redraw(page, () => page.selectOption('#c-language', 'go'));
    assert.equal(await page.textContent('#note'), '');
    page.problems = []; // the binary file's parse may log nothing, but its bytes are not text
    await page.context().close();
  });

  it("glibc's stdio.h: the status's closest grammar is the one detection picks, by the same measure (error bytes)", async () => {
    const hr = await api();
    const measure = (language) => {
      const errors = hr.analyze(STDIO, { language }).errors;
      return { regions: errors.length, bytes: errorBytes(errors) };
    };
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await pasteCode(page, STDIO);
    await page.waitForFunction(
      () =>
        /No grammar parses this code cleanly/.test(document.getElementById('status').textContent),
      null,
      { timeout: 60000 },
    );
    const language = await page.inputValue('#c-language');
    const status = await page.textContent('#status');
    const chosen = measure(language);
    // The grammar named the closest has the fewest error bytes of all, and the sentence says so
    // with its numbers (C++ here: fewer error bytes than C, though in more regions).
    for (const other of ['c', 'cpp', 'python', 'javascript', 'go', 'rust', 'java'])
      assert.ok(measure(other).bytes >= chosen.bytes, `${other} against ${language}`);
    assert.match(
      status,
      new RegExp(
        `No grammar parses this code cleanly: ${LANGUAGE_NAMES[language].replace(/\+/g, '\\+')} is the closest, its syntax errors covering the fewest bytes \\(${chosen.bytes.toLocaleString('en')} bytes in ${chosen.regions} regions\\)`,
      ),
    );
    await screenshot(page, 'review2-stdio', { fullPage: false });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("with a q/k file of head dimension 8, Head dim shows the file's 8 (locked) until another source is chosen", async () => {
    const hr = await api();
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await redraw(page, () => pasteCode(page, SNIPPET));
    const n = hr.analyze(SNIPPET, { language: 'python' }).tokens.count;
    const rows = (s) =>
      Array.from({ length: n }, (_, i) =>
        Array.from({ length: 8 }, (_, c) => Math.sin(s * (i + 1) * (c + 1))),
      );
    await page.selectOption('#c-source', 'file');
    await redraw(page, () =>
      page.setInputFiles('#qk-file', {
        name: 'qk8.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ headDim: 8, q: rows(1), k: rows(2) })),
      }),
    );
    await openMore(page, 'shared-controls');
    assert.equal(await page.inputValue('#c-headDim'), '8');
    assert.equal(await page.isDisabled('#c-headDim'), true);
    assert.match(
      await page.textContent('#c-headDim-help'),
      /Set by the q\/k file qk8\.json: its rows hold 8 numbers \(d\/2 = 4 frequency pairs\)/,
    );
    await redraw(page, () => page.selectOption('#c-source', 'ones'));
    assert.equal(await page.inputValue('#c-headDim'), '64');
    assert.equal(await page.isDisabled('#c-headDim'), false);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ]) {
    it(`labels a 41-token map at least ${LABEL_MIN_PX} px tall as shown, a line apart (${width} px)`, async () => {
      const page = await openPage(site.browser, site.url, { viewport: { width, height } });
      await ready(page);
      await redraw(page, () => pasteCode(page, SNIPPET));
      await quiet(page);
      for (const id of ['map-a', 'map-b', 'map-diff']) {
        const got = await page.evaluate((id) => {
          const c = document.querySelector(`#${id} canvas[role=img]`);
          return { size: Number(c.dataset.labelPx), pitch: Number(c.dataset.labelPitchPx) };
        }, id);
        assert.ok(got.size >= LABEL_MIN_PX - 0.5, `${id}: labels ${got.size} px`);
        assert.ok(
          got.pitch >= got.size,
          `${id}: labels ${got.pitch} px apart, ${got.size} px tall`,
        );
      }
      await page.locator('#map-a').scrollIntoViewIfNeeded();
      await screenshot(page, `review2-labels-${width}`, { fullPage: false });
      assert.deepEqual(page.problems, []);
      await page.context().close();
    });
  }

  it('on a phone the first heatmap starts on the first screen (the maps before the code and the scheme controls)', async () => {
    const page = await sharedPage('phone', PHONE);
    const seen = page.problems.length;
    const top = await page.evaluate(
      () => document.querySelector('#map-a canvas').getBoundingClientRect().top + scrollY,
    );
    assert.ok(top < 844, `the first map starts ${(top / 844).toFixed(2)} screens down`);
    await screenshot(page, 'review2-phone-first-screen', { fullPage: false });
    assert.deepEqual(page.problems.slice(seen), []);
  });

  for (const colorScheme of ['light', 'dark'])
    it(`on a phone every target is at least 40 px tall, sliders wide, button labels centred (${colorScheme})`, async () => {
      // Light: the shared phone page, in its default state (the first-screen test only reads it).
      const page =
        colorScheme === 'light'
          ? await sharedPage('phone', PHONE)
          : await openPage(site.browser, site.url, { colorScheme, ...PHONE });
      if (colorScheme !== 'light') await ready(page);
      const seen = page.problems.length;
      for (const panel of ['scheme-a', 'scheme-b', 'shared-controls']) await openMore(page, panel);
      // The Tokenizers box holds "Load tokenizer.json…"; Timings its own disclosure.
      await page.evaluate(() => {
        document.getElementById('tokenizers-box').open = true;
        document.getElementById('timings').open = true;
      });
      assert.equal(await page.locator('label.button:has-text("Load tokenizer.json")').count(), 1);
      const small = await page.evaluate(() => {
        const out = [];
        const targets = document.querySelectorAll(
          'button, select, input:not(.sr-only), .button, summary, nav.modes a',
        );
        for (const t of targets) {
          const box = t.getBoundingClientRect();
          if (!box.width || t.closest('[hidden]')) continue;
          const name = `${t.tagName.toLowerCase()}${t.id ? `#${t.id}` : ''} "${t.textContent.trim().slice(0, 30)}"`;
          if (box.height < 39.5) out.push(`${name}: ${box.height.toFixed(1)} px tall`);
          if (t.type === 'range' && box.width < 159.5)
            out.push(`${name}: ${box.width.toFixed(1)} px wide`);
          if (t.classList.contains('button')) {
            const text = t.querySelector('span').getBoundingClientRect();
            const off = text.top + text.height / 2 - (box.top + box.height / 2);
            if (Math.abs(off) > 2) out.push(`${name}: text ${off.toFixed(1)} px off centre`);
          }
        }
        return out;
      });
      assert.deepEqual(small, []);
      await screenshot(page, `review2-phone-${colorScheme}`);
      assert.deepEqual(page.problems.slice(seen), []);
      if (colorScheme === 'light') delete shared.phone; // changed: a later test gets a fresh page
      await page.context().close();
    });

  it('each choice gets its own history entry: one made while a run computes, one right after that run ends, two at once; Back undoes them one by one', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const entries = await page.evaluate(() => history.length);
    // Language while a run of the current state still computes (the Backend menu starts one), then
    // Scheme A as soon as that run has ended (its hirope:redraw, then the URL write that follows
    // it): the run of the older state must neither write it nor take the Language entry.
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          // A pick in a menu: its value, then the events a browser fires for it.
          window.__pick = (id, value) => {
            const select = document.getElementById(id);
            select.value = value;
            for (const type of ['input', 'change'])
              select.dispatchEvent(new Event(type, { bubbles: true }));
          };
          document.getElementById('backend').dispatchEvent(new Event('change'));
          queueMicrotask(() => __pick('c-language', 'rust')); // once that run has started
          document.addEventListener(
            'hirope:redraw',
            () =>
              setTimeout(() => {
                __pick('c-a-type', 'rerope');
                resolve();
              }),
            { once: true },
          );
        }),
    );
    await page.waitForFunction((k) => history.length === k, entries + 2, { timeout: 60000 });
    // Two choices in one go, before the first one's redraw or URL write.
    await redraw(page, () =>
      page.evaluate(() => {
        __pick('c-language', 'go');
        __pick('c-a-type', 'alibi');
      }),
    );
    await page.waitForFunction((k) => history.length === k, entries + 4, { timeout: 60000 });
    await quiet(page);
    const controls = () =>
      page.evaluate(() => [
        document.getElementById('c-language').value,
        document.getElementById('c-a-type').value,
      ]);
    assert.deepEqual(await controls(), ['go', 'alibi']);
    for (const want of [
      ['go', 'rerope'],
      ['rust', 'rerope'],
      ['rust', 'rope'],
      ['python', 'rope'],
    ]) {
      await page.goBack();
      await page.waitForFunction(
        ([language, type]) =>
          document.getElementById('c-language').value === language &&
          document.getElementById('c-a-type').value === type,
        want,
      );
    }
    assert.equal(await hash(page), '');
    await quiet(page);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('an empty editor lists no units', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const got = await outcome(page, () => pasteCode(page, '   \n'));
    assert.match(got.status, /no tokens/);
    await page.waitForFunction(
      () => document.getElementById('outline-count').textContent === '(0)',
    );
    assert.equal(await page.textContent('#outline'), 'No units: the code has no tokens yet.');
    assert.doesNotMatch(await page.textContent('#outline'), /unnamed/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the Timings line adds up: the wait for the workers plus the painting is the total', async () => {
    const page = await sharedPage('desktop');
    const seen = page.problems.length;
    const text = await page.textContent('#timing-text');
    const m =
      /^Last redraw ([\d.]+) ms = ([\d.]+) ms until both workers' results arrived \+ ([\d.]+) ms painting them\./.exec(
        text,
      );
    assert.ok(m, text);
    assert.ok(Math.abs(Number(m[1]) - Number(m[2]) - Number(m[3])) <= 0.15, text);
    const a = Number(/: A ([\d.]+) ms/.exec(text)[1]);
    const b = Number(/, B ([\d.]+) ms/.exec(text)[1]);
    const waiting = Number(/the other ([\d.]+) ms of the/.exec(text)[1]);
    assert.ok(Math.abs(Math.max(a, b) + waiting - Number(m[2])) <= 0.15, text);
    assert.deepEqual(page.problems.slice(seen), []);
  });

  it("says which slope ALiBi uses (one head: the API's alibiSlopes(1))", async () => {
    const hr = await api();
    const slope = hr.alibiSlopes(1)[0];
    // The shared page, in its default state (the Timings test before this one only reads it).
    const page = await sharedPage('desktop');
    const seen = page.problems.length;
    await redraw(page, () => page.selectOption('#c-a-type', 'alibi'));
    await quiet(page);
    assert.match(
      await page.textContent('#ratio-hint-a'),
      new RegExp(`^ALiBi's slope here is 1/${1 / slope}:`),
    );
    assert.deepEqual(page.problems.slice(seen), []);
    delete shared.desktop; // changed: a later test gets a fresh page
    await page.context().close();
  });
});
