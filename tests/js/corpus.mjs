// Real code nobody here wrote: the Python standard library on this machine, JavaScript from
// installed npm packages, and Go and Rust from Debian's source packages (scripts/setup.sh), in a
// fixed order, up to a byte budget.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk, pythonStdlib, goSources, rustSources } from '../../tools/files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Files with their text, skipping huge ones, until `budget` bytes.
export function take(files, budget, maxFile = 256 * 1024) {
  const out = [];
  let total = 0;
  for (const file of files) {
    const size = fs.statSync(file).size;
    if (size === 0 || size > maxFile) continue;
    if (total + size > budget) break;
    out.push({ file, text: fs.readFileSync(file, 'utf8') });
    total += size;
  }
  return out;
}

export function pythonFiles() {
  return walk(
    pythonStdlib(),
    (n) => n.endsWith('.py'),
    (p) => p.includes('site-packages'),
  );
}

export function javascriptFiles() {
  return walk(path.join(root, 'node_modules'), (n) => n.endsWith('.js'));
}

export const goFiles = goSources;
export const rustFiles = rustSources;
