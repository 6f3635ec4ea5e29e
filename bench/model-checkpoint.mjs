// Model mode with your checkpoint (issue 52), in headless Chromium on the built site: a checkpoint
// with SmolLM2-135M's shape in BF16 (bench/smollm-checkpoint.mjs, 270 MB, with a byte-level
// tokenizer.json beside it) picked as files on model.html, as a drop or the file picker gives them
// to the page, over the same 512 tokens of real Python each time. Measured in the page
// (performance.now()): from the pick to what loading takes (the headers read), to the loaded
// model (both workers), and to the first maps (the loss of 512 tokens under A and B, and every
// layer's and head's attention over 256 tokens from one forward per side); then a head change and
// a layer change to their maps. Medians over --repeats fresh pages. WASM SIMD, two workers (one
// per side) on this machine's cores.
//
//   node bench/model-checkpoint.mjs [--repeats 3]
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
const { folder } = benchCheckpoint();
const tokenizer = path.join(folder, 'tokenizer.json');
if (!fs.existsSync(tokenizer))
  fs.writeFileSync(tokenizer, JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] })));
// 512 byte-tokens of real Python: the start of CPython's asyncio/runners.py (the token model's
// sample), which reads past the window of 128 that B's HiRoPE starts at.
const { LONG_PYTHON_SAMPLE } = await import('../web/src/shared/model-samples.js');
const code = LONG_PYTHON_SAMPLE.slice(0, 512);

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await launchChromium();
const state = normalizeWith(CHECKPOINT_DEFAULTS, { ...CHECKPOINT_DEFAULTS, code });
const rows = [];
try {
  for (let r = 0; r < repeats; r++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}model.html${await encodeModelState(state)}`);
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
      window.__first = new Promise((resolve) =>
        document.addEventListener('hirope:model', () => resolve(performance.now()), { once: true }),
      );
    });
    const picked = await page.evaluate(() => performance.now());
    await page.setInputFiles(
      '#checkpoint-files',
      ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => path.join(folder, f)),
    );
    const first = await page.evaluate(() => window.__first);
    const times = await page.evaluate(() => window.__times);
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
    rows.push({
      plan: times.plan - picked,
      loaded: times.loaded - picked,
      first: first - picked,
      head: head.ms,
      layer: layer.ms,
    });
    console.log(
      `run ${r + 1}: headers ${rows.at(-1).plan.toFixed(0)} ms, loaded ${rows.at(-1).loaded.toFixed(0)} ms, first maps ${rows.at(-1).first.toFixed(0)} ms, head change ${head.ms.toFixed(0)} ms, layer change ${layer.ms.toFixed(0)} ms`,
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
console.log('| headers read | loaded (both workers) | first maps | head change | layer change |');
console.log('|---:|---:|---:|---:|---:|');
console.log(
  `| ${median('plan').toFixed(0)} | ${median('loaded').toFixed(0)} | ${median('first').toFixed(0)} | ${median('head').toFixed(0)} | ${median('layer').toFixed(0)} |`,
);
