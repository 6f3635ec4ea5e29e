// Builds the static site (playground, embeddable element, sample article) into build/site/:
// one esbuild pass over the page, worker and element entries with shared chunks, and the hirope
// WebAssembly and tokenizer data files beside them (the package names them relative to itself).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// HIROPE_SITE builds elsewhere (parallel work on one checkout); web/serve.mjs reads the same variable.
const out = process.env.HIROPE_SITE ? path.resolve(process.env.HIROPE_SITE) : path.join(root, 'build/site');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

await esbuild.build({
  absWorkingDir: root,
  entryPoints: {
    playground: 'web/src/playground.js',
    'model-page': 'web/src/model-page.js',
    worker: 'web/src/worker.js',
    'hirope-attention': 'web/src/element.js',
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'linked',
  outdir: out,
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});

for (const file of ['index.html', 'model.html', 'article.html', 'style.css', 'article.css']) fs.copyFileSync(path.join(root, 'web', file), path.join(out, file));
const dist = path.join(root, 'dist');
for (const file of fs.readdirSync(dist)) if (file.endsWith('.wasm')) fs.copyFileSync(path.join(dist, file), path.join(out, file));
fs.cpSync(path.join(dist, 'data'), path.join(out, 'data'), { recursive: true });
const size = fs.readdirSync(out).reduce((sum, f) => sum + (fs.statSync(path.join(out, f)).isFile() ? fs.statSync(path.join(out, f)).size : 0), 0);
console.log(`build: site ready in ${path.relative(root, out)} (${(size / 1048576).toFixed(1)} MB)`);
