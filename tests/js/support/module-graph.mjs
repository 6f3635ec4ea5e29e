// The import graph of the package's JS modules, read from their source: static imports and
// re-exports, and dynamic import('./...'), of relative paths.
import fs from 'node:fs';
import path from 'node:path';

const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)\s[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|\n)[ \t]*import\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Source without comments: whole-line // comments first (they may hold a '/*'), then block comments. */
export function code(file) {
  return fs
    .readFileSync(file, 'utf8')
    .replace(/^[ \t]*\/\/.*$/gm, '')
    .replace(/\/\*[\s\S]*?\*\//g, '');
}

/** [{ target (absolute path), dynamic }] for one file. */
export function imports(file) {
  const out = [];
  for (const m of code(file).matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    out.push({ target: path.resolve(path.dirname(file), spec), dynamic: m[3] !== undefined });
  }
  return out;
}

/** Every file reachable from entry (itself included), by static imports and optionally dynamic ones. */
export function reachable(entry, { dynamic = false } = {}) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of imports(file))
      if (dynamic || !i.dynamic) if (fs.existsSync(i.target)) visit(i.target);
  };
  visit(path.resolve(entry));
  return seen;
}
