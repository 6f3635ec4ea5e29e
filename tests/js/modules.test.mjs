// The JS modules of wasm/: an import graph without cycles, each module using the others through
// their public members only, and every module an entry point reaches copied into dist/.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { code, imports, reachable } from './support/module-graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasm = path.join(root, 'wasm');
const dist = path.join(root, 'dist');
// The scripts CMakeLists.txt links into the Emscripten loaders (esm-shim.js: --extern-pre-js), not
// modules of their own; scripts/build.sh leaves out the same ones from dist/.
const linked = new Set(
  [
    ...fs
      .readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8')
      .matchAll(/\$\{CMAKE_SOURCE_DIR\}\/wasm\/([\w.-]+\.js)/g),
  ].map((m) => m[1]),
);
const modules = fs
  .readdirSync(wasm)
  .filter((f) => f.endsWith('.js') && !linked.has(f))
  .sort();
// The libraries behind the facade (api.js's HiRoPE), one per part of the API.
const libraries = modules.filter((m) => m.endsWith('-api.js'));
// Members of the Emscripten module that its C exports get (named by Emscripten with an underscore).
const EMSCRIPTEN_EXPORTS = new Set(['_malloc', '_free']);

describe('wasm/ modules', () => {
  it('import each other without a cycle (static and dynamic imports)', () => {
    const edges = new Map(
      modules.map((m) => [
        m,
        [...new Set(imports(path.join(wasm, m)).map((i) => path.relative(wasm, i.target)))].filter(
          (t) => modules.includes(t),
        ),
      ]),
    );
    const state = new Map(); // 1: on the path, 2: done
    const visit = (m, trail) => {
      if (state.get(m) === 2) return;
      assert.notEqual(state.get(m), 1, `import cycle: ${[...trail, m].join(' -> ')}`);
      state.set(m, 1);
      for (const t of edges.get(m)) visit(t, [...trail, m]);
      state.set(m, 2);
    };
    for (const m of modules) visit(m, []);
    console.log(`# ${[...edges].map(([m, t]) => `${m} -> ${t.join(', ') || '-'}`).join('; ')}`);
    // The leaves import nothing of the API; only the entry points that carry the whole API
    // (package.json's '.', './core' and './lean') import api.js.
    // errors.js is the leaf; marshal.js (reading and checking the caller's values) builds on it only.
    assert.deepEqual(edges.get('errors.js'), []);
    assert.deepEqual(edges.get('marshal.js'), ['errors.js']);
    for (const [m, targets] of edges) {
      if (!['index.js', 'core.js', 'lean.js'].includes(m))
        assert.ok(!targets.includes('api.js'), `${m} imports api.js`);
      // Each library is the facade's alone: none imports another, and only api.js imports them
      // (and the full entries the full module's own, model-config-api.js, to hand to makeInit).
      for (const library of libraries) {
        const handsOver = library === 'model-config-api.js' && ['index.js', 'lean.js'].includes(m);
        if (m !== 'api.js' && !handsOver)
          assert.ok(!targets.includes(library), `${m} imports ${library}`);
      }
    }
    assert.deepEqual(libraries, [
      'analysis-api.js',
      'attention-api.js',
      'model-config-api.js',
      'schemes-api.js',
      'tokenizers-api.js',
    ]);
  });

  it("read no other module's underscore members", () => {
    const bad = [];
    for (const m of modules) {
      const text = code(path.join(wasm, m));
      for (const match of text.matchAll(/([\w$\])]+)\??\.(_[A-Za-z]\w*)/g)) {
        const [, object, member] = match;
        if (object === 'this' || EMSCRIPTEN_EXPORTS.has(member)) continue;
        bad.push(`${m}: ${match[0]}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('are all in dist/, for every entry point', () => {
    for (const script of linked)
      assert.ok(!fs.existsSync(path.join(dist, script)), `dist/${script} (linked, not a module)`);
    for (const entry of ['index.js', 'core.js', 'worker.js', 'worker-client.js']) {
      for (const i of [...reachable(path.join(dist, entry), { dynamic: true })].flatMap((f) =>
        imports(f),
      )) {
        if (i.target.endsWith('.mjs') && !i.target.includes('webgpu')) continue; // the Emscripten loaders
        assert.ok(
          fs.existsSync(i.target),
          `${entry} reaches ${path.relative(dist, i.target)}, missing from dist/`,
        );
      }
    }
    for (const m of modules)
      assert.ok(fs.existsSync(path.join(dist, m)), `dist/${m} (copied by scripts/build.sh)`);
  });

  it('load on their own in Node', async () => {
    for (const m of modules) {
      if (m === 'worker.js') continue; // a worker script: it needs `self`
      await import(path.join(dist, m));
    }
  });
});
