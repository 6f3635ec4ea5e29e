// Real code nobody here wrote: the Python standard library on this machine, JavaScript from
// installed npm packages, and Go and Rust from Debian's source packages (scripts/setup.sh), in a
// fixed order, up to a byte budget.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk, pythonStdlib, goSources, rustSources } from '../../../tools/files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

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

// The main .js files of the installed packages that are CommonJS or UMD (they assign to
// `module.exports`/`exports`, or test `define.amd`) and define a function, in package-name order,
// up to `count`: code as a tool builder meets it, written for require() or bundled. (A main file
// that only exports data, such as color-name's table, has no unit to compare.)
export function commonJsFiles(count = 49) {
  const modules = path.join(root, 'node_modules');
  const packages = [];
  for (const name of fs.readdirSync(modules).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(path.join(modules, name)).sort())
        packages.push(path.join(modules, name, sub));
    } else packages.push(path.join(modules, name));
  }
  const out = [];
  for (const dir of packages) {
    if (out.length >= count) break;
    let main;
    try {
      main = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).main || 'index.js';
    } catch {
      continue;
    }
    let file = path.join(dir, main);
    if (!file.endsWith('.js') && fs.existsSync(`${file}.js`)) file = `${file}.js`;
    else if (fs.existsSync(path.join(file, 'index.js'))) file = path.join(file, 'index.js');
    if (!file.endsWith('.js') || !fs.existsSync(file) || !fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    if (text.length < 512 || text.length > 1 << 20) continue;
    if (/module\.exports|\bexports\.|define\.amd/.test(text) && /\bfunction\b|=>/.test(text))
      out.push({ file, text });
  }
  return out;
}
