// Real models in the playground, in headless Chromium: a side picks a gallery model and shows its
// layer strip; clicking a layer picks it for that side; the "HiRoPE on this model" switch applies
// HiRoPE to the layer's frequencies; a pasted config.json works as a gallery entry does; a link
// restores all of it; a model preset sets both sides and its caption.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSite, openPage, ready, quiet, root, api, PHONE_VIEWPORT } from './helpers.mjs';
import { decodeState, encodeState, normalizeState } from '../../web/src/shared/playground-state.js';
import { MODEL_PRESETS } from '../../web/src/shared/presets.js';
import { modelNotes, setupSummary } from '../../web/src/shared/model-gallery.js';

const hash = (page) => page.evaluate(() => location.hash);
async function hashChange(page, before) {
  await page.waitForFunction((h) => location.hash !== h, before, { timeout: 60000 });
  await quiet(page);
  return hash(page);
}
const title = (page, side) => page.locator(`#map-${side} .hm-sub`).first().textContent();
const pressedLayer = (page, side) =>
  page.evaluate(
    (s) => document.querySelector(`#scheme-${s} .layer[aria-pressed=true]`)?.dataset.layer ?? '',
    side,
  );
const layers = (page, side) => page.locator(`#scheme-${side} .layer-strip .layer`).count();

