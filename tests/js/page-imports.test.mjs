// The playground's folders by process (docs/architecture.md, docs/playground.md): the page's
// thread (web/src/page/, and the element in web/src/element/) imports nothing from the workers'
// side (web/src/worker/), whose engines it only talks to through the worker protocol in the
// package; the pure modules both sides use (web/src/shared/) import neither side; the workers'
// side imports no page module. Checked on the import graph read from the sources, transitively.
// And web/src reaches the package only through its public entry points (package.json "exports":
// hirope, hirope/colormap, hirope/protocol, ...), never its files (dist/, wasm/, lib/) or the
// repository's training/: the page is built the way a user's page would be.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { code, imports, reachable } from './support/module-graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'web/src');
const folder = (name) => path.join(src, name) + path.sep;

function modulesUnder(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...modulesUnder(file));
    else if (/\.m?js$/.test(entry.name)) out.push(file);
  }
  return out;
}

/** For each module under `from`, the modules under one of `forbidden` that it reaches, with the path there. */
function violations(from, forbidden) {
  const found = [];
  for (const start of modulesUnder(folder(from))) {
    // Breadth first, so that the chain reported is a shortest one.
    const parent = new Map([[start, null]]);
    const queue = [start];
    while (queue.length) {
      const file = queue.shift();
      if (forbidden.some((f) => file.startsWith(folder(f)))) {
        const chain = [];
        for (let f = file; f; f = parent.get(f)) chain.unshift(path.relative(root, f));
        found.push(chain.join(' -> '));
        continue;
      }
      for (const { target } of imports(file)) {
        if (parent.has(target) || !fs.existsSync(target)) continue;
        parent.set(target, file);
        queue.push(target);
      }
    }
  }
  return found;
}

describe('web/src import graph', () => {
  it('has the four folders, each with modules', () => {
    for (const name of ['page', 'element', 'worker', 'shared'])
      assert.ok(modulesUnder(folder(name)).length > 0, `web/src/${name}/ has no modules`);
    const flat = fs.readdirSync(src).filter((f) => /\.m?js$/.test(f));
    assert.deepEqual(
      flat,
      [],
      'every module of web/src lives in page/, element/, worker/ or shared/',
    );
  });

  it("the page and the element reach nothing on the workers' side", () => {
    assert.deepEqual(violations('page', ['worker']), []);
    assert.deepEqual(violations('element', ['worker']), []);
  });

  it('the shared modules import neither side, and the workers no page module', () => {
    assert.deepEqual(violations('shared', ['page', 'element', 'worker']), []);
    assert.deepEqual(violations('worker', ['page', 'element']), []);
  });

  it("keeps each mode's modules in its own folder (page/playground/, page/model/)", () => {
    for (const mode of ['playground', 'model']) {
      const flat = fs.readdirSync(folder('page')).filter((f) => f.startsWith(`${mode}`));
      assert.deepEqual(
        flat.filter((f) => f !== mode),
        [],
        `web/src/page/${mode}/ holds ${mode} mode's modules`,
      );
      assert.ok(fs.existsSync(path.join(src, 'page', mode, `${mode}-page.js`)), `${mode}'s entry`);
    }
  });

  it("sees the imports it checks (the pages' entries reach the shell and the shared state)", () => {
    const reached = reachable(path.join(src, 'page/playground/playground-page.js'));
    for (const f of ['page/shell.js', 'shared/playground-state.js', 'shared/diff-image.js'])
      assert.ok(reached.has(path.join(src, f)), f);
    const worker = reachable(path.join(src, 'worker/attention-engine.js'));
    assert.ok(worker.has(path.join(src, 'worker/matrix-view.js')));
  });
});

// Every module specifier of a source: static imports and re-exports, import 'x', import('x').
const SPECIFIER =
  /(?:^|\n)[ \t]*(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|\n)[ \t]*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const specifiers = (source) => [...source.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3]);

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// The build's generated modules (the core's catalogue, tools/write-catalogue.mjs) are no part of
// the package; the page reads them where the build writes them.
const GENERATED = path.join(root, 'build/generated') + path.sep;

/** Why a specifier in `file` (under web/src) reaches past the package's public entries; null if it does not. */
function forbidden(file, spec) {
  if (spec.startsWith('.')) {
    const target = path.resolve(path.dirname(file), spec);
    if (target.startsWith(src + path.sep) || target.startsWith(GENERATED)) return null;
    return `${spec} is ${path.relative(root, target)}, outside web/src: import the package by its name (hirope, hirope/<entry>)`;
  }
  const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  if (name === pkg.name) {
    const entry = `.${spec.slice(name.length)}`;
    return Object.hasOwn(pkg.exports, entry)
      ? null
      : `${spec} is not one of the package's entry points (package.json "exports")`;
  }
  // Other packages are the bundler's to find (the samples' code text names some that are none).
  return spec.startsWith('node:') ? `${spec}: the page runs in a browser` : null;
}

describe('web/src imports the package by its public entry points', () => {
  it('no module imports dist/, wasm/, lib/, training/ or an entry the package does not export', () => {
    const found = [];
    for (const file of modulesUnder(src))
      for (const spec of specifiers(code(file))) {
        const why = forbidden(file, spec);
        if (why) found.push(`${path.relative(root, file)}: ${why}`);
      }
    assert.deepEqual(found, []);
  });

  it('refuses the imports it should (the check itself)', () => {
    const page = path.join(src, 'page/x.js');
    const wrong = [
      "import { simdSupported } from '../../../dist/api.js';",
      "export * from '../../../wasm/colormap.js';",
      "import { summary } from '../../../training/eval/stats.mjs';",
      "import { presetSchemes } from '../../../lib/model-eval.mjs';",
      "const m = await import('../../../dist/grammars.js');",
      "import { Runtime } from 'hirope/dist/runtime.js';",
      "import fs from 'node:fs';",
    ];
    for (const line of wrong) assert.equal(specifiers(line).length, 1, line);
    for (const line of wrong) assert.ok(forbidden(page, specifiers(line)[0]), line);
    const right = [
      "import { LUTS } from 'hirope/colormap';",
      "import init from 'hirope';",
      "import { EditorView } from '@codemirror/view';",
      "import { CATALOGUE } from '../../../build/generated/catalogue.js';",
      "import { PairClient } from '../page/worker-requests.js';",
    ];
    for (const line of right) assert.equal(forbidden(page, specifiers(line)[0]), null, line);
  });

  it("each hirope entry the page names resolves to a file of the package's dist/", () => {
    const names = new Set();
    for (const file of modulesUnder(src))
      for (const spec of specifiers(code(file)))
        if (spec === pkg.name || spec.startsWith(`${pkg.name}/`)) names.add(spec);
    assert.ok(names.has('hirope/colormap') && names.has('hirope/protocol'), [...names].join(', '));
    for (const spec of names) {
      const file = fileURLToPath(import.meta.resolve(spec));
      assert.ok(file.startsWith(path.join(root, 'dist') + path.sep), `${spec} -> ${file}`);
      assert.ok(fs.existsSync(file), `${spec} -> ${file} (npm run build)`);
    }
  });
});
