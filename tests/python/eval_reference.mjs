#!/usr/bin/env node
// The JavaScript side of tests/python/test_eval.py: lib/model-eval.mjs (the evaluation of
// training/eval/report.mjs) on given files, as JSON on stdout, for hirope.eval to be compared with.
//
//   node tests/python/eval_reference.mjs --model pybyte --length 1024 --per-file 2 \
//        [--schemes a,b,...] [--no-losses] FILE...
//
// FILE: the repository's relative paths (the manifest's names). Prints { model, L, length, edges,
// presets (every preset at this length, tuned included), report: { baselines, schemes },
// windows: [{ file, offset, bytes (length), classes (recall classes, an array), start, end (a
// token model's byte spans), byteStart (the window's first byte in its file) }], summary (per scheme
// the report's means over files: buckets, other, first, near, far, beyond), run (bucketLosses per scheme in the report's layout: counts,
// schemes: { name: { sums, classSums, classCounts } }, absent with --no-losses) }.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { recallClasses, tokenRecallClasses } from '../../dist/index.js';
import {
  bucketLosses,
  defaultBuckets,
  presetSchemes,
  reportSchemes,
  windowsOf,
} from '../../lib/model-eval.mjs';
import {
  beyondByFile,
  classByFile,
  modelByName,
  overFiles,
  perFile as perFileMeans,
  readConfig,
} from '../../training/eval/data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const files = [];
const opts = {};
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--no-losses') opts.noLosses = true;
  else if (args[i].startsWith('--')) opts[args[i].slice(2)] = args[++i];
  else files.push(args[i]);
}
const which = modelByName(opts.model ?? 'pybyte');
const hr = await init();
const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(which.weights)) });
const L = model.config.trainingContext;
const length = Number(opts.length ?? 4 * L);
const perFile = opts['per-file'] ? Number(opts['per-file']) : Infinity;
const tuned = readConfig(which.config).evaluation?.tuned ?? {};
const presets = presetSchemes(L, length, tuned);
const report = reportSchemes(tuned);
const edges = defaultBuckets(L, length);
const windows = windowsOf(
  files.map((name) => ({ name, bytes: new Uint8Array(fs.readFileSync(path.resolve(root, name))) })),
  length,
  perFile,
  model,
);
const out = {
  model: model.config.name,
  L,
  length,
  edges,
  presets,
  report,
  windows: windows.map((w) => ({
    file: w.file,
    offset: w.offset,
    bytes: w.bytes.length,
    classes: Array.from(
      w.ids ? tokenRecallClasses(w.bytes, w.start, w.end, L) : recallClasses(w.bytes, L),
    ),
    byteStart: w.bytes.byteOffset - w.source.byteOffset,
    ...(w.ids
      ? { start: Array.from(w.start), end: Array.from(w.end), ids: Array.from(w.ids) }
      : {}),
  })),
};
if (!opts.noLosses) {
  const names = opts.schemes ? opts.schemes.split(',') : report.schemes;
  out.run = { schemes: {} };
  for (const name of names) {
    const r = bucketLosses(model, windows, presets[name], edges);
    out.run.counts = r.counts;
    out.run.schemes[name] = { sums: r.sums, classSums: r.classSums, classCounts: r.classCounts };
  }
  // The report's aggregates (training/eval/stats.mjs): means over files of per-file means.
  const run = {
    ...out.run,
    edges,
    windows: out.windows.map((w) => ({ file: w.file, offset: w.offset })),
  };
  out.summary = {};
  for (const name of names) {
    const bucket = (b) =>
      perFileMeans(
        run.windows.map((w, i) => ({
          file: w.file,
          num: run.schemes[name].sums[i][b],
          den: run.counts[b],
        })),
      );
    out.summary[name] = {
      buckets: edges.slice(0, -1).map((_, b) => overFiles(bucket(b)).mean),
      ...Object.fromEntries(
        ['other', 'first', 'near', 'far'].map((c, k) => [
          c,
          overFiles(classByFile(run, name, k)).mean,
        ]),
      ),
      beyond: overFiles(beyondByFile(run, name)).mean,
    };
  }
}
model.dispose();
process.stdout.write(JSON.stringify(out) + '\n');
