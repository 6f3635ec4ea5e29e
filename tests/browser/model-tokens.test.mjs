// Model mode with the token model (issue 32), in headless Chromium under the strict CSP: the first
// view is the token model on a long real file; each model loads from the picker, whose sizes show
// before download; token hover cards equal the API's text, id and losses; the far-recall filter
// keeps exactly the tokens the API classifies far; the held-out verdict panel's numbers are the
// eval files' (computed here from the JSON by hand); generation decodes to the API's text; a layer
// or head switch runs no loss pass; zoomed in, the maps label their axes with the tokens; an old
// link (no model named) still opens the byte model.
// Screenshots of both models, light and dark, 1440x900 and 390 px wide (one page per model,
// resized and switched between colour schemes), go to build/screenshots/ (and to $HIROPE_SHOTS
// when set).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite,
  openPage,
  screenshot,
  api,
  root,
  nextModelRun as nextRun,
  VIEW_PAIRS,
  resizeTo,
  switchTheme,
} from './helpers.mjs';
import { tokenRecallClasses, RECALL_CLASSES } from '../../dist/index.js';
import { encodeWith, normalizeWith } from '../../web/src/shared/link-state.js';
import {
  MODEL_DEFAULTS,
  TOKEN_MODEL_DEFAULTS,
  encodeModelState,
  readModelLink,
} from '../../web/src/shared/model-state.js';
import { modelOptionsFor } from '../../web/src/worker/model-engine.js';
import { LONG_PYTHON_SAMPLE } from '../../web/src/shared/model-samples.js';
import { MARGIN, PLOT, LABEL_MARGIN, LABEL_TOKENS } from '../../web/src/page/heatmap.js';

const FAR = RECALL_CLASSES.indexOf('far');
const ready = (page) =>
  page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 180000 });
const statusText = (page) => page.textContent('#status');

async function open(site, hash = '', options) {
  const page = await openPage(site.browser, `${site.url}model.html${hash}`, options);
  await ready(page);
  return page;
}

// The tests whose property does not depend on the code's length (the verdict panel, the help
// texts, the axis labels) open a shorter piece of the sample: each run and the thumbnails cost in
// proportion to the tokens read. The first view's long file stays in the tests that check it.
const SHORT = LONG_PYTHON_SAMPLE.slice(0, 1200);
const openShort = async (site) =>
  open(site, await encodeModelState({ ...TOKEN_MODEL_DEFAULTS, code: SHORT }));

const readJSON = (file) => JSON.parse(fs.readFileSync(path.join(root, 'models', file), 'utf8'));

