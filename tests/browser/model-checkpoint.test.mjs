// Model mode's checkpoint source in headless Chromium: a checkpoint the tests make (hirope's own
// byte model exported as a llama checkpoint, with a byte-level tokenizer.json), in one file and
// in two shards, opened by picking its files, picking its folder, dropping its files and typing
// its URL; what loading takes said first; its maps (A its own positions, B HiRoPE on the same
// weights) checked against model.attention from the JS API; its loss in the status line as
// model.loss gives it; a folder the page cannot load named in one sentence; a URL in the link;
// Cancel clicked while a download runs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../../tools/chromium.mjs';
import {
  openPage,
  readCells,
  sampleCells,
  api,
  nextModelRun,
  screenshot,
  resizeTo,
  switchTheme,
  DESKTOP_VIEWPORT,
  PHONE_VIEWPORT,
} from './helpers.mjs';
import { LUTS, probIndex, rgb } from '../../dist/colormap.js';
import {
  encodeModelState,
  readModelLink,
  CHECKPOINT_DEFAULTS,
} from '../../web/src/shared/model-state.js';
import { normalizeWith } from '../../web/src/shared/link-state.js';
import { MARGIN } from '../../web/src/page/heatmap.js';
import { checkpointSideOptions, checkpointSite } from './checkpoint-site.mjs';

const CODE = `import math


def area(radius):
    return math.pi * radius ** 2


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return area(self.radius)
`;

// The safetensors file split into two shards with their index, as transformers writes them.
function shard(folder, into) {
  const bytes = fs.readFileSync(path.join(folder, 'model.safetensors'));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const halves = [names.slice(0, names.length >> 1), names.slice(names.length >> 1)];
  fs.mkdirSync(into);
  const weightMap = {};
  halves.forEach((list, s) => {
    const file = `model-0000${s + 1}-of-00002.safetensors`;
    const out = {};
    const parts = [];
    let at = 0;
    for (const name of list) {
      const t = header[name];
      const data = bytes.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]);
      out[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + data.length] };
      parts.push(data);
      at += data.length;
      weightMap[name] = file;
    }
    const json = Buffer.from(JSON.stringify(out));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(json.length));
    fs.writeFileSync(path.join(into, file), Buffer.concat([length, json, ...parts]));
  });
  fs.writeFileSync(
    path.join(into, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: { total_size: bytes.length - 8 - n }, weight_map: weightMap }),
  );
  for (const f of ['config.json', 'tokenizer.json'])
    fs.copyFileSync(path.join(folder, f), path.join(into, f));
}

