// Builds the static site (playground, embeddable element, sample article) into build/site/:
// one esbuild pass over the page, worker and element entries with shared chunks, and the hirope
// WebAssembly and tokenizer data files beside them (the package names them relative to itself).
// The page imports the package by its name only (hirope, hirope/protocol, ...: package.json
// "exports", tests/js/page-imports.test.mjs), which esbuild resolves as the package's own name.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// HIROPE_SITE builds elsewhere (parallel work on one checkout); web/serve.mjs reads the same variable.
const out = process.env.HIROPE_SITE
  ? path.resolve(process.env.HIROPE_SITE)
  : path.join(root, 'build/site');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// The large files get content-hashed names (name.<hash>.ext), so that a host can serve them as
// immutable; the bundle learns the names through __HIROPE_ASSETS__ (web/src/shared/hashed-assets.js).
const dist = path.join(root, 'dist');
const hashed = (file) => {
  const hash = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dist, file)))
    .digest('hex')
    .slice(0, 10);
  return file.replace(/(\.[a-z]+)$/, `.${hash}$1`);
};
const assets = {};
for (const file of fs.readdirSync(dist)) if (file.endsWith('.wasm')) assets[file] = hashed(file);
for (const file of fs.readdirSync(path.join(dist, 'data')))
  if (file.endsWith('.hrm')) assets[`data/${file}`] = hashed(`data/${file}`);

await esbuild.build({
  absWorkingDir: root,
  entryPoints: {
    playground: 'web/src/page/playground/playground-page.js',
    'model-page': 'web/src/page/model/model-page.js',
    worker: 'web/src/worker/main.js',
    'hirope-attention': 'web/src/element/hirope-attention.js',
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'linked',
  outdir: out,
  define: { __HIROPE_ASSETS__: JSON.stringify(assets) },
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});

// The three pages share one head (web/head.html): each page names its title, stylesheet and script
// in a comment, <!-- #head title="…" stylesheet="…" script="…" -->, which becomes that head.
const head = fs
  .readFileSync(path.join(root, 'web/head.html'), 'utf8')
  .replace(/^<!--[\s\S]*?-->\n/, '');
function renderPage(html, file = 'page') {
  const marker = /^ *<!-- #head ((?:\w+="[^"]*" ?)+)-->\n/m;
  const match = marker.exec(html);
  if (!match) throw new Error(`build-site: ${file} has no <!-- #head ... --> comment`);
  const fields = Object.fromEntries(
    [...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
  const filled = head.replace(/\{(\w+)\}/g, (_, key) => {
    if (fields[key] === undefined)
      throw new Error(`build-site: ${file}'s #head comment has no ${key}`);
    return fields[key];
  });
  return html.replace(match[0], filled);
}
for (const file of ['index.html', 'model.html', 'article.html'])
  fs.writeFileSync(
    path.join(out, file),
    renderPage(fs.readFileSync(path.join(root, 'web', file), 'utf8'), file),
  );
for (const file of ['style.css', 'article.css'])
  fs.copyFileSync(path.join(root, 'web', file), path.join(out, file));
// Tokenizer vocabularies keep their names (the package loads them as data/NAME.bin or .json), and so does
// the model beside its hashed copy (the package's own fallback path).
fs.cpSync(path.join(dist, 'data'), path.join(out, 'data'), { recursive: true });
// Model mode's held-out verdict panel reads the evaluation's own files (models/*-eval.json and the
// training records that name their seeds), and links the report made from them.
fs.mkdirSync(path.join(out, 'data/eval'), { recursive: true });
for (const file of fs.readdirSync(path.join(root, 'models')))
  if (/-(eval|training)\.json$/.test(file))
    fs.copyFileSync(path.join(root, 'models', file), path.join(out, 'data/eval', file));
fs.copyFileSync(path.join(root, 'docs/model-eval.md'), path.join(out, 'model-eval.md'));
// The real models' gallery (models/configs/), which the workers read when a side picks one.
fs.cpSync(path.join(root, 'models/configs'), path.join(out, 'data/configs'), { recursive: true });
for (const [file, name] of Object.entries(assets))
  fs.copyFileSync(path.join(dist, file), path.join(out, name));
const size = fs
  .readdirSync(out)
  .reduce(
    (sum, f) =>
      sum + (fs.statSync(path.join(out, f)).isFile() ? fs.statSync(path.join(out, f)).size : 0),
    0,
  );
console.log(`build: site ready in ${path.relative(root, out)} (${(size / 1048576).toFixed(1)} MB)`);
