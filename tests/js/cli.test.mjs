// The hirope command-line tool, run as a user would.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = (...args) => spawnSync(process.execPath, [path.join(root, 'bin/hirope.mjs'), ...args], { cwd: root, encoding: 'utf8' });

describe('hirope CLI', () => {
  it('analyze --json prints the analysis', () => {
    const r = run('analyze', 'tests/fixtures/analysis/sample.rs', '--tokenizer', 'cl100k', '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.language, 'rust');
    assert.equal(out.tokenizer, 'cl100k');
    assert.equal(out.tokens.ids.length, out.tokens.count);
    assert.equal(out.positions.unit.length, out.tokens.count);
    assert.deepEqual(out.units.map((u) => u.kind), ['code', 'class', 'class', 'class', 'function']);
    assert.equal(out.statements, 12);
  });

  it('takes --language, --gap, --descend-classes and --segments', () => {
    const r = run('analyze', 'tests/fixtures/analysis/sample.py', '--language', 'python', '--gap', 'next', '--descend-classes', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).units.map((u) => u.name), ['norm', 'helper', 'Vector', '__init__', 'length', '']);
    const s = run('analyze', 'tests/fixtures/analysis/sample.py', '--segments', '16', '--json');
    assert.equal(JSON.parse(s.stdout).positions.unit[16], 1);
    const summary = run('analyze', 'tests/fixtures/analysis/sample.py');
    assert.match(summary.stdout, /python, \d+ lexical tokens, 5 units, 19 statements/);
  });

  it('prints help and fails with one clear line', () => {
    assert.match(run('--help').stdout, /usage: hirope <command>/);
    assert.match(run('analyze', '--help').stdout, /--tokenizer T/);
    for (const [args, status, re] of [
      [['analyze', 'missing.py'], 1, /^hirope: cannot read missing.py: no such file\n$/],
      [['analyze', 'tests/fixtures/analysis/expected.json'], 1, /^hirope: cannot detect the language of/],
      [['analyze', 'tests/fixtures/analysis/sample.py', '--tokenizer', 'gpt9'], 1, /^hirope: tokenizer must be one of/],
      [['analyze'], 2, /^hirope: analyze needs exactly one FILE/],
      [['frobnicate'], 2, /^hirope: unknown command 'frobnicate'/],
      [['analyze', 'x.py', '--bogus'], 2, /^hirope: unknown option --bogus/],
    ]) {
      const r = run(...args);
      assert.equal(r.status, status, args.join(' '));
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});
