#!/usr/bin/env node
// Regenerates docs/model-eval.md: hirope's code model beyond its training length, for every scheme
// and both baselines, on the held-out split of training/manifest.tsv, with settings chosen
// beforehand on the tuning split (scripts/model-tune.mjs -> training/config.json):
//   - bits/byte by position bucket at 4x and 8x the training context, and on far-recall bytes
//     (identifier bytes whose previous occurrence is more than the training context back, with
//     none nearer: recallClasses) against near-recall and first-occurrence bytes;
//   - the recall probe: a definition, filler code of a chosen length, a call; against the same text
//     with the definition renamed;
//   - the copy control of the trainer's probes (models/pybyte-vectors.json).
// Standard errors are of per-file means (windows of one file are correlated).
//
//   node scripts/model-report.mjs [--per-file K] [--weights models/pybyte.hrm] [--out FILE] [--reuse]
//
// The per-window numbers are kept in models/<weights name>-eval.json; --reuse writes the report
// from them again without running the model (to change the text, not the numbers).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import init, { RECALL_CLASSES } from '../dist/index.js';
import { bucketLabel, bucketLosses, defaultBuckets, presetSchemes, recallProbes, spanBits, windowsOf } from '../bin/model-eval.mjs';
import { mean, overFiles, pairedByFile, perFile, pm, readConfig, root, sd, splitFiles } from './model-data.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const perFileWindows = Number(arg('--per-file', 4));
const weights = arg('--weights', path.join(root, 'models/pybyte.hrm'));
const outFile = arg('--out', path.join(root, 'docs/model-eval.md'));
const base = path.basename(weights, '.hrm');
const dataFile = path.join(path.dirname(weights), `${base}-eval.json`);
const vectorsFile = path.join(path.dirname(weights), `${base}-vectors.json`);
const reuse = args.includes('--reuse');

const config = readConfig();
const tuned = config.evaluation?.tuned;
if (!tuned) {
  console.error('model-report: training/config.json has no evaluation.tuned: run node scripts/model-tune.mjs first (it chooses settings on the tuning split)');
  process.exit(1);
}
const { files, skipped } = splitFiles('held-out');
const hr = await init();
const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(weights)) });
const L = model.config.trainingContext;
// A tuned family replaces its untuned preset; hirope-0.5-units stays as the paper's default.
const tunedOf = (family) => (tuned[`${family} (tuned)`] ? `${family} (tuned)` : family);
const BASELINES = [tunedOf('sliding-window'), 'truncate'];
const SCHEMES = [...new Set([...BASELINES, 'rope', 'pi', 'ntk', tunedOf('yarn'), 'hirope-0.5-units', ...Object.keys(tuned)])];
const FILLERS = [L / 4, 2 * L, 4 * L, 7 * L].map(Math.round);
const started = performance.now();
const saved = reuse ? JSON.parse(fs.readFileSync(dataFile, 'utf8')) : { model: model.config.name, seconds: 0, runs: {} };
const log = (s) => console.error(`model-report: ${s}`);

// ---------------------------------------------------------------------------------------------
// Measurements (skipped with --reuse)

