// docs/architecture.md's "who may include or import whom", checked on the sources: each C++
// folder's includes against the "may include" column of the folders table, and each module of the
// JavaScript package against the "imports" column of the package's table (a module the table does
// not name fails too, so the page stays complete). The web/src folders' rule is
// tests/js/page-imports.test.mjs's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** The rows of the markdown table whose header row starts with `first`, as arrays of cells. */
function table(first) {
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  assert.ok(start >= 0, `docs/architecture.md has a table starting "| ${first} |"`);
  const rows = [];
  for (let i = start + 2; i < lines.length && lines[i].startsWith('|'); i++)
    rows.push(
      lines[i]
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
  return rows;
}

const ticked = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

function filesUnder(dir, pattern) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(file, pattern));
    else if (pattern.test(entry.name)) out.push(file);
  }
  return out;
}

// Angle-bracket includes with a folder name a library (the rest are the standard library's and
// the compiler's); the library must be named in the folder's "may include" cell.
const LIBRARIES = {
  tree_sitter: 'tree-sitter',
  Eigen: 'Eigen',
  pybind11: 'pybind11',
  emscripten: 'Embind',
};

/** The include violations of one folder against its "may include" cell. */
function includeViolations(folder, cell) {
  const allowed = ticked(cell).map((a) => a.replace(/^include\//, ''));
  const found = [];
  for (const file of filesUnder(path.join(root, folder), /\.(cpp|h|inc)$/)) {
    const source = fs.readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
      const [, kind, name] = m;
      const where = `${path.relative(root, file)}: #include ${kind}${name}`;
      if (kind === '<') {
        const lib = name.includes('/') ? LIBRARIES[name.split('/')[0]] : null;
        if (name.includes('/') && !(lib && cell.includes(lib))) found.push(where);
        continue;
      }
      const local = !name.includes('/') && fs.existsSync(path.join(path.dirname(file), name));
      const ok = local || allowed.some((a) => (a.endsWith('/') ? name.startsWith(a) : name === a));
      if (!ok) found.push(where);
    }
  }
  return found;
}

describe("docs/architecture.md's include rules", () => {
  const rows = table('folder').filter(([folder]) => /^`(src|wasm|python)\/.*\/`$/.test(folder));

  it('names every C++ folder', () => {
    const named = new Set(rows.map(([folder]) => folder.slice(1, -1)));
    for (const dir of fs.readdirSync(path.join(root, 'src')))
      assert.ok(named.has(`src/${dir}/`), `src/${dir}/ has a row`);
    assert.ok(named.has('wasm/bindings/') && named.has('python/bindings/'));
  });

  for (const row of rows) {
    const folder = row[0].slice(1, -1);
    it(`${folder} includes only what its row allows`, () => {
      assert.deepEqual(includeViolations(folder, row[row.length - 1]), []);
    });
  }

  it('sees a violation (the check itself)', () => {
    // src/core includes the core's own headers: with only the public API allowed, it fails.
    assert.ok(includeViolations('src/core', '`include/hirope/`').length > 0);
  });
});

/** The static relative imports of a module, as module names without the extension. */
function staticImports(file) {
  const source = fs.readFileSync(file, 'utf8');
  const names = new Set();
  for (const m of source.matchAll(
    /^\s*(?:import|export)\s[^'";]*?\bfrom\s*['"]\.\/([^'"]+)\.m?js['"]|^\s*import\s*['"]\.\/([^'"]+)\.m?js['"]/gm,
  ))
    names.add(m[1] ?? m[2]);
  return names;
}

describe("docs/architecture.md's package modules", () => {
  const rows = table('module');
  const wasm = path.join(root, 'wasm');
  const modules = fs.readdirSync(wasm).filter((f) => f.endsWith('.js'));
  // Scripts linked into the Emscripten loaders (CMakeLists.txt --pre-js/--post-js), not modules.
  const cmake = fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8');
  const linked = new Set(modules.filter((f) => cmake.includes(`wasm/${f}`)));

  it('has a row for every module of wasm/', () => {
    const named = new Set(rows.flatMap(([cell]) => ticked(cell)));
    for (const f of modules) if (!linked.has(f)) assert.ok(named.has(f), `wasm/${f} has a row`);
  });

  for (const row of rows) {
    const files = ticked(row[0]).filter((f) => f.endsWith('.js'));
    if (!files.length) continue;
    // "errors, marshal, runtime (…)" → the names before any parenthesis; "—" → none.
    const allowed = new Set(
      row[row.length - 1]
        .replace(/\([^)]*\)/g, '')
        .split(/[,;]/)
        .map((s) => s.trim().split(/\s+/)[0])
        .filter((s) => s && s !== '—'),
    );
    it(`${files.join(', ')} imports only what its row says`, () => {
      for (const f of files) {
        const extra = [...staticImports(path.join(wasm, f))].filter((n) => !allowed.has(n));
        assert.deepEqual(extra, [], `wasm/${f} imports ${extra.join(', ')} beyond its row`);
      }
    });
  }
});
