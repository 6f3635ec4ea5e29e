// What one language's grammar costs to load: each tree-sitter grammar is its own WebAssembly side
// module (dist/tree-sitter-<language>.wasm, linked into the module by wasm/grammars.js), so a
// page or a Node process pays for the languages it uses only. Per language:
//   - its file size and gzip size (level 9; what a server that compresses would send);
//   - Node: each measure in a fresh process (no compiled module kept from before), the time of
//     `await hr.loadLanguage(language)` on a fresh init (read + compile + link); its parts:
//     reading the file, WebAssembly.compile, and the link alone (loadLanguage with the compiled
//     module); and the first hr.analyze(snippet, { language }) on a fresh init, which loads the
//     grammar synchronously, against the first analyze on a fresh init with the grammar loaded
//     ahead and the next analyze of the same snippet (V8 compiles WebAssembly functions lazily,
//     on their first call, so "compile" is mostly validation and the first parse pays the rest);
//   - Chromium (headless, a small test page importing dist/index.js over web/serve.mjs): in a
//     fresh browser each repeat (no HTTP cache, no compiled modules kept), hr.loadLanguage
//     (fetch + compileStreaming + link, on the page's main thread, as the site's page compiles a
//     grammar once for its workers), and in another fresh browser its parts: fetch, compile, link.
// Medians over --repeats; a benchmark on a shared machine, so noisy.
//
//   node bench/grammars.mjs [--repeats 5] [--languages python,go] [--no-browser] [--no-node]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { has, value } from './options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

// A few lines in each language: what the first analyze() parses.
const SNIPPETS = {
  python: 'def mean(xs):\n    return sum(xs) / len(xs)\n',
  javascript:
    'export function mean(xs) {\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n}\n',
  typescript:
    'export function mean(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n}\n',
  tsx: 'export const Mean = ({ xs }: { xs: number[] }) => <b>{xs.length}</b>;\n',
  c: 'double mean(const double *xs, int n) {\n  double s = 0;\n  for (int i = 0; i < n; i++) s += xs[i];\n  return s / n;\n}\n',
  cpp: '#include <vector>\ndouble mean(const std::vector<double> &xs) {\n  double s = 0;\n  for (double x : xs) s += x;\n  return s / xs.size();\n}\n',
  java: 'class Stats {\n  static double mean(double[] xs) {\n    double s = 0;\n    for (double x : xs) s += x;\n    return s / xs.length;\n  }\n}\n',
  go: 'package stats\n\nfunc Mean(xs []float64) float64 {\n\ts := 0.0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s / float64(len(xs))\n}\n',
  rust: 'pub fn mean(xs: &[f64]) -> f64 {\n    xs.iter().sum::<f64>() / xs.len() as f64\n}\n',
};

// ----- The child: one language, in a process of its own.
if (has('--child')) {
  const language = value('--child');
  const { default: init } = await import(pathToFileURL(path.join(dist, 'index.js')).href);
  const file = path.join(dist, `tree-sitter-${language}.wasm`);
  const time = async (fn) => {
    const t0 = performance.now();
    const result = await fn();
    return [performance.now() - t0, result];
  };
  const out = {};
  // One measure per process: V8 keeps a compiled module for the same bytes within a process, so
  // a second compile of a grammar there would be a cache hit.
  const what = value('--what');
  if (what === 'load') {
    // loadLanguage on a fresh instance: read + compile + link.
    const hr = await init();
    [out.load] = await time(() => hr.loadLanguage(language));
  } else if (what === 'analyze') {
    // The first analyze() on a fresh instance loads the grammar synchronously (read + sync
    // compile + link), against the next analyze of the same snippet.
    const hr = await init();
    const code = SNIPPETS[language];
    [out.firstAnalyze] = await time(() => hr.analyze(code, { language }));
    [out.nextAnalyze] = await time(() => hr.analyze(code, { language }));
  } else if (what === 'analyzeLoaded') {
    // The same first analyze with the grammar loaded ahead: what the first parse costs anyway
    // (V8 compiles WebAssembly functions lazily, on their first call, the module's own too).
    const hr = await init();
    await hr.loadLanguage(language);
    [out.firstAnalyzeLoaded] = await time(() => hr.analyze(SNIPPETS[language], { language }));
  } else {
    // The parts: read, compile, link alone.
    const hr = await init();
    let bytes;
    [out.read, bytes] = await time(() => fs.readFileSync(file));
    let module;
    [out.compile, module] = await time(() => WebAssembly.compile(bytes));
    [out.link] = await time(() => hr.loadLanguage(language, { module }));
  }
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const REPEATS = Number(value('--repeats', 5));
const LANGUAGES = value('--languages', Object.keys(SNIPPETS).join(',')).split(',');
for (const l of LANGUAGES) if (!SNIPPETS[l]) throw new Error(`unknown language ${l}`);

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : x.toFixed(0)) : '—');
const mb = (n) => (n / 1e6).toFixed(2);

