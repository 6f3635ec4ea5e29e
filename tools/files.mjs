// File lists for tests and benchmarks: a sorted walk of a folder tree (missing folders give none).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export function walk(dir, keepFile, skipDir = () => false, out = []) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith('.') && e.name !== '__pycache__' && !skipDir(p))
      walk(p, keepFile, skipDir, out);
    else if (e.isFile() && keepFile(e.name)) out.push(p);
  }
  return out;
}

export function pythonStdlib() {
  return execFileSync(
    'python3',
    ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'],
    { encoding: 'utf8' },
  ).trim();
}

// Go and Rust sources from Debian packages that scripts/setup.sh installs (golang-1.19-src;
// librust-regex-dev, librust-syn-dev, librust-serde-dev and the crates they pull in).
export function goSources() {
  return walk('/usr/share/go-1.19/src', (n) => n.endsWith('.go') && !n.endsWith('_test.go'));
}

export function rustSources() {
  return walk('/usr/share/cargo/registry', (n) => n.endsWith('.rs'));
}