if (!reuse) {
  for (const multiple of [4, 8]) {
    const length = multiple * L;
    const presets = presetSchemes(L, length, tuned);
    const windows = windowsOf(files, length, perFileWindows);
    const edges = defaultBuckets(L, length);
    const run = { length, edges, windows: windows.map((w) => ({ file: w.file, offset: w.offset })), schemes: {} };
    for (const name of SCHEMES) {
      const t0 = performance.now();
      const r = bucketLosses(model, windows, presets[name], edges);
      run.counts = r.counts;
      run.schemes[name] = { options: presets[name], sums: r.sums, classSums: r.classSums, classCounts: r.classCounts };
      log(`${multiple}x ${name}: ${windows.length} windows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    saved.runs[multiple] = run;
  }
  // The recall probe, at the 8x presets (every probe fits in 8L bytes).
  const probes = recallProbes(files, FILLERS, 7);
  const presets = presetSchemes(L, 8 * L, tuned);
  saved.probes = { fillers: FILLERS, items: probes.map(({ file, filler, style, use }) => ({ file, filler, style, use })), schemes: {} };
  for (const name of SCHEMES) {
    const t0 = performance.now();
    saved.probes.schemes[name] = probes.map((p) => [p.probe, p.control].map((text) => {
      const options = { ...presets[name] };
      return spanBits(model.loss(text, options).losses, p.use);
    }));
    log(`probe ${name}: ${probes.length} probes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  // The copy control of the trainer's probes, through this inference (RoPE, within L).
  const vectors = JSON.parse(fs.readFileSync(vectorsFile, 'utf8'));
  saved.copy = (vectors.copy_control?.probes ?? []).map((p) => {
    const { losses } = model.loss(new Uint8Array(Buffer.from(p.input, 'base64')));
    return { style: p.style, first: spanBits(losses, p.first), second: spanBits(losses, p.second) };
  });
  saved.copyThreshold = vectors.copy_control?.threshold_bits;
  saved.seconds = Math.round((performance.now() - started) / 1000);
  saved.machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${hr.backend}`;
  fs.writeFileSync(dataFile, JSON.stringify(saved) + '\n');
  log(`kept the per-window data in ${path.relative(root, dataFile)}`);
}

// ---------------------------------------------------------------------------------------------
// The report, from the saved data only

const FAR = RECALL_CLASSES.indexOf('far');
const NEAR = RECALL_CLASSES.indexOf('near');
const FIRST = RECALL_CLASSES.indexOf('first');
const f3 = (x) => x.toFixed(3);
const label = (name) => (tuned[name] ? `${name}: ${settings(tuned[name])}` : name);
function settings(o) {
  const s = typeof o.scheme === 'string' ? { type: o.scheme } : o.scheme;
  const parts = [];
  for (const [k, v] of Object.entries(s)) if (k !== 'type' && k !== 'scaling') parts.push(`${k} ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : v}`);
  if (s.scaling) {
    const extra = Object.entries(s.scaling).filter(([k]) => k !== 'type' && k !== 'factor');
    for (const [k, v] of extra) parts.push(`${k} ${v}`);
    if (s.scaling.type === 'yarn' && !extra.length) parts.push('its paper\'s β (32, 1)');
  }
  if (o.segmentSize) parts.push(`segment ${o.segmentSize}`);
  return parts.join(', ');
}

const out = [];
out.push('# The code model beyond its training length');
out.push('');
out.push(`Generated by \`node scripts/model-report.mjs\` (${saved.seconds} s on ${saved.machine}) from the per-window data it keeps in \`${path.relative(root, dataFile)}\`. Model: \`${model.config.name}\` (${model.config.parameters.toLocaleString('en')} parameters, ${model.config.layers} layers, trained at ${L} bytes by \`training/train.py\`; see [model.md](model.md)). Every scheme is applied at inference only; the model never saw a position past ${L - 1}.`);
out.push('');
out.push(`**Splits.** Settings were chosen on the tuning split (${config.evaluation.files} files of \`training/manifest.tsv\`, ${config.evaluation.windows} windows of ${config.evaluation.length} bytes; criterion: ${config.evaluation.criterion}) by \`scripts/model-tune.mjs\`, written to \`training/config.json\` before this run; every number below is from the held-out split (${files.length} files), which the tuning never read. Neither split was trained on.`);
out.push('');

// The tuned setting of a family with the lowest bits/byte on the tuning split.
const tuningBits = (name) => Math.min(...config.evaluation.grid[name.replace(' (tuned)', '')].map((r) => r.bitsBeyondL));
const byTuning = (names) => [...names].sort((a, b) => tuningBits(a) - tuningBits(b))[0];
const runs = [4, 8].map((m) => ({ multiple: m, ...saved.runs[m] }));
const summary = [];
const sections = [];
for (const run of runs) {
  const { multiple, length, edges, windows, counts } = run;
  const buckets = edges.length - 1;
  const last = buckets - 1;
  const fileNames = [...new Set(windows.map((w) => w.file))];
  const bucketByFile = (name, b) => perFile(windows.map((w, i) => ({ file: w.file, num: run.schemes[name].sums[i][b], den: counts[b] })));
  const classByFile = (name, c) => perFile(windows.map((w, i) => ({ file: w.file, num: run.schemes[name].classSums[i][c], den: run.schemes[name].classCounts[i][c] })));
  const beyondByFile = (name) => perFile(windows.map((w, i) => {
    let num = 0;
    let den = 0;
    for (let b = 1; b < buckets; b++) {
      num += run.schemes[name].sums[i][b];
      den += counts[b];
    }
    return { file: w.file, num, den };
  }));
  const overall = (m) => overFiles(m).mean;
  const farBytes = run.schemes.rope.classCounts.reduce((a, row) => a + row[FAR], 0);
  const nearBytes = run.schemes.rope.classCounts.reduce((a, row) => a + row[NEAR], 0);
  const ranked = [...SCHEMES].sort((a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)));
  const baseline = [...BASELINES].sort((a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)))[0];
  const schemes = SCHEMES.filter((n) => !BASELINES.includes(n));
  const bestFar = [...schemes].sort((a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)))[0];
  const bestBeyond = [...schemes].sort((a, b) => overall(beyondByFile(a)) - overall(beyondByFile(b)))[0];
  const baselineBeyond = [...BASELINES].sort((a, b) => overall(beyondByFile(a)) - overall(beyondByFile(b)))[0];
  // HiRoPE against the window schemes its paper compares it with, on far-recall bytes, paired by
  // file: which HiRoPE hierarchy and which of ReRoPE and Self-Extend are compared is decided on
  // the tuning split (the lowest tuned bits/byte there), so the held-out numbers pick nothing.
  const hiBest = byTuning(schemes.filter((n) => n.startsWith('hirope-') && tuned[n]));
  const peers = schemes.filter((n) => (n.startsWith('rerope') || n.startsWith('self-extend')) && tuned[n]);
  summary.push({
    multiple, length, baseline, bestFar, bestBeyond, baselineBeyond, hiBest,
    farShare: farBytes / (windows.length * counts.slice(1).reduce((a, c) => a + c, 0)),
    hiFar: peers.map((peer) => ({ peer, d: pairedByFile(classByFile(hiBest, FAR), classByFile(peer, FAR)) })),
    far: pairedByFile(classByFile(bestFar, FAR), classByFile(baseline, FAR)),
    beyond: pairedByFile(beyondByFile(bestBeyond), beyondByFile(baselineBeyond)),
    farOf: (n) => overall(classByFile(n, FAR)), beyondOf: (n) => overall(beyondByFile(n)),
    nearOf: (n) => overall(classByFile(n, NEAR)),
  });

  const lines = [];
  lines.push(`## ${multiple}x the training context: windows of ${length} bytes`);
  lines.push('');
  lines.push(`${windows.length} windows from ${fileNames.length} held-out files (at most ${perFileWindows} per file); ${farBytes.toLocaleString('en')} far-recall bytes, ${nearBytes.toLocaleString('en')} near-recall bytes. Bits/byte by the position of the predicted byte, then on far-recall bytes (previous occurrence more than ${L} bytes back), near-recall bytes (within ${L}) and first occurrences. The last column: far-recall bits/byte minus the better baseline's (${baseline}), ± the standard error of the paired difference by file. Sorted by far-recall bits/byte.`);
  lines.push('');
  lines.push(`| scheme | ${edges.slice(0, -1).map((_, b) => bucketLabel(edges, b)).join(' | ')} | far-recall | near-recall | first | far − ${baseline} |`);
  lines.push(`|---|${'---:|'.repeat(buckets + 3)}---:|`);
  for (const name of ranked) {
    const cells = edges.slice(0, -1).map((_, b) => f3(overall(bucketByFile(name, b))));
    const diff = name === baseline ? '—' : pm(pairedByFile(classByFile(name, FAR), classByFile(baseline, FAR)));
    lines.push(`| ${label(name)} | ${cells.join(' | ')} | ${f3(overall(classByFile(name, FAR)))} | ${f3(overall(classByFile(name, NEAR)))} | ${f3(overall(classByFile(name, FIRST)))} | ${diff} |`);
  }
  lines.push('');
  sections.push(lines.join('\n'));
}

