// Builds <hirope-attention> for the npm package (hirope/element): dist/element.js (the element,
// web/src/element/package.js) and dist/element-worker.js (its worker, web/src/worker/main.js on
// web/src/element/worker-init.js), each one self-contained ES module beside the .wasm files, and
// dist/assets/, one module per grammar, vocabulary, model and gallery config
// (hirope/assets/<kind>/<name>) that registers its URL (dist/assets.js) as
// new URL('../file', import.meta.url), so that a bundled page copies only what it imports;
// hirope/lean and hirope/element read them.
// dist/element.js goes through the page's bundler, so it keeps the package's comments: without
// /* @vite-ignore */ Vite folds the import(variable) of node:fs (Node only) into a literal and warns
// that it externalized it. The worker is copied as it is, so it is fully minified. web/src names
// the package by its entry points (hirope/lean, hirope/protocol, ...), resolved as its own name.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSET_REGISTRY_KEY } from '../dist/assets.js';
import { grammarLanguage } from '../dist/runtime.js';
import { TOKENIZER_FILES, MODEL_FILES, CONFIG_GALLERY } from '../dist/registry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minifyIdentifiers: true,
  logLevel: 'warning',
};
// The element's worker loads init() without the full entry's data-file literals.
const leanInit = {
  name: 'element-worker-init',
  setup(build) {
    build.onResolve({ filter: /\/hirope-init\.js$/ }, () => ({
      path: path.join(root, 'web/src/element/worker-init.js'),
    }));
  },
};
await esbuild.build({
  ...common,
  entryPoints: ['web/src/element/package.js'],
  outfile: path.join(dist, 'element.js'),
});
await esbuild.build({
  ...common,
  entryPoints: ['web/src/worker/main.js'],
  outfile: path.join(dist, 'element-worker.js'),
  minifyWhitespace: true,
  legalComments: 'none',
  plugins: [leanInit],
});

// One module per asset: [module name, the files under dist/ it registers, by their names there].
// The scalar build (browsers without WebAssembly SIMD) and the core build (init({ analysis: false })
// in hirope/lean) are each a loader and its .wasm.
const assets = [
  ['scalar', 'hirope-scalar.mjs', 'hirope-scalar.wasm'],
  [
    'core',
    'hirope-core-simd.mjs',
    'hirope-core-simd.wasm',
    'hirope-core-scalar.mjs',
    'hirope-core-scalar.wasm',
  ],
];
for (const file of fs.readdirSync(dist).sort()) {
  const language = grammarLanguage(file);
  if (language) assets.push([`language-${language}`, file]);
}
for (const [name, file] of Object.entries(TOKENIZER_FILES))
  assets.push([`tokenizer-${name}`, `data/${file}`]);
for (const [name, file] of Object.entries(MODEL_FILES))
  assets.push([`model-${name}`, `data/${file}`]);
const out = path.join(dist, 'assets');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
const key = JSON.stringify(ASSET_REGISTRY_KEY);
// One asset module: its first line says what it registers; each entry is [file, value source].
const writeModule = (name, says, entries) =>
  fs.writeFileSync(
    path.join(out, `${name}.js`),
    `// hirope/assets/${name.replace('-', '/')}: ${says} (scripts/build-element.mjs).\n` +
      `const key = Symbol.for(${key});\n` +
      'globalThis[key] ??= new Map();\n' +
      entries
        .map(([f, value]) => `globalThis[key].set(${JSON.stringify(f)}, ${value});\n`)
        .join(''),
  );
for (const [module, ...files] of assets)
  writeModule(
    module,
    `where ${files.join(', ')} ${files.length > 1 ? 'are' : 'is'} served`,
    files.map((f) => [f, `new URL(${JSON.stringify(`../${f}`)}, import.meta.url)`]),
  );
// The real models' gallery: an element's model="<id>" reads data/configs/<id>.json, a few KB,
// which its module carries as text (a bundler would inline it as a data: URL, which a CSP blocks).
for (const { id } of CONFIG_GALLERY) {
  const file = `data/configs/${id}.json`;
  const text = fs.readFileSync(path.join(root, 'models/configs', `${id}.json`), 'utf8');
  writeModule(`config-${id}`, `the text of ${file}`, [[file, `{ text: ${JSON.stringify(text)} }`]]);
}
fs.copyFileSync(path.join(root, 'web/src/element/element.d.ts'), path.join(dist, 'element.d.ts'));
// The real models' gallery, which an element's model="<id>" reads beside its worker.
fs.cpSync(path.join(root, 'models/configs'), path.join(dist, 'data/configs'), { recursive: true });
console.log(
  `build: dist/element.js, dist/element-worker.js and ${assets.length + CONFIG_GALLERY.length} asset modules ready`,
);
