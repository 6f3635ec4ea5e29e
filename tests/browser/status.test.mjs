// The playground's status line in headless Chromium says what is true for what is shown: code no
// grammar parses cleanly is named as such after detection, with the chosen grammar's count of
// error regions (the API's), and the training-length sentence names only the schemes shown.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, pasteCode, api, ready, quiet } from './helpers.mjs';
import { LANGUAGE_NAMES } from '../../web/src/shared/samples.js';
import { errorBytes } from '../../web/src/shared/language-detection.js';

describe('playground status line', { timeout: 300000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });

  it('says when no grammar parses the pasted code cleanly, with the error-region count', async () => {
    const hr = await api();
    const page = await openPage(site.browser, site.url);
    await ready(page);
    for (const code of [
      'def broken(:\n    return ]\n  x = = 1\nclass\n',
      '\u0001\u00ff\u0000garbage\u0007 {{ ]] (( "unterminated\n\u0010\u0011 0x1Z ;; ## @@\n',
    ]) {
      await pasteCode(page, code);
      // Pasting detects the language; the status then says that even the closest grammar fails.
      await page.waitForFunction(
        () =>
          /No grammar parses this code cleanly/.test(document.getElementById('status').textContent),
        null,
        { timeout: 60000 },
      );
      await quiet(page); // the redraws that the paste's detection starts have ended
      const status = await page.textContent('#status');
      const language = await page.inputValue('#c-language');
      const found = hr.analyze(
        await page.evaluate(
          // biome-ignore lint/performance/useDomNodeTextContent: innerText keeps the editor's line breaks (one div a line); textContent would join the lines
          () => document.querySelector('#editor').shadowRoot.querySelector('.cm-content').innerText,
        ),
        { language },
      ).errors;
      const errors = found.length;
      assert.ok(errors > 0);
      // "The closest" by detection's own measure: the bytes the errors cover.
      assert.match(
        status,
        new RegExp(
          `No grammar parses this code cleanly: ${LANGUAGE_NAMES[language].replace('+', '\\+')} is the closest, its syntax errors covering the fewest bytes \\(${errorBytes(found).toLocaleString('en')} bytes? in ${errors} regions?\\),`,
        ),
      );
    }
    // Code that parses cleanly says nothing of errors.
    await pasteCode(page, 'def fine(x):\n    return x + 1\n');
    await page.waitForFunction(
      () =>
        /tokens of Python/.test(document.getElementById('status').textContent) &&
        !/syntax error/.test(document.getElementById('status').textContent),
      null,
      { timeout: 60000 },
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('names the schemes shown, not plain RoPE, beyond the training length', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await page.click('.preset[data-preset=windows]');
    await page.waitForFunction(
      () => /A, ReRoPE \(W 64\),/.test(document.getElementById('status').textContent),
      null,
      { timeout: 60000 },
    );
    const status = await page.textContent('#status');
    assert.match(status, /beyond the training length of [\d,]+: there /);
    assert.match(status, /A, ReRoPE \(W 64\),/);
    assert.match(status, /B, Self-Extend \(W 64, G 8\),/);
    assert.doesNotMatch(status, /plain RoPE|, RoPE,/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
