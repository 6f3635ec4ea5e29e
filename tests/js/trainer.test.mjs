// The trainer's copy-teaching helpers (training/copying.py), tested in Python with the standard
// library only (tests/python/test_copying.py): the rewrites, the copy-control probes and the loss
// positions that teach copying; and its PyTorch parts (tests/python/test_train.py, with Debian's
// python3-torch, which scripts/setup.sh installs): the step loss over a reduced output vocabulary,
// the seeded previous-token head and the attention diagnostic. Run here so that npm test covers
// them.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('training/copying.py passes its unit tests', () => {
  // From the repository root, as modules: the tests import the training package.
  const run = spawnSync('python3', ['-m', 'unittest', '-v', 'tests.python.test_copying'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(run.error, undefined, `python3 could not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^OK$/m);
});

it("training/train.py, model.py, data.py and circuits.py pass their unit tests (Debian's PyTorch)", () => {
  // Debian's interpreter: its python3-torch is not visible to other Pythons on the PATH.
  const run = spawnSync('/usr/bin/python3', ['-m', 'unittest', '-v', 'tests.python.test_train'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(run.error, undefined, `/usr/bin/python3 could not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^OK$/m);
});
