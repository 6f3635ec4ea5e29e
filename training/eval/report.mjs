#!/usr/bin/env node
// Regenerates docs/model-eval.md: hirope's code models beyond their training length, for every
// scheme and both baselines, on the held-out split of each model's manifest, with settings chosen
// beforehand on its tuning split (training/eval/tune.mjs -> the model's training config):
//   - bits/byte (the token model: bits/token) by position bucket at 4x and 8x the training
//     context, and on far-recall bytes or tokens (identifiers whose previous occurrence is more
//     than the training context back, with none nearer: recallClasses, tokenRecallClasses)
//     against near-recall and first occurrences;
//   - the recall probe: a definition, filler code of a chosen length, a call; against the same text
//     with the definition renamed;
//   - the copy control of the trainer's probes (models/<name>-vectors.json), measured again at
//     every run (also with --reuse: it takes seconds).
// Standard errors are of per-file means (windows of one file are correlated).
//
//   node training/eval/report.mjs [--model pybyte|pyjs-llama2] [--per-file K] [--weights FILE]
//                                   [--max-windows N] [--tag TAG] [--schemes a,b,...] [--out FILE]
//                                   [--reuse]
//
// The per-window numbers of a model are kept in models/<weights name>[-TAG]-eval.json; the report
// has a part for every model whose numbers are kept (the one measured now and the others from
// their files), so --reuse (no model run) or a run of one model rewrites the whole report. --tag
// with --weights measures other weights of a model (a second training seed) under the same tuned
// settings; --schemes limits a run to some presets (the baselines are always run); --max-windows
// keeps the first N windows of each length (files in manifest order) and the probes of their files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import init, { RECALL_CLASSES } from '../../dist/index.js';
import {
  bucketLabel,
  bucketLosses,
  defaultBuckets,
  presetSchemes,
  reportSchemes,
  windowsOf,
} from '../../lib/model-eval.mjs';
import { truncateStride } from '../registry.mjs';
import { recallProbes, spanBits, tokenSpan } from './probes.mjs';
import {
  COPY_GATE,
  DEFAULT_MODEL,
  MODELS,
  beyondByFile as beyondOf,
  bucketByFile as bucketOf,
  classByFile as classOf,
  copyGate,
  copyGateProbe,
  copyStyle,
  verdictOf,
  mean,
  modelByName,
  overFiles,
  pairedByFile,
  pm,
  readConfig,
  root,
  sd,
  splitFiles,
} from './data.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const perFileWindows = Number(arg('--per-file', 4));
const maxWindows = Number(arg('--max-windows', Infinity));
const which = modelByName(arg('--model', DEFAULT_MODEL));
const weights = arg('--weights', which.weights);
const tag = arg('--tag', '');
const only = arg('--schemes', '') ? arg('--schemes', '').split(',') : null;
const outFile = arg('--out', path.join(root, 'docs/model-eval.md'));
const reuse = args.includes('--reuse');
const log = (s) => console.error(`model-report: ${s}`);
const dataFileOf = (weightsFile, t = '') =>
  path.join(root, 'models', `${path.basename(weightsFile, '.hrm')}${t ? `-${t}` : ''}-eval.json`);
const hr = await init();

// The schemes a model's report compares: both baselines, the untuned presets and the tuned ones
// (reportSchemes: the registry's evaluation.report, which hirope.eval reads in Python too).
function schemesOf(config) {
  const tuned = config.evaluation?.tuned ?? {};
  return { tuned, ...reportSchemes(tuned) };
}

// ---------------------------------------------------------------------------------------------
// Measurements (skipped with --reuse)