describe('Model mode with the token model (headless Chromium)', () => {
  let site;
  let hr;
  let tokenModel;
  before(async () => {
    site = await startSite();
    hr = await api();
    tokenModel = await hr.model.load({ name: 'pyjs-llama2' });
  });
  after(async () => {
    tokenModel?.dispose();
    await site?.close();
  });

  it('opens on the token model and a long real file; each model loads from the picker, its size shown first', async () => {
    const page = await open(site);
    const ids = hr.encode(LONG_PYTHON_SAMPLE, { tokenizer: 'llama2' });
    assert.ok(ids.length >= 1500 && ids.length <= 2500, `${ids.length} tokens`);
    assert.match(
      await statusText(page),
      new RegExp(`^${ids.length.toLocaleString('en')} tokens .* read by pyjs-llama2`),
    );
    assert.equal(await page.locator('#c-model').inputValue(), 'pyjs-llama2');
    // The first view's A and B, and the story preset that says so.
    assert.equal(await page.locator('#c-a-type').inputValue(), TOKEN_MODEL_DEFAULTS.a.type);
    assert.equal(await page.locator('#c-b-type').inputValue(), 'hirope');
    assert.equal(await page.locator('#c-b-hierarchy').inputValue(), 'segments');
    assert.equal(await page.locator('#story-baseline').getAttribute('aria-pressed'), 'true');
    // Sizes before download: the byte model's option names its file's size in MB.
    const size = fs.statSync(path.join(root, 'dist/data/pybyte.hrm')).size;
    await page.waitForFunction(() =>
      /MB/.test(
        [...document.getElementById('c-model').options].find((o) => o.value === 'pybyte')
          .textContent,
      ),
    );
    const label = await page.evaluate(
      () =>
        [...document.getElementById('c-model').options].find((o) => o.value === 'pybyte')
          .textContent,
    );
    assert.match(label, new RegExp(`${(size / 1048576).toFixed(1)} MB download`));
    // One click loads the byte model: its own defaults, its sample, bits per byte. At the click
    // the token model's chart, key and maps go (the page's control handles the select's 'input'
    // event; this 'change' listener on the document runs after it, before any new result).
    await page.evaluate(() => {
      document.addEventListener(
        'change',
        () => {
          window.__atSwitch = {
            chartHidden: document.querySelector('#loss-chart canvas').hidden,
            key: document.querySelector('#loss-chart .chart-key').textContent,
            maps: [...document.querySelectorAll('#maps canvas[role=img]')]
              .map((c) => c.getAttribute('aria-label'))
              .filter(Boolean),
          };
        },
        { once: true },
      );
    });
    const run = await nextRun(page, () => page.locator('#c-model').selectOption('pybyte'));
    assert.deepEqual(run.parts.a, { loss: true, attention: true });
    const atSwitch = await page.evaluate(() => window.__atSwitch);
    assert.equal(atSwitch.chartHidden, true);
    assert.match(atSwitch.key, /appears here once the model has run/);
    assert.ok(atSwitch.maps.length >= 2, JSON.stringify(atSwitch.maps));
    for (const label of atSwitch.maps) assert.match(label, /Running the model over the code/);
    await page.waitForFunction(
      () => /read by pybyte/.test(document.getElementById('status').textContent),
      null,
      { timeout: 60000 },
    );
    assert.match(await statusText(page), /^\d[\d,]* bytes read by pybyte.*bits\/byte/);
    assert.equal(await page.locator('#c-a-type').inputValue(), MODEL_DEFAULTS.a.type);
    // The URL names the model: reloading it opens the byte model again.
    let hash = '';
    for (
      const end = Date.now() + 10000;
      Date.now() < end;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      hash = await page.evaluate(() => location.hash);
      if ((await readModelLink(hash)).state.model === 'pybyte') break;
    }
    const again = await open(site, hash);
    assert.match(await statusText(again), /read by pybyte/);
    assert.deepEqual([...page.problems, ...again.problems], []);
    await again.context().close();
    await page.context().close();
  });

  it('keeps old links: a state without a model is the byte model', async () => {
    const hash = await encodeWith(MODEL_DEFAULTS, {
      code: 'def f(x):\n    return x + 1\n\nprint(f(2))\n',
    });
    const page = await open(site, hash);
    assert.match(await statusText(page), /read by pybyte/);
    assert.equal(await page.locator('#c-model').inputValue(), 'pybyte');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("hover cards show each token's text, id and losses under A and B, as the API gives them", async () => {
    const code = LONG_PYTHON_SAMPLE.slice(0, 1200);
    const page = await open(site, await encodeModelState({ ...TOKEN_MODEL_DEFAULTS, code }));
    const state = normalizeWith(TOKEN_MODEL_DEFAULTS, { code });
    const expected = Object.fromEntries(
      ['a', 'b'].map((s) => [s, tokenModel.loss(code, modelOptionsFor(state[s], 'python'))]),
    );
    const { tokens } = expected.a;
    const marks = page.locator('#editor .hr-tok');
    let checked = 0;
    await page.locator('#editor').scrollIntoViewIfNeeded(); // below the loss chart and the verdict
    for (const nth of [2, 5, 9, 14, 21]) {
      const box = await marks.nth(nth).boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y - 40);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
      const card = page.locator('#editor .hr-card');
      await card.waitFor({ timeout: 10000 });
      const values = Object.fromEntries(
        await card.evaluate((dl) =>
          [...dl.querySelectorAll('dt')].map((dt) => [
            dt.textContent,
            dt.nextElementSibling.textContent,
          ]),
        ),
      );
      const k = Number(/^(\d+) of (\d+)$/.exec(values.token)[1]);
      assert.equal(values.token, `${k} of ${tokens.ids.length}`);
      const bytes = new TextEncoder().encode(code);
      assert.equal(
        values.text,
        JSON.stringify(new TextDecoder().decode(bytes.subarray(tokens.start[k], tokens.end[k]))),
      );
      assert.equal(values.id, String(tokens.ids[k]));
      for (const side of ['a', 'b'])
        assert.equal(
          values[`loss ${side.toUpperCase()}`],
          k === 0 ? '—' : `${expected[side].losses[k - 1].toFixed(2)} bits`,
          `token ${k}, ${side}`,
        );
      checked++;
      await page.mouse.move(0, 0);
      await card.waitFor({ state: 'detached', timeout: 10000 });
    }
    assert.equal(checked, 5);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('far-recall tokens only: the chart keeps exactly the tokens the API classifies far', async () => {
    const page = await open(site);
    await nextRun(page, () => page.locator('#story-far').click());
    await page.waitForFunction(() =>
      /far-recall tokens only/.test(
        document.querySelector('#loss-chart canvas').getAttribute('aria-label'),
      ),
    );
    // The model's own token spans without a forward pass (loss() would return the same ones).
    const { tokens } = tokenModel.positions(LONG_PYTHON_SAMPLE);
    const classes = tokenRecallClasses(
      new TextEncoder().encode(LONG_PYTHON_SAMPLE),
      tokens.start,
      tokens.end,
      tokenModel.config.trainingContext,
    );
    // Tokens 1..n-1 have a loss; the page shows those classified far (one dot per run of them).
    let far = 0;
    let runs = 0;
    for (let t = 1; t < classes.length; t++) {
      if (classes[t] !== FAR) continue;
      far++;
      if (classes[t - 1] !== FAR || t === 1) runs++;
    }
    assert.ok(far > 20, `${far} far-recall tokens`);
    const label = await page.locator('#loss-chart canvas').getAttribute('aria-label');
    assert.match(
      label,
      new RegExp(`far-recall tokens only: ${far.toLocaleString('en')} tokens in ${runs} names`),
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("the verdict panel shows the eval files' numbers, both seeds", async () => {
    const page = await openShort(site);
    await page.waitForFunction(() => document.body.dataset.verdict === 'pyjs-llama2', null, {
      timeout: 60000,
    });
    const evals = [readJSON('pyjs-llama2-eval.json'), readJSON('pyjs-llama2-seed2-eval.json')];
    // By hand from the JSON: per file, summed bits over summed counts; then the mean over files.
    const byFile = (run, name, what) => {
      const acc = new Map();
      run.windows.forEach((w, i) => {
        const s = run.schemes[name];
        const [num, den] =
          what === 'far'
            ? [s.classSums[i][FAR], s.classCounts[i][FAR]]
            : [
                s.sums[i].slice(1).reduce((a, x) => a + x, 0),
                run.counts.slice(1).reduce((a, x) => a + x, 0),
              ];
        const a = acc.get(w.file) ?? [0, 0];
        acc.set(w.file, [a[0] + num, a[1] + den]);
      });
      return new Map([...acc].filter(([, [, d]]) => d > 0).map(([f, [n, d]]) => [f, n / d]));
    };
    const meanOf = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
    const cells = await page.locator('#verdict-schemes td').evaluateAll((tds) =>
      tds.map((td) => ({
        scheme: td.closest('tr').dataset.scheme,
        multiple: td.dataset.multiple,
        what: td.dataset.what,
        mean: Number(td.dataset.mean),
        text: td.textContent,
      })),
    );
    assert.ok(cells.length >= 24, `${cells.length} cells`);
    for (const c of cells) {
      const m = meanOf([...byFile(evals[0].runs[c.multiple], c.scheme, c.what).values()]);
      assert.ok(
        Math.abs(c.mean - m) < 1e-9,
        `${c.scheme} ${c.multiple}x ${c.what}: ${c.mean} vs ${m}`,
      );
      assert.equal(c.text.split(' ± ')[0], m.toFixed(3));
    }
    const pairs = await page.locator('#verdict-pairs tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        ...tr.dataset,
        diffs: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.diff)),
      })),
    );
    assert.ok(
      pairs.some(
        (p) => p.a === 'hirope-segments (tuned)' && p.b === 'rerope (tuned)' && p.what === 'beyond',
      ),
    );
    for (const p of pairs) {
      assert.equal(p.diffs.length, 2, 'both seeds');
      p.diffs.forEach((d, s) => {
        const a = byFile(evals[s].runs[p.multiple], p.a, p.what);
        const b = byFile(evals[s].runs[p.multiple], p.b, p.what);
        const expected = meanOf(
          [...a.keys()].filter((f) => b.has(f)).map((f) => a.get(f) - b.get(f)),
        );
        assert.ok(
          Math.abs(d - expected) < 1e-9,
          `${p.a} - ${p.b} ${p.what} ${p.multiple}x seed ${s}: ${d} vs ${expected}`,
        );
      });
    }
    assert.match(
      await page.textContent('#verdict-sentence'),
      /gain comes from (ordinary|far-recall)/,
    );
    assert.equal(await page.getAttribute('#verdict a', 'href'), 'model-eval.md');
    const doc = await page.request.get(`${site.url}model-eval.md`);
    assert.equal(doc.status(), 200);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("generation with the token model decodes to the API's text; a layer or head switch runs no loss pass", async () => {
    const code = LONG_PYTHON_SAMPLE.slice(0, 900);
    const state = normalizeWith(TOKEN_MODEL_DEFAULTS, {
      code,
      maxBytes: 40,
      temperature: 0,
      seed: 3,
    });
    const page = await open(site, await encodeModelState(state));
    const layer = await nextRun(page, () => page.locator('#c-layer').selectOption('2'));
    const head = await nextRun(page, () => page.locator('#c-head').selectOption('3'));
    for (const r of [layer, head]) {
      for (const side of ['a', 'b']) {
        assert.deepEqual(r.parts[side], { loss: false, attention: true }, side);
        assert.equal(r.counts[side].loss, 1, `${side}: still one loss pass`);
      }
    }
    await page.locator('#generate').click();
    await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
      timeout: 120000,
    });
    for (const side of ['a', 'b']) {
      const expected = tokenModel.generate(code, {
        ...modelOptionsFor(state[side], 'python'),
        maxBytes: 40,
        temperature: 0,
        seed: 3,
      }).text;
      assert.ok(expected.length > 0);
      assert.equal(await page.locator(`#gen-${side} mark.generated`).textContent(), expected);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('zoomed to at most 64 tokens, the attention maps label their axes with the tokens (the canvas grows by LABEL_MARGIN)', async () => {
    const page = await openShort(site);
    await page.waitForFunction(() => document.body.dataset.thumbs === 'ready', null, {
      timeout: 180000,
    });
    const widths = () =>
      page.evaluate(() =>
        ['map-a', 'map-b'].map((id) => document.querySelector(`#${id} canvas`).width),
      );
    assert.deepEqual(await widths(), [PLOT + MARGIN, PLOT + MARGIN]);
    await page.focus('#map-b canvas[role=img]');
    let span = Infinity;
    for (let k = 0; k < 8 && span > LABEL_TOKENS; k++) {
      const before = await page.textContent('#zoom-info');
      await page.keyboard.press('+');
      await page.waitForFunction(
        (text) =>
          document.getElementById('zoom-info').textContent !== text &&
          document.getElementById('zoom-info').textContent.startsWith('Zoomed'),
        before,
      );
      const m = (await page.textContent('#zoom-info')).match(/queries (\d+)–(\d+)/);
      span = Number(m[2]) + 1 - Number(m[1]);
    }
    assert.ok(span <= LABEL_TOKENS, `${span} tokens`);
    await page.waitForFunction(
      (size) =>
        ['map-a', 'map-b'].every((id) => document.querySelector(`#${id} canvas`).width === size),
      PLOT + MARGIN + LABEL_MARGIN,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('a layer, head or thumbnail change keeps the status in tokens (the attention-only reply counts tokens, not bytes)', async () => {
    const page = await openShort(site);
    const tokens = hr.encode(SHORT, { tokenizer: 'llama2' }).length;
    const bytes = new TextEncoder().encode(SHORT).length;
    const expected = new RegExp(
      `^${tokens.toLocaleString('en')} tokens \\(${bytes.toLocaleString('en')} bytes\\) read by pyjs-llama2`,
    );
    assert.match(await statusText(page), expected);
    const first = await statusText(page);
    for (const [what, action] of [
      ['head 2', () => page.locator('#c-head').selectOption('2')],
      ['layer 1', () => page.locator('#c-layer').selectOption('1')],
    ]) {
      const run = await nextRun(page, action);
      assert.deepEqual(run.parts.a, { loss: false, attention: true }, what);
      assert.match(await statusText(page), expected, what);
      assert.equal(
        await statusText(page),
        first,
        `${what}: the same sentence (the loss did not change)`,
      );
    }
    await page.waitForFunction(() => document.body.dataset.thumbs === 'ready', null, {
      timeout: 180000,
    });
    const run = await nextRun(page, () =>
      page.locator('#thumbs-b button.thumb[aria-label^="Layer 2, head 3"]').click(),
    );
    assert.deepEqual(run.parts.b, { loss: false, attention: true });
    assert.equal(await page.locator('#c-layer').inputValue(), '2');
    assert.equal(await page.locator('#c-head').inputValue(), '3');
    assert.equal(await statusText(page), first, 'thumbnail');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("with the token model every help text and label names tokens; the Split% preset is the core's bound (here the paper's 0.5: one button); the Factor help follows the scaling", async () => {
    const page = await openShort(site);
    const help = (id) => page.locator(`#${id}`).evaluate((input) => input.closest('label').title);
    for (const id of [
      'c-b-window',
      'c-b-ratio',
      'c-b-hierarchy',
      'c-b-segment',
      'c-a-window',
      'c-temperature',
      'c-smooth',
    ]) {
      const text = await help(id);
      assert.match(text, /token/i, id);
      assert.doesNotMatch(text, /\bbytes?\b/, id);
      assert.equal(
        await page.locator(`#${id}-help`).textContent(),
        text,
        `${id}: the description is the same text`,
      );
    }
    assert.match(
      await help('c-b-window'),
      /reaches W tokens back\. Truncate: each token is predicted from the last W tokens only \(one pass per W\/8 tokens\)/,
    );
    assert.match(await page.locator('#reset-zoom').getAttribute('title'), /all tokens/);
    // The core's bound for this model is 8 of 16 pairs, ratio 0.5: the paper's ratio too, so one button.
    const c = tokenModel.config;
    const bound = hr.splitBound(
      { type: 'hirope', ratio: 0, base: c.ropeBase, trainingLength: c.trainingContext },
      c.headDim,
    );
    assert.equal(bound.maxRatio, 0.5);
    assert.equal(await page.locator('#preset-paper').isVisible(), false);
    assert.match(
      await page.locator('#preset-bound').textContent(),
      /the Split% bound = the paper's 0\.5 \(8\/16\)/,
    );
    assert.doesNotMatch(await page.locator('#preset-bound').getAttribute('title'), /above/);
    // The default ratio, the tuned 1/3 as the 5 pairs the core gives it: the label shows the
    // value the slider holds, and the pairs.
    const third = hr.splitBound(
      { type: 'hirope', ratio: 1 / 3, base: c.ropeBase, trainingLength: c.trainingContext },
      c.headDim,
    );
    assert.equal(
      await page
        .locator('#c-b-ratio')
        .evaluate((input) => input.closest('label').querySelector('output').textContent),
      `0.3125 · ${third.tokenPairs} of 16 pairs`,
    );
    assert.equal(await page.locator('#c-b-ratio').inputValue(), '0.3125');
    const run = await nextRun(page, () => page.locator('#preset-bound').click());
    assert.equal(run.parts.b.loss, true);
    assert.equal(await page.locator('#c-b-ratio').inputValue(), '0.5');
    assert.equal(await page.locator('#preset-bound').getAttribute('aria-pressed'), 'true');
    await page.waitForFunction(() =>
      /Within the bound\.$/.test(document.getElementById('ratio-hint-b').textContent),
    );
    // The Factor help describes the scaling chosen.
    for (const [scaling, want] of [
      ['linear', /Position interpolation/],
      ['ntk', /^Scaling factor s\. NTK-aware: .*base raised/],
      ['yarn', /^Scaling factor s for YaRN\. NTK-by-parts/],
    ]) {
      await page.locator('#c-b-scaling').selectOption(scaling);
      const text = await help('c-b-factor');
      assert.match(text, want, scaling);
      if (scaling !== 'linear') assert.doesNotMatch(text, /PI|divided? every frequency/, scaling);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("generation reports the bytes it produced: exactly the count asked for the byte model; the token model's whole last token may end past it, and says so", async () => {
    // 64 bytes, not the default 256: the token model's last token still ends past the count here
    // (66 bytes on both sides, as at 256), at a quarter of the decoding steps.
    const ask = 64;
    const byteModel = await hr.model.load({ name: 'pybyte' });
    try {
      for (const [name, model, defaults] of [
        ['pyjs-llama2', tokenModel, TOKEN_MODEL_DEFAULTS],
        ['pybyte', byteModel, MODEL_DEFAULTS],
      ]) {
        const code = LONG_PYTHON_SAMPLE.slice(0, 900);
        const state = normalizeWith(defaults, {
          ...defaults,
          code,
          maxBytes: ask,
          temperature: 0.8,
          seed: 1,
        });
        const page = await open(site, await encodeModelState(state));
        await page.locator('#generate').click();
        await page.waitForFunction(() => document.body.dataset.generated === 'true', null, {
          timeout: 180000,
        });
        for (const side of ['a', 'b']) {
          const prompt = new TextEncoder().encode(code);
          const { bytes } = model.generate(prompt, {
            ...modelOptionsFor(state[side], 'python'),
            maxBytes: ask,
            temperature: 0.8,
            seed: 1,
          });
          const title = await page.locator(`#gen-title-${side}`).textContent();
          if (name === 'pybyte') assert.equal(bytes.length, ask);
          else assert.ok(bytes.length >= ask, `${bytes.length}`); // whole tokens: the last may end past the count
          const extra =
            bytes.length > ask
              ? ` in whole tokens \\(the last one ends past the ${ask} asked\\)`
              : '';
          assert.match(
            title,
            new RegExp(`— ${bytes.length} bytes${extra} after a ${prompt.length}-byte prompt`),
            `${name} ${side}`,
          );
        }
        assert.equal(await page.locator('#c-maxBytes-label').textContent(), 'Bytes');
        assert.match(
          await page.locator('#c-temperature').evaluate((i) => i.closest('label').title),
          name === 'pybyte' ? /most likely byte/ : /most likely token/,
        );
        assert.deepEqual(page.problems, []);
        await page.context().close();
      }
    } finally {
      byteModel.dispose();
    }
  });

  it('screenshots: both models, light and dark, 1440x900 and 390 px wide', async () => {
    const byteHash = await encodeModelState({ ...MODEL_DEFAULTS });
    // One page per model, in each colour scheme at both widths: opened in one, resized to the other
    // width, switched to the other scheme (the page follows the system's), resized back. The two
    // models open in different schemes and widths.
    for (const [name, hash, opened] of [
      ['tokens', '', VIEW_PAIRS[0]],
      ['bytes', byteHash, VIEW_PAIRS[1]],
    ]) {
      const page = await open(site, hash, {
        colorScheme: opened.colorScheme,
        viewport: opened.load,
      });
      await page.waitForFunction(
        () => document.body.dataset.thumbs === 'ready' && document.body.dataset.verdict,
        null,
        { timeout: 180000 },
      );
      const other = opened.colorScheme === 'light' ? 'dark' : 'light';
      for (const [colorScheme, viewport] of [
        [opened.colorScheme, opened.load],
        [opened.colorScheme, opened.resize],
        [other, opened.resize],
        [other, opened.load],
      ]) {
        await switchTheme(page, colorScheme);
        await resizeTo(page, viewport);
        // No horizontal scroll on a phone.
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
          `${name} ${colorScheme} ${viewport.width}: scrolls sideways`,
        );
        // Wide, the loss chart beside the verdict reaches its height (up to the chart's
        // largest): no blank area under the chart's key.
        if (viewport.width > 1200) {
          const box = await page.evaluate(() => {
            const chart = document.getElementById('loss-chart').getBoundingClientRect();
            const verdict = document.getElementById('verdict').getBoundingClientRect();
            const canvas = document.querySelector('#loss-chart canvas');
            return {
              beside: Math.abs(verdict.top - chart.top) <= 1,
              gap: verdict.bottom - chart.bottom,
              height: canvas.getBoundingClientRect().height,
            };
          });
          assert.ok(box.beside, `${name} ${viewport.width}: the verdict is not beside the chart`);
          assert.ok(
            Math.abs(box.gap) <= 24 || box.height >= 560,
            `${name} ${colorScheme}: ${box.gap} px blank under a chart ${box.height} px high`,
          );
        }
        const shot = `model-${name}-${colorScheme}-${viewport.width}`;
        await screenshot(page, shot, { fullPage: viewport.width < 500 });
        if (process.env.HIROPE_SHOTS) {
          fs.mkdirSync(process.env.HIROPE_SHOTS, { recursive: true });
          await page.screenshot({
            path: path.join(process.env.HIROPE_SHOTS, `${shot}.png`),
            fullPage: viewport.width < 500,
          });
          if (viewport.width > 500)
            await page.screenshot({
              path: path.join(process.env.HIROPE_SHOTS, `${shot}-full.png`),
              fullPage: true,
            });
        }
      }
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  });
});
