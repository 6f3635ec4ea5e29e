#!/usr/bin/env node
// The long inputs that the Model-mode browser tests (tests/browser/model*.test.mjs) no longer run,
// timed through the API the page's workers call: the far-recall baselines (sliding window and
// truncation over the byte model's training length) on the whole tests/fixtures/model/sample.py
// (2,109 bytes; the test reads its first 1,600), and generation of the page's default 256 bytes
// under both models' first-view schemes (the test asks 64). Medians over repeats, in ms, with the
// far-recall bits/byte and the bytes generated, so a change in either shows next to the time.
//
//   node bench/model-mode-long.mjs [--repeats 3]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { recallClasses, RECALL_CLASSES } from '../dist/index.js';
import { normalizeWith } from '../web/src/shared/link-state.js';
import { MODEL_DEFAULTS, TOKEN_MODEL_DEFAULTS } from '../web/src/shared/model-state.js';
import { modelOptionsFor } from '../web/src/worker/model-engine.js';
import { LONG_PYTHON_SAMPLE } from '../web/src/shared/model-samples.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = process.argv.indexOf('--repeats');
const repeats = arg > 0 ? Number(process.argv[arg + 1]) : 3;

function median(f) {
  const times = [];
  let result;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    result = f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], result };
}

const hr = await init();
const byteModel = await hr.model.load({ name: 'pybyte' });
const tokenModel = await hr.model.load({ name: 'pyjs-llama2' });

// Far-recall baselines on the whole fixture.
const L = byteModel.config.trainingContext;
const bytes = new TextEncoder().encode(
  fs.readFileSync(path.join(root, 'tests/fixtures/model/sample.py'), 'utf8'),
);
const recall = recallClasses(bytes, L);
const far = RECALL_CLASSES.indexOf('far');
for (const type of ['sliding-window', 'truncate']) {
  const state = normalizeWith(MODEL_DEFAULTS, { a: { type, window: L } });
  const { ms, result } = median(() => byteModel.loss(bytes, modelOptionsFor(state.a, 'python')));
  let sum = 0;
  let count = 0;
  for (let t = 1; t <= result.losses.length; t++)
    if (recall[t] === far) {
      sum += result.losses[t - 1];
      count++;
    }
  console.log(
    `pybyte ${type} W ${L}, ${bytes.length} bytes: ${ms.toFixed(0)} ms, ${(sum / count).toFixed(3)} bits/byte on ${count} far-recall bytes`,
  );
}

// Generation of 256 bytes after a 900-byte prompt, both sides of each model's first view.
const prompt = new TextEncoder().encode(LONG_PYTHON_SAMPLE.slice(0, 900));
for (const [name, model, defaults] of [
  ['pybyte', byteModel, MODEL_DEFAULTS],
  ['pyjs-llama2', tokenModel, TOKEN_MODEL_DEFAULTS],
]) {
  const state = normalizeWith(defaults, { ...defaults, maxBytes: 256, temperature: 0.8, seed: 1 });
  for (const side of ['a', 'b']) {
    const { ms, result } = median(() =>
      model.generate(prompt, {
        ...modelOptionsFor(state[side], 'python'),
        maxBytes: 256,
        temperature: 0.8,
        seed: 1,
      }),
    );
    console.log(
      `${name} ${side} generate 256 bytes: ${ms.toFixed(0)} ms, ${result.bytes.length} bytes`,
    );
  }
}
byteModel.dispose();
tokenModel.dispose();
