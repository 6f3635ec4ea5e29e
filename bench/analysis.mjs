// Code-analysis benchmark, all in one Node process on the same text:
//  - tokenizing: hirope (WASM) vs gpt-tokenizer, tiktoken (its WASM build) and js-tiktoken on
//    cl100k, and vs llama-tokenizer-js on llama2;
//  - parse + hierarchy: hirope analyze() vs web-tree-sitter parsing the same file and walking it
//    with a cursor from JS, and vs hirope's own bare parse;
//  - module sizes, raw and gzip.
// Corpora: at least 1 MB of real code per language found on this machine (bench/corpus.mjs).
//
//   node bench/analysis.mjs [--mb 1.2] [--repeats 3] [--languages python,javascript]
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

const rows = [];
const NO_SPECIAL = { disallowedSpecial: new Set() };
for (const { language, files, note } of corpora(MB)) {
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
  row.gpt = median(each((f) => gpt.encode(f, NO_SPECIAL)), REPEATS, () => gpt.clearMergeCache());
  row.tiktoken = median(each((f) => tiktoken.encode_ordinary(f)));
  row.jsTiktoken = median(each((f) => jsTiktoken.encode(f, [], [])), 1);
  row.oursLlama = median(each((f) => hr.encode(f, { tokenizer: 'llama2' })));
  row.llamaJs = median(each((f) => llama.encode(f, false, true)), 1);
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
out.push(`hirope analysis benchmark — ${os.cpus()[0].model.trim()}, ${os.cpus().length} cores, Node ${process.version}; median of ${REPEATS} runs after a warm-up (js-tiktoken, llama-tokenizer-js: one run)`);
out.push('');
out.push('Tokenizing, million tokens per second (cl100k unless noted); gpt-tokenizer\'s merge cache is cleared before every run.');
out.push('');
out.push('| language | files | MB | hirope cl100k | gpt-tokenizer | tiktoken (wasm) | js-tiktoken | hirope / gpt-tokenizer | hirope llama2 | llama-tokenizer-js | hirope / llama-tokenizer-js |');
out.push('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (!r.files) {
    out.push(`| ${r.language} | – | – | ${r.note} |||||||| `);
    continue;
  }
  const t = r.cl100kTokens;
  out.push(`| ${r.language} | ${r.files} | ${f(r.mb, 2)} | ${f(mtok(t, r.ours), 2)} | ${f(mtok(t, r.gpt), 2)} | ${f(mtok(t, r.tiktoken), 2)} | ${f(mtok(t, r.jsTiktoken), 2)} | ${f(r.gpt / r.ours, 2)}x | ${f(mtok(r.llamaTokens, r.oursLlama), 2)} | ${f(mtok(r.llamaTokens, r.llamaJs), 3)} | ${f(r.llamaJs / r.oursLlama, 0)}x |`);
}
out.push('');
out.push('Parse + hierarchy, milliseconds for the whole corpus: hirope analyze() (parse, lexical tokens, units, statements, positions, UTF-16 offsets, results copied to JS) vs web-tree-sitter parse + JS cursor walk, and hirope\'s bare parse.');
out.push('');
out.push('| language | MB | hirope analyze | web-tree-sitter parse+walk | web-tree-sitter / hirope | hirope bare parse | analyze / bare parse |');
out.push('|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (!r.files) continue;
  out.push(`| ${r.language} | ${f(r.mb, 2)} | ${f(r.analyze)} | ${f(r.webTreeSitter)} | ${f(r.webTreeSitter / r.analyze, 2)}x | ${f(r.bareParse)} | ${f(r.analyze / r.bareParse, 2)}x |`);
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
  out.push(`| ${name} | ${f(data.length / 1024)} | ${f(zlib.gzipSync(data, { level: 9 }).length / 1024)} |`);
}
const entrySize = (files) => files.reduce((acc, f) => {
  const data = fs.readFileSync(path.join(root, 'dist', f));
  return [acc[0] + data.length, acc[1] + zlib.gzipSync(data, { level: 9 }).length];
}, [0, 0]);
for (const [name, files] of [
  ["entry 'hirope/core' (SIMD): core.js + api.js + glue + .wasm", ['core.js', 'api.js', 'hirope-core-simd.mjs', 'hirope-core-simd.wasm']],
  ["entry 'hirope' (SIMD): index.js + api.js + glue + .wasm", ['index.js', 'api.js', 'hirope-simd.mjs', 'hirope-simd.wasm']],
]) {
  const [raw, gzip] = entrySize(files);
  out.push(`| **${name}** | ${f(raw / 1024)} | ${f(gzip / 1024)} |`);
}
for (const name of fs.readdirSync(path.join(root, 'dist/data')).sort()) {
  const data = fs.readFileSync(path.join(root, 'dist/data', name));
  out.push(`| data/${name} (lazy) | ${f(data.length / 1024)} | ${f(zlib.gzipSync(data, { level: 9 }).length / 1024)} |`);
}
const notes = rows.filter((r) => r.note).map((r) => `- ${r.language}: ${r.note}`);
if (notes.length) out.push('', 'Corpora:', ...notes);
console.log(out.join('\n'));
