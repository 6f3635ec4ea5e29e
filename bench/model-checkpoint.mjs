// Model mode with your checkpoint (issue 52), in headless Chromium on the built site: a checkpoint
// with SmolLM2-135M's shape in BF16 (bench/smollm-checkpoint.mjs, 270 MB, with a byte-level
// tokenizer.json beside it) picked as files on model.html, as a drop or the file picker gives them
// to the page, over the same 512 tokens of real Python each time. Measured in the page
// (performance.now()): from the pick to what loading takes (the headers read), to the loaded
// model (both workers), to the first maps (every layer's and head's attention over 256 tokens
// from one forward per side, drawn before the loss) and to the loss shown (512 tokens under A and
// B); then a head change and a layer change to their maps, and typing while the workers run the
// model (keydown to the next frame). Medians over --repeats fresh pages. WASM SIMD, two workers
// (one per side) on this machine's cores.
//
// --webgpu: Chromium with WebGPU on and the page's ?gpu=any, so that the loss runs on whatever
// adapter there is (SwiftShader, a software one, on a machine without a GPU); the status names it.
//
//   node bench/model-checkpoint.mjs [--repeats 3] [--webgpu]
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../tools/chromium.mjs';
import { createServer } from '../web/serve.mjs';
import { encodeModelState, CHECKPOINT_DEFAULTS } from '../web/src/shared/model-state.js';
import { normalizeWith } from '../web/src/shared/link-state.js';
import { tinyTokenizerFile } from '../tests/fixtures/tiny-tokenizer.mjs';
import { benchCheckpoint } from './smollm-checkpoint.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const repeats = arg('repeats', 3);
const webgpu = process.argv.includes('--webgpu');
const { folder } = benchCheckpoint();
const tokenizer = path.join(folder, 'tokenizer.json');
if (!fs.existsSync(tokenizer))
  fs.writeFileSync(tokenizer, JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] })));
// 512 byte-tokens of real Python: the start of CPython's asyncio/runners.py (the token model's
// sample), which reads past the window of 128 that B's HiRoPE starts at.
const { LONG_PYTHON_SAMPLE } = await import('../web/src/shared/model-samples.js');
const code = LONG_PYTHON_SAMPLE.slice(0, 512);

