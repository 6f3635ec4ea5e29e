// The package as users get it: `npm pack` of this checkout, installed offline into a fresh
// project. Shared by the tests in tests/package.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A file of one of this checkout's npm packages (the bundlers and tsc the tests drive). */
export const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);
/** The strict Content Security Policy the test pages are served with. */
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self' 'unsafe-inline'";
/** A tsconfig.json for `tsc -p` over one file: --strict, Node's module resolution. */
export const tsconfig = (file) =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['es2022', 'dom'],
      skipLibCheck: false,
    },
    files: [file],
  });

// Packs the checkout into `dir`; returns the tarball's path. scripts/test.sh packs once for the
// whole run and names that tarball in $HIROPE_PACKED_TARBALL (read only: each test installs it
// into its own project), so that the four files here do not pack the same checkout four times.
export function packTarball(dir) {
  const shared = process.env.HIROPE_PACKED_TARBALL;
  if (shared) {
    if (!fs.existsSync(shared)) throw new Error(`$HIROPE_PACKED_TARBALL names no file: ${shared}`);
    return shared;
  }
  const out = execFileSync(
    'npm',
    ['pack', '--pack-destination', dir, '--json', '--loglevel=error'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  return path.join(dir, JSON.parse(out)[0].filename);
}

// A fresh ESM project in `dir` (with an empty src/) that has installed `tarball`, offline.
export function installTarball(dir, tarball, name) {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, private: true, type: 'module' }),
  );
  execFileSync(
    'npm',
    [
      'install',
      tarball,
      '--offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
    ],
    { cwd: dir },
  );
  return dir;
}
