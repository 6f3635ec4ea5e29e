// What a visitor's first view costs: for each page of the built site (article.html, index.html,
// model.html), opened fresh (a new browser context: empty cache, no service worker) at 1440x900
// in headless Chromium, the bytes and files transferred and the time to the first drawn maps,
// on the idle machine and beside K CPU-bound processes. With --before DIR a second site (say, a
// build of the commit before) runs interleaved with the first, and a before/after table follows.
//
//   node bench/page-load.mjs [--site build/site] [--before DIR] [--repeats 3] [--busy 0,2]
//                            [--pages article.html,index.html,model.html] [--settle 1500]
//                            [--timeout 600] [--files] [--json FILE]
//
// Counting, on the server's side (a counter wrapped around web/serve.mjs's responses): every
// response to the page and to its workers, with the body bytes the server wrote (web/serve.mjs
// sends no compression, so a 200's body is the file). "files" are the responses with a body;
// "requests" adds the 304s (the workers import the page's unhashed chunks again and the browser
// revalidates them: no body) and HEADs (Model mode's size labels: no body). A file whose body is
// sent twice counts twice, and is named in the table. Requests the browser saw (Playwright: page
// and workers) that never reached the server are cache hits; in a fresh context there are none.
// Counting runs from navigation until the first maps are drawn and the network has then been
// quiet for --settle ms: what the first view costs, not what a visitor's later clicks fetch.
// model.html picks the token model by default and fetches its weights, vocabulary and evaluation
// files (data/, 10.4 MB, the same before and after): shown apart in the table.
//
// First maps: article.html, the first <hirope-attention> whose data-ready turns 'true' (set
// after its three canvases are drawn; web/src/element/hirope-attention.js), and all embeds in or
// near the first screen (they load when visible); index.html and model.html, body[data-ready]
// (set after the first result is painted; web/src/page/playground/playground-page.js, model.js). Times are
// performance.now() in the page, so from the start of navigation. Each time is checked against
// the canvases: a map counts only if its canvas has a non-blank pixel.
// It is a benchmark, not a test: timings on a shared 2-core machine are noisy; medians are shown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyNeighbours } from './busy.mjs';
import { launchChromium } from '../tools/chromium.mjs';
import { createServer } from '../web/serve.mjs';
import { countResponses } from '../tests/browser/helpers.mjs';
import { has, number, value } from './options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const options = {
  site: path.resolve(value('--site', path.join(root, 'build/site'))),
  before: has('--before') ? path.resolve(value('--before')) : null,
  repeats: number('--repeats', 3),
  busy: String(value('--busy', '0,2'))
    .split(',')
    .map((s) => Number(s.trim())),
  pages: String(value('--pages', 'article.html,index.html,model.html')).split(','),
  settle: number('--settle', 1500),
  timeout: number('--timeout', 600),
  files: has('--files'),
  json: value('--json', null),
};
if (options.busy.some((k) => !Number.isInteger(k) || k < 0))
  throw new Error(`--busy: a list of counts like 0,2, not ${value('--busy')}`);
if (options.repeats < 1) throw new Error('--repeats must be at least 1');
for (const dir of [options.site, options.before].filter(Boolean))
  if (!fs.existsSync(path.join(dir, 'index.html')))
    throw new Error(`${dir}: no index.html (build the site first)`);

// ----- CPU-bound neighbours (bench/busy.mjs).
const neighbours = busyNeighbours(options.timeout);
const servers = [];
let browser = null;
async function cleanUp() {
  neighbours.stop();
  const b = browser;
  browser = null;
  for (const s of servers.splice(0)) s.close();
  if (b) await Promise.race([b.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
}
process.on('exit', () => neighbours.stop());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    await cleanUp();
    process.exit(128 + (os.constants.signals[signal] ?? 1));
  });
}
let failing = false;
const fail = async (e) => {
  if (failing) return new Promise(() => {});
  failing = true;
  console.error(`page-load benchmark failed: ${e?.stack ?? e}`);
  await cleanUp();
  process.exit(1);
};
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
setTimeout(
  () => fail(new Error(`did not finish within --timeout ${options.timeout} s`)),
  options.timeout * 1000,
).unref();