// The recall probe
const probe = saved.probes;
const probeLines = [];
const probeVerdicts = [];
{
  probeLines.push('## The recall probe');
  probeLines.push('');
  probeLines.push(`Each held-out file gives one probe per filler length F: \`def NAME(value):\` and a one-line body, about F bytes of the file's own code, then \`result = NAME(value)\`. NAME is an invented name (random letters, CamelCase with digits or syllables, by file). The control is the same text with the definition's name replaced by another invented name of the same style, so the call is a first occurrence. Cells: bits/byte on the called name, probe / control; the gain is control − probe (what recalling the definition saves), ± its standard error over files. Schemes at their 8x settings; the definition is within the training context only for F = ${FILLERS[0]}.`);
  probeLines.push('');
  probeLines.push(`| scheme | ${probe.fillers.map((f) => `F = ${f}`).join(' | ')} | ${probe.fillers.map((f) => `gain, F = ${f}`).join(' | ')} |`);
  probeLines.push(`|---|${'---:|'.repeat(2 * probe.fillers.length)}`);
  const gains = {};
  for (const name of SCHEMES) {
    const rows = probe.schemes[name];
    const cells = [];
    const gainCells = [];
    gains[name] = {};
    for (const f of probe.fillers) {
      const idx = probe.items.map((it, i) => (it.filler === f ? i : -1)).filter((i) => i >= 0);
      const p = idx.map((i) => rows[i][0]);
      const c = idx.map((i) => rows[i][1]);
      const g = idx.map((i) => rows[i][1] - rows[i][0]);
      gains[name][f] = { diff: mean(g), se: sd(g) / Math.sqrt(g.length), n: g.length };
      cells.push(`${f3(mean(p))} / ${f3(mean(c))}`);
      gainCells.push(pm(gains[name][f]));
    }
    probeLines.push(`| ${label(name)} | ${cells.join(' | ')} | ${gainCells.join(' | ')} |`);
  }
  probeLines.push('');
  // A scheme recalls past the context when its gain there is above two standard errors, at least
  // 0.25 bits/byte and at least a quarter of what RoPE saves within the context (a rule fixed
  // before the numbers).
  const farFillers = probe.fillers.filter((f) => f > L);
  const within = gains.rope[probe.fillers[0]];
  const recalls = (g) => g.diff > 2 * g.se && g.diff >= Math.max(0.25, 0.25 * within.diff);
  const canTell = within.diff > 2 * within.se && within.diff >= 1;
  const recalling = SCHEMES.filter((n) => farFillers.some((f) => recalls(gains[n][f])));
  let largest = null;
  for (const n of SCHEMES) for (const f of farFillers) if (!largest || gains[n][f].diff > largest.g.diff) largest = { n, f, g: gains[n][f] };
  probeVerdicts.push(`within the training context (F = ${probe.fillers[0]}) recalling the definition saves ${pm(within)} bits/byte on the name under RoPE`);
  if (!canTell) probeVerdicts.push(`so the probe cannot tell: a model that does not recall within its context (a gain under 1 bit/byte or within two standard errors) has nothing for a scheme to extend`);
  probeVerdicts.push(recalling.length
    ? `past it, ${recalling.map((n) => `${n} recalls it (${farFillers.map((f) => `F = ${f}: ${pm(gains[n][f])}`).join('; ')})`).join(', ')}`
    : `past it (F = ${farFillers.join(', ')}), no scheme and no baseline recalls it: the largest gain is ${pm(largest.g)} (${largest.n}, F = ${largest.f}; the rule: a gain above two standard errors, at least 0.25 bits/byte and at least a quarter of RoPE's within the context)`);
}

