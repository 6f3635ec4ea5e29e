// Builds <hirope-attention> for the npm package (hirope/element): dist/element.js (the element,
// web/src/element/package.js) and dist/element-worker.js (its worker, web/src/worker/main.js on
// web/src/element/worker-init.js), each one self-contained ES module beside the .wasm files, and
// dist/element-assets/, one module per grammar and vocabulary that registers its URL as
// new URL('../file', import.meta.url), so that a bundled page copies only what it imports.
// dist/element.js goes through the page's bundler, so it keeps the package's comments: without
// /* @vite-ignore */ Vite folds the import(variable) of node:fs (Node only) into a literal and warns
// that it externalized it. The worker is copied as it is, so it is fully minified.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY_KEY } from '../web/src/shared/assets.js';
import { TOKENIZER_FILES, grammarLanguage } from '../dist/runtime.js';

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

// One module per asset: [module name, the file under dist/, the name the element asks for].
const assets = [['scalar', 'hirope-scalar.wasm', 'hirope-scalar.wasm']];
for (const file of fs.readdirSync(dist).sort()) {
  const language = grammarLanguage(file);
  if (language) assets.push([`language-${language}`, file, file]);
}
for (const [name, file] of Object.entries(TOKENIZER_FILES))
  assets.push([`tokenizer-${name}`, `data/${file}`, `data/${file}`]);
const out = path.join(dist, 'element-assets');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
for (const [module, file, name] of assets)
  fs.writeFileSync(
    path.join(out, `${module}.js`),
    `// hirope/element: where ${file} is served (scripts/build-element.mjs).\n` +
      `const key = Symbol.for(${JSON.stringify(REGISTRY_KEY)});\n` +
      `globalThis[key] ??= new Map();\n` +
      `globalThis[key].set(${JSON.stringify(name)}, new URL(${JSON.stringify(`../${file}`)}, import.meta.url));\n`,
  );
fs.copyFileSync(path.join(root, 'web/src/element/element.d.ts'), path.join(dist, 'element.d.ts'));
console.log(
  `build: dist/element.js, dist/element-worker.js and ${assets.length} asset modules ready`,
);
