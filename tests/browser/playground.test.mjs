// The playground in headless Chromium under its strict CSP: it loads, its first screen holds the
// three maps, it redraws on edits and control changes, its heatmap pixels (A, B and A vs B, light
// and dark, zoomed with token labels) equal the colours of the API's probabilities, every preset
// shows a visible A vs B difference and its link gives the same view back, hover values and the
// comparison's numbers (own-unit attention, distance, TV, KL) equal the API's, the units outline
// equals the API's units, invalid numbers are marked in place, A's and B's controls have distinct
// accessible names, the .wasm is fetched once, pasted markup stays text, the controls work from
// the keyboard, exports work, big inputs degrade gracefully, no page is wider than a phone, and
// errors show as text. Screenshots go to build/screenshots/ (every preset, light and dark, at
// 1440x900 and 390x844).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startSite,
  openPage,
  screenshot,
  expectedHeatmaps,
  readCells,
  fingerprint,
  sampleCells,
  api,
  pasteCode,
  ready,
  quiet,
  downloadBytes,
  switchTheme,
  outcome,
} from './helpers.mjs';
import { launchChromium } from '../../tools/chromium.mjs';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';
import { MARGIN, PLOT, LABEL_MARGIN } from '../../web/src/page/heatmap.js';
import { SAMPLES } from '../../web/src/shared/samples.js';
import { PRESETS, presetState } from '../../web/src/shared/presets.js';
import { VISIBLE_RATIO } from '../../web/src/shared/diff-image.js';
import { rowStats, compareRows } from '../../web/src/worker/attention-numbers.js';
import { ratioIndex, divergingLut } from '../../dist/colormap.js';
import {
  normalizeState,
  encodeState,
  decodeState,
  describeScheme,
} from '../../web/src/shared/playground-state.js';
import { formatProbability } from '../../web/src/shared/wording.js';
// The state's API arguments by the tests' own mapping, not the page's (issue 35).
import {
  expectedScheme as schemeFor,
  expectedPositions as positionsFor,
  expectedAnalyzeOptions as analyzeOptionsFor,
} from '../js/support/page-schemes.mjs';

const SMALL = `def area(r):
    return 3.14159 * r * r


class Box:
    def __init__(self, w, h):
        self.w = w
        self.h = h
`;
/** A tiny Hugging Face tokenizer.json: byte-level BPE over the 256 bytes with two merges. */
const tinyTokenizerJson = () =>
  JSON.stringify(
    tinyTokenizerFile({ tokens: ['se', 'self', 'lf'], merges: ['s e', 'l f', 'se lf'] }),
  );
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const MAPS = ['map-a', 'map-b', 'map-diff'];

/** Waits for the next redraw after action() (at most 60 s) and returns the status text. */
async function redraw(page, action) {
  await page.evaluate(() => {
    window.__redrawn = false;
    document.addEventListener('hirope:redraw', () => (window.__redrawn = true), { once: true });
  });
  await action();
  await page.waitForFunction(() => window.__redrawn, null, { timeout: 60000 });
  return page.textContent('#status');
}
async function setCode(page, code) {
  return redraw(page, () => pasteCode(page, code));
}
const editorText = (page) =>
  page.evaluate(() =>
    Array.from(
      document.querySelector('#editor').shadowRoot.querySelectorAll('.cm-line'),
      (l) => l.textContent,
    ).join('\n'),
  );
const canvasPixels = (page, id) => fingerprint(page, `#${id} canvas`);
const allPixels = (page) => Promise.all(MAPS.map((id) => canvasPixels(page, id)));
/** Fingerprints of the charts below the maps (the views and the summary's TV chart), by id. */
async function chartPixels(page) {
  const ids = await page.$$eval('#views canvas, #summary canvas', (list) =>
    list.map((c, i) => {
      c.dataset.testChart ??= String(i);
      return `${c.closest('[id]').id}:${c.dataset.testChart}`;
    }),
  );
  const prints = {};
  for (const id of ids)
    prints[id] = await fingerprint(page, `canvas[data-test-chart="${id.split(':')[1]}"]`);
  return prints;
}
/** Opens a "More" disclosure of a panel (the less common controls sit in it). */
const openMore = (page, panel) =>
  page.evaluate((panel) => (document.querySelector(`#${panel} details.more`).open = true), panel);
/** The state the page's URL holds (its code included), decoded as the page does. */
const urlState = async (page) => decodeState(await page.evaluate(() => location.hash));
/** Waits until the URL holds a state (it is written shortly after a redraw). */
async function untilURLState(page, state) {
  let got;
  for (let k = 0; k < 50; k++) {
    got = await urlState(page);
    if (JSON.stringify(got) === JSON.stringify(state)) break;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(got, state);
}

/** Asserts that the A, B and A vs B cells equal the API's colours (1:1 cells, default view). */
async function checkColours(page, code, state, theme, { margin = MARGIN, count = 60 } = {}) {
  const expected = await expectedHeatmaps(code, state);
  const { n } = expected;
  const cells = sampleCells(n, count);
  for (const which of ['a', 'b', 'diff']) {
    assert.equal(
      await page.evaluate((id) => document.querySelector(`#${id} canvas`).width, `map-${which}`),
      PLOT + margin,
      `${which}: canvas size`,
    );
    const got = await readCells(page, `#map-${which} canvas[role=img]`, cells, { margin, n });
    cells.forEach(([i, j], c) => {
      assert.deepEqual(
        got[c].slice(0, 3),
        expected.colour(which, i, j, theme),
        `${which} cell (${i}, ${j}) ${theme}`,
      );
    });
  }
  const masked = await readCells(
    page,
    '#map-diff canvas[role=img]',
    [
      [0, n - 1],
      [3, 5],
    ],
    { margin, n },
  );
  assert.deepEqual(
    masked.map((p) => p[3]),
    [0, 0],
  ); // above the diagonal: transparent
  return expected;
}

/**
 * The A vs B map's visibly coloured share, read back from its pixels: a lower-triangle cell counts
 * when its colour is at least as far from the neutral middle (index 128 of the theme's ramp) as a
 * VISIBLE_RATIO (1.25×) ratio puts it: index >= ratioIndex(1, 1.25) or <= ratioIndex(1.25, 1) (141
 * and 114, 13–14 of 255 steps from the middle). 1.25× is the smallest ratio the engine calls
 * visible, about 5% of the ramp's length: the first step a reader tells apart from the neutral
 * colour. Every pixel must be a colour of the ramp (unknown counts the others).
 */
async function visibleShareFromPixels(page, theme, n) {
  const lut = Array.from(divergingLut(theme));
  const hi = ratioIndex(1, VISIBLE_RATIO);
  const lo = ratioIndex(VISIBLE_RATIO, 1);
  return page.evaluate(
    ({ lut, hi, lo, n, margin }) => {
      const canvas = document.querySelector('#map-diff canvas[role=img]');
      const plot = canvas.width - margin;
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const index = new Map();
      for (let i = 0; i < 256; i++)
        index.set((lut[3 * i] << 16) | (lut[3 * i + 1] << 8) | lut[3 * i + 2], i);
      let cells = 0;
      let visible = 0;
      let unknown = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          const x = margin + Math.floor(((j + 0.5) * plot) / n);
          const y = margin + Math.floor(((i + 0.5) * plot) / n);
          const o = 4 * (y * canvas.width + x);
          const k = index.get((data[o] << 16) | (data[o + 1] << 8) | data[o + 2]);
          if (k === undefined || data[o + 3] !== 255) unknown++;
          else {
            cells++;
            if (k >= hi || k <= lo) visible++;
          }
        }
      }
      return { cells, visible, unknown, share: visible / Math.max(1, cells) };
    },
    { lut, hi, lo, n, margin: MARGIN },
  );
}