// The copy control
const copyLines = [];
const copyVerdict = [];
if (saved.copy?.length) {
  copyLines.push('## The copy control');
  copyLines.push('');
  copyLines.push(`The trainer's probes (\`${path.relative(root, vectorsFile)}\`), run here through hirope's inference with RoPE: an invented name defined and used again 40–120 bytes later, or a real held-out line repeated verbatim, all within the training context. Bits/byte at the first and second occurrence (mean ± standard error over probes); the control passes when the second costs at most ${saved.copyThreshold} bit/byte.`);
  copyLines.push('');
  copyLines.push('| probes | n | first occurrence | second occurrence | saved |');
  copyLines.push('|---|---:|---:|---:|---:|');
  for (const style of [...new Set(saved.copy.map((c) => c.style))]) {
    const rows = saved.copy.filter((c) => c.style === style);
    const firsts = rows.map((r) => r.first);
    const seconds = rows.map((r) => r.second);
    const se = (xs) => sd(xs) / Math.sqrt(xs.length);
    copyLines.push(`| ${style} | ${rows.length} | ${f3(mean(firsts))} ± ${f3(se(firsts))} | ${f3(mean(seconds))} ± ${f3(se(seconds))} | ${f3(mean(firsts) - mean(seconds))} |`);
    copyVerdict.push({ style, second: mean(seconds), pass: mean(seconds) <= saved.copyThreshold });
  }
  copyLines.push('');
}

