#!/usr/bin/env node
// Draws a model's saved training curve (models/<name>-training.json, written by
// training/train.py) as an SVG for docs/model.md: the training loss (on the augmented mix), the
// held-out loss, and the copy control: bits/byte at the second occurrence of each probe style.
//
//   node training/plot-training.mjs [--model pybyte|pyjs-llama2] [CURVE.json] [OUT.svg]
//
// (default: the registry's default model's curve, config.export.curve, drawn to docs/<curve name>.svg; a token
// model's losses are in bits per token)
import fs from 'node:fs';
import path from 'node:path';
import { modelByName, readConfig, root } from './eval/data.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--model');
const which = modelByName(at >= 0 ? args.splice(at, 2)[1] : undefined);
const config = readConfig(which.config);
const input = args[0] ?? path.join(root, config.export.curve);
const output = args[1] ?? path.join(root, 'docs', `${path.basename(input, '.json')}.svg`);
const curve = JSON.parse(fs.readFileSync(input, 'utf8'));
const unit = config.model.tokenizer ? 'token' : 'byte';
const threshold = config.copy_control.threshold_bits;
const batch = curve.batch ?? config.train.batch;

const phases = curve.phases ?? [];
const labelled = phases.some((p) => p.output_vocab || p.context);
const W = 760;
const H = 360;
const box = { left: 56, top: 34, right: W - 170, bottom: H - 44 };
const steps = Math.max(...curve.train.map((p) => p.step));
const series = [
  {
    label: 'training mix',
    colour: '#888888',
    dash: '',
    points: curve.train.map((p) => [p.step, p.bits]),
  },
  {
    label: 'held-out',
    colour: '#222222',
    dash: '',
    points: curve.eval.map((p) => [p.step, p.held_out_bits]),
  },
];
const styleColours = {
  letters: '#d95f02',
  camel: '#7570b3',
  syllables: '#1b9e77',
  real: '#e7298a',
};
for (const style of Object.keys(curve.eval[0]?.copy ?? {})) {
  series.push({
    label: `copy: ${style}, 2nd`,
    colour: styleColours[style] ?? '#666',
    dash: '5 3',
    points: curve.eval.map((p) => [p.step, p.copy[style].second]),
  });
}
const yMax = Math.ceil(Math.max(...series.flatMap((s) => s.points.map((p) => p[1]))));
const x = (s) => box.left + ((box.right - box.left) * s) / steps;
const y = (v) => box.bottom - ((box.bottom - box.top) * v) / yMax;
const out = [];
out.push(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
);
out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
out.push(
  `<text x="${box.left}" y="20" font-size="14" font-weight="600">${curve.model}: loss and copy control by training step</text>`,
);
for (let v = 0; v <= yMax; v++) {
  out.push(`<line x1="${box.left}" x2="${box.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
  out.push(`<text x="${box.left - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
}
const tick = steps > 2000 ? 500 : 250;
for (let s = 0; s <= steps; s += tick)
  out.push(`<text x="${x(s)}" y="${box.bottom + 18}" text-anchor="middle">${s}</text>`);
out.push(
  `<line x1="${box.left}" x2="${box.right}" y1="${box.bottom}" y2="${box.bottom}" stroke="#222"/>`,
);
out.push(
  `<line x1="${box.left}" x2="${box.left}" y1="${box.top}" y2="${box.bottom}" stroke="#222"/>`,
);
out.push(
  `<text x="${(box.left + box.right) / 2}" y="${H - 8}" text-anchor="middle">training step${labelled ? ' (batch × context per phase)' : ` (batch ${batch})`}</text>`,
);
out.push(
  `<text transform="translate(16 ${(box.top + box.bottom) / 2}) rotate(-90)" text-anchor="middle">bits per ${unit}</text>`,
);
out.push(
  `<line x1="${box.left}" x2="${box.right}" y1="${y(threshold)}" y2="${y(threshold)}" stroke="#e7298a" stroke-width="0.8" stroke-dasharray="2 3"/>`,
);
out.push(
  `<text x="${box.left + 6}" y="${y(threshold) + 14}" fill="#e7298a">copy control threshold (${threshold} bit/${unit})</text>`,
);
// Where a later phase (a continuation with its own schedule and mix) starts. A phase whose loss
// counts only some positions (train.py's loss_positions) or whose softmax runs over only some
// tokens (output_vocab) has a training loss that is not comparable with a full one; phases that
// record their own batch and context say them.
phases.forEach((phase, k) => {
  const at = x(phase.from - 1);
  if (k > 0)
    out.push(
      `<line x1="${at}" x2="${at}" y1="${box.top}" y2="${box.bottom}" stroke="#222" stroke-dasharray="4 3"/>`,
    );
  const notes = [];
  if (phase.context) notes.push(`${phase.batch} × ${phase.context}`);
  if (phase.output_vocab) notes.push(`softmax over ${phase.output_vocab}`);
  if (phase.loss_positions) notes.push('training loss on copyable targets and a sample');
  if (k === 0 && !labelled) return;
  // A label that would run past its phase's end (or the plot's) shrinks to the phase number;
  // docs/model.md's phase table says the rest.
  const label = `phase ${phase.phase}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  const room = x(Math.min(phase.to, steps)) - at - 6;
  const text = label.length * 5.6 <= room ? label : String(phase.phase);
  out.push(
    `<text x="${at + 4}" y="${box.top + 12}" font-size="${labelled ? 10 : 12}">${text}</text>`,
  );
});
series.forEach((s, i) => {
  const d = s.points
    .map(([a, b], k) => `${k ? 'L' : 'M'}${x(a).toFixed(1)} ${y(b).toFixed(1)}`)
    .join(' ');
  out.push(
    `<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="1.8"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
  );
  const ly = box.top + 8 + i * 20;
  out.push(
    `<line x1="${box.right + 14}" x2="${box.right + 40}" y1="${ly}" y2="${ly}" stroke="${s.colour}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
  );
  out.push(`<text x="${box.right + 46}" y="${ly + 4}">${s.label}</text>`);
});
out.push('</svg>');
fs.writeFileSync(output, out.join('\n') + '\n');
console.error(`plot-training: wrote ${path.relative(root, output)}`);