/** Waits until the views below the maps show a state (angles captions name its schemes). */
async function viewsShow(page, state) {
  await page.locator('#views').scrollIntoViewIfNeeded();
  const want = {
    a: `A: ${describeScheme(state.a)}`,
    b: `B: ${describeScheme(state.b)}`,
    train: `training length ${state.train}`,
  };
  await page.waitForFunction(
    (want) => {
      const caption = (id) => document.querySelector(`#${id} figcaption`)?.textContent ?? '';
      return (
        caption('angles-a').startsWith(want.a) &&
        caption('angles-b').startsWith(want.b) &&
        caption('decay').includes(want.train) &&
        document.querySelectorAll('#distances canvas').length > 0
      );
    },
    want,
    { timeout: 30000 },
  );
  await quiet(page);
}

/** A small CSV parser (quoted fields with commas, quotes and newlines). */
function parseCSV(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let c = 0; c < text.length; c++) {
    const ch = text[c];
    if (quoted) {
      if (ch === '"' && text[c + 1] === '"') {
        field += '"';
        c++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** The hover card's rows as [term, value] pairs. */
const tipRows = (page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('.hm-tip dt'), (dt) => [
      dt.textContent,
      dt.nextElementSibling.textContent,
    ]),
  );

describe('playground (headless Chromium)', () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close()); // closing the browser closes the shared pages too

  // A light and a dark page at 1440x900, each loaded once (a load costs seconds of CPU) and shared
  // by the tests that only read them (first screen, hover, contrast); the presets test, which
  // changes their state, comes after those and closes them. A test on a shared page checks only
  // the problems that arose while it ran; a load with problems fails every test that uses it.
  const shared = {};
  const desktopPage = (colorScheme) => {
    shared[colorScheme] ??= (async () => {
      const page = await openPage(site.browser, site.url, { colorScheme, viewport: DESKTOP });
      await ready(page);
      assert.deepEqual(page.problems, [], `the ${colorScheme} page at 1440x900 loads cleanly`);
      return page;
    })();
    return shared[colorScheme];
  };

  it('loads under the strict CSP, draws everything, and looks right in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const page = await openPage(site.browser, site.url, { colorScheme });
      await ready(page);
      const status = await page.textContent('#status');
      assert.match(
        status,
        /^394 tokens of Python in 5 units and \d+ statements; tokenizer: lexical \(grammar tokens\)\. The last 138 tokens are beyond the training length of 256: there A, RoPE, meets angles it never saw in training on \d+ of its 32 frequency pairs, while B, HiRoPE \(ratio 0\.4, W 64\), keeps every frequency pair within the angles seen in training\.$/,
      );
      assert.match(
        await page.textContent('#timing-text'),
        /^Last redraw [\d.]+ ms = [\d.]+ ms until both workers' results arrived \+ [\d.]+ ms painting them\. The two workers compute side by side: A [\d.]+ ms \(analysis [\d.]+, .*attention [\d.]+.*\), B [\d.]+ ms \(.*\); the other [\d.]+ ms .* was waiting .* Attention A \+ B by backend: wasm-simd [\d.]+ ms\.$/,
      );
      // The default is the first preset, with its caption.
      assert.equal(await page.getAttribute('.preset[data-preset=hirope]', 'aria-pressed'), 'true');
      assert.equal(await page.locator('.preset[aria-pressed=true]').count(), 1);
      assert.equal(
        await page.textContent('#caption'),
        PRESETS.find((p) => p.id === 'hirope').caption,
      );
      for (const id of MAPS) assert.ok(await page.$(`#${id} canvas`));
      assert.match(
        await page.textContent('#map-diff .legend'),
        /\d+% of cells differ by 1\.25× or more/,
      );
      // The views are drawn once scrolled near.
      await viewsShow(page, normalizeState({}));
      assert.equal(await page.locator('#distances canvas').count(), 5); // RoPE, ReRoPE, Self-Extend, HiRoPE x 2 bands
      assert.equal(await page.locator('#angles canvas').count(), 2);
      assert.equal(await page.locator('#decay canvas').count(), 1);
      // Tokens are marked in the editor, coloured by unit.
      assert.ok((await page.locator('#editor .hr-tok').count()) > 100);
      assert.equal(
        await page.textContent('#ratio-hint-b'),
        'Split% at L = 256: 40.3% of the pairs (13 of the 32 frequency pairs turn a full period within 256 tokens). HiRoPE keeps 13 pairs on token distance: within the bound.',
      );
      // The comparison in numbers: own-unit attention and distance for A and B, then TV and KL.
      await page.waitForFunction(() =>
        /total variation of [\d.]+ per query/.test(document.getElementById('summary').textContent),
      );
      assert.equal(await page.locator('#summary table.stats tr').count(), 3);
      await screenshot(page, `playground-${colorScheme}`);
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });

  it('holds the drawn A, B and A vs B maps on the first screen at 1440x900', async () => {
    const page = await desktopPage('light');
    const seen = page.problems.length;
    assert.equal(await page.evaluate(() => scrollY), 0);
    for (const id of MAPS) {
      const box = await page.evaluate(
        (id) => document.querySelector(`#${id} canvas`).getBoundingClientRect().toJSON(),
        id,
      );
      assert.ok(
        box.left >= 0 && box.top >= 0 && box.right <= DESKTOP.width && box.bottom <= DESKTOP.height,
        `${id} lies within the viewport: ${JSON.stringify(box)}`,
      );
      // Drawn: the plot's lower triangle is opaque and has many colours.
      const { opaque, colours } = await page.evaluate(
        ({ id, margin, plot }) => {
          const c = document.querySelector(`#${id} canvas`);
          const d = c.getContext('2d').getImageData(margin, margin, plot, plot).data;
          const seen = new Set();
          let opaque = 0;
          for (let o = 0; o < d.length; o += 4) {
            if (d[o + 3] !== 255) continue;
            opaque++;
            seen.add((d[o] << 16) | (d[o + 1] << 8) | d[o + 2]);
          }
          return { opaque, colours: seen.size };
        },
        { id, margin: MARGIN, plot: PLOT },
      );
      assert.ok(opaque > 0.45 * PLOT * PLOT, `${id}: ${opaque} opaque pixels`);
      assert.ok(colours > 20, `${id}: ${colours} colours`);
    }
    assert.deepEqual(page.problems.slice(seen), []);
  });

  it("draws the colours of the API's probabilities (A vs B as log2(pB/pA), light and dark), follows a change of colour scheme, and redraws on changes", async () => {
    const code = SAMPLES.python;
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await checkColours(page, code, {}, 'light');
    // Switching the page to dark mode redraws A vs B on the dark ramp, and every chart below the
    // maps in the dark page's colours: each canvas as a page opened in dark mode draws it (below).
    await viewsShow(page, normalizeState({}));
    const lightCharts = await chartPixels(page);
    await switchTheme(page, 'dark');
    await checkColours(page, code, {}, 'dark');
    const switchedCharts = await chartPixels(page);
    for (const [id, fp] of Object.entries(switchedCharts))
      assert.notEqual(fp, lightCharts[id], `${id}: drawn again in the dark colours`);
    await switchTheme(page, 'light');
    let before = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.fill('#c-b-window', '32'));
    assert.notEqual(await canvasPixels(page, 'map-b'), before);
    before = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.selectOption('#c-b-type', 'rerope'));
    assert.notEqual(await canvasPixels(page, 'map-b'), before);
    await checkColours(page, code, { b: { type: 'rerope', window: 32 } }, 'light');
    await redraw(page, () => page.selectOption('#c-b-type', 'hirope'));
    const ratio = await canvasPixels(page, 'map-b');
    await redraw(page, () => page.fill('#c-b-ratio', '0.25'));
    assert.notEqual(await canvasPixels(page, 'map-b'), ratio);
    await checkColours(page, code, { b: { type: 'hirope', window: 32, ratio: 0.25 } }, 'light');
    await redraw(page, () => page.selectOption('#c-source', 'seeded'));
    await checkColours(
      page,
      code,
      { source: 'seeded', b: { type: 'hirope', window: 32, ratio: 0.25 } },
      'light',
    );
    // A side on fixed segments.
    await openMore(page, 'scheme-b');
    await redraw(page, () => page.selectOption('#c-b-units', 'segments'));
    await checkColours(
      page,
      code,
      { source: 'seeded', b: { type: 'hirope', window: 32, ratio: 0.25, units: 'segments' } },
      'light',
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();

    // A page opened in dark mode draws A vs B on the dark ramp from the start, and its charts as
    // the page switched to dark did.
    const dark = await openPage(site.browser, site.url, { colorScheme: 'dark' });
    await ready(dark);
    await checkColours(dark, code, {}, 'dark');
    await viewsShow(dark, normalizeState({}));
    assert.deepEqual(await chartPixels(dark), switchedCharts);
    await redraw(dark, () => dark.selectOption('#c-a-type', 'self-extend'));
    await checkColours(dark, code, { a: { type: 'self-extend' } }, 'dark');
    assert.deepEqual(dark.problems, []);
    await dark.context().close();
  });

  it("zoomed to at most 64 tokens, labels the axes (the canvas grows by LABEL_MARGIN) and keeps the API's colours", async () => {
    const code = SAMPLES.python;
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const expected = await expectedHeatmaps(code, {});
    await page.focus('#map-a canvas[role=img]');
    await page.keyboard.press('End');
    let region = null;
    for (let k = 0; k < 6 && !(region && region.r1 - region.r0 <= 64); k++) {
      const before = await page.textContent('#zoom-info');
      await page.keyboard.press('+');
      await page.waitForFunction(
        (text) =>
          document.getElementById('zoom-info').textContent !== text &&
          document.getElementById('zoom-info').textContent.startsWith('Zoomed'),
        before,
      );
      const m = (await page.textContent('#zoom-info')).match(
        /queries (\d+)–(\d+), keys (\d+)–(\d+)/,
      );
      region = { r0: Number(m[1]), r1: Number(m[2]) + 1, c0: Number(m[3]), c1: Number(m[4]) + 1 };
    }
    const span = region.r1 - region.r0;
    assert.ok(span <= 64 && span === region.c1 - region.c0, JSON.stringify(region));
    await page.waitForFunction(
      (size) =>
        ['map-a', 'map-b', 'map-diff'].every(
          (id) => document.querySelector(`#${id} canvas`).width === size,
        ),
      PLOT + MARGIN + LABEL_MARGIN,
    );
    const margin = MARGIN + LABEL_MARGIN;
    // Cells relative to the region; the lower triangle of the region and a few masked ones.
    const cells = [];
    for (let i = 0; i < span; i += 3)
      for (let j = 0; j < span; j += 5) if (region.c0 + j <= region.r0 + i) cells.push([i, j]);
    for (const which of ['a', 'b', 'diff']) {
      const got = await readCells(page, `#map-${which} canvas[role=img]`, cells, {
        margin,
        n: span,
      });
      cells.forEach(([i, j], c) => {
        assert.deepEqual(
          got[c].slice(0, 3),
          expected.colour(which, region.r0 + i, region.c0 + j),
          `${which} (${region.r0 + i}, ${region.c0 + j})`,
        );
      });
    }
    // The labels: ink in the label margin beside the rows and above the columns.
    const ink = await page.evaluate(
      ({ margin, label }) => {
        const c = document.querySelector('#map-a canvas[role=img]');
        const count = (x, y, w, h) => {
          const d = c.getContext('2d').getImageData(x, y, w, h).data;
          let n = 0;
          for (let o = 3; o < d.length; o += 4) if (d[o] > 0) n++;
          return n;
        };
        return {
          rows: count(0, margin, label - 2, c.height - margin),
          cols: count(margin, 0, c.width - margin, label - 2),
        };
      },
      { margin, label: LABEL_MARGIN },
    );
    assert.ok(ink.rows > 200 && ink.cols > 200, JSON.stringify(ink));
    await page.keyboard.press('0');
    await page.waitForFunction(
      (size) => document.querySelector('#map-a canvas[role=img]').width === size,
      PLOT + MARGIN,
    );
    assert.equal(await page.textContent('#zoom-info'), '');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('is never wider than a phone (390x844), with every preset (screenshots, full page)', async () => {
    const base = normalizeState({});
    // One page, opened dark; each preset shown in both colour schemes (the page follows a switch,
    // as the colours test checks against a page opened in the other scheme).
    const page = await openPage(site.browser, site.url, { colorScheme: 'dark', viewport: PHONE });
    await ready(page);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width);
    for (const preset of PRESETS) {
      await page.evaluate(() => scrollTo(0, 0));
      await redraw(page, () => page.click(`.preset[data-preset="${preset.id}"]`));
      await viewsShow(page, presetState(preset.id, base));
      for (const theme of ['dark', 'light']) {
        if (theme === 'light') await switchTheme(page, 'light');
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= PHONE.width, `${preset.id} ${theme}: the page is ${width} px wide`);
        await screenshot(page, `playground-${preset.id}-${theme}-phone`);
      }
      await switchTheme(page, 'dark');
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
    const article = await openPage(site.browser, `${site.url}article.html`, { viewport: PHONE });
    await article.waitForFunction(
      () => document.getElementById('first').dataset.ready === 'true',
      null,
      { timeout: 60000 },
    );
    for (const id of ['second', 'below']) {
      await article.locator(`#${id}`).scrollIntoViewIfNeeded();
      await article.waitForFunction(
        (id) => document.getElementById(id).dataset.ready === 'true',
        id,
        { timeout: 60000 },
      );
    }
    const width = await article.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `article.html is ${width} px wide`);
    assert.deepEqual(article.problems, []);
    await article.context().close();
  });

  it("shows the API's numbers for a hovered cell", async () => {
    const code = SAMPLES.python;
    const page = await desktopPage('light');
    const seen = page.problems.length;
    const expected = await expectedHeatmaps(code, {});
    const { n, state, analysis } = expected;
    assert.ok(n <= PLOT); // cells are 1:1 with tokens at the default view
    const hr = await api();
    const bands = {};
    for (const side of ['a', 'b']) {
      const scheme = schemeFor(state[side], state);
      bands[side] = hr.relativeDistances({
        n,
        headDim: state.headDim,
        positions: positionsFor(scheme, analysis.positions),
        scheme,
      });
    }
    const pct = formatProbability; // the page's one formatter for probabilities (tests/js/wording.test.mjs checks it)
    const box = await page.evaluate(() => {
      const c = document.querySelector('#map-a canvas[role=img]');
      return { ...c.getBoundingClientRect().toJSON(), size: c.width };
    });
    // An integer client point near a cell's centre; the cell under it as the heatmap maps it, kept
    // away from cell edges so that rounding cannot move it.
    const pointFor = (i, j) => {
      for (let dx = 0; dx < 3; dx++) {
        for (let dy = 0; dy < 3; dy++) {
          const toClient = (t, start) =>
            Math.round(start + ((MARGIN + ((t + 0.5) * PLOT) / n) * box.width) / box.size);
          const x = toClient(j, box.left) + [0, 1, -1][dx];
          const y = toClient(i, box.top) + [0, 1, -1][dy];
          const cell = (c, start) => ((((c - start) * box.size) / box.width - MARGIN) * n) / PLOT;
          const [fx, fy] = [cell(x, box.left), cell(y, box.top)];
          const ok = (f) => f - Math.floor(f) > 0.1 && f - Math.floor(f) < 0.9;
          // (and on a real cell: a pixel off the last row's centre can be past the plot)
          if (ok(fx) && ok(fy) && Math.floor(fy) < n && Math.floor(fx) < n)
            return { x, y, i: Math.floor(fy), j: Math.floor(fx) };
        }
      }
      throw new Error(`no point for (${i}, ${j})`);
    };
    for (const [ti, tj] of [
      [300, 120],
      [200, 190],
      [n - 1, 0],
      [57, 57],
    ]) {
      const { x, y, i, j } = pointFor(ti, tj);
      assert.ok(Math.abs(i - ti) <= 2 && Math.abs(j - tj) <= 2, `(${i}, ${j}) for (${ti}, ${tj})`); // a CSS pixel spans 1.4 cells
      await page.mouse.move(x - 30, y - 30);
      await page.mouse.move(x, y, { steps: 3 });
      await page.waitForSelector(`.hm-tip:not([hidden])[data-cell="${i},${j}"]`, {
        timeout: 10000,
      });
      const rows = Object.fromEntries(await tipRows(page));
      const pa = expected.probs.a[i * n + j];
      const pb = expected.probs.b[i * n + j];
      assert.equal(rows['p under A'], pct(pa), `(${i}, ${j})`);
      assert.equal(rows['p under B'], pct(pb), `(${i}, ${j})`);
      assert.equal(rows['B ÷ A'], (Math.max(pb, 1e-6) / Math.max(pa, 1e-6)).toPrecision(3));
      assert.equal(
        rows['token distance'],
        String(analysis.positions.token[i] - analysis.positions.token[j]),
      );
      const sees = (side) =>
        bands[side]
          .map(
            (b) =>
              `${b.name === 'all' ? 'all pairs' : `${b.name} (pairs ${b.pairBegin}–${b.pairEnd - 1})`}: ${b.distances[i * n + j]}`,
          )
          .join('; ');
      assert.equal(rows['distance A sees'], sees('a'));
      assert.equal(rows['distance B sees'], sees('b'));
      assert.match(rows.query, new RegExp(`^${i} `));
      assert.match(rows.key, new RegExp(`^${j} `));
    }
    // Beyond the window HiRoPE's slow band sees a unit distance, not the token distance.
    assert.notEqual(bands.b[1].distances[300 * n + 120], 180);
    await page.mouse.move(2, 2);
    await page.waitForSelector('.hm-tip', { state: 'hidden' });
    assert.deepEqual(page.problems.slice(seen), []);
  });

  it('shows the comparison in numbers as the API computes it (own-unit attention, distance, TV and KL)', async () => {
    const page = await openPage(site.browser, site.url, { viewport: DESKTOP });
    await ready(page);
    await page.evaluate(() => {
      window.__compare = null;
      document.addEventListener(
        'hirope:compare',
        (e) => (window.__compare = { tv: Array.from(e.detail.tv), kl: Array.from(e.detail.kl) }),
        { once: true },
      );
    });
    await redraw(page, () => page.click('.preset[data-preset="split"]'));
    await page.waitForFunction(() => window.__compare !== null);
    const got = await page.evaluate(() => window.__compare);
    const { n, probs, analysis } = await expectedHeatmaps(
      SAMPLES.python,
      presetState('split', normalizeState({})),
    );
    const cmp = compareRows(probs.a, probs.b, n);
    assert.equal(got.tv.length, n);
    for (let i = 0; i < n; i++) {
      assert.ok(Math.abs(got.tv[i] - cmp.tv[i]) < 1e-6, `TV ${i}`);
      assert.ok(Math.abs(got.kl[i] - cmp.kl[i]) < 1e-6, `KL ${i}`);
    }
    const stats = {
      a: rowStats(probs.a, n, analysis.positions.unit, analysis.positions.token),
      b: rowStats(probs.b, n, analysis.positions.unit, analysis.positions.token),
    };
    const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
    const pct = (v) => `${(100 * v).toFixed(1)}%`;
    const table = () =>
      page.$$eval('#summary table.stats tr', (trs) =>
        trs.map((tr) => Array.from(tr.children, (c) => c.textContent)),
      );
    await page.waitForFunction(() =>
      /total variation of/.test(document.getElementById('summary').textContent),
    );
    let rows = await table();
    assert.deepEqual(rows[1], [
      "attention on the query's own unit",
      pct(mean(stats.a.own)),
      pct(mean(stats.b.own)),
    ]);
    assert.deepEqual(rows[2], [
      'mean distance attended (tokens)',
      mean(stats.a.distance).toFixed(1),
      mean(stats.b.distance).toFixed(1),
    ]);
    const text = await page.textContent('#summary .stats-compare');
    assert.match(
      text,
      new RegExp(
        `total variation of ${mean(cmp.tv).toFixed(3)} per query .* KL\\(A‖B\\) = ${mean(cmp.kl).toFixed(3)} bits\\.$`,
      ),
    );
    // A selected query adds its own numbers.
    const i = n - 1;
    await page.focus('#map-a canvas[role=img]');
    await page.keyboard.press('End');
    await page.waitForFunction(
      (i) => document.querySelector('#summary .stats-compare').textContent.includes(`query ${i}:`),
      i,
    );
    rows = await table();
    assert.deepEqual(rows[0].slice(3), [`A, query ${i}`, `B, query ${i}`]);
    assert.deepEqual(rows[1].slice(3), [pct(stats.a.own[i]), pct(stats.b.own[i])]);
    assert.deepEqual(rows[2].slice(3), [
      stats.a.distance[i].toFixed(1),
      stats.b.distance[i].toFixed(1),
    ]);
    assert.match(
      await page.textContent('#summary .stats-compare'),
      new RegExp(`query ${i}: ${cmp.tv[i].toFixed(3)} and ${cmp.kl[i].toFixed(3)} bits\\.$`),
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("outlines the API's units; clicking one selects its code and marks it", async () => {
    const code = SAMPLES.python;
    const page = await openPage(site.browser, site.url, { viewport: DESKTOP });
    await ready(page);
    const hr = await api();
    const state = normalizeState({});
    const analysis = hr.analyze(code, analyzeOptionsFor(state));
    const { units } = analysis;
    const items = await page.$$eval('#outline li.outline-item', (lis) =>
      lis.map((li) => ({
        unit: li.dataset.unit,
        kind: li.querySelector('.outline-unit .outline-kind').textContent,
        name: li.querySelector('.outline-unit .outline-name').textContent,
        meta: li.querySelector('.outline-meta').textContent,
      })),
    );
    assert.equal(items.length, units.length);
    assert.equal(await page.textContent('#outline-count'), `(${units.length})`);
    units.forEach((u, k) => {
      assert.equal(items[k].unit, String(k));
      assert.equal(items[k].kind, u.kind);
      assert.equal(items[k].name, u.name || '(unnamed)');
      const tokens = [];
      for (let t = 0; t < analysis.tokens.count; t++)
        if (analysis.positions.unit[t] === k) tokens.push(t);
      // The statements that start in the unit: the statement index never decreases along the
      // text (0 before the first statement), so they are its rise over the unit's tokens.
      const before = tokens[0] > 0 ? analysis.positions.statement[tokens[0] - 1] : 0;
      const statements = analysis.positions.statement[tokens.at(-1)] - before;
      assert.equal(
        items[k].meta,
        `tokens ${tokens[0]}–${tokens.at(-1)} · ${statements} statement${statements === 1 ? '' : 's'}`,
      );
    });
    const total = await page.$$eval('#outline .outline-meta', (metas) =>
      metas.reduce((sum, m) => sum + Number(/(\d+) statements?$/.exec(m.textContent)[1]), 0),
    );
    assert.equal(total, analysis.statements, "the outline's statements add up to the status's");
    const u = 2;
    const before = await canvasPixels(page, 'map-a');
    await page.click(`#outline li[data-unit="${u}"] .outline-unit`);
    assert.deepEqual(
      await page.$$eval('#outline li[aria-current=true]', (lis) =>
        lis.map((li) => li.dataset.unit),
      ),
      [String(u)],
    );
    assert.notEqual(
      await canvasPixels(page, 'map-a'),
      before,
      'the unit is outlined on the heatmaps',
    );
    // The editor's selection is the unit's code: copying it gives that text, and a typed character
    // after collapsing it to its start lands at the unit's start.
    await page.evaluate(() => {
      window.__copied = null;
      addEventListener('copy', (e) => (window.__copied = e.clipboardData.getData('text/plain')));
      document.querySelector('#editor').shadowRoot.querySelector('.cm-content').focus();
    });
    await page.keyboard.press('Control+C');
    await page.waitForFunction(() => window.__copied !== null);
    assert.equal(
      await page.evaluate(() => window.__copied),
      code.slice(units[u].start, units[u].end),
    );
    await page.keyboard.press('ArrowLeft');
    await redraw(page, () => page.keyboard.type('Z'));
    const edited = code.slice(0, units[u].start) + 'Z' + code.slice(units[u].start);
    await page.waitForFunction(() => location.hash.length > 1); // written shortly after the redraw
    assert.equal((await urlState(page)).code, edited);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('marks an unacceptable number in place and keeps the last result', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const status = await page.textContent('#status');
    const views = await allPixels(page);
    await page.evaluate(() => {
      window.__redraws = 0;
      document.addEventListener('hirope:redraw', () => window.__redraws++);
    });
    await page.fill('#c-train', '0');
    assert.equal(await page.getAttribute('#c-train', 'aria-invalid'), 'true');
    const error = page.locator('#c-train').locator('xpath=ancestor::label').locator('.field-error');
    assert.equal(await error.isVisible(), true);
    assert.equal(await error.textContent(), 'The training length must be at least 2.');
    assert.match(await page.getAttribute('#c-train', 'aria-describedby'), /c-train-error/);
    await page.waitForTimeout(600);
    assert.equal(await page.evaluate(() => window.__redraws), 0, 'nothing was recomputed');
    assert.equal(await page.textContent('#status'), status);
    assert.equal(
      await page.evaluate(() => document.getElementById('status').classList.contains('error')),
      false,
    );
    assert.deepEqual(await allPixels(page), views);
    assert.equal((await urlState(page)).train, 256);
    // An acceptable value clears the message and is applied.
    await redraw(page, () => page.fill('#c-train', '300'));
    assert.equal(await page.getAttribute('#c-train', 'aria-invalid'), 'false');
    assert.equal(await error.isVisible(), false);
    assert.match(await page.textContent('#status'), /beyond the training length of 300/);
    // An odd head dimension, behind "More settings".
    await openMore(page, 'shared-controls');
    await page.fill('#c-headDim', '7');
    assert.equal(await page.getAttribute('#c-headDim', 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#c-headDim-error'), 'The head dimension must be even.');
    assert.equal(
      await page.evaluate(() => document.getElementById('status').classList.contains('error')),
      false,
    );
    // A value in its range that the API refuses: xPos's scale overflows the float range at
    // positions 256 apart. The field is marked, both maps say they are not computed (the stride
    // is both sides'), and B's Split% hint, about the positions the maps no longer show, goes.
    await redraw(page, () => page.selectOption('#c-a-type', 'xpos'));
    const got = await outcome(page, () => page.fill('#c-stride', '256'));
    assert.equal(got.outcome, 'error');
    assert.match(got.status, /^These settings cannot be computed: xpos: rotation overflowed at /);
    assert.equal(await page.getAttribute('#c-stride', 'aria-invalid'), 'true');
    assert.equal(
      await page.textContent('#c-stride-error'),
      'Not computed with this value: the status line says why.',
    );
    for (const side of ['a', 'b'])
      assert.match(
        await page.locator(`#map-${side} .hm-sub`).first().textContent(),
        /: not computed$/,
      );
    assert.equal(await page.textContent('#ratio-hint-b'), '');
    // A stride it takes clears the mark and draws.
    await redraw(page, () => page.fill('#c-stride', '4'));
    assert.equal(await page.getAttribute('#c-stride', 'aria-invalid'), 'false');
    assert.match(
      await page.textContent('#ratio-hint-b'),
      /^Split% at L = 300: .* within 300 positions\)/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('meets WCAG AA contrast for text and the A/B accents, light and dark', async () => {
    // WCAG 2.x relative luminance and contrast ratio, from the computed colours.
    const ratio = (x, y) => {
      const lum = ([r, g, b]) =>
        [r, g, b]
          .map((c) => c / 255)
          .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
          .reduce((s, c, i) => s + c * [0.2126, 0.7152, 0.0722][i], 0);
      const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
      return (a + 0.05) / (b + 0.05);
    };
    for (const colorScheme of ['light', 'dark']) {
      const page = await desktopPage(colorScheme);
      const colours = await page.evaluate(() => {
        const rgb = (text) =>
          text
            .match(/[\d.]+/g)
            .slice(0, 3)
            .map(Number);
        const style = (selector) => getComputedStyle(document.querySelector(selector));
        const panel = rgb(style('#compare').backgroundColor);
        const root = getComputedStyle(document.documentElement);
        const probe = document.createElement('span');
        document.body.append(probe);
        const cssColour = (name) => {
          probe.style.color = root.getPropertyValue(name).trim();
          return rgb(getComputedStyle(probe).color);
        };
        const out = {
          panel,
          text: {
            'A title': rgb(style('#map-a .hm-title').color),
            'B title': rgb(style('#map-b .hm-title').color),
            'A panel title': rgb(style('#scheme-a .side-title').color),
            'B panel title': rgb(style('#scheme-b .side-title').color),
            status: rgb(style('#status').color),
            caption: rgb(style('#caption').color),
            'field label': rgb(style('#scheme-a .field-label').color),
          },
          accents: { A: cssColour('--a'), B: cssColour('--b') },
        };
        probe.remove();
        return out;
      });
      for (const [name, c] of Object.entries(colours.text))
        assert.ok(
          ratio(c, colours.panel) >= 4.5,
          `${colorScheme}: ${name} ${c} on ${colours.panel}: ${ratio(c, colours.panel).toFixed(2)} < 4.5`,
        );
      // The accents (panel borders, curves) are graphics: 3:1 (WCAG 1.4.11).
      for (const [name, c] of Object.entries(colours.accents))
        assert.ok(
          ratio(c, colours.panel) >= 3,
          `${colorScheme}: accent ${name} ${c}: ${ratio(c, colours.panel).toFixed(2)} < 3`,
        );
    }
  });

  it("shows a visible A vs B difference for every preset, and a preset's link gives the same view back (screenshots at 1440x900)", async () => {
    const base = normalizeState({});
    // The shared light page, still in its default state (the tests before this one only read it):
    // each preset in light mode, then switched to dark (the page follows the system's scheme, as
    // the colours test checks against a page opened dark), then back for its link.
    const page = await desktopPage('light');
    const seen = page.problems.length;
    const n = Number((await page.textContent('#status')).match(/^(\d+) tokens/)[1]);
    for (const preset of PRESETS) {
      await redraw(page, () => page.click(`.preset[data-preset="${preset.id}"]`));
      assert.deepEqual(
        await page.$$eval('.preset[aria-pressed=true]', (bs) => bs.map((b) => b.dataset.preset)),
        [preset.id],
      );
      assert.equal(await page.textContent('#caption'), preset.caption);
      // Each map's caption shows its whole title (a long scheme name wraps, never cut short) and
      // the three canvases stay level whatever their captions hold.
      const maps = await page.$$eval('#maps .hm', (figures) =>
        figures.map((f) => ({
          cut: [f.querySelector('figcaption'), ...f.querySelectorAll('figcaption > *')].some(
            (e) => e.scrollWidth > e.clientWidth + 1,
          ),
          top: Math.round(f.querySelector('canvas').getBoundingClientRect().top),
        })),
      );
      assert.deepEqual(
        maps.map((m) => m.cut),
        [false, false, false],
        `${preset.id}: a map's title is cut short`,
      );
      assert.equal(new Set(maps.map((m) => m.top)).size, 1, `${preset.id}: canvases not level`);
      for (const theme of ['light', 'dark']) {
        await switchTheme(page, theme);
        // 10%: every preset's share on the nine samples is at least 17% (tests/js/playground.test.mjs,
        // docs/playground.md), equal schemes give 0%: a preset under 10% shows nothing to look at.
        const pixels = await visibleShareFromPixels(page, theme, n);
        assert.equal(
          pixels.unknown,
          0,
          `${preset.id}: every cell has a colour of the ${theme} ramp`,
        );
        assert.equal(pixels.cells, (n * (n + 1)) / 2);
        assert.ok(
          pixels.share >= 0.1,
          `${preset.id} ${theme}: ${(100 * pixels.share).toFixed(1)}% of cells visibly coloured`,
        );
        const reported = Number(await page.getAttribute('#maps', 'data-visible-share'));
        assert.ok(
          Math.abs(pixels.share - reported) <= 0.03,
          `${preset.id}: pixels ${pixels.share} vs page ${reported}`,
        );
        await screenshot(page, `playground-${preset.id}-${theme}-desktop`, { fullPage: false });
      }
      await switchTheme(page, 'light');
      // The link: the URL holds the preset's state, and a new page opened on it shows the same.
      const state = presetState(preset.id, base);
      await untilURLState(page, state);
      const views = await allPixels(page);
      const other = await page.context().newPage();
      other.problems = [];
      other.on('pageerror', (e) => other.problems.push(`pageerror: ${e.message}`));
      other.on(
        'console',
        (m) => m.type() === 'error' && other.problems.push(`console: ${m.text()}`),
      );
      await other.goto(page.url());
      await ready(other);
      assert.deepEqual(
        await other.$$eval('.preset[aria-pressed=true]', (bs) => bs.map((b) => b.dataset.preset)),
        [preset.id],
      );
      assert.deepEqual(await allPixels(other), views, `${preset.id}: the same maps`);
      assert.deepEqual(other.problems, []);
      await other.close();
    }
    // A control moved away from the preset: no preset is pressed, the caption describes the pair.
    await redraw(page, () => page.fill('#c-train', '200'));
    assert.equal(await page.locator('.preset[aria-pressed=true]').count(), 0);
    assert.match(await page.textContent('#caption'), /^Your own comparison: A is /);
    assert.deepEqual(page.problems.slice(seen), []);
    // Changed: a later test gets fresh pages.
    for (const theme of Object.keys(shared)) {
      const opened = await shared[theme];
      delete shared[theme];
      await opened.context().close();
    }
  });

  it("gives A's and B's controls distinct accessible names", async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await redraw(page, () =>
      page.getByRole('combobox', { name: /^Scheme \(scheme A\)/ }).selectOption('hirope'),
    );
    assert.equal(await page.inputValue('#c-a-type'), 'hirope');
    assert.equal(await page.inputValue('#c-b-type'), 'hirope');
    await openMore(page, 'scheme-a');
    await openMore(page, 'scheme-b');
    for (const [role, label, key] of [
      ['combobox', 'Scheme', 'type'],
      ['slider', 'Ratio', 'ratio'],
      ['spinbutton', 'Window', 'window'],
      ['combobox', 'Scaling', 'scaling'],
      ['combobox', 'Units', 'units'],
      ['combobox', 'Levels', 'levels'],
      ['spinbutton', 'Base', 'base'],
      ['combobox', 'Layout', 'layout'],
    ]) {
      for (const side of ['A', 'B']) {
        const control = page.getByRole(role, {
          name: new RegExp(`^${label} \\(scheme ${side}\\)`),
        });
        assert.equal(await control.count(), 1, `${label} (scheme ${side})`);
        assert.equal(await control.getAttribute('id'), `c-${side.toLowerCase()}-${key}`);
      }
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  // Since the grammars became one file per language (issue 33), the sample's grammar is the one
  // other .wasm: each file once, shared by both workers.
  it('downloads the .wasm once per visit', async () => {
    const page = await openPage(site.browser, 'about:blank');
    const wasm = [];
    page.on('request', (r) => new URL(r.url()).pathname.endsWith('.wasm') && wasm.push(r.url()));
    await page.goto(site.url);
    await ready(page);
    await redraw(page, () => page.click('.preset[data-preset="windows"]'));
    assert.equal(wasm.length, 2, wasm.join(', '));
    assert.match(wasm[0], /\/hirope-simd(\.[0-9a-f]+)?\.wasm$/);
    assert.match(wasm[1], /\/tree-sitter-python(\.[0-9a-f]+)?\.wasm$/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('puts the whole state in the URL: a shared link gives the same view back', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    await redraw(page, () => page.selectOption('#c-a-type', 'self-extend'));
    await openMore(page, 'shared-controls');
    await redraw(page, () => page.fill('#c-headDim', '32'));
    await redraw(page, () => page.fill('#c-train', '16'));
    // The URL is written once the typing pauses; the menu choice's own entry comes first.
    await untilURLState(
      page,
      normalizeState({
        code: SMALL,
        preset: '',
        headDim: 32,
        train: 16,
        a: { type: 'self-extend' },
      }),
    );
    const link = page.url();
    const views = await allPixels(page);
    const other = await openPage(site.browser, link);
    await ready(other);
    assert.equal(await other.inputValue('#c-a-type'), 'self-extend');
    assert.equal(await other.inputValue('#c-headDim'), '32');
    assert.equal(await other.inputValue('#c-train'), '16');
    assert.equal(await other.locator('.preset[aria-pressed=true]').count(), 0);
    assert.equal(await editorText(other), SMALL);
    assert.deepEqual(await allPixels(other), views);
    assert.deepEqual([...page.problems, ...other.problems], []);
    await page.context().close();
    await other.context().close();
  });

  it('takes a paste while the WebAssembly module is still loading, and says what it waits for', async () => {
    const context = await site.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    let release;
    const held = new Promise((resolve) => (release = resolve));
    await page.route(/\.wasm$/, async (route) => {
      await held; // the module's download waits until the paste is done
      await route.continue();
    });
    await page.goto(site.url);
    await page.waitForSelector('#editor');
    await page.waitForFunction(() =>
      document.querySelector('#editor').shadowRoot?.querySelector('.cm-content'),
    );
    assert.match(await page.textContent('#status'), /^Loading the WebAssembly module/);
    const code = 'def first():\n    return 1\n\n\ndef second():\n    return first() + 1\n';
    await pasteCode(page, code);
    assert.equal(await editorText(page), code);
    assert.notEqual(await page.evaluate(() => document.body.dataset.ready), 'true');
    release();
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, {
      timeout: 60000,
    });
    const hr = await api();
    const count = hr.analyze(code, { language: 'python' }).tokens.count;
    await page.waitForFunction(
      (n) => document.getElementById('status').textContent.startsWith(`${n} tokens`),
      count,
    );
    await context.close();
  });

  it('detects the language of pasted code and shows pasted markup only as text', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SAMPLES.go);
    await page.waitForFunction(() => document.querySelector('#c-language').value === 'go');
    // The note stays after the redraw that the new language starts.
    await quiet(page);
    assert.equal(await page.textContent('#note'), 'Detected: Go.');
    const attack =
      '<img src=x onerror=alert(1)>\n</script><script>alert(2)</script>\n<b onmouseover=alert(3)>x</b>\n';
    await setCode(page, attack);
    assert.equal(await editorText(page), attack);
    // Hover a token: the card shows its text as characters. (Pasting may have re-detected the
    // language and redrawn; let that settle first.)
    await quiet(page);
    await page.waitForFunction(() => document.getElementById('progress').hidden);
    const box = await page.locator('#editor .hr-tok').first().boundingBox();
    await page.mouse.move(box.x + 40, box.y + 200);
    await page.mouse.move(box.x + 2, box.y + box.height / 2, { steps: 4 });
    await page.waitForSelector('#editor .hr-card', { timeout: 10000 });
    assert.match(await page.textContent('#editor .hr-card'), /token0 of \d+text"<"/);
    // A row click writes token texts into the query line, and hovering a cell token texts into
    // the card, also as text.
    const map = await page.locator('#map-a canvas[role=img]').boundingBox();
    await page.mouse.click(map.x + map.width * 0.5, map.y + map.height * 0.8);
    await page.waitForFunction(() =>
      document.getElementById('query-info').textContent.startsWith('Query'),
    );
    await page.mouse.move(map.x + map.width * 0.3, map.y + map.height * 0.7, { steps: 3 });
    await page.waitForSelector('.hm-tip:not([hidden])');
    const injected = await page.evaluate(() => {
      const shadow = document.querySelector('#editor').shadowRoot;
      return (
        document.querySelectorAll('img, b, script:not([src])').length +
        shadow.querySelectorAll('img, b, script').length
      );
    });
    assert.equal(injected, 0);
    await page.waitForTimeout(200);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('works from the keyboard: controls in tab order, "More" disclosures, heatmap rows with the arrow keys', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    const where = () =>
      page.evaluate(() => {
        const a = document.activeElement;
        if (a.tagName === 'SUMMARY') return `summary:${a.closest('[id]').id}`;
        return a.id || a.closest('figure')?.id || a.tagName;
      });
    const reached = new Set();
    await page.focus('#c-language');
    for (let i = 0; i < 45; i++) {
      reached.add(await where());
      await page.keyboard.press('Tab');
    }
    for (const id of [
      'c-a-type',
      'c-b-type',
      'c-b-ratio',
      'c-b-window',
      'c-train',
      'c-source',
      'summary:scheme-a',
      'summary:scheme-b',
      'summary:shared-controls',
      'map-a',
      'map-b',
      'map-diff',
    ])
      assert.ok(reached.has(id), `${id} is reachable by Tab`);
    assert.ok(!reached.has('c-headDim'), 'closed "More" hides its controls');
    // Opening "More settings" from the keyboard puts its controls in the tab order.
    await page.focus('#shared-controls summary');
    await page.keyboard.press('Enter');
    const more = new Set();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      more.add(await where());
    }
    for (const id of ['c-headDim', 'c-tokenizer', 'backend'])
      assert.ok(more.has(id), `${id} is reachable once "More settings" is open`);
    await page.focus('#c-b-type');
    await redraw(page, () => page.keyboard.press('ArrowUp')); // HiRoPE -> RoPE
    assert.equal(await page.inputValue('#c-b-type'), 'rope');
    await page.focus('#c-b-type');
    await redraw(page, () => page.keyboard.press('ArrowDown'));
    assert.equal(await page.inputValue('#c-b-type'), 'hirope');
    await page.focus('#c-b-ratio');
    await redraw(page, () => page.keyboard.press('ArrowLeft'));
    assert.equal(await page.inputValue('#c-b-ratio'), '0.35');
    await page.focus('#map-a canvas[role=img]');
    await page.keyboard.press('End');
    await page.waitForFunction(() =>
      /^Query \d+/.test(document.getElementById('query-info').textContent),
    );
    const last = Number((await page.textContent('#query-info')).match(/^Query (\d+)/)[1]);
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(
      (q) => document.getElementById('query-info').textContent.startsWith(`Query ${q - 1} `),
      last,
    );
    assert.ok(
      (await page.locator('#editor [class*=hr-heat]').count()) > 0,
      'the query row is highlighted in the code',
    );
    await page.keyboard.press('+');
    await page.waitForFunction(() =>
      document.getElementById('zoom-info').textContent.startsWith('Zoomed'),
    );
    await page.keyboard.press('0');
    await page.waitForFunction(() => document.getElementById('zoom-info').textContent === '');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('exports a heatmap as a PNG with title and legend, and its numbers with token texts as CSV', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const canvas = await page.evaluate(() => ({
      width: document.querySelector('#map-b canvas[role=img]').width,
      height: document.querySelector('#map-b canvas[role=img]').height,
    }));
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#map-b button:text("PNG")'),
    ]);
    const bytes = await downloadBytes(png);
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    assert.equal(png.suggestedFilename(), 'hirope-b.png');
    // IHDR: the composed image is larger than the map (title, settings line and legend around it).
    const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    assert.ok(
      width > canvas.width && height > canvas.height + 60,
      `${width}x${height} for a ${canvas.width}x${canvas.height} map`,
    );

    const expected = await expectedHeatmaps(SMALL, {});
    const { n, analysis } = expected;
    const text = (t) => SMALL.slice(analysis.tokens.start[t], analysis.tokens.end[t]);
    const download = async (which) => {
      const [csv] = await Promise.all([
        page.waitForEvent('download'),
        page.click(`#map-${which} button:text("CSV")`),
      ]);
      assert.equal(csv.suggestedFilename(), `hirope-${which}.csv`);
      return parseCSV((await downloadBytes(csv)).toString('utf8'));
    };
    for (const which of ['a', 'diff']) {
      const rows = await download(which);
      assert.equal(rows.length, n + 2);
      assert.deepEqual(rows[0], [
        'query',
        'query token',
        ...Array.from({ length: n }, (_, j) => String(j)),
      ]);
      assert.deepEqual(rows[1], ['', '', ...Array.from({ length: n }, (_, j) => text(j))]);
      for (let i = 0; i < n; i++) {
        assert.equal(rows[i + 2].length, n + 2);
        assert.deepEqual(rows[i + 2].slice(0, 2), [String(i), text(i)]);
      }
      for (const [i, j] of sampleCells(n, 20)) {
        const pa = expected.probs.a[i * n + j];
        const pb = expected.probs.b[i * n + j];
        const want = which === 'a' ? pa : Math.log2(Math.max(pb, 1e-6) / Math.max(pa, 1e-6));
        assert.equal(Number(rows[i + 2][j + 2]), want, `${which} (${i}, ${j})`);
      }
      assert.equal(rows[2][3], ''); // (0, 1): masked
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('degrades gracefully on a big input: downsampled, progress shown, the page stays responsive', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    // A head dimension of 256 makes the run take several times the 150 ms after which the page
    // shows its progress bar (at the default 64 it takes about 150 ms on this machine: a race).
    await openMore(page, 'shared-controls');
    await redraw(page, () => page.fill('#c-headDim', '256'));
    const big = SAMPLES.python.repeat(16); // ~6,000 tokens
    // Responsive, as behaviour rather than a measured gap: once the progress bar shows, a task
    // queued on the main thread runs while the run is still under way (the bar still showing).
    await page.evaluate(() => {
      const progress = document.getElementById('progress');
      window.progressSeen = false;
      window.answeredDuringRun = false;
      new MutationObserver(() => {
        if (progress.hidden) return;
        window.progressSeen = true;
        setTimeout(() => (window.answeredDuringRun ||= !progress.hidden), 0);
      }).observe(progress, { attributes: true });
    });
    const status = await setCode(page, big);
    // Every token is mapped (up to 32,768: tests/browser/long-maps.test.mjs), downsampled to 512.
    assert.match(status, /^[\d,]+ tokens of Python/);
    assert.doesNotMatch(status, /The heatmaps show the first/);
    assert.match(await page.textContent('#map-a .legend'), /Downsampled/);
    assert.ok(await page.evaluate(() => window.progressSeen), 'the progress indicator showed');
    assert.ok(
      await page.evaluate(() => window.answeredDuringRun),
      'the main thread ran a task while the run was under way',
    );
    // Zoom by dragging: the region shrinks to real cells.
    await page.locator('#map-a canvas[role=img]').scrollIntoViewIfNeeded();
    const box = await page.locator('#map-a canvas[role=img]').boundingBox();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.55, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() =>
      document.getElementById('zoom-info').textContent.startsWith('Zoomed'),
    );
    assert.doesNotMatch(await page.textContent('#map-a .legend'), /Downsampled/);
    // The viewport, which shows the zoomed maps: the whole page with its 6,000-token editor took
    // four times the CPU.
    await screenshot(page, 'playground-big-zoomed', { fullPage: false });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('stops a pathological paste at its parse budget with a message, and a newer edit does not wait for it', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    // 60,000 quotes keep tree-sitter's error recovery busy for about 13 s in JavaScript: the page's
    // budget (3 s + 1 s per million characters) stops it and says why.
    const open = (name, text) =>
      page.setInputFiles('#open-file', {
        name,
        mimeType: 'text/javascript',
        buffer: Buffer.from(text),
      });
    await open('quotes.js', '"'.repeat(60000)); // the extension sets the language
    await page.waitForFunction(
      () => document.getElementById('status').classList.contains('error'),
      null,
      { timeout: 30000 },
    );
    assert.match(
      await page.textContent('#status'),
      /^This code cannot be parsed in time: tree-sitter's JavaScript grammar recovers from its syntax errors very slowly on it \(stopped after \d\.\d s at byte [\d,]+ of 60,000\)\. The maps still show the last code that could be read\.$/,
    );
    await screenshot(page, 'playground-pathological');
    await page.context().close();
    // A link whose code is pathological, and a normal edit a second into its run: the busy
    // workers are replaced and the edit is drawn without waiting for the old parse's budget.
    const link = await encodeState(
      normalizeState({ language: 'javascript', code: "'".repeat(60001) }),
    );
    const busy = await openPage(site.browser, `${site.url}${link}`);
    await busy.evaluate(() => {
      window.restarts = 0;
      document.addEventListener('hirope:restart', () => window.restarts++);
    });
    await busy.waitForFunction(() => !document.getElementById('progress').hidden, null, {
      timeout: 30000,
    });
    await busy.waitForTimeout(1000);
    const status = await setCode(busy, SMALL);
    // The busy workers were replaced (not waited for), and the edit's own result is shown.
    assert.equal(await busy.evaluate(() => window.restarts), 1);
    assert.doesNotMatch(status, /cannot be computed|cannot be parsed in time/);
    assert.deepEqual(busy.problems, []);
    await busy.context().close();
  });

  it('shows settings the API refuses and bad q/k files as clear errors', async () => {
    // A head dimension the controls refuse in place (odd) can still come from a hand-made link:
    // the API's message shows in the status.
    const page = await openPage(
      site.browser,
      `${site.url}${await encodeState(normalizeState({ headDim: 7 }))}`,
    );
    await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    assert.match(
      await page.textContent('#status'),
      /^These settings cannot be computed: headDim must be a positive even integer, got 7/,
    );
    await openMore(page, 'shared-controls');
    await redraw(page, () => page.fill('#c-headDim', '64'));
    assert.equal(
      await page.evaluate(() => document.getElementById('status').classList.contains('error')),
      false,
    );
    // (Choosing Q/K "from a file…" before a file is loaded is no error: tests/browser/review.test.mjs.)
    await page.setInputFiles('#qk-file', {
      name: 'qk.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"headDim": 4, "q": [[1,2,3,4]], "k": [[1,2,3,4]]}'),
    });
    await page.waitForFunction(() =>
      /q\/k file has 1 row but the code has \d+ tokens/.test(
        document.getElementById('status').textContent,
      ),
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('takes q/k rows from a file', async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const hr = await api();
    const n = hr.analyze(SMALL, { language: 'python' }).tokens.count;
    const rows = (seed) =>
      Array.from({ length: n }, (_, i) =>
        Array.from({ length: 8 }, (_, c) => Math.sin(seed * (i + 1) * (c + 1))),
      );
    await page.selectOption('#c-source', 'file');
    await redraw(page, () =>
      page.setInputFiles('#qk-file', {
        name: 'qk.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ headDim: 8, q: rows(1), k: rows(2) })),
      }),
    );
    assert.match(await page.textContent('#status'), /Head dimension 8 comes from the q\/k file/);
    assert.match(await page.textContent('#qk-file-label'), /q\/k: qk\.json/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("counts the code under every tokenizer, and takes a tokenizer.json of the person's own (kept out of the URL)", async () => {
    const page = await openPage(site.browser, site.url);
    await ready(page);
    await setCode(page, SMALL);
    const hr = await api();
    const options = { language: 'python' };
    const row = (name) =>
      page.locator(`#token-table tr[data-tokenizer="${name}"] td`).allTextContents();
    await page.click('#tokenizers-box summary');
    await page.waitForSelector('#token-table tr[data-tokenizer=lexical]');
    const lexical = hr.analyze(SMALL, options);
    const lexicalUnits = new Set(
      Array.from(lexical.positions.unit.subarray(0, lexical.tokens.count)).filter((u) => u >= 0),
    ).size;
    const bytes = Buffer.byteLength(SMALL);
    assert.deepEqual(await row('lexical'), [
      String(lexical.tokens.count),
      (bytes / lexical.tokens.count).toFixed(2),
      String(lexicalUnits),
      (lexical.tokens.count / lexicalUnits).toFixed(1),
    ]);

    // A tokenizer.json of one's own: a byte-level BPE vocabulary with two merges.
    const json = tinyTokenizerJson();
    const mine = await hr.loadTokenizer({ json });
    const status = await redraw(page, () =>
      page.setInputFiles('#tokenizer-file', {
        name: 'tiny.json',
        mimeType: 'application/json',
        buffer: Buffer.from(json),
      }),
    );
    const ours = hr.analyze(SMALL, { ...options, tokenizer: mine });
    assert.match(
      status,
      new RegExp(
        `^${ours.tokens.count} tokens of Python in .*; tokenizer: tiny\\.json \\(your file\\)\\.`,
      ),
    );
    assert.equal(await page.inputValue('#c-tokenizer'), mine);
    assert.match(
      await page.textContent(`#token-table tr[data-tokenizer="${mine}"] th`),
      /tiny\.json \(your file\)/,
    );
    await page.waitForFunction(
      (name) =>
        document
          .querySelector(`#token-table tr[data-tokenizer="${name}"]`)
          ?.getAttribute('aria-current') === 'true',
      mine,
    );
    assert.equal((await row(mine))[0], String(ours.tokens.count));
    // The link names no local file: it opens on the default tokenizer.
    await page.waitForTimeout(1500);
    assert.equal((await urlState(page)).tokenizer, 'lexical');
    // A file the loader refuses says why, in place.
    await page.setInputFiles('#tokenizer-file', {
      name: 'bad.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"model": {"type": "WordPiece"}}'),
    });
    await page.waitForFunction(() =>
      /bad\.json cannot be used: .+/.test(document.querySelector('.tokenizers-note').textContent),
    );

    // Every built-in, counted as the API counts.
    await page.click('#count-all');
    const builtins = hr.tokenizers.filter((t) => t !== 'lexical');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#token-table tbody tr').length === n,
      builtins.length + 2,
      { timeout: 120000 },
    );
    for (const name of builtins) {
      await hr.loadTokenizer(name);
      assert.equal(
        (await row(name))[0],
        String(hr.encode(SMALL, { tokenizer: name }).length),
        name,
      );
    }
    // A row picks its tokenizer for the maps.
    await redraw(page, () => page.click(`#token-table tr[data-tokenizer="${builtins[0]}"] th`));
    assert.equal(await page.inputValue('#c-tokenizer'), builtins[0]);
    await page.locator('#tokenizers-box').scrollIntoViewIfNeeded();
    await screenshot(page, 'playground-tokenizers', { fullPage: false });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('runs the scalar build (browsers without WebAssembly SIMD) with the same colours', async () => {
    const page = await openPage(site.browser, `${site.url}?simd=0`);
    await ready(page);
    await setCode(page, SMALL);
    assert.match(
      await page.textContent('#timing-text'),
      /Attention A \+ B by backend: wasm-scalar [\d.]+ ms/,
    );
    // SMALL has fewer than 64 tokens: the default view carries token labels.
    const margin = MARGIN + LABEL_MARGIN;
    await redraw(page, () => page.fill('#c-b-window', '8'));
    const expected = await expectedHeatmaps(SMALL, { b: { window: 8 } });
    const cells = sampleCells(expected.n);
    for (const which of ['a', 'b', 'diff']) {
      const got = await readCells(page, `#map-${which} canvas[role=img]`, cells, {
        margin,
        n: expected.n,
      });
      // The scalar kernels round differently from the SIMD ones: allow one colour step.
      cells.forEach(([i, j], c) => {
        expected.colour(which, i, j).forEach((v, k) => {
          assert.ok(Math.abs(got[c][k] - v) <= 4, `${which} (${i}, ${j})`);
        });
      });
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("switches to the WebGPU backend and shows each backend's time", async () => {
    const browser = await launchChromium({ webgpu: true });
    try {
      const page = await openPage(browser, site.url);
      await ready(page);
      await setCode(page, SMALL);
      await openMore(page, 'shared-controls');
      await page.selectOption('#backend', 'webgpu');
      await page.waitForFunction(
        () => document.getElementById('timing-text').textContent.includes('WebGPU'),
        null,
        { timeout: 60000 },
      );
      assert.match(
        await page.textContent('#timing-text'),
        /Attention A \+ B by backend: wasm-simd [\d.]+ ms, WebGPU [\d.]+ ms/,
      );
    } finally {
      await browser.close();
    }
  });
});
