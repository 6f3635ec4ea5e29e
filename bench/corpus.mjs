// Real code for the analysis benchmark: what this machine has per language, up to `mb` MB each.
// Sources: the Python standard library; JavaScript and TypeScript from node_modules; the
// tree-sitter C runtime and /usr/include for C; libstdc++ and Eigen headers for C++; the JDK's
// src.zip for Java; Debian's golang-1.19-src for Go and librust-*-dev crates for Rust (both
// installed by scripts/setup.sh). TSX has no corpus here; the TypeScript files stand in.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { walk, pythonStdlib, goSources, rustSources } from '../tools/files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function take(files, budget) {
  const out = [];
  let total = 0;
  for (const file of files) {
    const size = fs.statSync(file).size;
    if (size === 0 || size > 200 * 1024) continue;
    out.push(fs.readFileSync(file, 'utf8'));
    total += size;
    if (total >= budget) break;
  }
  return out;
}

function javaSources() {
  let jdks = [];
  try {
    jdks = fs.readdirSync('/usr/lib/jvm').sort();
  } catch {
    return [];
  }
  const zips = jdks.flatMap((d) => [`/usr/lib/jvm/${d}/lib/src.zip`, `/usr/lib/jvm/${d}/src.zip`]);
  const zip = zips.find((z) => fs.existsSync(z)); // dangling links (no openjdk-17-source) fail
  if (!zip) return [];
  const dir = path.join(root, 'build/corpus/java');
  if (!fs.existsSync(dir)) {
    execFileSync('python3', [
      '-c',
      `import zipfile,sys
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith('java.base/java/util/') and n.endswith('.java'):
        z.extract(n, sys.argv[2])`,
      zip,
      dir,
    ]);
  }
  return walk(dir, (n) => n.endsWith('.java'));
}

export function corpora(mb) {
  const budget = mb * 1e6;
  const nm = path.join(root, 'node_modules');
  const stdlib = pythonStdlib();
  const ts = walk(nm, (n) => n.endsWith('.ts') || n.endsWith('.mts'));
  const lists = {
    python: [
      walk(stdlib, (n) => n.endsWith('.py')).filter((p) => !p.includes('site-packages')),
      'the Python standard library',
    ],
    javascript: [walk(nm, (n) => n.endsWith('.js')), 'node_modules/**/*.js'],
    typescript: [ts, 'node_modules/**/*.ts'],
    tsx: [ts, 'no TSX corpus on this machine: the TypeScript files, parsed with the TSX grammar'],
    c: [
      [
        ...walk(path.join(nm, 'tree-sitter/vendor/tree-sitter/lib/src'), (n) => n.endsWith('.c')),
        ...walk('/usr/include', (n) => n.endsWith('.h')),
      ],
      'tree-sitter runtime sources and /usr/include',
    ],
    cpp: [
      [...walk('/usr/include/c++', () => true), ...walk('/usr/include/eigen3', () => true)],
      'libstdc++ and Eigen headers',
    ],
    java: [javaSources(), 'java.util from the JDK src.zip'],
    go: [goSources(), 'Go standard library (golang-1.19-src)'],
    rust: [rustSources(), 'Rust crates (librust-*-dev)'],
  };
  return Object.entries(lists).map(([language, [files, source]]) => {
    const texts = take(files, budget);
    const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
    const note = bytes < 1e6 ? `only ${(bytes / 1e6).toFixed(2)} MB found (${source})` : source;
    return { language, files: texts, note };
  });
}
