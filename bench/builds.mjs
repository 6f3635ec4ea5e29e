// Two builds of the package, side by side: the same attention, tokenizer, analysis and model
// workloads run on dist/ and on a baseline dist/ (say, the previous commit's), interleaved in one
// process so that both see the same machine load. For a change that should not move speed (a
// refactor, a new binding), the ratio column says whether it did.
//
//   node bench/builds.mjs --baseline /path/to/old/dist [--repeats 9] [--mb 0.3]
//                         [--per-language] [--only analysis]
//
// --per-language adds the analysis of each language's corpus (lexical tokens, so the parse and
// the hierarchy are what is timed); --only PREFIX keeps the workloads whose name starts with it.
//
// A baseline: `git worktree add /tmp/base <commit> && (cd /tmp/base && npm run build)`, then
// `--baseline /tmp/base/dist`.
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpora } from './corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const baseline = opt('baseline', null);
if (!baseline) {
  console.error(
    'usage: node bench/builds.mjs --baseline DIST_DIR [--repeats 9] [--mb 0.3] [--per-language] [--only PREFIX]',
  );
  process.exit(2);
}
const REPEATS = Number(opt('repeats', 9));
const MB = Number(opt('mb', 0.3));
const PER_LANGUAGE = args.includes('--per-language');
const ONLY = opt('only', '');

async function load(dist) {
  const { default: init } = await import(
    pathToFileURL(path.join(path.resolve(dist), 'index.js')).href
  );
  const hr = await init({ simd: true, tokenizers: ['cl100k', 'llama3'] });
  const model = await hr.model.load({ name: 'pybyte' });
  return { hr, model };
}

const builds = [
  ['baseline', await load(baseline)],
  ['this', await load(path.join(root, 'dist'))],
];

const texts = Object.fromEntries(corpora(MB).map((c) => [c.language, c.files]));
const sample = (lang) => texts[lang].join('\n');
const python = sample('python');
const cpp = sample('cpp');
const modelText = python.slice(0, 1024);
const n = 2048;
const d = 64;
const q = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.37));
const k = Float32Array.from({ length: n * d }, (_, i) => Math.cos(i * 0.11));
const out = new Float32Array(n * n);

const WORKLOADS = [
  [
    'attention: HiRoPE probs, n 2048, d 64',
    ({ hr }) =>
      hr.attention({ q, k, n, headDim: d, scheme: { type: 'hirope', segmentSize: 64 }, out }),
  ],
  [
    'attention: RoPE logits, no mask, n 2048, d 64',
    ({ hr }) => hr.attention({ q, k, n, headDim: d, causal: false, output: 'logits', out }),
  ],
  [`tokenizer: cl100k, ${MB} MB Python`, ({ hr }) => hr.encode(python, { tokenizer: 'cl100k' })],
  [`tokenizer: llama3, ${MB} MB C++`, ({ hr }) => hr.encode(cpp, { tokenizer: 'llama3' })],
  [
    `analysis: Python, ${MB} MB, llama3 tokens`,
    ({ hr }) =>
      texts.python.forEach((code) => {
        hr.analyze(code, { language: 'python', tokenizer: 'llama3' });
      }),
  ],
  [
    `analysis: C++, ${MB} MB, lexical tokens`,
    ({ hr }) =>
      texts.cpp.forEach((code) => {
        hr.analyze(code, { language: 'cpp' });
      }),
  ],
  ['model: byte model loss, 1,024 bytes', ({ model }) => model.loss(modelText)],
];
if (PER_LANGUAGE)
  for (const [language, files] of Object.entries(texts)) {
    if (!files.length) continue;
    const mb = files.reduce((s, t) => s + Buffer.byteLength(t), 0) / 1e6;
    WORKLOADS.push([
      `analysis: ${language}, ${mb.toFixed(2)} MB, lexical tokens`,
      ({ hr }) =>
        files.forEach((code) => {
          hr.analyze(code, { language });
        }),
    ]);
  }
const selected = WORKLOADS.filter(([name]) => name.startsWith(ONLY));

const time = (fn) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(
  `# ${os.cpus()[0].model}, ${os.cpus().length} CPUs, Node ${process.version}; ` +
    `baseline ${path.resolve(baseline)}; median of ${REPEATS}, interleaved, after a warm-up`,
);
console.log('| workload | baseline, ms | this, ms | this / baseline |');
console.log('|---|---:|---:|---:|');
for (const [name, fn] of selected) {
  const times = new Map(builds.map(([label]) => [label, []]));
  for (const [, b] of builds) for (let i = 0; i < 2; i++) fn(b); // warm-up: V8 tiers the WASM up
  for (let r = 0; r < REPEATS; r++) {
    // Alternate the order so that neither build always runs right after the other's garbage.
    const order = r % 2 ? [...builds].reverse() : builds;
    for (const [label, b] of order) times.get(label).push(time(() => fn(b)));
  }
  const [a, b] = builds.map(([label]) => median(times.get(label)));
  console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(3)} |`);
}