if (!reuse) {
  const config = readConfig(which.config);
  const { tuned, baselines, schemes: all } = schemesOf(config);
  if (!config.evaluation?.tuned) {
    console.error(
      `model-report: ${path.relative(root, which.config)} has no evaluation.tuned: run node training/eval/tune.mjs --model ${which.name} first (it chooses settings on the tuning split)`,
    );
    process.exit(1);
  }
  const SCHEMES = only ? [...new Set([...baselines, ...only])] : all;
  const { files } = splitFiles('held-out', which);
  const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(weights)) });
  const L = model.config.trainingContext;
  // Probe fillers in bytes: for the token model about 3 bytes per token, so that they fall at the
  // same multiples of its context.
  const perUnit = model.tokenizer ? 3 : 1;
  const FILLERS = [L / 4, 2 * L, 4 * L, 7 * L].map((f) => Math.round(f * perUnit));
  const started = performance.now();
  const saved = {
    model: model.config.name,
    config: model.config,
    weights: path.relative(root, weights),
    perFile: perFileWindows,
    maxWindows: Number.isFinite(maxWindows) ? maxWindows : null,
    seconds: 0,
    runs: {},
  };
  for (const multiple of [4, 8]) {
    const length = multiple * L;
    const presets = presetSchemes(L, length, tuned);
    const windows = windowsOf(files, length, perFileWindows, model).slice(0, maxWindows);
    const edges = defaultBuckets(L, length);
    const run = {
      length,
      edges,
      windows: windows.map((w) => ({ file: w.file, offset: w.offset })),
      schemes: {},
    };
    for (const name of SCHEMES) {
      const t0 = performance.now();
      const r = bucketLosses(model, windows, presets[name], edges);
      run.counts = r.counts;
      run.schemes[name] = {
        options: presets[name],
        sums: r.sums,
        classSums: r.classSums,
        classCounts: r.classCounts,
      };
      log(
        `${multiple}x ${name}: ${windows.length} windows in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    saved.runs[multiple] = run;
  }
  // The recall probe, at the 8x presets (every probe fits in 8L).
  const probed = new Set(saved.runs[8].windows.map((w) => w.file));
  const probes = tag
    ? []
    : recallProbes(
        files.filter((f) => (Number.isFinite(maxWindows) ? probed.has(f.name) : true)),
        FILLERS,
        7,
      );
  const presets = presetSchemes(L, 8 * L, tuned);
  saved.probes = {
    fillers: FILLERS,
    items: probes.map(({ file, filler, style, use }) => ({ file, filler, style, use })),
    schemes: {},
  };
  for (const name of SCHEMES) {
    const t0 = performance.now();
    saved.probes.schemes[name] = probes.map((p) =>
      [p.probe, p.control].map((text) => {
        const r = model.loss(text, { ...presets[name] });
        return spanBits(r.losses, r.tokens ? tokenSpan(r.tokens, p.use) : p.use);
      }),
    );
    log(
      `probe ${name}: ${probes.length} probes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  saved.seconds = Math.round((performance.now() - started) / 1000);
  saved.machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${hr.backend}`;
  fs.writeFileSync(dataFileOf(weights, tag), JSON.stringify(saved) + '\n');
  log(`kept the per-window data in ${path.relative(root, dataFileOf(weights, tag))}`);
}

// ---------------------------------------------------------------------------------------------
// The report, from the saved data (and the copy control, measured again)

const FAR = RECALL_CLASSES.indexOf('far');
const NEAR = RECALL_CLASSES.indexOf('near');
const FIRST = RECALL_CLASSES.indexOf('first');
const f3 = (x) => x.toFixed(3);
function settings(o) {
  const s = typeof o.scheme === 'string' ? { type: o.scheme } : o.scheme;
  const parts = [];
  for (const [k, v] of Object.entries(s))
    if (k !== 'type' && k !== 'scaling')
      parts.push(`${k} ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : v}`);
  if (s.scaling) {
    const extra = Object.entries(s.scaling).filter(([k]) => k !== 'type' && k !== 'factor');
    for (const [k, v] of extra) parts.push(`${k} ${v}`);
    if (s.scaling.type === 'yarn' && !extra.length) parts.push("its paper's β (32, 1)");
  }
  if (o.segmentSize) parts.push(`segment ${o.segmentSize}`);
  return parts.join(', ');
}

// One model's part of the report, from its saved data: { summary lines, body lines }.
function part(which, copy) {
  const dataFile = dataFileOf(which.weights);
  const saved = JSON.parse(fs.readFileSync(dataFile, 'utf8'));
  const config = readConfig(which.config);
  const { tuned, baselines: BASELINES, schemes: listed } = schemesOf(config);
  const SCHEMES = listed.filter((n) => saved.runs[4].schemes[n]);
  const modelConfig =
    saved.config ?? hr.model.inspect(new Uint8Array(fs.readFileSync(which.weights)));
  const L = modelConfig.trainingContext;
  const u = modelConfig.tokenizer ? 'token' : 'byte';
  const manifest = path.relative(root, which.manifest);
  const { files, skipped } = splitFiles('held-out', which);
  const label = (name) => (tuned[name] ? `${name}: ${settings(tuned[name])}` : name);
  const out = [];
  out.push(
    `# ${modelConfig.tokenizer ? `The token model (${modelConfig.tokenizer} tokens)` : 'The byte model'}: \`${modelConfig.name}\``,
  );
  out.push('');
  out.push(
    `Generated by \`node training/eval/report.mjs --model ${which.name}\` (${saved.seconds} s on ${saved.machine}) from the per-window data it keeps in \`${path.relative(root, dataFile)}\`. Model: \`${modelConfig.name}\` (${modelConfig.parameters.toLocaleString('en')} parameters, ${modelConfig.layers} layers, trained at ${L} ${u}s by \`training/train.py\` with \`${path.relative(root, which.config)}\`; see [model.md](model.md)). Every scheme is applied at inference only; the model never saw a position past ${L - 1}.${u === 'token' ? ' Every length, position and loss below counts llama2 tokens: bits/token.' : ''}`,
  );
  out.push('');
  out.push(
    `**Splits.** Settings were chosen on the tuning split (${config.evaluation.files} files of \`${manifest}\`, ${config.evaluation.windows} windows of ${config.evaluation.length} ${u}s; criterion: ${config.evaluation.criterion}) by \`training/eval/tune.mjs\`, written to \`${path.relative(root, which.config)}\` before this run; every number below is from the held-out split (${files.length} files), which the tuning never read. Neither split was trained on.`,
  );
  out.push('');

  // The tuned setting of a family with the lowest bits/byte on the tuning split.
  const tuningBits = (name) =>
    Math.min(...config.evaluation.grid[name.replace(' (tuned)', '')].map((r) => r.bitsBeyondL));
  const byTuning = (names) => [...names].sort((a, b) => tuningBits(a) - tuningBits(b))[0];
  const runs = [4, 8].map((m) => ({ multiple: m, ...saved.runs[m] }));
  const summary = [];
  const sections = [];
  for (const run of runs) {
    const { multiple, length, edges, windows, counts } = run;
    const buckets = edges.length - 1;
    const fileNames = [...new Set(windows.map((w) => w.file))];
    // The same per-file readings as the playground's verdict panel (the package's eval-stats).
    const bucketByFile = (name, b) => bucketOf(run, name, b);
    const classByFile = (name, c) => classOf(run, name, c);
    const beyondByFile = (name) => beyondOf(run, name);
    const overall = (m) => overFiles(m).mean;
    const farBytes = run.schemes.rope.classCounts.reduce((a, row) => a + row[FAR], 0);
    const nearBytes = run.schemes.rope.classCounts.reduce((a, row) => a + row[NEAR], 0);
    const ranked = [...SCHEMES].sort(
      (a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)),
    );
    const baseline = [...BASELINES].sort(
      (a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)),
    )[0];
    const schemes = SCHEMES.filter((n) => !BASELINES.includes(n));
    const bestFar = [...schemes].sort(
      (a, b) => overall(classByFile(a, FAR)) - overall(classByFile(b, FAR)),
    )[0];
    const bestBeyond = [...schemes].sort(
      (a, b) => overall(beyondByFile(a)) - overall(beyondByFile(b)),
    )[0];
    const baselineBeyond = [...BASELINES].sort(
      (a, b) => overall(beyondByFile(a)) - overall(beyondByFile(b)),
    )[0];
    // HiRoPE against the window schemes its paper compares it with, on far-recall bytes, paired by
    // file: which HiRoPE hierarchy and which of ReRoPE and Self-Extend are compared is decided on
    // the tuning split (the lowest tuned bits/byte there), so the held-out numbers pick nothing.
    const hiBest = byTuning(schemes.filter((n) => n.startsWith('hirope-') && tuned[n]));
    const peers = schemes.filter(
      (n) => (n.startsWith('rerope') || n.startsWith('self-extend')) && tuned[n],
    );
    summary.push({
      multiple,
      length,
      baseline,
      bestFar,
      bestBeyond,
      baselineBeyond,
      hiBest,
      farShare: farBytes / (windows.length * counts.slice(1).reduce((a, c) => a + c, 0)),
      hiFar: peers.map((peer) => ({
        peer,
        d: pairedByFile(classByFile(hiBest, FAR), classByFile(peer, FAR)),
      })),
      far: pairedByFile(classByFile(bestFar, FAR), classByFile(baseline, FAR)),
      beyond: pairedByFile(beyondByFile(bestBeyond), beyondByFile(baselineBeyond)),
      farOf: (n) => overall(classByFile(n, FAR)),
      beyondOf: (n) => overall(beyondByFile(n)),
      nearOf: (n) => overall(classByFile(n, NEAR)),
    });

    const lines = [];
    lines.push(`## ${multiple}x the training context: windows of ${length} ${u}s`);
    lines.push('');
    lines.push(
      `${windows.length} windows from ${fileNames.length} held-out files (at most ${saved.perFile ?? 4} per file${saved.maxWindows ? `, the first ${saved.maxWindows} in manifest order` : ''}); ${farBytes.toLocaleString('en')} far-recall ${u}s, ${nearBytes.toLocaleString('en')} near-recall ${u}s. Bits/${u} by the position of the predicted ${u}, then on far-recall ${u}s (previous occurrence more than ${L} ${u}s back), near-recall ${u}s (within ${L}) and first occurrences. The last column: far-recall bits/${u} minus the better baseline's (${baseline}), ± the standard error of the paired difference by file. Sorted by far-recall bits/${u}.`,
    );
    lines.push('');
    lines.push(
      `| scheme | ${edges
        .slice(0, -1)
        .map((_, b) => bucketLabel(edges, b))
        .join(' | ')} | far-recall | near-recall | first | far − ${baseline} |`,
    );
    lines.push(`|---|${'---:|'.repeat(buckets + 3)}---:|`);
    for (const name of ranked) {
      const cells = edges.slice(0, -1).map((_, b) => f3(overall(bucketByFile(name, b))));
      const diff =
        name === baseline
          ? '—'
          : pm(pairedByFile(classByFile(name, FAR), classByFile(baseline, FAR)));
      lines.push(
        `| ${label(name)} | ${cells.join(' | ')} | ${f3(overall(classByFile(name, FAR)))} | ${f3(overall(classByFile(name, NEAR)))} | ${f3(overall(classByFile(name, FIRST)))} | ${diff} |`,
      );
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
    probeLines.push(
      `Each held-out file gives one probe per filler length F: \`def NAME(value):\` and a one-line body, about F bytes of the file's own code, then \`result = NAME(value)\`. NAME is an invented name (random letters, CamelCase with digits or syllables, by file). The control is the same text with the definition's name replaced by another invented name of the same style, so the call is a first occurrence. Cells: bits/${u} on the called name, probe / control; the gain is control − probe (what recalling the definition saves), ± its standard error over files. Schemes at their 8x settings; the definition is within the training context only for F = ${probe.fillers[0]}.${u === 'token' ? ` F counts bytes (about ${L / 4}, ${2 * L}, ${4 * L} and ${7 * L} tokens).` : ''} A JavaScript file's probe is \`function NAME(value) { ... }\` and \`result = NAME(value);\`.`,
    );
    probeLines.push('');
    probeLines.push(
      `| scheme | ${probe.fillers.map((f) => `F = ${f}`).join(' | ')} | ${probe.fillers.map((f) => `gain, F = ${f}`).join(' | ')} |`,
    );
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
    for (const n of SCHEMES)
      for (const f of farFillers)
        if (!largest || gains[n][f].diff > largest.g.diff) largest = { n, f, g: gains[n][f] };
    probeVerdicts.push(
      `within the training context (F = ${probe.fillers[0]}) recalling the definition saves ${pm(within)} bits/${u} on the name under RoPE`,
    );
    if (!canTell)
      probeVerdicts.push(
        `so the probe cannot tell: a model that does not recall within its context (a gain under 1 bit/${u} or within two standard errors) has nothing for a scheme to extend`,
      );
    probeVerdicts.push(
      recalling.length
        ? `past it, ${recalling.map((n) => `${n} recalls it (${farFillers.map((f) => `F = ${f}: ${pm(gains[n][f])}`).join('; ')})`).join(', ')}`
        : `past it (F = ${farFillers.join(', ')}), no scheme and no baseline recalls it: the largest gain is ${pm(largest.g)} (${largest.n}, F = ${largest.f}; the rule: a gain above two standard errors, at least 0.25 bits/${u} and at least a quarter of RoPE's within the context)`,
    );
  }

  // The copy control
  const copyLines = [];
  const copyVerdict = [];
  if (copy.rows.length) {
    copyLines.push('## The copy control');
    copyLines.push('');
    copyLines.push(
      `The trainer's probes (\`${path.relative(root, copy.file)}\`), run here through hirope's inference with RoPE: an invented name defined and used again ${config.copy_control.probes.filler.join('–')} bytes later, or a real held-out line repeated verbatim, all within the training context.`,
    );
    copyLines.push('');
    copyLines.push(
      `**The gate** (\`copyGate\` in \`training/eval/data.mjs\`, also checked by \`npm test\`): the same prompt is run again calling a different invented name of equal length (the same shape, every letter and digit changed, so no copy helps it), and the called name's ${u}s after its first ${u} (which no copy supplies: nothing before \`result = \` says which name is called) are compared per byte of the name they cover. The model copies when the repeated name is cheaper by at least ${COPY_GATE.perStyle} bits/byte in every name style and by at least ${COPY_GATE.average} on average. ${copy.gate.pass ? 'It passes' : 'It fails'}: ${copy.gate.styles.map((g) => `${g.style} ${f3(g.saving.mean)}`).join(', ')}, average ${f3(copy.gate.average)}.`,
    );
    copyLines.push('');
    copyLines.push(
      '| name style | n | repeated name, bits/byte after its first ' +
        u +
        ' | other name | saved (gate: ≥ ' +
        COPY_GATE.perStyle +
        ') |',
    );
    copyLines.push('|---|---:|---:|---:|---:|');
    for (const g of copy.gate.styles)
      copyLines.push(
        `| ${g.style} | ${g.n} | ${f3(g.repeat.mean)} ± ${f3(g.repeat.se)} | ${f3(g.other.mean)} ± ${f3(g.other.se)} | ${f3(g.saving.mean)} ± ${f3(g.saving.se)} |`,
      );
    copyLines.push(
      `| average of the styles | | | | ${f3(copy.gate.average)} (gate: ≥ ${COPY_GATE.average}) |`,
    );
    copyLines.push('');
    copyLines.push(
      `Reported beside the gate, not gating: bits/${u} at the first and second occurrence (mean ± standard error over probes), against the older bar of ${copy.threshold} bit/${u} at the second occurrence. The second occurrence is also split in two: its first ${u}, which no copy can supply (nothing before it says that the name or line comes next), and the ${u}s after it, which a copy of the first occurrence supplies. The floor is the first ${u}'s bits spread over the whole occurrence (per probe, then the mean): what the second occurrence would cost if every ${u} after the first cost nothing, so a style whose floor is above the threshold cannot pass by copying alone.`,
    );
    copyLines.push('');
    copyLines.push(
      `| probes | n | ${u}s | first occurrence | second occurrence | second: its first ${u} | second: the ${u}s after it | floor | saved |`,
    );
    copyLines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    const ms = (x) => `${f3(x.mean)} ± ${f3(x.se)}`;
    for (const style of [...new Set(copy.rows.map((c) => c.style))]) {
      const c = copyStyle(
        copy.rows.filter((r) => r.style === style),
        copy.threshold,
      );
      copyLines.push(
        `| ${style} | ${c.n} | ${c.units.toFixed(1)} | ${ms(c.first)} | ${ms(c.second)} | ${ms(c.head)} | ${c.afterFirst ? ms(c.afterFirst) : '—'} | ${f3(c.floor)} | ${f3(c.gain.mean)} |`,
      );
      copyVerdict.push({ style, ...c });
    }
    copyLines.push('');
  }

  // A paired difference decides a comparison only beyond two standard errors.
  const verdict = verdictOf;
  out.push('## What the numbers say');
  out.push('');
  if (copyVerdict.length) {
    const failing = copyVerdict.filter((c) => !c.pass);
    out.push(
      `- **The copy gate:** ${copy.gate.pass ? 'the model copies' : 'the model does not copy enough'}: a repeated invented name costs ${copy.gate.styles.map((g) => `${f3(g.saving.mean)} (${g.style})`).join(', ')} bits/byte less after its first ${u} than another name of its length (gate: ≥ ${COPY_GATE.perStyle} in every style, ≥ ${COPY_GATE.average} on average; average ${f3(copy.gate.average)}).`,
    );
    out.push(
      `- **Beside it, the second occurrence against ${copy.threshold} bit/${u} (not gating):** ${failing.length === 0 ? `every probe style costs at most ${copy.threshold} bit/${u} at its second occurrence (${copyVerdict.map((c) => `${c.style} ${f3(c.second.mean)}`).join(', ')})` : `above it are ${failing.map((c) => `${c.style} (${f3(c.second.mean)} bits/${u} at the second occurrence${c.afterFirst ? `; its ${u}s after the first: ${f3(c.afterFirst.mean)}` : ''})`).join(', ')}`}.`,
    );
    const copied = failing.filter((c) => c.afterFirst && c.afterFirst.mean <= copy.threshold);
    if (copied.length)
      out.push(
        `- **What a copy supplies, it copies:** ${copied.length === failing.length ? 'in every failing style' : `in ${copied.map((c) => c.style).join(', ')}`} the ${u}s after the second occurrence's first cost at most ${copy.threshold} bit/${u}; what fails is its first ${u}, which no copy can supply (${copied.map((c) => `${c.style} ${f3(c.head.mean)} bits`).join(', ')}).`,
      );
    const floored = failing.filter((c) => c.floor > copy.threshold);
    if (floored.length)
      out.push(
        `- **No copy can pass ${floored.map((c) => c.style).join(', ')}:** the second occurrence's first ${u} alone costs ${floored.map((c) => `${f3(c.floor)} bits/${u} over the whole ${c.style} occurrence`).join(', ')}, above the threshold even if every ${u} after it cost nothing.`,
      );
    if (copyVerdict.every((c) => !c.copies))
      out.push(
        `- **So the comparisons below cannot show a scheme using far context:** a model that copies nothing within its context has nothing for a scheme to carry past it; a difference between a scheme and a baseline on far-recall ${u}s here measures how the scheme changes ordinary prediction, not recall.`,
      );
    else if (failing.some((c) => c.copies))
      out.push(
        `- **Where it fails, it copies in part:** the second occurrence costs less than the first in ${failing
          .filter((c) => c.copies)
          .map((c) => `${c.style} (by ${f3(c.gain.mean)} bits/${u})`)
          .join(
            ', ',
          )}, beyond two standard errors, but not down to the threshold; a scheme can show a gain on far-recall ${u}s only as far as the model recalls within its context.`,
      );
  }
  for (const s of summary) {
    const farVerdict = verdict(s.far);
    const beyondVerdict = verdict(s.beyond);
    out.push(
      `- **${s.multiple}x (${s.length} ${u}s), far-recall ${u}s:** the best scheme, ${s.bestFar} (${f3(s.farOf(s.bestFar))} bits/${u}), ${farVerdict} the better baseline, ${s.baseline} (${f3(s.farOf(s.baseline))}): ${pm(s.far)} (paired by file). RoPE: ${f3(s.farOf('rope'))}.`,
    );
    out.push(
      `- **${s.multiple}x, every ${u} past position ${L - 1}:** the best scheme, ${s.bestBeyond} (${f3(s.beyondOf(s.bestBeyond))}), ${beyondVerdict} ${s.baselineBeyond} (${f3(s.beyondOf(s.baselineBeyond))}): ${pm(s.beyond)}.`,
    );
    out.push(
      `- **${s.multiple}x, HiRoPE against ReRoPE and Self-Extend on far-recall ${u}s:** HiRoPE's best hierarchy on the tuning split, ${s.hiBest} (${f3(s.farOf(s.hiBest))}), ${s.hiFar.map(({ peer, d }) => `${verdict(d)} ${peer} (${f3(s.farOf(peer))}): ${pm(d)}`).join('; ')}.`,
    );
  }
  out.push(`- **The recall probe:** ${probeVerdicts.join('; ')}.`);
  {
    const anyBeats = summary.some((s) => s.far.diff < -2 * s.far.se);
    const beyondBeats = summary.filter((s) => s.beyond.diff < -2 * s.beyond.se);
    const noCopy = copyVerdict.length > 0 && copyVerdict.every((c) => !c.copies);
    const farPart = anyBeats
      ? `a scheme beats the baselines on far-recall ${u}s (${summary
          .filter((s) => s.far.diff < -2 * s.far.se)
          .map((s) => `${s.bestFar} at ${s.multiple}x, ${pm(s.far)}`)
          .join(
            '; ',
          )})${noCopy ? ', but the model copies nothing within its context and the probe gains nothing, so this is not recall of far names' : ': it reads names from beyond the training length that a truncated model cannot see'}`
      : `no scheme beats the sliding-window and truncation baselines on far-recall ${u}s at 4x or 8x: none gets a measurable use out of context beyond the training length`;
    const shares = summary.map((s) => `${(100 * s.farShare).toFixed(1)} %`).join(' and ');
    const nearCosts = summary
      .map(
        (s) =>
          `${s.bestFar} ${f3(s.nearOf(s.bestFar))} against ${s.baseline}'s ${f3(s.nearOf(s.baseline))} at ${s.multiple}x`,
      )
      .join(', ');
    const beyondPart = beyondBeats.length
      ? `on every ${u} past the training length, ${beyondBeats.map((s) => `${s.bestBeyond} beats the baselines at ${s.multiple}x (${pm(s.beyond)})`).join('; ')}`
      : `on every ${u} past the training length no scheme beats the better baseline at 4x or 8x (far-recall ${u}s are ${shares} of those ${u}s; near-recall ${u}s cost ${nearCosts})`;
    const hiPart = summary
      .map(
        (s) =>
          `at ${s.multiple}x ${s.hiFar.map(({ peer, d }) => `${verdict(d)} ${peer}`).join(' and ')}`,
      )
      .join('; ');
    out.push(
      `- **So, on this model:** ${farPart}; ${beyondPart}; HiRoPE on far-recall ${u}s: ${hiPart}.`,
    );
  }
  out.push('');
  // Other training seeds of this model (models/<name>-<tag>-eval.json, measured with the same tuned
  // settings): the comparisons the summary decides, again.
  const seedLines = [];
  for (const t of ['seed2']) {
    const file = dataFileOf(which.weights, t);
    if (!fs.existsSync(file)) continue;
    const other = JSON.parse(fs.readFileSync(file, 'utf8'));
    const farMap = (data, multiple, name) => classOf(data.runs[multiple], name, FAR);
    const curveFile = path.join(
      path.dirname(which.weights),
      `${path.basename(which.weights, '.hrm')}-${t}-training.json`,
    );
    const otherSeed = fs.existsSync(curveFile)
      ? JSON.parse(fs.readFileSync(curveFile, 'utf8')).seed
      : null;
    seedLines.push(`## A second training seed (${otherSeed !== null ? `seed ${otherSeed}` : t})`);
    seedLines.push('');
    seedLines.push(
      `The same configuration trained again${otherSeed !== null ? ` with seed ${otherSeed}` : ''} (loss curve \`${path.relative(root, curveFile)}\`; its weights are not shipped: \`train.py --seed\` makes them again), measured on the same held-out windows with the same tuned settings (\`${path.relative(root, file)}\`, ${other.seconds} s). The comparisons that decide the summary, on far-recall ${u}s, paired by file, for both seeds:`,
    );
    seedLines.push('');
    seedLines.push(
      `| comparison | seed ${config.seed} (shipped) | ${otherSeed !== null ? `seed ${otherSeed}` : t} |`,
    );
    seedLines.push('|---|---:|---:|');
    for (const sm of summary) {
      const pairs = [[sm.bestFar, sm.baseline], ...sm.hiFar.map(({ peer }) => [sm.hiBest, peer])];
      for (const [a, b] of pairs) {
        if (!other.runs[sm.multiple]?.schemes[a] || !other.runs[sm.multiple]?.schemes[b]) continue;
        const d1 = pairedByFile(farMap(saved, sm.multiple, a), farMap(saved, sm.multiple, b));
        const d2 = pairedByFile(farMap(other, sm.multiple, a), farMap(other, sm.multiple, b));
        seedLines.push(
          `| ${sm.multiple}x: ${a} − ${b} | ${pm(d1)} (${verdict(d1)}) | ${pm(d2)} (${verdict(d2)}) |`,
        );
      }
    }
    seedLines.push('');
  }
  out.push(...seedLines);
  out.push(
    `Schemes: the baselines are a sliding window (attention in every layer limited to the last W ${u}s) and truncation to the last ${L} ${u}s (one forward per ${truncateStride(L)} predictions: each sees ${L - truncateStride(L) + 1}–${L} ${u}s); PI, NTK and YaRN (its paper's β) scale by the window length / ${L}; hirope-0.5-units is the paper's default (ratio 0.5, window ${L / 2}, top-level units); the rest are tuned. HiRoPE's units and statements come from parsing each whole file, then cutting the window.`,
  );
  out.push('');
  out.push(...copyLines);
  out.push(...sections);
  out.push(...probeLines);
  out.push('## Tuning (the tuning split)');
  out.push('');
  out.push(`| family | chosen | bits/${u} past L (tuning) | other settings tried |`);
  out.push('|---|---|---:|---|');
  for (const [family, rows] of Object.entries(config.evaluation.grid)) {
    const best = rows.reduce((a, b) => (b.bitsBeyondL < a.bitsBeyondL ? b : a));
    const others = rows
      .filter((r) => r !== best)
      .map((r) => `${settings(r.options)}: ${f3(r.bitsBeyondL)}`)
      .join('; ');
    out.push(`| ${family} | ${settings(best.options)} | ${f3(best.bitsBeyondL)} | ${others} |`);
  }
  out.push('');
  if (skipped.length)
    out.push(`Skipped held-out files (not as in the manifest): ${skipped.join(', ')}.`);
  return { out, summary, saved, SCHEMES, BASELINES, tuned, L, u, verdict: null };
}

