// hirope.eval, the model evaluation as a Dask job (python/hirope/eval.py), against the JavaScript
// evaluation it mirrors (lib/model-eval.mjs): tests/python/test_eval.py with Debian's Python
// (python3-dask, python3-distributed, numpy). With the native module built (build/python) it runs
// the job on it (the synchronous scheduler and a LocalCluster of 2 workers); without it, the
// presets, windows, recall classes and the job with the JavaScript model standing in for it.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('hirope.eval gives the numbers of lib/model-eval.mjs on held-out windows', () => {
  const env = {
    ...process.env,
    PYTHONPATH: [path.join(root, 'build/python'), process.env.PYTHONPATH]
      .filter(Boolean)
      .join(path.delimiter),
  };
  const run = spawnSync('/usr/bin/python3', ['-m', 'unittest', '-v', 'tests.python.test_eval'], {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: 240000,
  });
  assert.equal(run.error, undefined, `/usr/bin/python3 could not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^OK( \(skipped=\d+\))?$/m);
});