describe('Model mode: your checkpoint (headless Chromium)', () => {
  let site, folders, browser, url, model;
  // /gated/<folder>/: the folder's files, its weights' body held after the first half until the
  // test calls release() (what a slow download looks like, with no timer: the test cancels it).
  let release = () => {};
  const gated = (pathname, _, res, req) => {
    if (!pathname.startsWith('/gated/')) return false;
    const file = path.join(site.fixtures, pathname.slice('/gated/'.length));
    const bytes = fs.existsSync(file) ? fs.readFileSync(file) : null;
    res.writeHead(bytes ? 200 : 404, bytes ? { 'content-length': bytes.length } : {});
    if (!bytes || req.method === 'HEAD') res.end();
    else if (!file.endsWith('.safetensors')) res.end(bytes);
    else {
      res.write(bytes.subarray(0, bytes.length >> 1));
      release = () => res.end(bytes.subarray(bytes.length >> 1));
    }
    return true;
  };
  before(async () => {
    site = await checkpointSite('hirope-page-checkpoints-', gated);
    url = site.url;
    const one = path.join(site.fixtures, 'pybyte-llama');
    const two = path.join(site.fixtures, 'pybyte-sharded');
    shard(one, two);
    folders = { one, two };
    browser = await launchChromium();
    model = await (await api()).model.fromPretrained(one);
  });
  after(async () => {
    model?.dispose();
    await browser?.close();
    site?.close();
  });

  const STATE = normalizeWith(CHECKPOINT_DEFAULTS, {
    ...CHECKPOINT_DEFAULTS,
    code: CODE,
    layer: 1,
    head: 2,
    b: { ...CHECKPOINT_DEFAULTS.b, window: 32 },
  });
  const open = async (state = STATE, options) => {
    const page = await openPage(
      browser,
      `${url}model.html${await encodeModelState(state)}`,
      options,
    );
    await page.waitForSelector('#checkpoint-source:not([hidden])');
    return page;
  };

  // The first link written (each a hirope:link event, collected by the page from the URL step on)
  // that names the folder: each wait ends at the next write, none at a timer.
  async function linkNaming(page, folderURL) {
    for (let seen = 0; ; ) {
      const hashes = await page.evaluate(
        (seen) =>
          window.__links.length > seen
            ? window.__links
            : new Promise((resolve) => {
                window.__linked = () => resolve(window.__links);
              }),
        seen,
      );
      for (const hash of hashes.slice(seen))
        if ((await readModelLink(hash)).state.checkpoint === folderURL)
          return `${url}model.html${hash}`;
      seen = hashes.length;
    }
  }

  // Until the panel's line matches `pattern` (each change of its text observed in the page).
  const panelSays = (page, pattern) =>
    page.evaluate(
      (pattern) =>
        new Promise((resolve) => {
          const status = document.getElementById('checkpoint-status');
          const seen = () => new RegExp(pattern).test(status.textContent);
          if (seen()) return resolve();
          new MutationObserver((_, observer) => {
            if (seen()) resolve(observer.disconnect());
          }).observe(status, { childList: true, characterData: true, subtree: true });
        }),
      pattern,
    );

  // The maps and the loss as the JS API computes them for this state.
  async function checkMaps(page, { layer = 1, head = 2 } = {}) {
    const expected = checkpointSideOptions(STATE.b);
    const status = await page.locator('#status').textContent();
    for (const side of ['a', 'b']) {
      const { bitsPerToken } = model.loss(CODE, expected[side]);
      assert.match(
        status,
        new RegExp(`${side.toUpperCase()} ${bitsPerToken.toFixed(3)}\\b`),
        status,
      );
      const { matrix, n } = model.attention(CODE, { ...expected[side], layer, head });
      const cells = sampleCells(n, 30);
      const got = await readCells(page, `#map-${side} canvas`, cells, { margin: MARGIN, n });
      for (const [c, [i, j]] of cells.entries()) {
        const max = Math.max(...matrix.subarray(i * n, i * n + i + 1));
        assert.deepEqual(
          got[c].slice(0, 3),
          rgb(LUTS.magma, probIndex(Math.fround(matrix[i * n + j] * Math.fround(1 / max)))),
          `${side} (${i}, ${j})`,
        );
      }
    }
  }

  it('opens a checkpoint by its files and by its folder, says what it takes first, and shows its own heads as the API computes them', async () => {
    const page = await open();
    assert.match(await page.locator('#status').textContent(), /Choose a checkpoint folder/);
    assert.match(
      await page.locator('#checkpoint-source').textContent(),
      /The files never leave this\s+machine/,
    );
    const files = ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) =>
      path.join(folders.one, f),
    );
    await nextModelRun(page, () => page.setInputFiles('#checkpoint-files', files));
    assert.match(
      await page.locator('#checkpoint-status').textContent(),
      /^The files chosen: llama, 0\.7 M parameters: 1\.3 MB of weights and up to [\d.]+ MB for a forward, in each of the page's two workers \([\d.]+ MB in all\)\. The weights stay on this machine; a local folder cannot be put in a link/,
    );
    await checkMaps(page);
    // The layer and head menus are the checkpoint's (3 layers, 4 heads); a change draws from the
    // every-head forward the worker keeps (no loss pass, no forward).
    assert.equal(await page.locator('#c-layer option').count(), 3);
    assert.equal(await page.locator('#c-head option').count(), 4);
    await nextModelRun(page, () => page.selectOption('#c-head', '0'));
    await checkMaps(page, { layer: 1, head: 0 });
    await nextModelRun(page, () => page.selectOption('#c-layer', '2'));
    await checkMaps(page, { layer: 2, head: 0 });
    // The head picker: each side's small maps of the chosen layer's heads, which follow the Layer
    // menu; clicking one opens that head.
    assert.match(await page.locator('#thumbs figcaption').textContent(), /^Every head of layer 2/);
    for (const side of ['a', 'b'])
      assert.deepEqual(
        await page
          .locator(`#thumbs-${side} button.thumb`)
          .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label'))),
        [0, 1, 2, 3].map((h) => `Layer 2, head ${h} (${side.toUpperCase()})`),
      );
    await nextModelRun(page, () =>
      page.locator('#thumbs-b button.thumb[aria-label^="Layer 2, head 3"]').click(),
    );
    await checkMaps(page, { layer: 2, head: 3 });
    assert.equal(
      await page.locator('#thumbs-a button.thumb[aria-pressed=true]').getAttribute('aria-label'),
      'Layer 2, head 3 (A)',
    );
    await nextModelRun(page, () => page.selectOption('#c-layer', '1'));
    await nextModelRun(page, () => page.selectOption('#c-head', '2'));
    // The sharded folder, picked as a folder: the same model, the same maps.
    await nextModelRun(page, () => page.setInputFiles('#checkpoint-folder', folders.two));
    assert.match(
      await page.locator('#checkpoint-status').textContent(),
      /^The folder pybyte-sharded: llama/,
    );
    await checkMaps(page);
    assert.deepEqual(page.problems, []);
    // Screenshots: light and dark, 1440 and 390 px wide.
    for (const [theme, first, second] of [
      ['light', DESKTOP_VIEWPORT, PHONE_VIEWPORT],
      ['dark', PHONE_VIEWPORT, DESKTOP_VIEWPORT],
    ]) {
      await switchTheme(page, theme);
      for (const viewport of [first, second]) {
        await resizeTo(page, viewport);
        // The panel and what it says, in view (the loss chart is above it).
        await page.locator('#checkpoint-source').scrollIntoViewIfNeeded();
        await screenshot(page, `model-checkpoint-${viewport.width}-${theme}`, { fullPage: false });
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          `no wider than the window at ${viewport.width} px`,
        );
      }
    }
    await page.context().close();
  });

  it('opens dropped files and a URL (which goes into the link); a folder it cannot load is one sentence', async () => {
    const page = await open();
    // Dropped: the files as a drop on the panel delivers them.
    await nextModelRun(page, () =>
      page.evaluate(async (base) => {
        const dt = new DataTransfer();
        for (const name of ['config.json', 'tokenizer.json', 'model.safetensors']) {
          const blob = await (await fetch(`${base}checkpoints/pybyte-llama/${name}`)).blob();
          dt.items.add(new File([blob], name));
        }
        document
          .getElementById('checkpoint-source')
          .dispatchEvent(
            new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }),
          );
      }, url),
    );
    assert.match(
      await page.locator('#checkpoint-status').textContent(),
      /^The dropped files: llama/,
    );
    await checkMaps(page);
    // A URL: downloaded once for both workers, and written into the link (each write is a
    // hirope:link event, collected from here on).
    const folderURL = `${url}checkpoints/pybyte-sharded/`;
    await page.evaluate(() => {
      window.__links = [];
      document.addEventListener('hirope:link', (e) => {
        window.__links.push(e.detail.hash);
        window.__linked?.();
      });
    });
    await nextModelRun(page, async () => {
      await page.fill('#checkpoint-url', folderURL);
      await page.click('#checkpoint-url-form button[type=submit]');
    });
    assert.match(
      await page.locator('#checkpoint-status').textContent(),
      new RegExp(`^${folderURL.replace(/[.]/g, '\\.')}: llama, .* Its URL is in the link\\.$`),
    );
    await checkMaps(page);
    const link = await linkNaming(page, folderURL);
    // Another URL adds a history entry; Back opens the first folder again.
    const otherURL = `${url}checkpoints/pybyte-llama/`;
    await nextModelRun(page, async () => {
      await page.fill('#checkpoint-url', otherURL);
      await page.click('#checkpoint-url-form button[type=submit]');
    });
    assert.match(await page.locator('#checkpoint-status').textContent(), /pybyte-llama\/: llama/);
    await linkNaming(page, otherURL); // its entry is in the history
    await nextModelRun(page, () => page.goBack());
    assert.match(
      await page.locator('#checkpoint-status').textContent(),
      /pybyte-sharded\/: llama, .* Its URL is in the link\.$/,
    );
    await checkMaps(page);
    // Cancel, clicked while a URL's weights download: the panel says so, and the page goes on
    // with the checkpoint it had (its worker replaced, which loads it again for the next run).
    const slowURL = `${url}gated/pybyte-llama/`;
    await page.fill('#checkpoint-url', slowURL);
    await page.click('#checkpoint-url-form button[type=submit]');
    await panelSays(page, '^Downloading .* of ');
    await page.click('#checkpoint-cancel');
    await panelSays(page, 'was cancelled\\.$');
    assert.equal(
      await page.locator('#checkpoint-status').textContent(),
      `Downloading ${slowURL} was cancelled.`,
    );
    assert.ok(await page.locator('#checkpoint-cancel').isHidden());
    release();
    await nextModelRun(page, () => page.selectOption('#c-head', '0'));
    await checkMaps(page, { head: 0 });
    await nextModelRun(page, () => page.selectOption('#c-head', '2'));
    await page.context().close();
    // The link opens the same checkpoint by itself.
    const again = await openPage(browser, link);
    await again.waitForFunction(() => document.body.dataset.ready === 'true', null, {
      timeout: 120000,
    });
    await checkMaps(again);
    // Files without a tokenizer.json, and a folder that is not a checkpoint, are refused.
    await again.setInputFiles('#checkpoint-files', [path.join(folders.one, 'config.json')]);
    assert.match(
      await again.locator('#checkpoint-status').textContent(),
      /^The files chosen has no tokenizer\.json, which the page needs to read code as the model does\.$/,
    );
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-bad-checkpoint-'));
    try {
      const config = JSON.parse(fs.readFileSync(path.join(folders.one, 'config.json'), 'utf8'));
      fs.writeFileSync(
        path.join(bad, 'config.json'),
        JSON.stringify({ ...config, model_type: 'gpt2' }),
      );
      fs.copyFileSync(path.join(folders.one, 'tokenizer.json'), path.join(bad, 'tokenizer.json'));
      fs.copyFileSync(
        path.join(folders.one, 'model.safetensors'),
        path.join(bad, 'model.safetensors'),
      );
      await again.setInputFiles(
        '#checkpoint-files',
        ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => path.join(bad, f)),
      );
      await again.waitForFunction(() =>
        document.getElementById('checkpoint-status').classList.contains('error'),
      );
      assert.match(
        await again.locator('#checkpoint-status').textContent(),
        /^The files chosen cannot be loaded: .*gpt2.*llama/,
      );
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
    // The maps still show the checkpoint opened last.
    await checkMaps(again);
    assert.deepEqual(again.problems, []);
    await again.context().close();
  });
});
