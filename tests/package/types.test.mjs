// The packed package's types catch typos under tsc --strict (issue 43): `npm pack`, install the
// tarball offline into a fresh project, then type-check (1) a file of correct calls, which must
// compile, and (2) the same calls each with one typo under `// @ts-expect-error`, so that tsc fails
// when a typo is NOT an error; (3) the typo file without the directives must report exactly the
// typo lines, each naming its misspelt key. Also the types that lied: matrix: false is null, the
// full entry's hr.model is a ModelLoader (the README's `await hr.model.load()`), core's is null.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { installTarball, packTarball, root, tsconfig } from './packed.mjs';

const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

const PRELUDE = `import init, { tokenizerForModel } from 'hirope';
import core from 'hirope/core';
const hr = await init();
const light = await core();
const q = new Float32Array(8);
const k = q;
const n = 2;
const headDim = 4;
const pool = { rows: 1, cols: 1, ratio: new Float32Array(1), raw: new Float32Array(1) };
`;

// [a correct line, the same line with a typo, the key tsc must name]; one line each, so that the
// directive above a typo covers it.
const CASES = [
  [
    "hr.attention({ q, k, n, headDim, scheme: 'alibi' });",
    "hr.attention({ q, k, n, headDim, sheme: 'alibi' });",
    'sheme',
  ],
  [
    "hr.attention({ q, k, n, headDim, scheme: { type: 'hirope', ratio: 0.5 } });",
    "hr.attention({ q, k, n, headDim, scheme: { type: 'hirope', ratoi: 0.5 } });",
    'ratoi',
  ],
  [
    'hr.attention({ q, k, n, headDim, causal: false });',
    'hr.attention({ q, k, n, headDim, casual: false });',
    'casual',
  ],
  [
    'await hr.attentionAsync({ q, k, n, headDim, causal: false });',
    'await hr.attentionAsync({ q, k, n, headDim, casual: false });',
    'casual',
  ],
  [
    "hr.encode('x', { tokenizer: 'llama3' });",
    "hr.encode('x', { tokeniser: 'llama3' });",
    'tokeniser',
  ],
  [
    "hr.countTokens('x', { tokenizer: 'o200k_base' });",
    "hr.countTokens('x', { tokeniser: 'o200k_base' });",
    'tokeniser',
  ],
  [
    "hr.encodeBatch(['x'], { tokenizer: tokenizerForModel('gpt-4o') });",
    "hr.encodeBatch(['x'], { tokeniser: tokenizerForModel('gpt-4o') });",
    'tokeniser',
  ],
  [
    "hr.relativeDistances({ n, headDim, scheme: 'rope' });",
    "hr.relativeDistances({ n, headDim, sheme: 'rope' });",
    'sheme',
  ],
  ['hr.qk({ n, headDim, seed: 1 });', 'hr.qk({ n, headDim, sed: 1 });', 'sed'],
  [
    "hr.bands({ type: 'rope', scaling: { type: 'yarn', factor: 4 } }, 8);",
    "hr.bands({ type: 'rope', scaling: { type: 'yarn', factr: 4 } }, 8);",
    'factr',
  ],
  ["await hr.model.load({ name: 'pybyte' });", "await hr.model.load({ nam: 'pybyte' });", 'nam'],
  [
    'const none: null = hr.attention({ q, k, n, headDim, pool, matrix: false });',
    'const some: Float32Array = hr.attention({ q, k, n, headDim, pool, matrix: false });',
    'null',
  ],
  [
    'const probs: Float32Array = hr.attention({ q, k, n, headDim, matrix: true });',
    'const probs2: Float32Array = light.attention({ q, k, n, headDim, matix: true });',
    'matix',
  ],
  [
    "const m: null = light.model; const w: number | false = hr.isWithinTokenLimit('x', 4);",
    'await light.model.load();',
    'null',
  ],
];

// The README's model example, as it stands: no null check on hr.model.
const README_MODEL = `const model = await hr.model.load();
const { bitsPerByte } = model.loss('x = 1\\n', { scheme: { type: 'truncate', length: 256 } });
console.log(bitsPerByte, none, probs, m, w);
`;

