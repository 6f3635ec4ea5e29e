// analyze(): fixtures with hand-checked units and statement counts for every language, the
// standard library's own `ast` module as an oracle for Python units, acorn's syntax tree as one
// for JavaScript units, policies, and bad input.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HiRoPEError } from '../../dist/index.js';
import { BUILDS, load } from './support/both-builds.mjs';
import { acornUnits } from './support/acorn-units.mjs';
import { commonJsFiles, javascriptFiles, pythonFiles, take } from './support/real-code.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '../fixtures/analysis');
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8'));
const describeUnits = (a) => a.units.map((u) => (u.name ? `${u.kind} ${u.name}` : u.kind));

function checkConsistency(code, a) {
  const n = a.tokens.count;
  assert.equal(a.positions.token.length, n);
  assert.equal(a.positions.unit.length, n);
  assert.equal(a.positions.statement.length, n);
  // Units partition the text; a token belongs to the unit holding its first byte.
  assert.equal(a.units[0].start, 0);
  assert.equal(a.units.at(-1).end, code.length);
  for (let u = 1; u < a.units.length; u++) assert.equal(a.units[u].start, a.units[u - 1].end);
  for (let i = 0; i < n; i++) {
    const unit = a.units[a.positions.unit[i]];
    assert.ok(a.tokens.start[i] >= unit.start && a.tokens.start[i] < unit.end, `token ${i}`);
    if (i > 0) {
      assert.ok(a.positions.unit[i] >= a.positions.unit[i - 1]);
      assert.ok(a.positions.statement[i] >= a.positions.statement[i - 1]);
      assert.ok(a.tokens.start[i] >= a.tokens.end[i - 1]);
    }
  }
  // Each unit's token range is exactly its tokens, its statement range their statements.
  for (const unit of a.units) {
    const mine = [];
    for (let i = 0; i < n; i++) if (a.positions.unit[i] === unit.index) mine.push(i);
    const statements = mine.map((i) => a.positions.statement[i]);
    assert.deepEqual(
      unit.tokens,
      mine.length ? { start: mine[0], end: mine.at(-1) + 1 } : { start: 0, end: 0 },
    );
    assert.deepEqual(
      unit.statements,
      mine.length
        ? {
            start: statements.reduce((x, y) => Math.min(x, y)),
            end: statements.reduce((x, y) => Math.max(x, y)) + 1,
          }
        : { start: 0, end: 0 },
    );
  }
}

