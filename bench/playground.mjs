// Playground redraw time in headless Chromium: a ~2,000-token file with the default settings (one
// head of dimension 64, RoPE vs HiRoPE), timed from the input event to the painted heatmaps and
// views, for edits and for slider moves. The page measures each redraw itself (the same number it
// shows in its status line); this script collects them and reports medians.
//   node bench/playground.mjs [--repeats 15] [--tokens 2000]
import { startSite, openPage } from '../tests/browser/helpers.mjs';
import init from '../dist/index.js';
import fs from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const repeats = option('--repeats', 15);
const target = option('--tokens', 2000);

// Real code: Python standard library files until the token count is reached.
const hr = await init();
let code = '';
for (const file of ['bisect.py', 'heapq.py', 'textwrap.py', 'shlex.py', 'fnmatch.py']) {
  const text = fs.readFileSync(`/usr/lib/python3.11/${file}`, 'utf8');
  code += text;
  if (hr.analyze(code, { language: 'python' }).tokens.count >= target) break;
}
// Trim to about the target by lines.
const lines = code.split('\n');
while (hr.analyze(lines.join('\n'), { language: 'python' }).tokens.count > target * 1.02)
  lines.splice(-20);
code = lines.join('\n');
const tokens = hr.analyze(code, { language: 'python' }).tokens.count;

const site = await startSite();
const page = await openPage(site.browser, site.url);
await page.waitForSelector('body[data-ready=true]', { timeout: 60000 });
const measure = (action) =>
  page.evaluate(
    ({ action, payload }) =>
      new Promise((resolve, reject) => {
        // total: the page's own redraw time (from the computation's start; an edit first waits for
        // the typing to pause); wall: from this input event to the painted redraw.
        const t0 = performance.now();
        document.addEventListener(
          'hirope:redraw',
          (e) => resolve({ ...e.detail, wall: performance.now() - t0 }),
          { once: true },
        );
        setTimeout(
          () =>
            reject(
              new Error(`no redraw within 30 s: ${document.getElementById('status').textContent}`),
            ),
          30000,
        );
        const content = document.querySelector('#editor').shadowRoot.querySelector('.cm-content');
        if (action === 'paste') {
          content.focus();
          document.execCommand('selectAll');
          const data = new DataTransfer();
          data.setData('text/plain', payload);
          content.dispatchEvent(
            new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
          );
        } else if (action === 'edit' || action === 'undo') {
          // Type one character into an identifier in the middle of the visible code, or delete it.
          content.focus();
          const lines = content.querySelectorAll('.cm-line');
          const line = Array.from(lines)
            .slice(Math.floor(lines.length / 2))
            .find((l) => /[A-Za-z_]{3}/.test(l.textContent));
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          let node = walker.nextNode();
          while (node && !/[A-Za-z_]{3}/.test(node.data)) node = walker.nextNode();
          const at = node.data.search(/[A-Za-z_]{3}/) + 1;
          getSelection().setBaseAndExtent(node, at, node, at + (action === 'undo' ? 1 : 0));
          document.execCommand(action === 'undo' ? 'delete' : 'insertText', false, payload);
        } else {
          const input = document.getElementById('c-b-ratio');
          input.value = payload;
          input.dispatchEvent(new Event('input', { bubbles: true }));
        }
      }),
    {
      action: typeof action === 'number' ? 'slider' : action,
      payload: action === 'paste' ? code : action === 'edit' ? 'q' : String(action),
    },
  );
await measure('paste');
for (let i = 0; i < 4; i++) await measure(i % 2 ? 'undo' : 'edit'); // warm-up
const results = { edit: [], slider: [] };
for (let r = 0; r < repeats; r++) {
  results.edit.push(await measure(r % 2 ? 'undo' : 'edit'));
  results.slider.push(await measure(r % 2 ? 0.5 : 0.45));
}
await site.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => (x === undefined ? '-' : x.toFixed(1));
console.log(
  `Playground redraw, ${tokens} tokens of Python (lexical tokenizer), head dim 64, RoPE vs HiRoPE; medians of ${repeats} (ms)`,
);
console.log(
  '| change | input → painted | total | analysis | A | B | heatmaps | views | results received | paint | of which editor | heatmaps | views |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const [name, list] of Object.entries(results)) {
  const m = (k) => median(list.map((d) => d[k]).filter((v) => v !== undefined));
  console.log(
    `| ${name} | ${fmt(m('wall'))} | ${fmt(m('total'))} | ${fmt(m('analysis'))} | ${fmt(m('a'))} | ${fmt(m('b'))} | ${fmt(m('images'))} | ${fmt(m('views'))} | ${fmt(m('received'))} | ${fmt(m('paint'))} | ${fmt(m('paintEditor'))} | ${fmt(m('paintMaps'))} | ${fmt(m('paintViews'))} |`,
  );
}
