// The playground's folders by process (docs/architecture.md, docs/playground.md): the page's
// thread (web/src/page/, and the element in web/src/element/) imports nothing from the workers'
// side (web/src/worker/), whose engines it only talks to through the worker protocol in the
// package; the pure modules both sides use (web/src/shared/) import neither side; the workers'
// side imports no page module. Checked on the import graph read from the sources, transitively.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { imports, reachable } from './module-graph.mjs';

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

  it("sees the imports it checks (the pages' entries reach the shell and the shared state)", () => {
    const reached = reachable(path.join(src, 'page/playground.js'));
    for (const f of ['page/shell.js', 'shared/playground-state.js', 'shared/diff-image.js'])
      assert.ok(reached.has(path.join(src, f)), f);
    const worker = reachable(path.join(src, 'worker/attention-engine.js'));
    assert.ok(worker.has(path.join(src, 'worker/matrix-view.js')));
  });
});
