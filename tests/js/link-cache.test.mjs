// tools/link-cache.mjs, the builds' link cache, with a stand-in linker that records each run: a
// link whose inputs were linked before is served from the cache, byte for byte; any change to what
// the link reads (an argument, an input's bytes, a file a response file lists) links again; a
// checkout elsewhere with the same inputs hits; a failed link stores nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LINK_CACHE = path.join(root, 'tools/link-cache.mjs');

// The stand-in linker: writes <out> and <stem>.wasm from its inputs' bytes (as em++ writes a .mjs
// and its .wasm), fails when an input says FAIL, and appends a line to runs.log per run.
const LINKER = `#!/bin/sh
dir=$(dirname "$0")
echo run >>"$dir/runs.log"
out=""; inputs=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    @*) inputs="$inputs $(cat "\${1#@}")"; shift ;;
    *) [ -f "$1" ] && inputs="$inputs $1"; shift ;;
  esac
done
cat $inputs >"$out" || exit 3
grep -q FAIL "$out" && { echo "linker: FAIL in an input" >&2; rm -f "$out"; exit 7; }
cp "$out" "\${out%.*}.wasm"
`;

/** A temporary folder (removed when test t ends) with the stand-in linker and checkouts. */
function workspace(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-link-cache-'));
  t.after(() => fs.rmSync(dir, { recursive: true }));
  const tools = path.join(dir, 'tools');
  fs.mkdirSync(tools);
  fs.writeFileSync(path.join(tools, 'linker'), LINKER, { mode: 0o755 });
  const checkout = (name) => {
    const build = path.join(dir, name, 'build');
    fs.mkdirSync(build, { recursive: true });
    return build;
  };
  const link = (build, args, env = {}) => {
    const result = spawnSync(
      process.execPath,
      [LINK_CACHE, path.dirname(build), path.join(tools, 'linker'), ...args],
      {
        cwd: build,
        encoding: 'utf8',
        env: { ...process.env, HIROPE_LINK_CACHE_DIR: path.join(dir, 'cache'), ...env },
      },
    );
    return { ...result, fromCache: /from the cache/.test(result.stdout) };
  };
  const runs = () => fs.readFileSync(path.join(tools, 'runs.log'), 'utf8').split('\n').length - 1;
  const write = (build, name, text) => fs.writeFileSync(path.join(build, name), text);
  return { dir, checkout, link, runs, write };
}

