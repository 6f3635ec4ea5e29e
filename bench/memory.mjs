// Heap per input byte: the peak the WebAssembly heap reaches (hr.memory().peakBytes, dlmalloc's
// high-water mark, less the reserve that the budget checks probe for) for parse, analysis,
// tokenizing and the code model, each measured in a fresh instance of the same compiled module so
// that no earlier call's peak hides it. These numbers are
// what the size limits are derived from (AnalysisLimits in include/hirope/analysis.h, the model's
// step estimate in src/model/model.cpp); docs/architecture.md "Memory" lists the latest run.
//
//   node bench/memory.mjs [--mb 1] [--pathological-kb 256] [--only real,pathological,encode,model]
//                         [--json out.json]
//
// Real code: the analysis benchmark's corpora (bench/corpus.mjs), concatenated per language.
// Pathological input: shapes that maximise syntax-tree nodes per byte (deep nesting, one-byte
// tokens), 1 MB each, parsed with no time limit.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';
import { corpora } from './corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const MB = Number(option('--mb', '1'));
const PATHOLOGICAL_BYTES = Number(option('--pathological-kb', '256')) * 1000;
const only = option('--only', 'real,pathological,encode,model').split(',');
const jsonOut = option('--json', null);

const wasmModule = await WebAssembly.compile(
  fs.readFileSync(path.join(root, 'dist/hirope-simd.wasm')),
);
const fresh = () => init({ wasmModule, simd: true });

/** Peak heap bytes per input byte of fn(hr), in a fresh instance after prepare(hr). */
async function perByte(bytes, fn, prepare = async () => {}) {
  const hr = await fresh();
  await prepare(hr);
  const before = hr.memory().peakBytes;
  const t0 = performance.now();
  let error = null;
  try {
    fn(hr);
  } catch (e) {
    error = e.message;
  }
  const ms = performance.now() - t0;
  // The budget checks probe malloc for what a step needs plus the reserve, and the peak counts
  // those probes: less the reserve, it bounds the call's need from above.
  const peak = Math.max(0, hr.memory().peakBytes - before - hr.memory().reserveBytes);
  return { perByte: peak / bytes, peakMiB: peak / 2 ** 20, ms, error };
}

const fmt = (x) => (x === undefined ? '' : x.toFixed(1));
const results = {
  machine: `${process.platform} ${process.arch}, Node ${process.versions.node}`,
  real: [],
  pathological: [],
  encode: [],
  model: [],
};

const sections = {
  async real() {
    console.log(`## Real code (${MB} MB per language, bench/corpus.mjs)\n`);
    console.log('| language | MB | parse B/B | analyze lexical B/B | analyze cl100k B/B |');
    console.log('|---|---|---|---|---|');
    for (const { language, files } of corpora(MB)) {
      const code = files.join('\n');
      const bytes = Buffer.byteLength(code);
      if (bytes < 1e5) continue;
      const opts = { language, timeoutMs: 0 };
      const parse = await perByte(bytes, (hr) => hr.parse(code, opts));
      const lexical = await perByte(bytes, (hr) => hr.analyze(code, opts));
      const cl100k = await perByte(
        bytes,
        (hr) => hr.analyze(code, { ...opts, tokenizer: 'cl100k' }),
        (hr) => hr.loadTokenizer('cl100k'),
      );
      results.real.push({ language, bytes, parse, lexical, cl100k });
      console.log(
        `| ${language} | ${(bytes / 1e6).toFixed(2)} | ${fmt(parse.perByte)} | ${fmt(lexical.perByte)} | ${fmt(cl100k.perByte)} |`,
      );
    }
  },

  async pathological() {
    const shapes = {
      'nested ( )': (n) => '('.repeat(n / 2) + ')'.repeat(n / 2),
      'a+a+…': (n) => 'a+'.repeat(n / 2),
      '[1,1,…]': (n) => '[' + '1,'.repeat(n / 2 - 1) + ']',
      '{ } blocks': (n) => '{}'.repeat(n / 2),
    };
    console.log(
      `\n## Pathological input (${PATHOLOGICAL_BYTES / 1e3} KB each, parse + lexical analysis; "time budget": stopped after 5 s, the peak until then)\n`,
    );
    console.log(`| language | ${Object.keys(shapes).join(' | ')} |`);
    console.log(
      `|---|${Object.keys(shapes)
        .map(() => '---')
        .join('|')}|`,
    );
    for (const language of (await fresh()).languages) {
      const row = [];
      for (const [shape, make] of Object.entries(shapes)) {
        const code = make(PATHOLOGICAL_BYTES);
        // Some shapes also defeat the error recovery (quadratic time): 5 s each at most.
        const r = await perByte(code.length, (hr) =>
          hr.analyze(code, { language, timeoutMs: 5000 }),
        );
        results.pathological.push({ language, shape, ...r });
        row.push(
          r.error
            ? `${fmt(r.perByte)} (${/^parsing stopped/.test(r.error) ? 'time budget' : r.error.slice(0, 30)})`
            : fmt(r.perByte),
        );
      }
      console.log(`| ${language} | ${row.join(' | ')} |`);
    }
  },

  async encode() {
    console.log('\n## Tokenizing alone (hr.encode, 2 MB)\n');
    console.log('| tokenizer | Python code B/B | CJK text B/B | random Latin-1 text B/B |');
    console.log('|---|---|---|---|');
    const cjk = '日本語のテキスト、漢字。'.repeat(2e6 / 36);
    let seed = 1;
    const random = Array.from({ length: 2e6 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return String.fromCharCode((seed >>> 16) & 0xff);
    }).join('');
    for (const tokenizer of ['cl100k', 'llama2']) {
      const row = [];
      for (const text of [python(), cjk, random]) {
        const r = await perByte(
          Buffer.byteLength(text),
          (hr) => hr.encode(text, { tokenizer }),
          (hr) => hr.loadTokenizer(tokenizer),
        );
        results.encode.push({ tokenizer, ...r });
        row.push(fmt(r.perByte));
      }
      console.log(`| ${tokenizer} | ${row.join(' | ')} |`);
    }
  },

  async model() {
    console.log('\n## Code model (pybyte, loss over n bytes of Python)\n');
    console.log('| n | peak MiB beyond the weights | B per byte |');
    console.log('|---|---|---|');
    for (const n of [1024, 4096, 8192]) {
      const text = python().slice(0, n);
      let model;
      const r = await perByte(
        n,
        () => model.loss(text),
        async (hr) => {
          model = await hr.model.load();
        },
      );
      results.model.push({ n, ...r });
      console.log(`| ${n} | ${r.peakMiB.toFixed(1)} | ${fmt(r.perByte)} |`);
    }
  },
};

let pythonText = null;
const python = () =>
  (pythonText ??= corpora(2)
    .find((c) => c.language === 'python')
    .files.join('\n')
    .slice(0, 2e6));

for (const name of only) await sections[name]();
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 2));
