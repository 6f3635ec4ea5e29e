// The model evaluation's data and statistics, shared by training/eval/tune.mjs,
// training/eval/report.mjs, training/plot-training.mjs and bench/model.mjs: the registry's models
// with their paths resolved, a split's files from a model's manifest (hash-checked), the training
// config, and means with standard errors clustered by file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY, MODEL_NAMES, registryEntry } from '../registry.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A model's training config (training/models/NAME/config.json). */
export const readConfig = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/**
 * The manifest's files of a split (training/models/NAME/manifest.json: { comment, files: [{ path,
 * bytes, sha256, split }] }), in manifest order, as listed: { path (a relative one is the
 * repository's), bytes, sha256, split }. which: a MODELS entry.
 */
export function manifestFiles(which, split) {
  return readConfig(which.manifest).files.filter((f) => f.split === split);
}

/**
 * The files of a manifest split that are on this machine as listed: { files, skipped }, files as
 * { name (the manifest's path), bytes }. which: a MODELS entry.
 */
export function splitFiles(split, which) {
  const files = [];
  const skipped = [];
  for (const { path: file, sha256 } of manifestFiles(which, split)) {
    let bytes;
    try {
      bytes = new Uint8Array(fs.readFileSync(path.resolve(root, file)));
    } catch {
      skipped.push(`${file} (missing)`);
      continue;
    }
    if (crypto.createHash('sha256').update(bytes).digest('hex') !== sha256) {
      skipped.push(`${file} (differs from the manifest)`);
      continue;
    }
    files.push({ name: file, bytes });
  }
  if (files.length === 0)
    throw new Error(
      `none of the ${split} files of ${path.relative(root, which.manifest)} is on this machine`,
    );
  return { files, skipped };
}

/**
 * The shipped models (models/registry.json): name, training config, manifest and
 * weights (the config's export.weights), as absolute paths. The report has a part for each;
 * the tune, report and plot programs take --model NAME.
 */
export const MODELS = Object.freeze(
  REGISTRY.models.map((m) =>
    Object.freeze({
      name: m.name,
      config: path.join(root, m.config),
      manifest: path.join(root, m.manifest),
      weights: path.join(root, readConfig(path.join(root, m.config)).export.weights),
    }),
  ),
);
/** The registry's default model (the byte model). */
export const DEFAULT_MODEL = REGISTRY.default;
export const modelByName = (name = DEFAULT_MODEL) => {
  registryEntry(name); // the registry's error for an unknown name
  return MODELS[MODEL_NAMES.indexOf(name)];
};

// The statistics live in the package (wasm/eval-stats.js: the playground's verdict panel and
// hirope.eval read them too).
export {
  mean,
  sd,
  perFile,
  pairedByFile,
  overFiles,
  beyondByFile,
  classByFile,
  bucketByFile,
  summarize,
  verdictOf,
  FAR,
} from '../../dist/eval-stats.js';
import { mean, sd } from '../../dist/eval-stats.js';

/**
 * The copy control for one probe style. rows: one per probe, { units, first, second, head,
 * afterFirst }: the units (bytes or tokens) of the second occurrence, bits/unit over the first and
 * the second occurrence, bits of the second's first unit (no copy can supply it) and bits/unit
 * over its units after the first (null for a one-unit occurrence). Returns means with their
 * standard errors over probes (first, second, head, afterFirst, gain = first - second), and:
 * floor, the first unit's bits spread over its occurrence (per probe, then the mean): what the
 * second occurrence would cost if every later unit cost nothing, so a floor above the threshold
 * cannot pass by copying; pass, whether the second occurrence costs at most threshold; copies,
 * whether it costs at least 1 bit/unit less than the first, beyond two standard errors of the
 * per-probe gains (a partial copy, under the threshold or not).
 */
export function copyStyle(rows, threshold) {
  const stat = (xs) => ({ mean: mean(xs), se: sd(xs) / Math.sqrt(xs.length) });
  const afters = rows.filter((r) => r.afterFirst !== null).map((r) => r.afterFirst);
  const gain = stat(rows.map((r) => r.first - r.second));
  const second = stat(rows.map((r) => r.second));
  return {
    n: rows.length,
    units: mean(rows.map((r) => r.units)),
    first: stat(rows.map((r) => r.first)),
    second,
    head: stat(rows.map((r) => r.head)),
    afterFirst: afters.length ? stat(afters) : null,
    floor: mean(rows.map((r) => r.head / r.units)),
    gain,
    pass: second.mean <= threshold,
    copies: gain.mean >= 1 && gain.mean > 2 * gain.se,
  };
}

export const signed = (x, digits = 3) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;
export const pm = (p, digits = 3) => `${signed(p.diff, digits)} ± ${p.se.toFixed(digits)}`;

