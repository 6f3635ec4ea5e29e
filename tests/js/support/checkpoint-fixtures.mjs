// The small checkpoints of every architecture, with transformers' float64 outputs
// (checkpoint-fixtures.py), written into a fresh temporary folder whose path this returns; the
// caller removes it. Shared by tests/js/checkpoint.test.mjs and the WebGPU runs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'checkpoint-fixtures.py');

export function writeCheckpointFixtures(prefix = 'hirope-checkpoints-') {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  execFileSync('/usr/bin/python3', [script, folder]);
  return folder;
}
