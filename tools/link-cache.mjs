#!/usr/bin/env node
// A cache for the WebAssembly builds' links, as ccache is for their compiles: CMake runs every
// em++/emcc link through it (CMAKE_<LANG>_LINKER_LAUNCHER, CMakeLists.txt). Emscripten's links
// are most of a build whose compiles ccache serves (link-time optimisation of the tokenizers and
// binaryen's -O3: about 43 CPU-s per WebAssembly build on the 2-core CI machine, where every
// compile is a cache hit), and they give the same bytes for the same inputs, so a link whose
// inputs were linked before is served from the cache instead.
//
// The key is everything the link reads: its arguments, with each one that names a file (objects,
// static libraries, response files and the files they list, --pre-js and the like) replaced by its
// contents' hash and the checkout's path by a placeholder (so a fresh clone elsewhere hits);
// Emscripten's version; and the EMCC_/EM_ environment. The entry holds the files the link wrote
// beside its output with the output's stem (hirope-simd.mjs and hirope-simd.wasm).
//
// Usage: node tools/link-cache.mjs <source dir> <linker's path> <arguments...>
// HIROPE_LINK_CACHE=0 links without the cache; HIROPE_LINK_CACHE_DIR names its directory
// (default $XDG_CACHE_HOME/hirope/link or ~/.cache/hirope/link). The least recently used entries
// are removed past 1 GiB (HIROPE_LINK_CACHE_MAX_BYTES).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAX_BYTES = Number(process.env.HIROPE_LINK_CACHE_MAX_BYTES) || 1 << 30;
const VERSION = 'link-cache 2';

const [sourceDir, linker, ...args] = process.argv.slice(2);
if (!sourceDir || !linker) {
  process.stderr.write('usage: link-cache.mjs <source dir> <linker> <arguments...>\n');
  process.exit(2);
}

