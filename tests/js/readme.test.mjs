// The README's runnable examples run as they stand (against the built package).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('README examples', () => {
  it('run without errors', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/<!-- runnable -->\n```js\n([\s\S]*?)```/g)].map(
      (m) => m[1],
    );
    assert.ok(blocks.length >= 1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-readme-'));
    for (const [i, code] of blocks.entries()) {
      const file = path.join(dir, `example${i}.mjs`);
      const dist = path.join(root, 'dist/index.js');
      fs.writeFileSync(file, code.replaceAll("from 'hirope'", `from '${dist}'`));
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
      assert.match(out, /headDim must be a positive even integer, got 15/);
    }
  });

  it("lists every Debian package scripts/setup.sh installs (setup.sh's list is the source)", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const setup = fs.readFileSync(path.join(root, 'scripts/setup.sh'), 'utf8');
    const list = setup.match(/^APT_PACKAGES=\(([^)]*)\)/m);
    assert.ok(list, 'APT_PACKAGES in scripts/setup.sh');
    const packages = list[1].split(/\s+/).filter(Boolean);
    assert.ok(packages.includes('python3-setuptools') && packages.includes('python3-wheel'));
    const intro = readme.slice(0, readme.indexOf('Other commands:'));
    assert.deepEqual(
      packages.filter((name) => !intro.includes(`\`${name}\``)),
      [],
    );
  });
});