describe('link cache (tools/link-cache.mjs)', () => {
  test('a second link of the same inputs comes from the cache, byte for byte, and a clone elsewhere hits too', (t) => {
    const w = workspace(t);
    const a = w.checkout('a');
    w.write(a, 'x.o', 'object x\n');
    w.write(a, 'pre.js', '// pre\n');
    const args = ['--pre-js', path.join(a, 'pre.js'), 'x.o', '-O3', '-o', 'out.mjs'];
    const first = w.link(a, args);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.fromCache, false);
    assert.equal(w.runs(), 1);
    const linked = fs.readFileSync(path.join(a, 'out.mjs'));
    fs.rmSync(path.join(a, 'out.mjs'));
    fs.rmSync(path.join(a, 'out.wasm'));
    const second = w.link(a, args);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.fromCache, true);
    assert.equal(w.runs(), 1, 'the linker did not run again');
    assert.deepEqual(fs.readFileSync(path.join(a, 'out.mjs')), linked);
    assert.deepEqual(fs.readFileSync(path.join(a, 'out.wasm')), linked, 'its sibling .wasm too');

    // The same files in another checkout: the path of the checkout is not part of the key.
    const b = w.checkout('b');
    w.write(b, 'x.o', 'object x\n');
    w.write(b, 'pre.js', '// pre\n');
    const elsewhere = w.link(b, [
      '--pre-js',
      path.join(b, 'pre.js'),
      'x.o',
      '-O3',
      '-o',
      'out.mjs',
    ]);
    assert.equal(elsewhere.fromCache, true);
    assert.equal(w.runs(), 1);
    assert.deepEqual(fs.readFileSync(path.join(b, 'out.wasm')), linked);
  });

  test("any change to what the link reads links again: a flag, an input's bytes, a file a response file lists", (t) => {
    const w = workspace(t);
    const a = w.checkout('a');
    w.write(a, 'x.o', 'object x\n');
    w.write(a, 'y.a', 'library y\n');
    w.write(a, 'objects1', 'x.o y.a');
    const args = ['@objects1', '-o', 'out.cjs'];
    assert.equal(w.link(a, args).fromCache, false);
    assert.equal(w.link(a, args).fromCache, true);
    assert.equal(w.link(a, ['@objects1', '-O2', '-o', 'out.cjs']).fromCache, false, 'a flag');
    w.write(a, 'y.a', 'library y, changed\n');
    assert.equal(w.link(a, args).fromCache, false, 'a file the response file lists');
    assert.match(fs.readFileSync(path.join(a, 'out.cjs'), 'utf8'), /changed/);
    w.write(a, 'objects1', 'y.a x.o');
    assert.equal(w.link(a, args).fromCache, false, 'the order of the inputs');
    assert.equal(
      w.link(a, args, { EMCC_CFLAGS: '-g' }).fromCache,
      false,
      "Emscripten's environment",
    );
    assert.equal(w.runs(), 5);
    assert.equal(w.link(a, args, { HIROPE_LINK_CACHE: '0' }).fromCache, false, 'switched off');
    assert.equal(w.runs(), 6);
  });

  test('an entry whose file was changed or removed is linked again, not used', (t) => {
    const w = workspace(t);
    const a = w.checkout('a');
    w.write(a, 'x.o', 'object x\n');
    const args = ['x.o', '-o', 'out.mjs'];
    assert.equal(w.link(a, args).fromCache, false);
    const [entry] = fs
      .readdirSync(path.join(w.dir, 'cache'))
      .filter((n) => /^[0-9a-f]{64}$/.test(n));
    fs.writeFileSync(path.join(w.dir, 'cache', entry, 'out.wasm'), 'object y\n');
    const changed = w.link(a, args);
    assert.equal(changed.status, 0, changed.stderr);
    assert.equal(changed.fromCache, false);
    assert.match(changed.stderr, /linking again \(out\.wasm does not match its hash\)/);
    assert.equal(fs.readFileSync(path.join(a, 'out.wasm'), 'utf8'), 'object x\n');
    assert.equal(w.link(a, args).fromCache, true, 'stored again');
    fs.rmSync(path.join(w.dir, 'cache', entry, 'out.mjs'));
    const removed = w.link(a, args);
    assert.equal(removed.fromCache, false);
    assert.equal(fs.readFileSync(path.join(a, 'out.mjs'), 'utf8'), 'object x\n');
    assert.equal(w.runs(), 3);
  });

  test("a failed link keeps the linker's status and message and stores nothing; the least recently used entries go past the size limit", (t) => {
    const w = workspace(t);
    const a = w.checkout('a');
    w.write(a, 'bad.o', 'FAIL\n');
    for (let i = 0; i < 2; i++) {
      const failed = w.link(a, ['bad.o', '-o', 'out.mjs']);
      assert.equal(failed.status, 7);
      assert.match(failed.stderr, /FAIL in an input/);
      assert.equal(fs.existsSync(path.join(a, 'out.mjs')), false);
    }
    assert.equal(w.runs(), 2, 'a failure is not cached');

    // Entries of 232 bytes (two 20-byte files and their list with hashes): 600 bytes keep two.
    const limit = { HIROPE_LINK_CACHE_MAX_BYTES: '600' };
    const linkOf = (name) => {
      w.write(a, `${name}.o`, `object ${name.padEnd(12)}\n`);
      return w.link(a, [`${name}.o`, '-o', 'out.mjs'], limit);
    };
    linkOf('first');
    linkOf('second');
    assert.equal(linkOf('first').fromCache, true, 'used again: now the most recent');
    linkOf('third');
    assert.equal(linkOf('first').fromCache, true);
    assert.equal(linkOf('third').fromCache, true);
    assert.equal(linkOf('second').fromCache, false, 'the least recently used entry went');
  });
});
