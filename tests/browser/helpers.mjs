// Shared set-up for the browser tests: the site server, Chromium (tools/chromium.mjs),
// pages that record errors (CSP violations arrive as console errors), screenshots, and expected
// heatmap colours computed in Node from the hirope API.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../tools/chromium.mjs';
import { createServer } from '../../web/serve.mjs';
import init from '../../dist/index.js';
import { normalizeState } from '../../web/src/shared/playground-state.js';
import { pageProbabilities } from '../js/support/page-probabilities.mjs';

export { pageProbabilities };
import { LUTS, probIndex, ratioIndex, divergingLut, rgb } from '../../dist/colormap.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOTS = path.join(root, 'build/screenshots');

export async function startSite() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launchChromium();
  return {
    url,
    browser,
    async close() {
      await browser.close();
      server.close();
    },
  };
}

/**
 * Records every response a server sends into `served` ({ url (no query), method, status, bytes }),
 * counting each body's bytes as the server writes them, before the server's own handler runs, so
 * that 304s and HEADs (empty bodies) are seen too. web/serve.mjs compresses nothing: a 200's body
 * is the file. Used by the page-weight budget and bench/page-load.mjs.
 */
export function countResponses(server, served) {
  server.prependListener('request', (req, res) => {
    const record = { url: req.url.slice(1).split('?')[0], method: req.method, status: 0, bytes: 0 };
    served.push(record);
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    const count = (chunk) => {
      if (chunk && typeof chunk !== 'function')
        record.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    };
    res.write = (chunk, ...rest) => {
      count(chunk);
      return write(chunk, ...rest);
    };
    res.end = (chunk, ...rest) => {
      count(chunk);
      record.status = res.statusCode;
      return end(chunk, ...rest);
    };
  });
}

/**
 * A download's bytes, read through Playwright's stream: a file path exists only where the browser
 * runs on this machine's side of the connection, not through the run's shared Chromium.
 */