for (const build of BUILDS) {
  describe(`analysis (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    for (const [name, want] of Object.entries(expected)) {
      if (name.startsWith('_')) continue;
      it(`finds the units and statements of ${name}`, () => {
        const code = fs.readFileSync(path.join(fixtures, name), 'utf8');
        const a = hr.analyze(code, { filename: name });
        assert.deepEqual(describeUnits(a), want.units);
        assert.equal(a.statements, want.statements);
        assert.deepEqual(a.errors, []);
        checkConsistency(code, a);
        // Lexical tokens are the leaves: together they hold every non-blank character.
        assert.equal(a.tokens.texts.join('').replace(/\s+/g, ''), code.replace(/\s+/g, ''));
        const d = hr.analyze(code, { filename: name, descendClasses: true });
        assert.deepEqual(describeUnits(d), want.descend);
        // The language's own kind of each unit: a Rust struct and its impl are both class units.
        assert.deepEqual(
          a.units.map((u) => u.languageKind),
          want.languageKinds,
        );
        assert.deepEqual(
          d.units.map((u) => u.languageKind),
          want.descendLanguageKinds,
        );
      });
    }

    it('applies the gap policies and fixed segments', () => {
      const code = fs.readFileSync(path.join(fixtures, 'sample.py'), 'utf8');
      const next = hr.analyze(code, { language: 'python', gap: 'next' });
      assert.deepEqual(describeUnits(next), [
        'function norm',
        'function helper',
        'class Vector',
        'code',
      ]);
      const prev = hr.analyze(code, { language: 'python', gap: 'previous' });
      assert.deepEqual(describeUnits(prev), [
        'code',
        'function norm',
        'function helper',
        'class Vector',
      ]);
      const seg = hr.analyze(code, { language: 'python', hierarchy: 'segments', segmentSize: 10 });
      assert.deepEqual(
        Array.from(seg.positions.unit.slice(0, 12)),
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1],
      );
      assert.equal(seg.units.length, Math.ceil(seg.tokens.count / 10));
      assert.ok(seg.units.every((u) => u.kind === 'segment'));
    });

    it('feeds attention() directly', () => {
      const code = fs.readFileSync(path.join(fixtures, 'sample.go'), 'utf8');
      const a = hr.analyze(code, { language: 'go' });
      const n = a.tokens.count;
      const { q, k } = hr.qk({ n, headDim: 16, tokenIds: a.tokens.ids, seed: 1 });
      const p = hr.attention({
        q,
        k,
        n,
        headDim: 16,
        positions: a.positions,
        scheme: { type: 'hirope', window: 8 },
      });
      assert.equal(p.length, n * n);
    });

    it('reports syntax errors and still gives positions for partial code', () => {
      const code = 'def f(x):\n    return (x +\n\ndef g(y):\n    return y\n';
      const a = hr.analyze(code, { language: 'python' });
      assert.ok(a.errors.length > 0);
      assert.ok(a.tokens.count > 10);
      checkConsistency(code, a);
      const cut = hr.analyze('    x = 1\n    return x\n}\n', { language: 'javascript' });
      assert.ok(cut.errors.length > 0);
      checkConsistency('    x = 1\n    return x\n}\n', cut);
    });

    it('survives 10,000-deep nesting, NUL bytes, lone surrogates, binary garbage and empty input', () => {
      const deep = '('.repeat(10000) + ')'.repeat(10000);
      for (const language of ['python', 'javascript', 'c', 'rust']) {
        const a = hr.analyze(deep, { language });
        assert.ok(a.tokens.count > 0);
      }
      const namespaces = 'namespace a { '.repeat(10000) + '}'.repeat(10000);
      assert.ok(hr.analyze(namespaces, { language: 'cpp' }).units.length >= 1);
      const weird = 'x = "a\u0000b"\ny = "\ud800"\nz = "\udc00\u{1F600}"\n';
      const w = hr.analyze(weird, { language: 'python' });
      checkConsistency(weird, w);
      assert.ok(w.tokens.texts.join('').includes('\u{1F600}'));
      let garbage = '';
      for (let i = 0; i < 20000; i++) garbage += String.fromCharCode((i * 7919) % 65536);
      checkConsistency(garbage, hr.analyze(garbage, { language: 'cpp' }));
      const empty = hr.analyze('', { language: 'go' });
      assert.equal(empty.tokens.count, 0);
      assert.equal(empty.units.length, 1);
    });

    // The time is bench/analysis.mjs's to measure; here a generous outer limit (a quadratic
    // regression would take many minutes) and the result.
    it('handles a file of one 1 MB line', { timeout: 120000 }, () => {
      const line = 'x = [' + '1, '.repeat(350000) + ']';
      const a = hr.analyze(line, { language: 'python' });
      assert.equal(a.tokens.count, 2 * 350000 + 4); // x = [ then (1 ,) 350,000 times, then ]
    });

    // Tens of thousands of quotes defeat tree-sitter's error recovery (seconds, then minutes): the
    // parse stops with the budget's error; the outer limit only catches a parse that never stops.
    it('stops a parse that runs past its time budget', { timeout: 120000 }, () => {
      const quotes = '"'.repeat(40000);
      for (const call of [
        () => hr.parse(quotes, { language: 'javascript', timeoutMs: 50 }),
        () => hr.analyze(quotes, { language: 'javascript', timeoutMs: 50 }),
      ]) {
        assert.throws(
          call,
          (e) =>
            e instanceof HiRoPEError &&
            /^parsing stopped after 50 ms .*pathological for the tree-sitter javascript grammar.*raise timeoutMs/.test(
              e.message,
            ),
        );
      }
      // Real code under the default budget, and a budget given per call (nothing kept between calls).
      assert.equal(hr.parse('x = 1\n', { language: 'python' }).hasError, false);
      assert.equal(
        hr.analyze('def f():\n    return 1\n', { language: 'python', timeoutMs: 0 }).units.length,
        1,
      );
    });

    it('rejects unknown languages and options with a HiRoPEError', () => {
      const bad = (fn, re) =>
        assert.throws(fn, (e) => e instanceof HiRoPEError && re.test(e.message));
      bad(
        () => hr.analyze('x', { language: 'cobol' }),
        /^language must be one of 'python', .*got 'cobol'/,
      );
      bad(() => hr.analyze('x', { filename: 'a.cbl' }), /cannot detect the language of 'a.cbl'/);
      bad(() => hr.analyze('x', {}), /options.language \(or options.filename\) is required/);
      bad(() => hr.analyze(42, { language: 'c' }), /^code must be a string, got 42/);
      bad(
        () => hr.analyze('x', { language: 'c', gap: 'after' }),
        /^options.gap must be one of 'own', 'next', 'previous'/,
      );
      bad(
        () => hr.analyze('x', { language: 'c', tokenizer: 'gpt2' }),
        /^tokenizer must be one of 'lexical', 'cl100k', 'o200k', 'llama2', 'llama3', 'qwen3', 'deepseek-v3', 'gemma3' or a name hr.loadTokenizer\(\{ json \}\) returned, got 'gpt2'/,
      );
      bad(
        () => hr.analyze('x', { language: 'c', segmentSize: 0 }),
        /segmentSize must be at least 1/,
      );
      bad(() => hr.analyze('x', { language: 'c', lang: 'c' }), /unknown key 'lang'/);
      bad(
        () => hr.analyze('x', { language: 'c', timeoutMs: -1 }),
        /timeoutMs must be a number of milliseconds >= 0/,
      );
      bad(
        () => hr.analyze('x', { language: 'c', timeoutMs: '5' }),
        /options.timeoutMs must be a number/,
      );
      assert.equal(hr.detectLanguage('src/Main.JAVA'), 'java');
      assert.equal(hr.detectLanguage('a.tsx'), 'tsx');
      assert.equal(hr.detectLanguage('README'), null);
    });

    it('does not grow the heap across repeated analyses', () => {
      const code = fs.readFileSync(path.join(fixtures, 'sample.rs'), 'utf8');
      for (let i = 0; i < 20; i++) hr.analyze(code, { language: 'rust', tokenizer: 'lexical' });
      const before = hr.heapBytes();
      for (let i = 0; i < 500; i++) {
        hr.analyze(code, { language: 'rust' });
        assert.throws(
          () => hr.analyze(code, { language: 'klingon' }),
          (e) =>
            e instanceof HiRoPEError &&
            /^language must be one of .*, got 'klingon'$/.test(e.message),
        );
      }
      assert.equal(hr.heapBytes(), before);
    });
  });
}

describe('Python units against the standard library ast module', () => {
  it('lists the same top-level functions and classes', async () => {
    const hr = await load(true);
    const files = take(pythonFiles(), 3 * 1024 * 1024);
    const script = [
      'import ast, json, sys',
      'out = {}',
      'for path in json.load(sys.stdin):',
      '    try:',
      '        tree = ast.parse(open(path, encoding="utf-8").read())',
      '    except Exception:',
      '        continue',
      '    out[path] = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]',
      'print(json.dumps(out))',
    ].join('\n');
    const oracle = JSON.parse(
      execFileSync('python3', ['-c', script], {
        input: JSON.stringify(files.map((f) => f.file)),
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      }),
    );
    let compared = 0,
      definitions = 0;
    const mismatches = [];
    for (const { file, text } of files) {
      if (!(file in oracle)) continue;
      const a = hr.analyze(text, { language: 'python' });
      const ours = a.units.filter((u) => u.kind !== 'code').map((u) => u.name);
      compared++;
      definitions += oracle[file].length;
      if (JSON.stringify(ours) !== JSON.stringify(oracle[file]))
        mismatches.push(`${file}: ours ${ours.length}, ast ${oracle[file].length}`);
    }
    console.log(`# ast oracle: ${compared} files, ${definitions} top-level definitions compared`);
    assert.ok(compared > 100);
    assert.deepEqual(mismatches, []);
  });
});