// ----- Other processes' CPU use (Linux /proc), since "idle" on a shared machine may not be.
function cpuTicks() {
  try {
    const [, ...f] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = f.map(Number);
    return { busy: n[0] + n[1] + n[2] + n[5] + n[6] + n[7], at: performance.now() };
  } catch {
    return null;
  }
}
// /proc/stat counts in USER_HZ (100 a second on Linux).
const coresUsed = (a, b) => (a && b ? (b.busy - a.busy) / 100 / ((b.at - a.at) / 1000) : NaN);

// ----- One page, fresh.
// Records, in the page, when each element's data-ready changes (host elements and body are in
// the light DOM, so one observer sees them all), and whether a map's canvas has any ink.
function initScript() {
  window.__marks = [];
  const seen = new Set();
  const record = (node) => {
    const key = node === document.body ? 'body' : node.id || node.localName;
    const state = node.dataset.ready;
    if (!state || seen.has(`${key}=${state}`)) return;
    seen.add(`${key}=${state}`);
    window.__marks.push({ key, state, t: performance.now(), tag: node.localName });
  };
  new MutationObserver((list) => {
    for (const m of list) if (m.target.dataset) record(m.target);
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
}

/** Canvases with ink: the <hirope-attention> maps (in shadow roots) or the page's heatmaps. */
function inkedCanvases() {
  const inked = (c) => {
    if (c.hidden || c.width < 2 || c.height < 2) return false;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] !== 0) return true;
    return false;
  };
  const embeds = [...document.querySelectorAll('hirope-attention')].map((e) => ({
    id: e.id,
    ready: e.dataset.ready ?? null,
    inked: [...e.shadowRoot.querySelectorAll('canvas')].filter(inked).length,
  }));
  const page = [...document.querySelectorAll('canvas')].filter(inked).length;
  return { embeds, page };
}

async function measure(label, url, pageName) {
  served[label].length = 0;
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(initScript);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  const requests = new Map(); // Request -> record
  let lastActivity = performance.now();
  const onRequest = (request) => {
    lastActivity = performance.now();
    requests.set(request, { url: request.url(), method: request.method(), done: false });
  };
  const onDone = (failed) => (request) => {
    lastActivity = performance.now();
    const r = requests.get(request);
    if (!r) return;
    r.failed = failed;
    r.done = true;
  };
  context.on('request', onRequest);
  context.on('requestfinished', onDone(false));
  context.on('requestfailed', onDone(true));
  const cpu0 = cpuTicks();
  const t0 = performance.now();
  await page.goto(url + pageName);
  // The first maps: see the header.
  const readySelector = pageName === 'article.html' ? 'hirope-attention' : 'body';
  await page.waitForFunction(
    (sel) =>
      [...document.querySelectorAll(sel)].some((e) => e.dataset.ready) ||
      document.querySelector('#status.error'),
    readySelector,
    { timeout: 120000, polling: 50 },
  );
  // Article: every embed that started (they start when within 200 px of the viewport).
  if (pageName === 'article.html')
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('hirope-attention')].every(
          (e) => e.dataset.ready || e.shadowRoot.querySelector('.placeholder')?.isConnected,
        ) &&
        ![...document.querySelectorAll('hirope-attention')].some(
          (e) => e._visible && !e.dataset.ready,
        ),
      null,
      { timeout: 120000, polling: 50 },
    );
  // Then the network settles: nothing in flight for --settle ms (at most 30 s more).
  const settleEnd = performance.now() + 30000;
  for (;;) {
    const inFlight = [...requests.values()].some((r) => !r.done);
    if (!inFlight && performance.now() - lastActivity >= options.settle) break;
    if (performance.now() > settleEnd) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = performance.now() - t0;
  const cpu1 = cpuTicks();
  const marks = await page.evaluate(() => window.__marks);
  const ink = await page.evaluate(inkedCanvases);
  const records = [...requests.values()].filter((r) => r.done);
  await context.close();
  // What the server sent (countResponses, tests/browser/helpers.mjs): the files transferred.
  const files = served[label].slice();
  const counts = new Map(); // URL -> how many times its body was sent
  for (const f of files) if (f.bytes > 0) counts.set(f.url, (counts.get(f.url) ?? 0) + 1);
  const readyMarks = marks.filter((m) => m.state === 'true' && m.tag === readySelector);
  const first = readyMarks.length ? Math.min(...readyMarks.map((m) => m.t)) : NaN;
  const all = readyMarks.length ? Math.max(...readyMarks.map((m) => m.t)) : NaN;
  const inkOk =
    pageName === 'article.html'
      ? ink.embeds.filter((e) => e.ready === 'true').every((e) => e.inked === 3)
      : ink.page > 0;
  if (!inkOk) problems.push(`maps marked ready but blank canvases: ${JSON.stringify(ink)}`);
  for (const m of marks.filter((m) => m.state === 'error'))
    problems.push(`${m.key}: data-ready=error`);
  const sum = (list) => list.reduce((s, f) => s + f.bytes, 0);
  // Model mode's data (weights, vocabulary, the evaluation's files), apart from the page's own.
  const isData = (u) => u.startsWith('data/');
  return {
    page: pageName,
    firstMaps: first,
    allMaps: all,
    embedsReady: readyMarks.length,
    bytes: sum(files),
    dataBytes: sum(files.filter((f) => isData(f.url))),
    wasmBytes: sum(files.filter((f) => f.url.endsWith('.wasm'))),
    grammarBytes: sum(files.filter((f) => f.url.includes('tree-sitter-'))),
    // Files: responses with a body (200); requests: every response, 304 revalidations (the
    // workers import the page's unhashed chunks again) and HEADs (Model mode's size labels) too.
    fetches: files.filter((f) => f.bytes > 0).length,
    requests: files.length,
    dataFetches: files.filter((f) => isData(f.url) && f.bytes > 0).length,
    // Requests the browser made (page and workers) that never reached the server: cache hits.
    browserRequests: records.length,
    cacheHits: Math.max(0, records.length - files.length),
    distinct: counts.size,
    repeated: [...counts.entries()].filter(([, n]) => n > 1).map(([u, n]) => `${u} ×${n}`),
    grammars: [...counts.keys()]
      .map((u) => /tree-sitter-([a-z]+)/.exec(u)?.[1])
      .filter(Boolean)
      .sort(),
    files: files.map(({ url: u, bytes, status, method }) => ({ url: u, bytes, status, method })),
    problems,
    otherCores: coresUsed(cpu0, cpu1),
    wall,
  };
}

