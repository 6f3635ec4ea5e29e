// The trainer's copy-teaching helpers (training/copying.py), tested in Python with the standard
// library only (tests/python/test_copying.py): the rewrites, the copy-control probes and the loss
// positions that teach copying. Run here so that npm test covers them.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('training/copying.py passes its unit tests', () => {
  const run = spawnSync('python3', ['tests/python/test_copying.py', '-v'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.error, undefined, `python3 could not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^OK$/m);
});