// tsc's diagnostics as { line, text } (text: the message with its indented details).
function check(dir, file) {
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), tsconfig(file));
  try {
    execFileSync(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return [];
  } catch (e) {
    assert.ok(e.stdout, e.stderr);
    const errors = [];
    for (const line of e.stdout.split('\n')) {
      const m = line.match(/^[^(]+\((\d+),\d+\): error (TS\d+: .*)$/);
      if (m) errors.push({ line: Number(m[1]), text: m[2] });
      else if (line.trim() && errors.length) errors.at(-1).text += `\n${line}`;
    }
    assert.ok(errors.length, e.stdout);
    return errors;
  }
}

describe('the packed types refuse typos under tsc --strict', () => {
  let tmp, dir;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-types-'));
    const tarball = packTarball(tmp);
    dir = installTarball(path.join(tmp, 'project'), tarball, 'types-check');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('compiles the correct calls, and the README model example with no null check', () => {
    const code = PRELUDE + CASES.map(([good]) => good).join('\n') + '\n' + README_MODEL;
    fs.writeFileSync(path.join(dir, 'positive.ts'), code);
    assert.deepEqual(check(dir, 'positive.ts'), []);
  });

  it('fails on each typo (@ts-expect-error: tsc fails if one is not an error)', () => {
    const code =
      PRELUDE + CASES.map(([, typo]) => `// @ts-expect-error\n${typo}`).join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'typos.ts'), code);
    assert.deepEqual(check(dir, 'typos.ts'), []);
  });

  it('every entry has types that declare each of its exports, and tsc --strict takes them all', () => {
    const pkg = path.join(dir, 'node_modules/hirope');
    const { exports } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    // The entries that are modules of the API (not .wasm, data, loaders or the asset modules).
    const entries = Object.entries(exports).filter(
      ([key]) => !/\*|\.wasm$|\.mjs$|\.json$|element-worker|^\.\/assets\//.test(key) && key !== '.',
    );
    const untyped = entries.filter(([, target]) => typeof target !== 'object' || !target.types);
    assert.deepEqual(
      untyped.map(([key]) => key),
      [],
      'entries without types',
    );
    // Each runtime export of an entry that Node can import is declared in its .d.ts.
    const declared = (file) => {
      const text = fs.readFileSync(path.join(pkg, file), 'utf8');
      const names = new Set(
        [...text.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]),
      );
      for (const m of text.matchAll(/^export \{([^}]*)\} from/gm))
        for (const name of m[1].split(',')) if (name.trim()) names.add(name.trim());
      if (/^export \* from/m.test(text)) names.add('*');
      return names;
    };
    const browserOnly = ['./element'];
    const runtime = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const out = {}; for (const key of ${JSON.stringify(entries.map(([k]) => k).filter((k) => !browserOnly.includes(k)))}) out[key] = Object.keys(await import('hirope' + key.slice(1))); console.log(JSON.stringify(out));`,
        ],
        { cwd: dir, encoding: 'utf8' },
      ),
    );
    const missing = [];
    for (const [key, target] of entries) {
      if (browserOnly.includes(key)) continue;
      const names = declared(target.types);
      if (names.has('*')) continue; // re-exports an entry checked on its own
      for (const name of runtime[key])
        if (
          name !== 'default' &&
          name !== 'makeInit' &&
          name !== 'fullLibraries' &&
          !names.has(name)
        )
          missing.push(`${key}: ${name}`);
    }
    assert.deepEqual(missing, [], 'exports their .d.ts does not declare');
    // Every entry imported under --strict, a few of their names used as a tool builder would.
    const code = `${entries.map(([key], i) => `import * as entry${i} from 'hirope${key.slice(1)}';`).join('\n')}
import { CONFIG_GALLERY, TOKENIZER_FILES } from 'hirope/registry';
import { LUTS, cssGradient, probImage } from 'hirope/colormap';
import { WorkerClient, serve, transfer } from 'hirope/protocol';
import { RECALL_CLASSES } from 'hirope/recall';
import { summarize, verdictOf } from 'hirope/eval-stats';
import { closestName, canonicalTokenizer } from 'hirope/runtime';
import { registerAsset, registeredText } from 'hirope/assets';
import 'hirope/element';
import { createWorker } from 'hirope/worker';
const worker = createWorker({ tokenizers: ['o200k'] });
const counted: Promise<number> = worker.countTokens('x = 1', { tokenizer: 'o200k' });
const within: Promise<number | false> = worker.isWithinTokenLimit('x = 1', 10);
const setup: Promise<{ headDim: number }> = worker.fromConfig('{"model_type": "llama"}');
const factor: Promise<number> = worker.attentionFactor({ type: 'rope', scaling: { type: 'yarn', factor: 4 } }, 64);
const ids: string[] = CONFIG_GALLERY.map((c) => c.id);
const files: string = Object.values(TOKENIZER_FILES).join();
const gradient: string = cssGradient(LUTS.magma);
const image: Uint8ClampedArray = probImage(new Float32Array(4), 2, 2, { r0: 0, r1: 2, c0: 0, c1: 2 });
const client = new WorkerClient(() => new Worker('w.js', { type: 'module' }), { sticky: ['x'] });
const answer: Promise<number> = client.request<number>('echo', 1);
serve({ echo: (payload: number) => transfer({ payload }) });
const far: 'far' = RECALL_CLASSES[3];
const verdict: string = verdictOf({ diff: 1, se: 0.1, files: 3 });
const guess: string | null = closestName('pyton', ['python']);
registerAsset('data/cl100k.bin', new URL('https://cdn.example/cl100k.bin'));
const text: string | undefined = registeredText('data/configs/x.json');
const element = document.querySelector('hirope-attention');
const code: string | undefined = element?.code;
const made: string = document.createElement('hirope-attention').code;
console.log(${entries.map((_, i) => `entry${i}`).join(', ')}, counted, within, setup, factor, ids, files, gradient, image, answer, far, verdict, guess, text, code, made, summarize, canonicalTokenizer);
`;
    fs.writeFileSync(path.join(dir, 'entries.ts'), code);
    assert.deepEqual(check(dir, 'entries.ts'), []);
  });

  it('reports each typo on its own line, naming the key', () => {
    const first = PRELUDE.split('\n').length;
    const code = PRELUDE + CASES.map(([, typo]) => typo).join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'bare.ts'), code);
    const errors = check(dir, 'bare.ts');
    assert.deepEqual(
      [...new Set(errors.map((e) => e.line))],
      CASES.map((_, i) => first + i),
      errors.map((e) => `${e.line}: ${e.text}`).join('\n'),
    );
    for (const [i, [, typo, key]] of CASES.entries()) {
      const text = errors
        .filter((e) => e.line === first + i)
        .map((e) => e.text)
        .join('\n');
      assert.ok(text.includes(`'${key}'`) || text.includes(key), `${typo}\n${text}`);
    }
  });
});