// The copy control of the trainer's probes (models/<name>-vectors.json), through this inference
// with RoPE within the training context: measured again for every report (seconds), not kept.
// Per probe: bits/unit at the first and second occurrence, and the second split into its first
// unit and the units after it. A token model's probes carry the trainer's ids and token spans.
async function copyControl(which) {
  const file = path.join(
    path.dirname(which.weights),
    `${path.basename(which.weights, '.hrm')}-vectors.json`,
  );
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8'));
  const control = vectors.copy_control ?? { probes: [] };
  const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(which.weights)) });
  const rows = control.probes.map((p) => {
    const input = p.ids ? Int32Array.from(p.ids) : new Uint8Array(Buffer.from(p.input, 'base64'));
    const { losses } = model.loss(input);
    const [a, b] = p.second;
    return {
      style: p.style,
      units: b - a,
      first: spanBits(losses, p.first),
      second: spanBits(losses, p.second),
      head: spanBits(losses, [a, a + 1]),
      afterFirst: b > a + 1 ? spanBits(losses, [a + 1, b]) : null,
    };
  });
  // The gate: each name probe against the same prompt calling another invented name of its length.
  const gate = copyGate(
    control.probes
      .filter((p) => COPY_GATE.styles.includes(p.style))
      .map((p) => copyGateProbe(model, p)),
  );
  model.dispose();
  return { file, rows, threshold: control.threshold_bits, gate };
}

const parts = [];
for (const m of MODELS)
  if (fs.existsSync(dataFileOf(m.weights)))
    parts.push({ which: m, ...part(m, await copyControl(m)) });
const doc = ['# The code models beyond their training length', ''];
const missing = MODELS.filter((m) => !parts.some((p) => p.which === m));
doc.push(
  `hirope ships ${['no', 'one', 'two', 'three'][MODELS.length] ?? MODELS.length} code models ([model.md](model.md)): ${MODELS.map((m) => `\`${m.name}\``).join(' and ')}. Each part below is generated from one model's kept per-window data (\`node training/eval/report.mjs --model NAME\`); each states its splits, its tuned settings and what its numbers say.${missing.map((m) => ` \`${m.name}\` has no part yet: no per-window data is kept for it (\`${path.relative(root, dataFileOf(m.weights))}\`); [model.md](model.md) says why.`).join('')}`,
);
doc.push('');
for (const p of parts) doc.push(...p.out);
fs.writeFileSync(outFile, doc.join('\n') + '\n');
log(`wrote ${path.relative(root, outFile)}`);