// ----- The runs: for each busy count, each repeat, each page, each site (alternating the order).
const sites = [['after', options.site]];
if (options.before) sites.unshift(['before', options.before]);
const urls = {};
const served = {}; // label -> the responses its server sent during the current run
for (const [label, base] of sites) {
  const server = createServer({ base });
  served[label] = [];
  countResponses(server, served[label]);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  urls[label] = `http://127.0.0.1:${server.address().port}/`;
}
browser = await launchChromium();
const browserVersion = browser.version();
const results = [];
for (const busy of options.busy) {
  const pids = neighbours.start(busy);
  if (busy) await new Promise((r) => setTimeout(r, 500));
  for (let rep = 0; rep < options.repeats; rep++)
    for (const pageName of options.pages) {
      const order = rep % 2 ? [...sites].reverse() : sites;
      for (const [label] of order) {
        const r = await measure(label, urls[label], pageName);
        results.push({ ...r, label, busy, repeat: rep });
        process.stderr.write(
          `busy ${busy} #${rep + 1} ${label} ${pageName}: ${(r.bytes / 1e6).toFixed(2)} MB, ${r.fetches} files, first maps ${r.firstMaps.toFixed(0)} ms${r.problems.length ? `; PROBLEMS: ${r.problems.join('; ')}` : ''}\n`,
        );
      }
    }
  neighbours.stop(pids);
}
await cleanUp();

// ----- Tables.
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mb = (n) => (n / 1e6).toFixed(2);
const ms = (n) => (Number.isFinite(n) ? n.toFixed(0) : '—');
const pick = (label, pageName, busy = null) =>
  results.filter(
    (r) => r.label === label && r.page === pageName && (busy === null || r.busy === busy),
  );