describe("JavaScript units against acorn's syntax tree", () => {
  // acorn parses independently of tree-sitter; tests/js/support/acorn-units.mjs applies the unit rules
  // of docs/analysis.md to its tree.
  const definitions = (hr, text) =>
    hr
      .analyze(text, { language: 'javascript' })
      .units.filter((u) => u.kind !== 'code')
      .map((u) => u.name);

  it('finds CommonJS, object-literal and IIFE/UMD units as acorn does', async () => {
    const hr = await load(true);
    const shapes = [
      "(function (root, factory) {\n  if (typeof define === 'function' && define.amd) define([], factory);",
      "  else if (typeof module === 'object') module.exports = factory();\n  else root.lib = factory();",
      '})(this, function () {',
      "  'use strict';\n  function Parser(input) { this.input = input; }",
      '  Parser.prototype.parse = function () { return this.input; };',
      '  Parser.prototype = Object.create(null);\n  var util = { trim(s) { return s; }, n: 1,',
      '    pad: function (s) { return s; }, deep: { nested: () => 0 } };',
      '  !function () { exports.f = function f() {}; }();',
      '  var Api = (function () { class Client {} return Client; }).call(this);',
      '  module.exports = class Tokenizer {};\n  exports.g = exports.h = async () => {};',
      '  return Parser;\n});\n',
    ].join('\n');
    const expected = [
      'Parser',
      'Parser.prototype.parse',
      'trim',
      'pad',
      'nested',
      'exports.f',
      'Client',
      'module.exports',
      'exports.g',
    ];
    assert.deepEqual(acornUnits(shapes), expected);
    assert.deepEqual(definitions(hr, shapes), expected);
  });

  it('agrees on the main files of the CommonJS and UMD packages installed', async () => {
    const hr = await load(true);
    const files = commonJsFiles();
    assert.equal(files.length, 49);
    const mismatches = [];
    let total = 0,
      none = 0;
    for (const { file, text } of files) {
      const ours = definitions(hr, text);
      const oracle = acornUnits(text);
      assert.ok(oracle, `acorn parses ${file}`);
      total += ours.length;
      if (ours.length === 0) none++;
      if (JSON.stringify(ours) !== JSON.stringify(oracle))
        mismatches.push(`${file}: ours ${ours.length}, acorn ${oracle.length}`);
    }
    console.log(`# acorn oracle: 49 CommonJS/UMD files, ${total} units, ${none} files with none`);
    assert.deepEqual(mismatches, []);
    assert.equal(none, 0);
    // acorn.js (a UMD bundle) is no longer one code unit: its parser's functions are units.
    const acornFile = files.find((f) => f.file.endsWith(path.join('acorn', 'dist', 'acorn.js')));
    assert.ok(acornFile);
    const a = hr.analyze(acornFile.text, { language: 'javascript' });
    const biggest = Math.max(...a.units.map((u) => u.end - u.start));
    assert.ok(biggest < acornFile.text.length / 10, `largest unit ${biggest} bytes`);
    // webpack's UMD bundle (source-map's dist file): the bootstrap's and every module's functions,
    // where it was one code unit (issue 50).
    const bundle = fs.readFileSync(
      path.join(here, '../../node_modules/source-map/dist/source-map.js'),
      'utf8',
    );
    const names = definitions(hr, bundle);
    assert.deepEqual(names, acornUnits(bundle));
    assert.ok(names.length > 80, `${names.length} units`);
    assert.ok(names.includes('SourceMapGenerator.prototype.addMapping'), names.join());
  });

  it('agrees on a sample of every JavaScript file installed', async () => {
    const hr = await load(true);
    let compared = 0,
      units = 0;
    const mismatches = [];
    for (const { file, text } of take(javascriptFiles(), 4 << 20)) {
      const oracle = acornUnits(text);
      if (!oracle) continue; // not JavaScript acorn reads (a syntax extension)
      const a = hr.analyze(text, { language: 'javascript' });
      if (a.errors.length) continue; // tree-sitter recovered from an error: no common tree
      const ours = a.units.filter((u) => u.kind !== 'code').map((u) => u.name);
      compared++;
      units += oracle.length;
      if (JSON.stringify(ours) !== JSON.stringify(oracle))
        mismatches.push(`${file}: ours ${ours.length}, acorn ${oracle.length}`);
    }
    console.log(`# acorn oracle: ${compared} files, ${units} units compared`);
    assert.ok(compared > 100);
    assert.deepEqual(mismatches, []);
  });
});