export async function downloadBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A page that collects page errors, console errors and dialogs (none may happen). */
export async function openPage(
  browser,
  url,
  { colorScheme = 'light', viewport = { width: 1440, height: 1000 } } = {},
) {
  const context = await browser.newContext({ colorScheme, viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.problems = [];
  page.on(
    'pageerror',
    (e) =>
      page.problems.push(`pageerror: ${e.message}`) &&
      process.env.HIROPE_DEBUG &&
      console.log(e.stack),
  );
  page.on('console', (m) => m.type() === 'error' && page.problems.push(`console: ${m.text()}`));
  page.on('dialog', (d) => {
    page.problems.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  await page.goto(url);
  return page;
}

/**
 * The four views a page's screenshots cover (light and dark, desktop and phone) as two page
 * loads, each followed by a resize to the other width, as a window resize or a phone's rotation
 * does: a load costs seconds of CPU, a resize a relayout. Each theme is loaded at one width and
 * each width loaded once. [{ colorScheme, load, resize }], viewports { width, height }.
 */
export const DESKTOP_VIEWPORT = { width: 1440, height: 900 };
export const PHONE_VIEWPORT = { width: 390, height: 844 };
export const VIEW_PAIRS = [
  { colorScheme: 'light', load: DESKTOP_VIEWPORT, resize: PHONE_VIEWPORT },
  { colorScheme: 'dark', load: PHONE_VIEWPORT, resize: DESKTOP_VIEWPORT },
];

/**
 * Resizes a page's viewport and resolves once it has laid out and drawn at the new size: three
 * animation frames, since resize observers run after the first frame's callbacks (the charts and
 * labelled maps redraw from them, the loss chart in the frame after).
 */
export async function resizeTo(page, viewport) {
  await page.setViewportSize(viewport);
  await frames(page, 3);
}

/** Resolves after `count` animation frames of the page. */
function frames(page, count) {
  return page.evaluate(function wait(left) {
    return new Promise((resolve) =>
      requestAnimationFrame(() => resolve(left > 1 ? wait(left - 1) : undefined)),
    );
  }, count);
}

/**
 * Switches a page's colour scheme, as a person's system does at dusk, and resolves once the page
 * has answered: the media query's change event (the page's own listeners, registered first, have
 * run), then two frames for what they draw in the next frame. A page already in that scheme only
 * keeps it.
 */
export async function switchTheme(page, colorScheme) {
  const changes = await page.evaluate((dark) => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    if (query.matches === dark) return false;
    window.__themeChanged = new Promise((resolve) =>
      query.addEventListener('change', resolve, { once: true }),
    );
    return true;
  }, colorScheme === 'dark');
  await page.emulateMedia({ colorScheme });
  if (changes) {
    await page.evaluate(() => window.__themeChanged);
    await frames(page, 2);
  }
}

/** Saves build/screenshots/<name>.png: the whole page, or with { fullPage: false } the viewport. */
export async function screenshot(page, name, { fullPage = true } = {}) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

let hrPromise = null;
export function api() {
  hrPromise ??= init();
  return hrPromise;
}

/** Pastes text into the page's editor (replacing everything), as a person's paste does. */
export function pasteCode(page, text) {
  return page.evaluate((code) => {
    const content = document.querySelector('#editor').shadowRoot.querySelector('.cm-content');
    content.focus();
    document.execCommand('selectAll');
    const data = new DataTransfer();
    data.setData('text/plain', code);
    content.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

/**
 * Expected colours of the A, B and A vs B heatmaps for a state and code, 1:1 cells (n <= 512):
 * from the API's probabilities with the colour maps' own index functions.
 */
export async function expectedHeatmaps(code, partialState) {
  const hr = await api();
  const state = normalizeState(partialState);
  const { analysis, n, probs } = pageProbabilities(hr, code, state);
  const rowMax = (p, i) => Math.max(...p.subarray(i * n, i * n + i + 1));
  return {
    n,
    state,
    analysis,
    probs,
    // theme: the colour scheme of the page ('dark' has its own A vs B ramp).
    colour(which, i, j, theme = 'light') {
      if (which === 'diff')
        return rgb(divergingLut(theme), ratioIndex(probs.a[i * n + j], probs.b[i * n + j]));
      const p = probs[which];
      return rgb(LUTS.magma, probIndex(Math.fround(p[i * n + j] * Math.fround(1 / rowMax(p, i)))));
    },
  };
}

// target: a CSS selector, or { host, index } for the index-th canvas in the shadow root of the
// element with id host (a <hirope-attention>). (Looked up inline in each page function: the
// page's CSP forbids building functions from strings.)
/** RGBA of heatmap cells (i, j) read back from a canvas drawn with drawHeatmap. */
export async function readCells(page, target, cells, { margin, n }) {
  return page.evaluate(
    ({ target, cells, margin, n }) => {
      const canvas =
        typeof target === 'string'
          ? document.querySelector(target)
          : document.getElementById(target.host).shadowRoot.querySelectorAll('canvas')[
              target.index
            ];
      const plot = canvas.width - margin;
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      return cells.map(([i, j]) => {
        const x = margin + Math.floor(((j + 0.5) * plot) / n);
        const y = margin + Math.floor(((i + 0.5) * plot) / n);
        const o = 4 * (y * canvas.width + x);
        return Array.from(data.subarray(o, o + 4));
      });
    },
    { target, cells, margin, n },
  );
}

/** A short fingerprint of a canvas's pixels (FNV-1a over the RGBA bytes). */
export async function fingerprint(page, target) {
  return page.evaluate((target) => {
    const c =
      typeof target === 'string'
        ? document.querySelector(target)
        : document.getElementById(target.host).shadowRoot.querySelectorAll('canvas')[target.index];
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0x811c9dc5;
    for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 0x01000193);
    return (h >>> 0).toString(16);
  }, target);
}

/** Cells spread over the lower triangle (and a few masked ones above the diagonal). */
export function sampleCells(n, count = 60) {
  const cells = [];
  for (let c = 0; c < count; c++) {
    const i = Math.floor((((c * 7919) % 1000) * n) / 1000);
    const j = Math.floor((((c * 104729) % 1000) * (i + 1)) / 1000);
    cells.push([i, Math.min(i, j)]);
  }
  cells.push([n - 1, n - 1], [n - 1, 0], [0, 0]);
  return cells;
}

/**
 * Waits for the first result, then for the page to settle (the views below the maps, when they
 * are on screen, are computed in a second run right after the first).
 */
export async function ready(page) {
  await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
  await quiet(page);
}
/**
 * Resolves once no redraw has happened for 400 ms and no run is under way (a run longer than
 * 150 ms shows the progress bar until it ends; a shorter one redraws within the 400 ms).
 */
export function quiet(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        let last = performance.now();
        const again = () => (last = performance.now());
        document.addEventListener('hirope:redraw', again);
        const tick = () => {
          if (performance.now() - last >= 400 && document.getElementById('progress').hidden) {
            document.removeEventListener('hirope:redraw', again);
            resolve();
          } else setTimeout(tick, 50);
        };
        setTimeout(tick, 50);
      }),
  );
}

/** The playground's next outcome after action(): 'redraw' or 'error', with the status text. */
export async function outcome(page, action) {
  await page.evaluate(() => {
    window.__outcome = null;
    document.addEventListener('hirope:redraw', () => (window.__outcome ??= 'redraw'), {
      once: true,
    });
    const status = document.getElementById('status');
    const observer = new MutationObserver(() => {
      if (status.classList.contains('error')) {
        window.__outcome ??= 'error';
        observer.disconnect();
      }
    });
    observer.observe(status, {
      attributes: true,
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await action();
  await page.waitForFunction(() => window.__outcome !== null, null, { timeout: 120000 });
  return {
    outcome: await page.evaluate(() => window.__outcome),
    status: await page.textContent('#status'),
  };
}

/** Runs action() on model.html and resolves with the detail of the next hirope:model-run event. */
export async function nextModelRun(page, action) {
  await page.evaluate(() => {
    window.__run = new Promise((resolve) =>
      document.addEventListener('hirope:model-run', (e) => resolve(e.detail), { once: true }),
    );
  });
  await action();
  return page.evaluate(() => window.__run);
}