console.log(
  `# ${os.cpus()[0].model}, ${os.cpus().length} CPUs, Node ${process.version}, headless Chromium ${browserVersion}, 1440x900; ` +
    `${options.repeats} repeat(s) per page and condition, each in a fresh context; medians. Sites: ${sites.map(([l, b]) => `${l} ${path.relative(process.cwd(), b) || '.'}`).join(', ')}`,
);
console.log(
  '\n## Transferred (response bodies as the server sent them, every fetch counted; median over all runs)\n',
);
console.log(
  '| site | page | MB | files | requests | of which data/ (MB, files) | .wasm MB | .wasm share | cache hits | grammars fetched | bodies sent twice |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|');
for (const pageName of options.pages)
  for (const [label] of sites) {
    const rs = pick(label, pageName);
    const bytes = median(rs.map((r) => r.bytes));
    const wasm = median(rs.map((r) => r.wasmBytes));
    const grammars = [...new Set(rs.map((r) => r.grammars.join(', ') || '(in the .wasm)'))];
    const repeated = [...new Set(rs.flatMap((r) => r.repeated))];
    const data = median(rs.map((r) => r.dataBytes));
    console.log(
      `| ${label} | ${pageName} | ${mb(bytes)} | ${median(rs.map((r) => r.fetches))} | ${median(rs.map((r) => r.requests))} | ${data ? `${mb(data)}, ${median(rs.map((r) => r.dataFetches))}` : '—'} | ${mb(wasm)} | ${((100 * wasm) / bytes).toFixed(0)} % | ${median(rs.map((r) => r.cacheHits))} | ${grammars.join(' / ')} | ${repeated.join(', ') || 'none'} |`,
    );
  }
console.log(
  '\n## Time to first maps, ms from navigation (median; first map / all first-screen maps)\n',
);
const header = options.busy.map((b) => (b ? `beside ${b} busy` : 'idle'));
console.log(`| site | page | ${header.join(' | ')} |`);
console.log(`|---|---|${header.map(() => '---:').join('|')}|`);
for (const pageName of options.pages)
  for (const [label] of sites) {
    const cells = options.busy.map((busy) => {
      const rs = pick(label, pageName, busy);
      const first = median(rs.map((r) => r.firstMaps));
      const all = median(rs.map((r) => r.allMaps));
      return pageName === 'article.html' ? `${ms(first)} / ${ms(all)}` : ms(first);
    });
    console.log(`| ${label} | ${pageName} | ${cells.join(' | ')} |`);
  }
if (options.before) {
  console.log('\n## After / before (medians)\n');
  console.log(`| page | bytes | files | ${header.map((h) => `first maps, ${h}`).join(' | ')} |`);
  console.log(`|---|---:|---:|${header.map(() => '---:').join('|')}|`);
  for (const pageName of options.pages) {
    const ratio = (f, busy = null) =>
      median(pick('after', pageName, busy).map(f)) / median(pick('before', pageName, busy).map(f));
    const timeCells = options.busy.map((busy) => ratio((r) => r.firstMaps, busy).toFixed(2));
    console.log(
      `| ${pageName} | ${ratio((r) => r.bytes).toFixed(3)} | ${ratio((r) => r.fetches).toFixed(2)} | ${timeCells.join(' | ')} |`,
    );
  }
}
const idleCores = median(results.filter((r) => r.busy === 0).map((r) => r.otherCores));
console.log(
  `\nWhole-machine CPU use during the idle runs (median, cores): ${Number.isFinite(idleCores) ? idleCores.toFixed(2) : '—'} (Chromium's own work included; above ~1.2 means something else was running).`,
);
const problems = results.flatMap((r) =>
  r.problems.map((p) => `${r.label} ${r.page} busy ${r.busy} #${r.repeat + 1}: ${p}`),
);
if (problems.length) console.log(`\nProblems seen:\n${problems.map((p) => `- ${p}`).join('\n')}`);
if (options.files)
  for (const pageName of options.pages)
    for (const [label] of sites) {
      const r = pick(label, pageName)[0];
      console.log(`\n### ${label} ${pageName}: files of the first run\n`);
      console.log('| file | method | status | bytes |');
      console.log('|---|---|---:|---:|');
      for (const f of [...r.files].sort((a, b) => b.bytes - a.bytes))
        console.log(`| ${f.url} | ${f.method} | ${f.status} | ${f.bytes} |`);
    }
if (options.json) fs.writeFileSync(options.json, JSON.stringify({ options, results }, null, 1));