/** Runs the link itself; exits with its status when it fails. */
function link() {
  const result = spawnSync(linker, args, { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`link-cache: could not run ${linker}: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const output = args[args.indexOf('-o') + 1];
const cacheDir =
  process.env.HIROPE_LINK_CACHE_DIR ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hirope/link');
if (process.env.HIROPE_LINK_CACHE === '0' || !args.includes('-o') || !output) {
  link();
  process.exit(0);
}

const fileHash = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const isFile = (file) => {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** A response file's arguments, as CMake writes them: separated by spaces, quoted where needed. */
function responseArguments(text) {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2],
  );
}

const key = crypto.createHash('sha256');
key.update(`${VERSION}\n`);
// The linker's own version: Emscripten's version file beside the wrapper that the linker's path
// (as CMake passes it, /usr/bin/em++) resolves to.
const linkerPath = fs.realpathSync(linker);
const versionFile = path.join(path.dirname(linkerPath), 'emscripten-version.txt');
if (isFile(versionFile)) key.update(`emscripten ${fs.readFileSync(versionFile, 'utf8').trim()}\n`);
key.update(`linker ${path.basename(linker)} ${fileHash(linkerPath)}\n`);
for (const name of Object.keys(process.env).sort())
  if (/^(EMCC_|EM_)/.test(name)) key.update(`env ${name}=${process.env[name]}\n`);
const placeholder = (arg) => arg.split(sourceDir).join('<source>');
const hashArgument = (arg, depth) => {
  if (arg.startsWith('@') && isFile(arg.slice(1)) && depth === 0) {
    key.update(`response ${placeholder(arg.slice(1))}\n`);
    for (const inner of responseArguments(fs.readFileSync(arg.slice(1), 'utf8')))
      hashArgument(inner, 1);
  } else if (isFile(arg) && arg !== output) {
    key.update(`file ${fileHash(arg)}\n`);
  } else {
    key.update(`arg ${placeholder(arg)}\n`);
  }
};
for (const arg of args) hashArgument(arg, 0);
const digest = key.digest('hex');
const entry = path.join(cacheDir, digest);

const outputDir = path.dirname(output);
const stem = path.basename(output).replace(/\.[^.]*$/, '');

/**
 * Puts the entry's files in place (each checked against the hash it was stored with, then renamed
 * over its output, so a reader never sees half a file); false, with nothing changed, when the
 * entry cannot be read or does not match.
 */
function restore() {
  const temporaries = [];
  try {
    const files = JSON.parse(fs.readFileSync(path.join(entry, 'files.json'), 'utf8'));
    for (const { name, sha256 } of files) {
      const temporary = path.join(outputDir, `.${name}.link-cache-${process.pid}`);
      temporaries.push([temporary, path.join(outputDir, name)]);
      fs.copyFileSync(path.join(entry, name), temporary);
      if (fileHash(temporary) !== sha256) throw new Error(`${name} does not match its hash`);
      fs.chmodSync(temporary, fs.statSync(path.join(entry, name)).mode);
    }
    for (const [temporary, target] of temporaries) fs.renameSync(temporary, target);
    return true;
  } catch (error) {
    for (const [temporary] of temporaries) fs.rmSync(temporary, { force: true });
    process.stderr.write(`link-cache: linking again (${error.message})\n`);
    fs.rmSync(entry, { recursive: true, force: true });
    return false;
  }
}

if (fs.existsSync(path.join(entry, 'files.json')) && restore()) {
  const now = new Date();
  fs.utimesSync(entry, now, now);
  process.stdout.write(`link-cache: ${output} from the cache (${digest.slice(0, 12)})\n`);
  process.exit(0);
}

const started = Date.now();
link();
// The files this link wrote: the output and its siblings with the same stem written since it began
// (Emscripten's .wasm beside its .mjs or .cjs).
const written = fs
  .readdirSync(outputDir)
  .filter(
    (name) =>
      (name === path.basename(output) || name.startsWith(`${stem}.`)) &&
      isFile(path.join(outputDir, name)) &&
      fs.statSync(path.join(outputDir, name)).mtimeMs >= started - 1000,
  );
if (!written.includes(path.basename(output))) process.exit(0);
try {
  fs.mkdirSync(cacheDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(cacheDir, '.staging-'));
  for (const name of written) {
    fs.copyFileSync(path.join(outputDir, name), path.join(staging, name));
    fs.chmodSync(path.join(staging, name), fs.statSync(path.join(outputDir, name)).mode);
  }
  fs.writeFileSync(
    path.join(staging, 'files.json'),
    JSON.stringify(written.map((name) => ({ name, sha256: fileHash(path.join(staging, name)) }))),
  );
  try {
    fs.renameSync(staging, entry);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true }); // another build stored the same link
  }
  evict();
} catch (error) {
  // A cache that cannot be written costs only the next link's time.
  process.stderr.write(`link-cache: not stored (${error.message})\n`);
}

/** Removes the least recently used entries past MAX_BYTES, and stagings left a day ago. */
function evict() {
  for (const name of fs.readdirSync(cacheDir))
    if (
      name.startsWith('.staging-') &&
      Date.now() - fs.statSync(path.join(cacheDir, name)).mtimeMs > 86400e3
    )
      fs.rmSync(path.join(cacheDir, name), { recursive: true, force: true });
  const entries = fs
    .readdirSync(cacheDir)
    .filter((name) => /^[0-9a-f]{64}$/.test(name))
    .map((name) => {
      const dir = path.join(cacheDir, name);
      const bytes = fs
        .readdirSync(dir)
        .reduce((sum, file) => sum + fs.statSync(path.join(dir, file)).size, 0);
      return { dir, bytes, used: fs.statSync(dir).mtimeMs };
    })
    .sort((a, b) => b.used - a.used);
  let total = 0;
  for (const { dir, bytes } of entries) {
    total += bytes;
    if (total > MAX_BYTES) fs.rmSync(dir, { recursive: true, force: true });
  }
}
