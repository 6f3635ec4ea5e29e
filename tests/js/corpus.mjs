// Real code nobody here wrote: the Python standard library on this machine and JavaScript from
// installed npm packages, in a fixed order, up to a byte budget.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function walk(dir, ext, out, skip = () => false) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !skip(p)) walk(p, ext, out, skip);
    else if (e.isFile() && e.name.endsWith(ext)) out.push(p);
  }
  return out;
}

export function pythonStdlib() {
  return execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
}

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
  return walk(pythonStdlib(), '.py', [], (p) => /site-packages|__pycache__/.test(p));
}

export function javascriptFiles() {
  return walk(path.join(root, 'node_modules'), '.js', [], (p) => p.includes(`${path.sep}.bin`));
}