/**
 * The copy control's gate (issue 32): an invented name called again within the context must cost
 * at least COPY_GATE.perStyle bits per byte less, after its first byte or token, than a different
 * invented name of equal length called by the same prompt, in every name style, and at least
 * COPY_GATE.average less on average over the styles. The first unit is left out because no copy
 * supplies it (nothing before `result = ` says which name is called).
 */
export const COPY_GATE = Object.freeze({
  perStyle: 2,
  average: 3,
  styles: Object.freeze(['letters', 'syllables', 'camel']),
});

const NAME_CLASSES = [
  'aeiou',
  'bcdfghjklmnprstvwz',
  'qxy',
  'AEIOU',
  'BCDFGHJKLMNPRSTVWZ',
  'QXY',
  '0123456789',
];
/**
 * The control name of an invented name: as long, of the same shape (each vowel replaced by another
 * vowel, consonant by another consonant, capital by capital, digit by digit; other characters kept),
 * and different at every letter and digit, so that no copy of the defined name helps predict it.
 * Deterministic (seeded by the name).
 */
export function controlName(name) {
  let x = 2166136261;
  for (const c of name) x = Math.imul(x ^ c.charCodeAt(0), 16777619) >>> 0;
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
  return [...name]
    .map((c) => {
      const cls = NAME_CLASSES.find((s) => s.includes(c));
      if (!cls) return c;
      // A consonant class of one letter kind is small: q, x, y draw from the main consonants.
      const pool = [...(cls.length < 5 ? NAME_CLASSES[NAME_CLASSES.indexOf(cls) - 1] : cls)].filter(
        (y) => y !== c,
      );
      return pool[Math.floor(next() * pool.length)];
    })
    .join('');
}

/**
 * One name probe of the copy gate, measured with `model` (hr.model, byte or token): the probe's
 * text (`import os\n\ndef NAME(value):\n` ... `\nresult = NAME(value)\n`), and the same text with
 * the call's NAME replaced by controlName(NAME). For each: the bits of the units (bytes or tokens)
 * that overlap the called name, after its first unit, per byte of the name they cover. Returns
 * { style, name, control, bytes, repeat, other, saving = other - repeat } (bits/byte), or null
 * when the name is a single unit in either text (nothing after its first unit).
 */
export function copyGateProbe(model, probe) {
  const text = Buffer.from(probe.input, 'base64').toString('utf8');
  const name = /def ([^(\s]+)\(/.exec(text)[1];
  const s = text.lastIndexOf('\nresult = ') + '\nresult = '.length;
  if (text.slice(s, s + name.length) !== name)
    throw new Error(`copy probe: ${name} is not called at the end`);
  const control = controlName(name);
  const e = s + name.length; // ASCII: bytes = characters
  const after = (t) => {
    const r = model.loss(t);
    const tok = r.tokens;
    const units = [];
    if (tok) {
      for (let k = 1; k < r.n; k++) if (tok.end[k] > s && tok.start[k] < e) units.push(k);
    } else for (let k = s; k < e; k++) units.push(k);
    const firstEnd = tok ? Math.min(tok.end[units[0]], e) : s + 1;
    let bits = 0;
    for (const k of units.slice(1)) bits += r.losses[k - 1];
    return e > firstEnd && units.length > 1 ? bits / (e - firstEnd) : null;
  };
  const repeat = after(text);
  const other = after(text.slice(0, s) + control + text.slice(e));
  if (repeat === null || other === null) return null;
  return {
    style: probe.style,
    name,
    control,
    bytes: name.length,
    repeat,
    other,
    saving: other - repeat,
  };
}

/**
 * The gate over measured probes (copyGateProbe's rows): per style of COPY_GATE.styles, the mean
 * saving with its standard error over probes, the repeated and the control name's bits/byte, and
 * whether it reaches COPY_GATE.perStyle; the average of the style means, and pass (every style and
 * the average reach their thresholds).
 */
export function copyGate(rows) {
  const stat = (xs) => ({
    mean: mean(xs),
    se: xs.length > 1 ? sd(xs) / Math.sqrt(xs.length) : NaN,
  });
  const styles = COPY_GATE.styles.map((style) => {
    const rs = rows.filter((r) => r && r.style === style);
    const saving = stat(rs.map((r) => r.saving));
    return {
      style,
      n: rs.length,
      saving,
      repeat: stat(rs.map((r) => r.repeat)),
      other: stat(rs.map((r) => r.other)),
      pass: rs.length > 0 && saving.mean >= COPY_GATE.perStyle,
    };
  });
  const average = mean(styles.map((s) => s.saving.mean));
  return { styles, average, pass: styles.every((s) => s.pass) && average >= COPY_GATE.average };
}
