// The hirope command-line tool, run as a user would.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';

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

  it('attention --png writes a heatmap image; bench times attention', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-cli-')), 'a.png');
    const r = run('attention', 'tests/fixtures/analysis/sample.go', '--png', out, '--scheme', 'hirope', '--window', '8', '--size', '64', '--source', 'ones');
    assert.equal(r.status, 0, r.stderr);
    const png = fs.readFileSync(out);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), 64); // IHDR width
    assert.equal(png.readUInt32BE(20), 64); // IHDR height
    const json = run('attention', 'tests/fixtures/analysis/sample.go', '--png', out, '--scheme', '{"type":"self-extend","window":8,"group":4}');
    assert.equal(json.status, 0, json.stderr);
    const b = run('bench', '--n', '64', '--repeats', '1');
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stdout, /n=64 +rope .* ms/);
  });

  it('prints help and fails with one clear line', () => {
    assert.match(run('--help').stdout, /usage: hirope <command>/);
    assert.match(run('analyze', '--help').stdout, /--tokenizer T/);
    assert.match(run('attention', '--help').stdout, /--png OUT/);
    assert.match(run('bench', '--help').stdout, /usage: hirope bench/);
    for (const [args, status, re] of [
      [['analyze', 'missing.py'], 1, /^hirope: cannot read missing.py: no such file\n$/],
      [['analyze', 'tests/fixtures/analysis/expected.json'], 1, /^hirope: cannot detect the language of/],
      [['analyze', 'tests/fixtures/analysis/sample.py', '--tokenizer', 'gpt9'], 1, /^hirope: tokenizer must be one of/],
      [['analyze'], 2, /^hirope: analyze needs exactly one FILE/],
      [['frobnicate'], 2, /^hirope: unknown command 'frobnicate'/],
      [['analyze', 'x.py', '--bogus'], 2, /^hirope: unknown option --bogus/],
      [['attention', 'tests/fixtures/analysis/sample.py'], 2, /^hirope: attention needs --png OUT.png/],
      [['attention', 'tests/fixtures/analysis/sample.py', '--png', '/tmp/x.png', '--scheme', 'ropey'], 1, /^hirope: scheme.type must be one of/],
      [['attention', 'tests/fixtures/analysis/sample.py', '--png', '/tmp/x.png', '--head-dim', '7'], 1, /^hirope: headDim must be a positive even integer, got 7/],
      [['bench', '--n', 'abc'], 2, /^hirope: --n needs positive integers/],
    ]) {
      const r = run(...args);
      assert.equal(r.status, status, args.join(' '));
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});
