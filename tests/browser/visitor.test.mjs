// What a first-time visitor does with the playground and Model mode (headless Chromium): the
// Language picker reparses the code, the Sample picker says when the code is your own and gives a
// sample back, Gemma 3's 14 MB tokenizer loads in a fresh browser context (fetched once, for both
// workers), a download that fails is tried again and then named, counts read "1 token", the
// outline's statements add up to the status's on binary garbage, WebGPU is not offered without
// an adapter, and Model mode's Generate is disabled while a field is invalid.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, pasteCode, ready, outcome } from './helpers.mjs';
import { SAMPLES } from '../../web/src/shared/samples.js';

const editorText = (page) =>
  page.evaluate(() =>
    Array.from(
      document.querySelector('#editor').shadowRoot.querySelectorAll('.cm-line'),
      (l) => l.textContent,
    ).join('\n'),
  );
const openMore = (page, panel) =>
  page.evaluate((panel) => (document.querySelector(`#${panel} details.more`).open = true), panel);
/** Whether a map's canvas has any drawn pixel. */
const drawn = (page, id) =>
  page.evaluate((id) => {
    const c = document.querySelector(`#${id} canvas`);
    return c
      .getContext('2d')
      .getImageData(0, 0, c.width, c.height)
      .data.some((v) => v !== 0);
  }, id);