console.log(
  `# ${os.cpus()[0].model}, ${os.cpus().length} CPUs, Node ${process.version}; median of ${REPEATS}; dist ${path.relative(process.cwd(), dist) || '.'}`,
);

// ----- Sizes.
const sizes = {};
for (const l of LANGUAGES) {
  const bytes = fs.readFileSync(path.join(dist, `tree-sitter-${l}.wasm`));
  sizes[l] = { bytes: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}

// ----- Node.
const node = {};
if (!has('--no-node')) {
  for (const l of LANGUAGES) node[l] = [];
  for (let r = 0; r < REPEATS; r++)
    for (const l of LANGUAGES) {
      const run = (what) =>
        JSON.parse(
          execFileSync(
            process.execPath,
            [fileURLToPath(import.meta.url), '--child', l, '--what', what],
            { encoding: 'utf8' },
          ),
        );
      node[l].push({
        ...run('load'),
        ...run('analyze'),
        ...run('analyzeLoaded'),
        ...run('parts'),
      });
    }
}

// ----- Chromium.
const browserTimes = {};
if (!has('--no-browser')) {
  const { launchChromium } = await import('../tools/chromium.mjs');
  const { createServer } = await import('../web/serve.mjs');
  // A test page beside a link to dist/ (web/serve.mjs follows links; its CSP allows same-origin
  // module scripts and WebAssembly).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-grammars-'));
  fs.symlinkSync(dist, path.join(dir, 'dist'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>grammars</title><script type="module" src="bench.js"></script>\n',
  );
  fs.writeFileSync(
    path.join(dir, 'bench.js'),
    `import init from './dist/index.js';
const time = async (fn) => { const t0 = performance.now(); const r = await fn(); return [performance.now() - t0, r]; };
window.loadAll = async (languages) => {
  const hr = await init();
  const out = {};
  for (const l of languages) [out[l]] = await time(() => hr.loadLanguage(l));
  return out;
};
window.parts = async (languages) => {
  const hr = await init();
  const out = {};
  for (const l of languages) {
    const url = new URL('./dist/tree-sitter-' + l + '.wasm', location.href);
    const [fetchMs, bytes] = await time(async () => (await fetch(url)).arrayBuffer());
    const [compileMs, module] = await time(() => WebAssembly.compile(bytes));
    const [linkMs] = await time(() => hr.loadLanguage(l, { module }));
    out[l] = { fetch: fetchMs, compile: compileMs, link: linkMs };
  }
  return out;
};
window.ready = true;
`,
  );
  const server = createServer({ base: dir });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const fresh = async (fn) => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForFunction(() => window.ready === true);
      return await fn(page);
    } finally {
      await browser.close();
    }
  };
  for (const l of LANGUAGES) browserTimes[l] = { load: [], fetch: [], compile: [], link: [] };
  try {
    for (let r = 0; r < REPEATS; r++) {
      // Alternate the order of the languages, so no language always comes first.
      const order = r % 2 ? [...LANGUAGES].reverse() : LANGUAGES;
      const loads = await fresh((page) => page.evaluate((ls) => window.loadAll(ls), order));
      for (const l of LANGUAGES) browserTimes[l].load.push(loads[l]);
      const parts = await fresh((page) => page.evaluate((ls) => window.parts(ls), order));
      for (const l of LANGUAGES)
        for (const k of ['fetch', 'compile', 'link']) browserTimes[l][k].push(parts[l][k]);
    }
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

console.log('\n## Grammar files\n');
console.log('| language | .wasm MB | gzip MB |');
console.log('|---|---:|---:|');
for (const l of LANGUAGES) console.log(`| ${l} | ${mb(sizes[l].bytes)} | ${mb(sizes[l].gzip)} |`);
const total = (k) => LANGUAGES.reduce((s, l) => s + sizes[l][k], 0);
console.log(`| all ${LANGUAGES.length} | ${mb(total('bytes'))} | ${mb(total('gzip'))} |`);

if (!has('--no-node')) {
  console.log('\n## Node: load time per language, ms (median; a fresh process each time)\n');
  console.log(
    '| language | loadLanguage (read + compile + link) | read | compile | link | first analyze (loads it) | first analyze, loaded ahead | next analyze |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const l of LANGUAGES) {
    const m = (k) => ms(median(node[l].map((o) => o[k])));
    console.log(
      `| ${l} | ${m('load')} | ${m('read')} | ${m('compile')} | ${m('link')} | ${m('firstAnalyze')} | ${m('firstAnalyzeLoaded')} | ${m('nextAnalyze')} |`,
    );
  }
}
if (!has('--no-browser')) {
  console.log(
    '\n## Chromium: load time per language on the page, ms (median; a fresh browser each time)\n',
  );
  console.log('| language | loadLanguage (fetch + compile + link) | fetch | compile | link |');
  console.log('|---|---:|---:|---:|---:|');
  for (const l of LANGUAGES) {
    const m = (k) => ms(median(browserTimes[l][k]));
    console.log(`| ${l} | ${m('load')} | ${m('fetch')} | ${m('compile')} | ${m('link')} |`);
  }
}