// A paired difference decides a comparison only beyond two standard errors.
const verdict = (d) => (d.diff < -2 * d.se ? 'beats' : d.diff > 2 * d.se ? 'is worse than' : 'is level with');
out.push('## What the numbers say');
out.push('');
if (copyVerdict.length) {
  const failing = copyVerdict.filter((c) => !c.pass);
  out.push(`- **Copying within the context:** ${failing.length === 0 ? `the model copies: every probe style costs at most ${saved.copyThreshold} bit/byte at its second occurrence (${copyVerdict.map((c) => `${c.style} ${f3(c.second)}`).join(', ')})` : `the copy control fails for ${failing.map((c) => `${c.style} (${f3(c.second)} bits/byte at the second occurrence)`).join(', ')}`}.`);
}
for (const s of summary) {
  const farVerdict = verdict(s.far);
  const beyondVerdict = verdict(s.beyond);
  out.push(`- **${s.multiple}x (${s.length} bytes), far-recall bytes:** the best scheme, ${s.bestFar} (${f3(s.farOf(s.bestFar))} bits/byte), ${farVerdict} the better baseline, ${s.baseline} (${f3(s.farOf(s.baseline))}): ${pm(s.far)} (paired by file). RoPE: ${f3(s.farOf('rope'))}.`);
  out.push(`- **${s.multiple}x, every byte past position ${L - 1}:** the best scheme, ${s.bestBeyond} (${f3(s.beyondOf(s.bestBeyond))}), ${beyondVerdict} ${s.baselineBeyond} (${f3(s.beyondOf(s.baselineBeyond))}): ${pm(s.beyond)}.`);
  out.push(`- **${s.multiple}x, HiRoPE against ReRoPE and Self-Extend on far-recall bytes:** HiRoPE's best hierarchy on the tuning split, ${s.hiBest} (${f3(s.farOf(s.hiBest))}), ${s.hiFar.map(({ peer, d }) => `${verdict(d)} ${peer} (${f3(s.farOf(peer))}): ${pm(d)}`).join('; ')}.`);
}
out.push(`- **The recall probe:** ${probeVerdicts.join('; ')}.`);
{
  const anyBeats = summary.some((s) => s.far.diff < -2 * s.far.se);
  const beyondBeats = summary.filter((s) => s.beyond.diff < -2 * s.beyond.se);
  const farPart = anyBeats
    ? `a scheme beats the baselines on far-recall bytes (${summary.filter((s) => s.far.diff < -2 * s.far.se).map((s) => `${s.bestFar} at ${s.multiple}x, ${pm(s.far)}`).join('; ')}): it reads names from beyond the training length that a truncated model cannot see`
    : 'no scheme beats the sliding-window and truncation baselines on far-recall bytes at 4x or 8x: none gets a measurable use out of context beyond the training length';
  const shares = summary.map((s) => `${(100 * s.farShare).toFixed(1)} %`).join(' and ');
  const nearCosts = summary.map((s) => `${s.bestFar} ${f3(s.nearOf(s.bestFar))} against ${s.baseline}'s ${f3(s.nearOf(s.baseline))} at ${s.multiple}x`).join(', ');
  const beyondPart = beyondBeats.length
    ? `on every byte past the training length, ${beyondBeats.map((s) => `${s.bestBeyond} beats the baselines at ${s.multiple}x (${pm(s.beyond)})`).join('; ')}`
    : `on every byte past the training length no scheme beats the better baseline at 4x or 8x (far-recall bytes are ${shares} of those bytes; near-recall bytes cost ${nearCosts})`;
  const hiPart = summary.map((s) => `at ${s.multiple}x ${s.hiFar.map(({ peer, d }) => `${verdict(d)} ${peer}`).join(' and ')}`).join('; ');
  out.push(`- **So, on this model:** ${farPart}; ${beyondPart}; HiRoPE on far-recall bytes: ${hiPart}.`);
}
out.push('');
out.push(`Schemes: the baselines are a sliding window (attention in every layer limited to the last W bytes) and truncation to the last ${L} bytes (one forward per ${Math.max(1, Math.floor(L / 8))} predictions: each sees ${L - Math.max(1, Math.floor(L / 8)) + 1}–${L} bytes); PI, NTK and YaRN (its paper's β) scale by the window length / ${L}; hirope-0.5-units is the paper's default (ratio 0.5, window ${L / 2}, top-level units); the rest are tuned. HiRoPE's units and statements come from parsing each whole file, then cutting the window.`);
out.push('');
out.push(...copyLines);
out.push(...sections);
out.push(...probeLines);
out.push('## Tuning (the tuning split)');
out.push('');
out.push('| family | chosen | bits/byte past L (tuning) | other settings tried |');
out.push('|---|---|---:|---|');
for (const [family, rows] of Object.entries(config.evaluation.grid)) {
  const best = rows.reduce((a, b) => (b.bitsBeyondL < a.bitsBeyondL ? b : a));
  const others = rows.filter((r) => r !== best).map((r) => `${settings(r.options)}: ${f3(r.bitsBeyondL)}`).join('; ');
  out.push(`| ${family} | ${settings(best.options)} | ${f3(best.bitsBeyondL)} | ${others} |`);
}
out.push('');
if (skipped.length) out.push(`Skipped held-out files (not as in the manifest): ${skipped.join(', ')}.`);
fs.writeFileSync(outFile, out.join('\n') + '\n');
log(`wrote ${path.relative(root, outFile)}`);
