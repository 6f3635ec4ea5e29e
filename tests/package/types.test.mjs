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
