#!/usr/bin/env node
// Chooses each scheme's settings on the tuning split (never the report's held-out split) and
// writes them to the model's training/models/NAME/config.json evaluation section, before the held-out run:
//
//   node training/eval/tune.mjs [--model pybyte|pyjs-llama2] [--weights FILE] [--per-file K]
//                               [--max-windows N]
//
// (--model: which shipped model, its weights and its training config; default pybyte. For the
// token model every length below counts tokens.)
//
// The grid and the criterion are fixed here in advance: windows of 8x the training context L,
// and each family's setting with the lowest mean bits/byte over the bytes at positions L and
// beyond (all that lies past the training length). Families: ReRoPE (window), Self-Extend
// (window, group), HiRoPE on units, statements and segments (ratio, window, segment size), YaRN
// (its paper's β range or one scaled to L: β x L / 4096, the original LLaMA context), and the
// sliding window (W). PI and NTK scale by the evaluation length and have nothing to tune;
// truncation is defined by L.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import init from '../../dist/index.js';
import { bucketLosses, windowsOf } from '../../lib/model-eval.mjs';
import { DEFAULT_MODEL, modelByName, readConfig, root, splitFiles } from './data.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const which = modelByName(arg('--model', DEFAULT_MODEL));
const configPath = which.config;
const weights = arg('--weights', which.weights);
const perFile = Number(arg('--per-file', 2));
const maxWindows = Number(arg('--max-windows', Infinity)); // the first N (files in manifest order)

const { files } = splitFiles('tuning', which);
const hr = await init();
const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(weights)) });
const L = model.config.trainingContext;
const unit = model.tokenizer ? 'token' : 'byte';
const length = 8 * L;
const windows = windowsOf(files, length, perFile, model).slice(0, maxWindows);
const edges = [0, L, length];

const quarter = (k) => Math.round((k * L) / 4);
const coverGroup = (w) => Math.max(2, Math.ceil((length - w) / (L - w)));
const grid = {
  rerope: [1, 2, 3].map((k) => ({ scheme: { type: 'rerope', window: quarter(k) } })),
  'self-extend': [1, 2, 3].flatMap((k) =>
    [1, 2].map((g) => ({
      scheme: { type: 'self-extend', window: quarter(k), group: g * coverGroup(quarter(k)) },
    })),
  ),
  yarn: [
    { scheme: { type: 'rope', scaling: { type: 'yarn', factor: 'length/L' } } },
    {
      scheme: {
        type: 'rope',
        scaling: {
          type: 'yarn',
          factor: 'length/L',
          betaFast: (32 * L) / 4096,
          betaSlow: L / 4096,
        },
      },
    },
  ],
  'sliding-window': [2, 4].map((k) => ({ scheme: { type: 'sliding-window', window: quarter(k) } })),
};
for (const hierarchy of ['units', 'statements', 'segments']) {
  grid[`hirope-${hierarchy}`] = [1 / 4, 1 / 3, 1 / 2].flatMap((ratio) =>
    [2, 3].flatMap((k) =>
      (hierarchy === 'segments' ? [32, 64] : [0]).map((segment) => ({
        scheme: { type: 'hirope', ratio, window: quarter(k) },
        hierarchy,
        ...(segment ? { segmentSize: segment } : {}),
      })),
    ),
  );
}

const concrete = (o) =>
  JSON.parse(JSON.stringify(o), (k, v) => (k === 'factor' && v === 'length/L' ? length / L : v));
const started = performance.now();
const tuned = {};
const results = {};
for (const [family, candidates] of Object.entries(grid)) {
  results[family] = [];
  for (const options of candidates) {
    const { sums, counts } = bucketLosses(model, windows, concrete(options), edges);
    const beyond = sums.reduce((a, row) => a + row[1], 0) / (counts[1] * windows.length);
    results[family].push({ options, bitsBeyondL: Number(beyond.toFixed(4)) });
    console.error(`model-tune: ${family} ${JSON.stringify(options)}: ${beyond.toFixed(4)}`);
  }
  const best = results[family].reduce((a, b) => (b.bitsBeyondL < a.bitsBeyondL ? b : a));
  tuned[`${family} (tuned)`] = best.options;
}

const config = readConfig(configPath);
config.evaluation = {
  comment:
    'Written by training/eval/tune.mjs on the tuning split before the held-out report; the report reads tuned.',
  model: model.config.name,
  split: 'tuning',
  files: new Set(windows.map((w) => w.file)).size,
  windows: windows.length,
  length,
  criterion: `lowest mean bits/${unit} over positions ${L}..${length - 1} of ${length}-${unit} windows`,
  seconds: Math.round((performance.now() - started) / 1000),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}`,
  tuned,
  grid: results,
};
fs.writeFileSync(configPath, JSON.stringify(config, null, 2) + '\n');
console.error(
  `model-tune: wrote the tuned settings to ${path.relative(root, configPath)} (${config.evaluation.seconds} s)`,
);