describe('a first-time visitor (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  it('the Language picker reparses the code in the language chosen, and stays on it', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    assert.match(await page.textContent('#status'), /tokens of Python/);
    let got = await outcome(page, () => page.selectOption('#c-language', 'rust'));
    assert.equal(got.outcome, 'redraw', got.status);
    assert.match(got.status, /tokens of Rust/);
    // An untouched sample is replaced by the language's sample; the picker keeps the choice.
    assert.equal(await editorText(page), SAMPLES.rust);
    assert.equal(await page.inputValue('#c-language'), 'rust');
    // Code of your own is kept and parsed by the grammar chosen.
    const code = 'package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n';
    got = await outcome(page, () => pasteCode(page, code));
    got = await outcome(page, () => page.selectOption('#c-language', 'go'));
    assert.match(got.status, /tokens of Go/);
    assert.equal(await editorText(page), code);
    await page.waitForTimeout(500); // a later redraw must not put the picker back
    assert.equal(await page.inputValue('#c-language'), 'go');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('the Sample picker says "Your code" once the code is edited, and picking the sample again restores it', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    assert.equal(await page.inputValue('#sample'), 'python');
    await outcome(page, () => pasteCode(page, 'def f(x):\n    return x\n'));
    assert.equal(await page.inputValue('#sample'), 'custom');
    assert.equal(await page.$eval('#sample', (s) => s.selectedOptions[0].textContent), 'Your code');
    const got = await outcome(page, () => page.selectOption('#sample', 'python'));
    assert.equal(got.outcome, 'redraw');
    assert.equal(await editorText(page), SAMPLES.python);
    assert.equal(await page.inputValue('#sample'), 'python');
    assert.equal(await page.$eval('#sample option[value=custom]', (o) => o.hidden), true);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("Gemma 3's tokenizer loads in a fresh browser context: fetched once for both workers, both sides draw", async () => {
    const page = await openPage(site.browser, site.url); // a new context: an empty cache
    const fetched = [];
    page.on(
      'request',
      (r) => /\/data\/gemma3\.json$/.test(new URL(r.url()).pathname) && fetched.push(r.url()),
    );
    const failed = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    await ready(page);
    await openMore(page, 'shared-controls');
    const got = await outcome(page, () => page.selectOption('#c-tokenizer', 'gemma3'));
    assert.equal(got.outcome, 'redraw', got.status);
    assert.match(got.status, /tokens of Python in .*; tokenizer: Gemma 3\./);
    assert.equal(fetched.length, 1, 'the page fetches the vocabulary once');
    assert.deepEqual(failed, []);
    assert.ok(await drawn(page, 'map-a'));
    assert.ok(await drawn(page, 'map-b'));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('a vocabulary download that fails is tried once more; if that fails too, the status names the file', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    let aborts = 1;
    const requests = [];
    await page.route('**/data/llama2.bin', (route) => {
      requests.push(route.request().url());
      return aborts-- > 0 ? route.abort('failed') : route.continue();
    });
    await openMore(page, 'shared-controls');
    let got = await outcome(page, () => page.selectOption('#c-tokenizer', 'llama2'));
    assert.equal(got.outcome, 'redraw', got.status);
    assert.equal(requests.length, 2, 'one failure, one retry');
    // Another tokenizer whose file cannot be fetched at all.
    await page.route('**/data/cl100k.bin', (route) => route.abort('failed'));
    got = await outcome(page, () => page.selectOption('#c-tokenizer', 'cl100k'));
    assert.equal(got.outcome, 'error');
    assert.match(
      got.status,
      /^The cl100k tokenizer's vocabulary \(data\/cl100k\.bin\) could not be downloaded: Failed to fetch\. Choose the tokenizer again to retry, or another one\.$/,
    );
    page.problems = page.problems.filter(
      (p) => !/Failed to load resource: net::ERR_FAILED/.test(p),
    ); // the aborted requests
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('counts read "1 token", "1 unit", "1 statement"', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const got = await outcome(page, () => pasteCode(page, 'x'));
    assert.match(
      got.status,
      /^1 token of Python in 1 unit and 1 statement; tokenizer: lexical \(grammar tokens\)\./,
    );
    assert.match(got.status, /The only token is within/);
    assert.match(await page.textContent('#outline .outline-meta'), /· 1 statement$/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("on binary garbage the outline's statements add up to the status's count", async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    let seed = 11;
    const bytes = Array.from({ length: 700 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) & 255;
    });
    const garbage = String.fromCharCode(...bytes.map((b) => (b < 32 && b !== 10 ? b + 32 : b)));
    const got = await outcome(page, () => pasteCode(page, garbage));
    const total = Number(/ and ([\d,]+) statements?;/.exec(got.status)[1].replace(/,/g, ''));
    await page.waitForFunction(
      () => document.querySelectorAll('#outline .outline-meta').length > 0,
    );
    const sum = await page.$$eval('#outline .outline-meta', (metas) =>
      metas.reduce((s, m) => s + Number(/(\d+) statements?$/.exec(m.textContent)[1]), 0),
    );
    assert.equal(sum, total, got.status);
    page.problems = [];
    await page.context().close();
  });

  it('WebGPU is not offered where the browser has no adapter, and says why', async () => {
    const page = await openPage(site.browser, site.url); // launched with --disable-gpu
    await ready(page);
    await page.waitForFunction(
      () => document.querySelector('#backend option[value=webgpu]').disabled,
      null,
      { timeout: 30000 },
    );
    const option = await page.$eval('#backend option[value=webgpu]', (o) => ({
      text: o.textContent,
      title: o.title,
    }));
    assert.equal(option.text, 'WebGPU (not available)');
    assert.match(
      option.title,
      /^Not available: this browser (has no WebGPU|found no WebGPU adapter)/,
    );
    assert.match(
      await page.$eval('#backend', (s) => s.closest('label').title),
      /WebGPU is not available/,
    );
    assert.equal(await page.inputValue('#backend'), 'wasm');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('Model mode: Generate is disabled while a field is invalid (Bytes 0), and says which', async () => {
    const page = await openPage(site.browser, `${site.url}model.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, {
      timeout: 120000,
    });
    assert.equal(await page.isDisabled('#generate'), false);
    await page.fill('#c-maxBytes', '0');
    assert.equal(await page.getAttribute('#c-maxBytes', 'aria-invalid'), 'true');
    assert.equal(await page.isDisabled('#generate'), true);
    assert.match(await page.getAttribute('#generate', 'title'), /^Correct Bytes first/);
    await page.fill('#c-maxBytes', '12');
    assert.equal(await page.isDisabled('#generate'), false);
    assert.equal(await page.getAttribute('#generate', 'title'), '');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
