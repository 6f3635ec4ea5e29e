// <hirope-attention checkpoint="…">: a Hugging Face checkpoint folder served beside the page (a
// checkpoint the tests make: hirope's own byte model exported as a llama checkpoint, with a
// byte-level tokenizer.json), fetched once for two elements, its real heads drawn under its own
// positions (A) and HiRoPE on the same weights (B), checked cell by cell against model.attention
// from the JS API; max-bytes refuses it before its weights download; a missing folder, a
// checkpoint without tokenizer.json and a head it does not have are one sentence each.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../../tools/chromium.mjs';
import {
  openPage,
  readCells,
  sampleCells,
  api,
  screenshot,
  resizeTo,
  switchTheme,
  DESKTOP_VIEWPORT,
  PHONE_VIEWPORT,
} from './helpers.mjs';
import { LUTS, probIndex, ratioIndex, divergingLut, rgb } from '../../dist/colormap.js';
import { checkpointSite } from './checkpoint-site.mjs';

const MARGIN = 10; // web/src/element/hirope-attention.js
const CODE = `def area(r):
    return 3.14159 * r * r


def total(shapes):
    s = 0
    for r in shapes:
        s += area(r)
    return s


print(total([1.0, 2.0, 3.0]))
`;

describe('<hirope-attention checkpoint> (headless Chromium)', () => {
  let site, fixtures, browser, url, requests;
  before(async () => {
    // The site with the fixtures, and a page of elements under /test.html.
    site = await checkpointSite('hirope-element-checkpoints-', (pathname, searchParams, res) => {
      if (pathname !== '/test.html') return false;
      const elements = JSON.parse(searchParams.get('elements'));
      const tags = elements
        .map(
          (attrs) =>
            `<hirope-attention ${Object.entries(attrs)
              .map(([k, v]) => `${k}="${v}"`)
              .join(' ')}><template>${CODE}</template></hirope-attention>`,
        )
        .join('\n');
      res.writeHead(200, { 'content-type': 'text/html' });
      // The demo article's look (article.css, light and dark), as a post would embed it.
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,"><link rel="stylesheet" href="article.css"><script type="module" src="hirope-attention.js"></script><title>A checkpoint in a post</title></head><body><article><h1>A small code model's own heads</h1><p>Each figure is one head of a checkpoint served beside this page: A with its own positions, B with another scheme on the same weights.</p>${tags}</article></body></html>`,
      );
      return true;
    });
    ({ fixtures, url, requests } = site);
    // A second copy under another URL: its own download, apart from the max-bytes refusal's.
    fs.cpSync(path.join(fixtures, 'pybyte-llama'), path.join(fixtures, 'pybyte-llama-2'), {
      recursive: true,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    site?.close();
  });

  const open = (elements) =>
    openPage(browser, `${url}test.html?elements=${encodeURIComponent(JSON.stringify(elements))}`, {
      viewport: { width: 1100, height: 2400 },
    });
  const settled = (page, count) =>
    page.waitForFunction(
      (count) =>
        [...document.querySelectorAll('hirope-attention')].filter(
          (e) => e.dataset.ready === 'true' || e.dataset.ready === 'error',
        ).length === count,
      count,
      { timeout: 60000 },
    );
  const foot = (page, index) =>
    page.evaluate(
      (index) =>
        document
          .querySelectorAll('hirope-attention')
          [index].shadowRoot.querySelector('[role=status]').textContent,
      index,
    );

  it("draws the checkpoint's own head (A) and HiRoPE on its weights (B) as model.attention gives them, fetching the folder once for two elements", async () => {
    const folder = `checkpoints/pybyte-llama`;
    requests.splice(0);
    const page = await open([
      { id: 'own', checkpoint: folder, layer: 1, head: 2, window: 32 },
      {
        id: 'other',
        checkpoint: `/${folder}/`,
        layer: 2,
        head: 0,
        'scheme-b': 'rerope',
        window: 24,
      },
    ]);
    await settled(page, 2);
    assert.deepEqual(
      requests.filter((r) => r.startsWith('GET') && r.endsWith('.safetensors')),
      ['GET /checkpoints/pybyte-llama/model.safetensors'],
      'one download for both elements',
    );
    const hr = await api();
    const model = await hr.model.fromPretrained(path.join(fixtures, 'pybyte-llama'), {});
    try {
      for (const [index, id, layer, head, schemeB] of [
        [0, 'own', 1, 2, { type: 'hirope', window: 32 }],
        [1, 'other', 2, 0, { type: 'rerope', window: 24 }],
      ]) {
        assert.equal(
          await page.evaluate((id) => document.getElementById(id).dataset.ready, id),
          'true',
          await foot(page, index),
        );
        assert.match(
          await foot(page, index),
          new RegExp(
            `llama, 0\\.7M parameters · layer ${layer} \\(full\\), head ${head} · \\d+ tokens · \\d+ ms`,
          ),
        );
        const probs = {
          a: model.attention(CODE, { scheme: 'model', language: 'python', layer, head }),
          b: model.attention(CODE, { scheme: schemeB, language: 'python', layer, head }),
        };
        const n = probs.a.n;
        assert.equal(n, new TextEncoder().encode(CODE).length);
        const rowMax = (p, i) => Math.max(...p.subarray(i * n, i * n + i + 1));
        const colour = (which, i, j) => {
          if (which === 'diff')
            return rgb(
              divergingLut('light'),
              ratioIndex(probs.a.matrix[i * n + j], probs.b.matrix[i * n + j]),
            );
          const p = probs[which].matrix;
          return rgb(
            LUTS.magma,
            probIndex(Math.fround(p[i * n + j] * Math.fround(1 / rowMax(p, i)))),
          );
        };
        const cells = sampleCells(n, 40);
        let differing = 0;
        for (const [canvas, which] of ['a', 'b', 'diff'].entries()) {
          const got = await readCells(page, { host: id, index: canvas }, cells, {
            margin: MARGIN,
            n,
          });
          for (const [c, [i, j]] of cells.entries())
            assert.deepEqual(
              got[c].slice(0, 3),
              colour(which, i, j),
              `${id} ${which} (${i}, ${j})`,
            );
          if (which === 'diff')
            differing = cells.filter(
              ([i, j]) => colour('diff', i, j).join() !== colour('diff', i, i).join(),
            ).length;
        }
        assert.ok(differing > 0, `${id}: B differs from A somewhere`);
        const captions = await page.evaluate(
          (id) =>
            [...document.getElementById(id).shadowRoot.querySelectorAll('figcaption')].map(
              (c) => c.textContent,
            ),
          id,
        );
        assert.equal(captions[0], 'A its own positions');
        assert.match(
          captions[1],
          index === 0 ? /^B HiRoPE \(W 32\) on its weights$/ : /^B ReRoPE \(W 24\) on its weights$/,
        );
      }
    } finally {
      model.dispose();
    }
    // Its controls: B's menu offers the schemes a checkpoint takes, and a choice redraws from
    // the loaded weights (no second download).
    const menu = await page.evaluate(() =>
      [...document.getElementById('own').shadowRoot.querySelectorAll('select')[1].options]
        .filter((o) => !o.disabled)
        .map((o) => o.value),
    );
    assert.deepEqual(menu, ['rope', 'hirope', 'rerope', 'leaky-rerope', 'self-extend']);
    const redrawn = page.evaluate(
      () =>
        new Promise((resolve) =>
          document
            .getElementById('own')
            .addEventListener('hirope:ready', () => resolve(), { once: true }),
        ),
    );
    await page.evaluate(() => {
      const select = document.getElementById('own').shadowRoot.querySelectorAll('select')[1];
      select.value = 'self-extend';
      select.dispatchEvent(new Event('change'));
    });
    await redrawn;
    assert.match(
      await page.evaluate(
        () =>
          document.getElementById('own').shadowRoot.querySelectorAll('figcaption')[1].textContent,
      ),
      /^B Self-Extend \(W 32\) on its weights$/,
    );
    assert.equal(
      requests.filter((r) => r.startsWith('GET') && r.endsWith('.safetensors')).length,
      1,
    );
    // Screenshots: light and dark, 1440 and 390 px wide (the maps stack below 520 px).
    for (const [theme, first, second] of [
      ['light', DESKTOP_VIEWPORT, PHONE_VIEWPORT],
      ['dark', PHONE_VIEWPORT, DESKTOP_VIEWPORT],
    ]) {
      await switchTheme(page, theme);
      for (const viewport of [first, second]) {
        await resizeTo(page, viewport);
        await screenshot(page, `element-checkpoint-${viewport.width}-${theme}`);
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          `no wider than the window at ${viewport.width} px`,
        );
      }
    }
    assert.equal(await page.evaluate(() => document.getElementById('own').dataset.theme), 'dark');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('refuses what it cannot show in one sentence: over max-bytes (before the weights download), no folder, no tokenizer.json, no such head', async () => {
    requests.splice(0);
    const page = await open([
      { checkpoint: 'checkpoints/pybyte-llama/', 'max-bytes': 100000 },
      { checkpoint: 'checkpoints/nothing-here/' },
      { checkpoint: 'checkpoints/llama-F32-1/' },
      { checkpoint: 'checkpoints/pybyte-llama-2/', head: 4 },
      { checkpoint: 'checkpoints/pybyte-llama-2/', 'scheme-b': 'alibi' },
    ]);
    await settled(page, 5);
    const base = `${url}checkpoints/`;
    const expected = [
      /^The checkpoint's files take 1\.3 MB \(\d+ bytes\), more than this element's max-bytes of 0\.1 MB \(100000 bytes\): raise max-bytes to show it\.$/,
      new RegExp(
        `^The checkpoint folder ${base}nothing-here/ has no config\\.json \\(the server answered 404\\)\\.$`,
      ),
      new RegExp(
        `^The checkpoint at ${base}llama-F32-1/ has no tokenizer\\.json, which the element needs to read code\\.$`,
      ),
      /^The head attribute must name a head of the checkpoint: it has no head 4 \(its 4 heads are 0 to 3\)\.$/,
      /^On a checkpoint, the scheme-b attribute must be rope \(the model's own positions\) or a scheme that keeps its rotation \(hirope, rerope, leaky-rerope, self-extend\), got "alibi"\.$/,
    ];
    for (const [index, pattern] of expected.entries()) {
      assert.equal(
        await page.evaluate(
          (i) => document.querySelectorAll('hirope-attention')[i].dataset.ready,
          index,
        ),
        'error',
      );
      assert.match(await foot(page, index), pattern);
    }
    // The first element's refusal came before its weights downloaded, and the third's (no
    // tokenizer.json); the fourth's downloaded.
    assert.deepEqual(
      requests.filter((r) => r.startsWith('GET') && r.endsWith('.safetensors')),
      ['GET /checkpoints/pybyte-llama-2/model.safetensors'],
    );
    // The missing files are the only problems: the browser reports each 404.
    assert.deepEqual(
      page.problems.filter((p) => !/status of 404/.test(p)),
      [],
    );
    await page.context().close();
  });
});