// Typing at the end of the code while the workers run the model: each key starts a run (its
// every-head forward, then the loss), and a key more than 500 ms into a run replaces both workers,
// which load the checkpoint again, as typing does everywhere on the page. Measured in the page:
// each keydown's time to the next animation frame (what a person sees of the page's own thread).
// target: 'code' (the editor), or a selector of a field whose typing runs nothing (the checkpoint
// URL field: typing while the first forward runs).
async function typeWhileRunning(page, { target = 'code', keys = 40, interval = 70 } = {}) {
  await page.evaluate(() => {
    window.__keys = [];
    if (window.__probe) return;
    window.__probe = true;
    addEventListener('keydown', (e) => {
      const at = e.timeStamp;
      requestAnimationFrame(() => window.__keys.push(performance.now() - at));
    });
  });
  if (target === 'code') {
    await page.locator('#editor .cm-content').click();
    await page.keyboard.press('Control+End');
  } else await page.locator(target).click();
  for (let k = 0; k < keys; k++) {
    await page.keyboard.type(k % 8 === 7 ? ' ' : 'x');
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  const delays = await page.evaluate(() => window.__keys.slice().sort((a, b) => a - b));
  const at = (q) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))];
  return { keys: delays.length, p50: at(0.5), p95: at(0.95), max: delays.at(-1) };
}

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await launchChromium(webgpu ? { webgpu: true, gpu: true } : {});
const state = normalizeWith(CHECKPOINT_DEFAULTS, { ...CHECKPOINT_DEFAULTS, code });
const rows = [];
try {
  for (let r = 0; r < repeats; r++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}model.html${webgpu ? '?gpu=any' : ''}${await encodeModelState(state)}`);
    await page.waitForSelector('#checkpoint-source:not([hidden])');
    // The times, from the pick: the panel's figures, the loaded model, the first maps.
    await page.evaluate(() => {
      const status = document.getElementById('checkpoint-status');
      window.__times = {};
      window.__observer = new MutationObserver(() => {
        const t = performance.now();
        if (/in each of the page's two workers/.test(status.textContent)) window.__times.plan ??= t;
        if (/The weights stay on this machine/.test(status.textContent))
          window.__times.loaded ??= t;
      });
      window.__observer.observe(status, { childList: true, characterData: true, subtree: true });
      const next = (event) =>
        new Promise((resolve) =>
          document.addEventListener(event, () => resolve(performance.now()), { once: true }),
        );
      window.__maps = next('hirope:model-maps');
      window.__loss = next('hirope:model');
    });
    const picked = await page.evaluate(() => performance.now());
    await page.setInputFiles(
      '#checkpoint-files',
      ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => path.join(folder, f)),
    );
    // Typing in the URL field (which runs nothing) while the first forward runs: from the
    // loaded model (both workers start their forwards) for 40 keys.
    await page.waitForFunction(() => window.__times.loaded !== undefined, null, { polling: 50 });
    const field = await typeWhileRunning(page, { target: '#checkpoint-url' });
    const first = await page.evaluate(() => window.__maps);
    const loss = await page.evaluate(() => window.__loss);
    const times = await page.evaluate(() => window.__times);
    if (r === 0) console.log(`status: ${await page.locator('#status').textContent()}`);
    // A head change, then a layer change: their maps (no loss pass, no forward).
    const change = async (key, value) => {
      await page.evaluate(() => {
        window.__next = new Promise((resolve) =>
          document.addEventListener('hirope:model-run', (e) => resolve(e.detail.total), {
            once: true,
          }),
        );
      });
      const t0 = await page.evaluate(() => performance.now());
      await page.selectOption(`#c-${key}`, String(value));
      const total = await page.evaluate(() => window.__next);
      return { ms: (await page.evaluate(() => performance.now())) - t0, total };
    };
    const head = await change('head', 3);
    const layer = await change('layer', 12);
    const typing = await typeWhileRunning(page);
    rows.push({
      plan: times.plan - picked,
      loaded: times.loaded - picked,
      first: first - picked,
      loss: loss - picked,
      head: head.ms,
      layer: layer.ms,
      field: field.p95,
      typing: typing.p95,
    });
    const row = rows.at(-1);
    console.log(
      `run ${r + 1}: headers ${row.plan.toFixed(0)} ms, loaded ${row.loaded.toFixed(0)} ms, first maps ${row.first.toFixed(0)} ms, loss ${row.loss.toFixed(0)} ms, head change ${head.ms.toFixed(0)} ms, layer change ${layer.ms.toFixed(0)} ms; keydown to frame, typing in a field during the first forward: p50 ${field.p50.toFixed(1)}, p95 ${field.p95.toFixed(1)}, max ${field.max.toFixed(1)} ms over ${field.keys} keys; typing code (each key a run): p50 ${typing.p50.toFixed(1)}, p95 ${typing.p95.toFixed(1)}, max ${typing.max.toFixed(1)} ms over ${typing.keys} keys`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}
const median = (key) => {
  const v = rows.map((x) => x[key]).sort((a, b) => a - b);
  return v[v.length >> 1];
};
console.log(`\nmedian of ${repeats} (ms, from the pick):`);
console.log(
  '| headers read | loaded (both workers) | first maps | loss shown | head change | layer change | typing p95, a field, first forward | typing p95, the code (each key a run) |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${['plan', 'loaded', 'first', 'loss', 'head', 'layer'].map((k) => median(k).toFixed(0)).join(' | ')} | ${median('field').toFixed(1)} | ${median('typing').toFixed(1)} |`,
);