describe('real models in the playground', { timeout: 600000 }, () => {
  let site;
  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });

  it('picks a gallery model, a layer and HiRoPE on it, and a link restores them', async () => {
    const page = await openPage(site.browser, `${site.url}index.html`);
    await ready(page);
    let h = await hash(page);
    await page.selectOption('#model-select-b', 'llama-3.1-8b');
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    h = await hashChange(page, h);
    assert.equal(await layers(page, 'b'), 32);
    assert.equal(await pressedLayer(page, 'b'), '0');
    // The model sets the shared head dim and training length (its original length).
    let state = await decodeState(h);
    assert.deepEqual([state.headDim, state.train], [128, 8192]);
    assert.match(await title(page, 'b'), /llama-3\.1-8b, layer 0/);
    assert.match(
      await page.locator('#scheme-b .model-info').textContent(),
      /^Layer 0 of 32: full attention, RoPE base 500,000, half-split pairs, llama3 scaling ×8\. Head dim 128/,
    );

    await page.click('#scheme-b .layer[data-layer="7"]');
    h = await hashChange(page, h);
    assert.equal(await pressedLayer(page, 'b'), '7');
    assert.match(await title(page, 'b'), /layer 7/);

    await page.check('#model-hirope-b');
    h = await hashChange(page, h);
    assert.match(await title(page, 'b'), /layer 7, HiRoPE on its frequencies/);
    // HiRoPE's ratio and window stay; the scheme menu goes (the model's layer is the scheme).
    assert.equal(await page.locator('#c-b-ratio').isVisible(), true);
    assert.equal(await page.locator('#c-b-type').isVisible(), false);
    state = await decodeState(h);
    assert.deepEqual([state.b.model, state.b.layer, state.b.type], ['llama-3.1-8b', 7, 'hirope']);
    assert.deepEqual(page.problems, []);

    const again = await openPage(site.browser, `${site.url}index.html${h}`);
    await ready(again);
    await again.waitForSelector('#scheme-b .layer-strip .layer');
    assert.equal(await again.locator('#model-select-b').inputValue(), 'llama-3.1-8b');
    assert.equal(await pressedLayer(again, 'b'), '7');
    assert.equal(await again.locator('#model-hirope-b').isChecked(), true);
    assert.match(await title(again, 'b'), /layer 7, HiRoPE on its frequencies/);
    assert.deepEqual(again.problems, []);
    await again.context().close();
    await page.context().close();
  });

  it('shows what the config does not compute, titles a NoPE layer as NoPE, and refuses a layer the model lacks', async () => {
    // A: layer 70 of Gemma 3 27B's 62 (a link may ask for any); B: Llama 4's NoPE layer 3 under
    // the HiRoPE switch.
    const state = normalizeState({
      a: { type: 'rope', model: 'gemma-3-27b-it', layer: 70 },
      b: { type: 'hirope', model: 'llama-4-scout-17b-16e', layer: 3 },
    });
    const page = await openPage(site.browser, `${site.url}index.html${await encodeState(state)}`);
    await page.waitForSelector('#status.error', { timeout: 60000 });
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    await page.waitForSelector('#scheme-a .layer-strip .layer');
    assert.match(
      await page.textContent('#status'),
      /These settings cannot be computed: A: the model has no layer 70 \(its 62 layers are 0 to 61\)/,
    );
    assert.equal(
      await page.textContent('#scheme-a .model-info'),
      "This layer is not one of the model's: gemma-3-27b-it has no layer 70 (its 62 layers are 0 to 61). Pick one in the strip.",
    );
    assert.equal(await pressedLayer(page, 'a'), '');
    assert.match(await title(page, 'a'), /gemma-3-27b-it, layer 70: not computed/);
    // Beside each layer, the config's warnings (the reader's own words), one item each.
    const hr = await api();
    for (const [side, id] of [
      ['a', 'gemma-3-27b-it'],
      ['b', 'llama-4-scout-17b-16e'],
    ]) {
      const text = fs.readFileSync(path.join(root, `models/configs/${id}.json`), 'utf8');
      const want = modelNotes(setupSummary(hr.fromConfig(text)));
      assert.ok(want.length > 0, id);
      assert.deepEqual(
        await page.locator(`#model-notes-${side} li`).allTextContents(),
        want,
        `${side}: ${id}`,
      );
      assert.equal(await page.locator(`#model-notes-${side}`).isVisible(), true);
    }
    // Choosing a layer the model has computes it; B's NoPE layer is titled as NoPE.
    await page.click('#scheme-a .layer[data-layer="5"]');
    await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
    await quiet(page);
    assert.match(await title(page, 'a'), /^gemma-3-27b-it, layer 5$/);
    assert.equal(
      await title(page, 'b'),
      'llama-4-scout-17b-16e, layer 3, NoPE (no frequencies for HiRoPE)',
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('reads a pasted config.json, and its link carries the config', async () => {
    const page = await openPage(site.browser, `${site.url}index.html`);
    await ready(page);
    let h = await hash(page);
    const text = fs.readFileSync(path.join(root, 'models/configs/qwen3-0.6b.json'), 'utf8');
    await page.selectOption('#model-select-a', 'config');
    await page.fill('#model-config-a', text);
    await page.click('#model-a button:has-text("Use this config")');
    await page.waitForSelector('#scheme-a .layer-strip .layer');
    h = await hashChange(page, h);
    assert.equal(await layers(page, 'a'), 28);
    assert.match(await title(page, 'a'), /your config\.json, layer 0/);
    const state = await decodeState(h);
    assert.equal(state.a.config, text);
    // A config.json dropped on a side's panel is read as a pasted one.
    const dropped = fs.readFileSync(path.join(root, 'models/configs/gemma-2-9b.json'), 'utf8');
    const transfer = await page.evaluateHandle((t) => {
      const d = new DataTransfer();
      d.items.add(new File([t], 'config.json', { type: 'application/json' }));
      return d;
    }, dropped);
    await page.dispatchEvent('#scheme-b', 'drop', { dataTransfer: transfer });
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    h = await hashChange(page, h);
    assert.equal(await layers(page, 'b'), 42);
    assert.equal((await decodeState(h)).b.config, dropped);
    // A config the reader refuses is named under its box and not used: side A keeps the config
    // it had (its layers, its link), and side B still computes (a run with it failed both).
    h = await hash(page);
    await page.fill('#model-config-a', '{"model_type": ');
    await page.click('#model-a button:has-text("Use this config")');
    await page.waitForSelector('#model-config-a-error:not([hidden])');
    assert.match(
      await page.locator('#model-config-a-error').textContent(),
      /^The config\.json could not be read: .+\. Scheme A keeps its last setting\.$/,
    );
    assert.equal(await page.getAttribute('#model-config-a', 'aria-invalid'), 'true');
    assert.equal(await layers(page, 'a'), 28);
    assert.match(await title(page, 'a'), /your config\.json, layer 0/);
    assert.equal(await hash(page), h);
    await page.click('#scheme-b .layer[data-layer="1"]');
    h = await hashChange(page, h);
    await quiet(page);
    assert.match(await title(page, 'b'), /your config\.json, layer 1/);
    assert.equal(
      await page.evaluate(() => document.getElementById('status').classList.contains('error')),
      false,
    );
    // A 5 MB config.json is refused by its size before it is read, in the API's words, and
    // neither the box nor the link gets it.
    h = await hash(page);
    await page.setInputFiles('#scheme-a .model-own input[type=file]', {
      name: 'huge.json',
      mimeType: 'application/json',
      buffer: Buffer.alloc(5e6, 32),
    });
    await page.waitForSelector('#model-config-a-error:not([hidden])');
    assert.equal(
      await page.locator('#model-config-a-error').textContent(),
      'The file huge.json is 5,000,000 bytes, over the limit of 1,048,576 bytes.',
    );
    assert.equal(await page.inputValue('#model-config-a'), '{"model_type": ');
    assert.equal(await hash(page), h);
    // Pasted text over the limit: characters and bytes kept apart.
    await page.fill('#model-config-a', 'x'.repeat(1048577));
    await page.click('#model-a button:has-text("Use this config")');
    assert.equal(
      await page.locator('#model-config-a-error').textContent(),
      'The config.json has 1,048,577 characters, over the limit of 1,048,576 bytes of UTF-8 (a character is one byte or more).',
    );
    assert.equal(await hash(page), h);
    await page.context().close();
  });

  it('draws <hirope-attention model=…> with its layer, and HiRoPE on it beside', async () => {
    const page = await openPage(site.browser, `${site.url}article.html`);
    await page.evaluate(() => {
      const e = document.createElement('hirope-attention');
      e.id = 'real';
      e.setAttribute('model', 'llama-3.2-1b');
      e.setAttribute('layer', '3');
      e.setAttribute('window', '8');
      e.setAttribute('code', 'def f(x):\n    return x + 1\n\n\ndef g(y):\n    return f(y) * 2\n');
      document.body.prepend(e);
    });
    await page.waitForFunction(
      () => ['true', 'error'].includes(document.getElementById('real').dataset.ready),
      null,
      { timeout: 60000 },
    );
    const foot = await page.locator('#real').locator('.foot').first().textContent();
    assert.equal(await page.getAttribute('#real', 'data-ready'), 'true', foot);
    const captions = await page
      .locator('#real')
      .locator('figcaption')
      .evaluateAll((fs) => fs.map((f) => f.textContent));
    assert.deepEqual(captions.slice(0, 2), [
      'A llama-3.2-1b, layer 3',
      'B llama-3.2-1b, layer 3, HiRoPE on its frequencies',
    ]);
    assert.equal(await page.getAttribute('#real', 'data-same'), 'false');
    const footOf = (id) => page.locator(`#${id}`).locator('.foot').first().textContent();
    const settled = (id, value) =>
      page.waitForFunction(
        ([id, value]) => document.getElementById(id).dataset.ready === value,
        [id, value],
        { timeout: 60000 },
      );
    // A layer the model does not have is refused, not drawn as its last one.
    await page.evaluate(() => {
      const e = document.getElementById('real');
      e.dataset.ready = '';
      e.setAttribute('layer', '70');
    });
    await settled('real', 'error');
    assert.equal(
      await footOf('real'),
      'The layer attribute must name a layer of the model: llama-3.2-1b has no layer 70 (its 16 layers are 0 to 15).',
    );
    // Llama 4's NoPE layer: A and B are the same because the layer is NoPE, and the foot lists
    // what the config says that the maps do not compute.
    await page.evaluate(() => {
      const e = document.getElementById('real');
      e.dataset.ready = '';
      e.setAttribute('model', 'llama-4-scout-17b-16e');
      e.setAttribute('layer', '3');
    });
    await settled('real', 'true');
    assert.equal(await page.getAttribute('#real', 'data-same'), 'true');
    const text = await footOf('real');
    assert.match(
      text,
      /A and B are the same here: layer 3 of llama-4-scout-17b-16e is a NoPE layer, with no frequencies for HiRoPE to change, so B is that layer as it is\. Set layer="0" \(a RoPE layer\) to see them differ\./,
    );
    assert.doesNotMatch(text, /inside which it is/);
    assert.match(text, /In the config, not computed here: vision_config: /);
    assert.equal(
      (await page.locator('#real').locator('figcaption').allTextContents())[1],
      'B llama-4-scout-17b-16e, layer 3, NoPE (no frequencies for HiRoPE)',
    );
    // A model the gallery does not have is named, before anything is fetched.
    await page.evaluate(() => document.getElementById('real').setAttribute('model', 'gpt-5'));
    await page.waitForFunction(() => document.getElementById('real').dataset.ready === 'error');
    assert.match(
      await page.locator('#real').locator('.foot').first().textContent(),
      /The model attribute must be one of the gallery's models/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it("turns GPT-oss's sinks off and sets their logit", async () => {
    const page = await openPage(site.browser, `${site.url}index.html`);
    await ready(page);
    let h = await hash(page);
    await page.click('.preset[data-preset="gpt-oss-sinks"]');
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    h = await hashChange(page, h);
    assert.equal(await page.locator('#model-sinks-b').isChecked(), true);
    assert.equal(await page.locator('#model-sink-b').inputValue(), '6');
    assert.equal(await page.locator('#model-sinks-a').isChecked(), false);
    assert.equal(await page.locator('#model-sink-a').isVisible(), false);
    // Every GPT-oss layer has sinks: the strip marks them all.
    assert.equal(await page.locator('#scheme-b .layer-strip .layer-sinks').count(), 24);
    await page.fill('#model-sink-b', '2.5');
    h = await hashChange(page, h);
    assert.equal((await decodeState(h)).b.sink, 2.5);
    // A logit outside -100 .. 100, or none, is marked in place and not used (the state keeps 2.5).
    for (const [typed, message] of [
      ['101', 'The sink logit must be at most 100.'],
      ['', 'Enter a number for the sink logit.'],
    ]) {
      await page.fill('#model-sink-b', typed);
      assert.equal(await page.getAttribute('#model-sink-b', 'aria-invalid'), 'true');
      assert.equal(await page.locator('#model-sink-b-error').textContent(), message);
      assert.equal(await hash(page), h);
    }
    await page.fill('#model-sink-b', '3');
    h = await hashChange(page, h);
    assert.equal((await decodeState(h)).b.sink, 3);
    assert.equal(await page.getAttribute('#model-sink-b', 'aria-invalid'), 'false');
    assert.equal(await page.locator('#model-sink-b-error').isVisible(), false);
    await page.uncheck('#model-sinks-b');
    h = await hashChange(page, h);
    assert.equal((await decodeState(h)).b.sinks, false);
    assert.equal(await page.locator('#model-sink-b').isVisible(), false);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('on a phone: layer buttons of 24 px and more, 4 px apart, a 12 px legend, whole numbers', async () => {
    const page = await openPage(site.browser, `${site.url}index.html`, {
      viewport: PHONE_VIEWPORT,
    });
    await ready(page);
    await page.click('.preset[data-preset="gpt-oss-sinks"]');
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    await quiet(page);
    const phone = await page.evaluate(() => {
      const buttons = [...document.querySelectorAll('#scheme-b .layer-strip .layer')].map((b) =>
        b.getBoundingClientRect(),
      );
      const gaps = buttons
        .slice(1)
        .map((r, i) => (r.top === buttons[i].top ? r.left - buttons[i].right : Infinity));
      const legend = document.querySelector('#scheme-b .layer-legend');
      // A number cell whose text runs over two lines ("98.9" above "%").
      const broken = [...document.querySelectorAll('.stats td')]
        .filter((td) => {
          const range = document.createRange();
          range.selectNodeContents(td);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
        })
        .map((td) => td.textContent);
      return {
        smallest: Math.min(...buttons.map((r) => Math.min(r.width, r.height))),
        gap: Math.min(...gaps),
        legend: Number.parseFloat(getComputedStyle(legend).fontSize),
        cells: document.querySelectorAll('.stats td').length,
        broken,
      };
    });
    assert.ok(phone.smallest >= 24, `a layer button ${phone.smallest} px`);
    assert.ok(phone.gap >= 4, `layer buttons ${phone.gap} px apart`);
    assert.ok(phone.legend >= 12, `legend ${phone.legend} px`);
    assert.ok(phone.cells > 0);
    assert.deepEqual(phone.broken, []);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('sets both sides and the caption from a model preset', async () => {
    const page = await openPage(site.browser, `${site.url}index.html`);
    await ready(page);
    const preset = MODEL_PRESETS.find((p) => p.id === 'llama-3.1');
    await page.click(`.preset[data-preset="${preset.id}"]`);
    await page.waitForSelector('#scheme-b .layer-strip .layer');
    await quiet(page);
    assert.equal(await page.locator('#caption').textContent(), preset.caption);
    assert.equal(
      await page.locator(`.preset[data-preset="${preset.id}"]`).getAttribute('aria-pressed'),
      'true',
    );
    assert.match(await title(page, 'b'), /llama-3\.1-8b, layer 0/);
    assert.match(await title(page, 'a'), /^RoPE/);
    // The tokens are 332 positions apart: distances are counted in positions.
    await page.waitForFunction(() =>
      document.body.textContent.includes('mean distance attended (positions)'),
    );
    // The decay chart draws each side to the model's length and names what it draws.
    await page.locator('#views').scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      /B: [\d,]+ log-spaced distances up to 131,071 positions/.test(
        document.querySelector('#decay figcaption')?.textContent ?? '',
      ),
    );
    assert.match(
      await page.textContent('#decay figcaption'),
      /A: [\d,]+ log-spaced distances up to 131,071 positions\. B: [\d,]+ log-spaced distances up to 131,071 positions\. Dashed: training length 8,192\.$/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
