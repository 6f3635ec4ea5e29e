// Model mode's sentences that depend on the model's unit ('byte' for pybyte, 'token' for
// pyjs-llama2) and on the core's numbers: pure functions (no DOM), one source for every help text
// and label that names the unit, tested in tests/js/model-wording.test.mjs.
import { CATALOGUE } from './core-catalogue.js';
import { formatRatio } from './schemes.js';
import { plural } from './wording.js';

const capital = (s) => s[0].toUpperCase() + s.slice(1);

/** The help texts of Model mode's controls that name the unit the model reads. */
export function modelHelp(unit) {
  const u = unit;
  return {
    ratio: `HiRoPE: fraction of frequency pairs (the fast ones) that keep the ${u} index; the rest carry the unit index beyond the window. One step is one pair.`,
    hierarchy: `Where HiRoPE's high-level index comes from: top-level functions/classes or statements of the tree-sitter parse, or fixed segments of ${u}s.`,
    segment: `${capital(u)}s per segment.`,
    window: `${capital(u)} distances below W use plain RoPE; from W on the scheme's far rule applies. Sliding window: attention in every layer reaches W ${u}s back. Truncate: each ${u} is predicted from the last W ${u}s only (one pass per W/8 ${u}s).`,
    smooth: `The chart plots the mean loss over consecutive runs of this many ${u}s.`,
    // The core's generation budget counts bytes for both models; the token model samples whole tokens.
    maxBytes:
      u === 'token'
        ? 'Bytes to generate. The token model samples whole tokens until the text has at least this many bytes, so its last token may end a few bytes past it.'
        : 'Bytes to generate.',
    temperature: `Sampling temperature; 0 always takes the most likely ${u}.`,
    resetZoom: `Show all ${u}s again (key 0 on a heatmap)`,
  };
}

/** The Factor field's help for a scaling: the core's scheme table's description of that scaling. */
export function factorHelp(scaling) {
  const s = CATALOGUE.scalings.find((x) => x.name === scaling);
  if (!s || scaling === 'none') return 'Scaling factor s: the context stretches s times.';
  // The description names the scaling itself ("NTK-aware: …") or not ("Position interpolation: …").
  const named = s.description.toLowerCase().startsWith(s.label.toLowerCase());
  return `Scaling factor s${named ? '' : ` for ${s.label}`}. ${s.description}.`;
}

/**
 * Whether a HiRoPE ratio is within or above the model's Split% bound: the one place that decides,
 * from the core's splitBound (its `over`: the band's slowest pair never turns a full period
 * within the training length).
 */
export const ratioVerdict = (bound) => (bound.over ? 'above' : 'within');

/** The ratio field's value: the ratio and the pairs the core assigns for it, as separate facts. */
export function ratioOutput({ ratio, tokenPairs, pairs }) {
  return `${formatRatio(ratio)} · ${tokenPairs} of ${pairs} pairs`;
}

/**
 * The presets for B: HiRoPE at the model's Split% bound (bound: the core's splitBound at ratio
 * maxRatio) and at the paper's 0.5 (paper: the core's splitBound at 0.5). One button when the
 * two ratios are the same. -> [{ id, ratio, label, title }]
 */
export function ratioPresets({ bound, paper, unit }) {
  const pairs = (b) => `${b.tokenPairs}/${b.pairs}`;
  const at = (b) =>
    `ratio ${formatRatio(b === bound ? bound.maxRatio : 0.5)}, ${b.tokenPairs} of ${b.pairs} pairs on the ${unit} index`;
  if (bound.maxRatio === 0.5) {
    return [
      {
        id: 'bound',
        ratio: 0.5,
        label: `the Split% bound = the paper's 0.5 (${pairs(bound)})`,
        title: `HiRoPE at ${at(bound)}: this model's Split% bound, which is also the HiRoPE paper's ratio`,
      },
    ];
  }
  return [
    {
      id: 'bound',
      ratio: bound.maxRatio,
      label: `the Split% bound (${pairs(bound)})`,
      title: `HiRoPE at ${at(bound)}: the most pairs on the ${unit} index that stay within this model's Split% bound`,
    },
    {
      id: 'paper',
      ratio: 0.5,
      label: "the paper's 0.5",
      title: `HiRoPE at the HiRoPE paper's ${at(paper)}: ${ratioVerdict(paper)} this model's Split% bound`,
    },
  ];
}

/**
 * The hint under a HiRoPE side: the model's Split% bound and where the side's ratio stands
 * (bound: the core's splitBound at the side's ratio; paper: at 0.5).
 */
export function ratioHint({ bound, paper, ratio, train, unit }) {
  const head = `Split% for this model (trained at ${train} ${unit}s): ${(100 * bound.split).toFixed(1)}%, the ${bound.maxTokenPairs} of ${bound.pairs} pairs whose wavelength fits in the training length; ratio ${formatRatio(ratio)} keeps ${plural(bound.tokenPairs, 'pair')} on the ${unit} index.`;
  if (ratioVerdict(bound) === 'within') return `${head} Within the bound.`;
  return `${head} That is above the bound: pairs that never completed a period in training stay on the ${unit} distance and see angles the model never saw${ratioVerdict(paper) === 'above' ? " (the paper's 0.5 breaks this model)" : ''}.`;
}

const count = (n) => n.toLocaleString('en');

/** What the model read, for the status line: "2,271 tokens (8,000 bytes)" or "4,096 bytes". */
export const readCount = ({ unit, n, bytes }) =>
  unit === 'token' ? `${plural(n, 'token')} (${plural(bytes, 'byte')})` : plural(n, 'byte');

/**
 * When a limit cut the code, the sentence that says which one (clippedAt: { limit, unit }, the
 * engine's) and how much of the code (totalBytes) was read; '' when the model read it all.
 */
export function clipSentence({ unit, n, bytes, clippedAt, totalBytes }) {
  if (!clippedAt) return '';
  const read = unit === 'token' ? bytes : n;
  const limit = plural(clippedAt.limit, clippedAt.unit);
  const rule =
    clippedAt.unit === 'token'
      ? `the page runs the model on at most ${limit}`
      : unit === 'token'
        ? `one run of the model reads at most ${limit}`
        : `the page runs the model on at most ${limit}`;
  return `Only the first ${count(read)} of the code's ${plural(totalBytes, 'byte')} were read, because ${rule}; the rest is left out.`;
}

/**
 * What generation produced: "256 bytes after a 6,842-byte prompt, 900 bytes/s" (and why a count
 * differs from the one asked). A prompt cut to leave room for the output (codeBytes: the code's
 * bytes, more than promptBytes; promptLimit: the most bytes a prompt may hold) says so.
 */
export function generatedSentence({
  unit,
  bytes,
  asked,
  promptBytes,
  bytesPerSecond,
  codeBytes = promptBytes,
  promptLimit,
}) {
  let made = plural(bytes, 'byte');
  if (bytes > asked && unit === 'token')
    made += ` in whole tokens (the last one ends past the ${asked} asked)`;
  else if (bytes < asked) made += ` (the model ended the text before the ${asked} asked)`;
  const speed = `${Math.round(bytesPerSecond).toLocaleString('en')} bytes/s`;
  if (codeBytes <= promptBytes)
    return `${made} after a ${count(promptBytes)}-byte prompt, ${speed}`;
  return `${made} after the first ${count(promptBytes)} of the code's ${plural(codeBytes, 'byte')} (a prompt holds at most ${plural(promptLimit, 'byte')} here, so the model continues from there, not from the code's end), ${speed}`;
}

/**
 * The status line for a run that failed, in plain words (no error class names): the engine's own
 * sentences (PlaygroundError) and a download that failed (NetworkError) as they are, the API's
 * refusals (HiRoPEError) as settings that cannot be computed, anything else as what went wrong.
 */
export function modelErrorText(e) {
  const message = String(e?.message ?? e).replace(/\.$/, '');
  if (e?.name === 'PlaygroundError') return `${capital(message)}.`;
  if (e?.name === 'NetworkError') return `${capital(message)}. Reload the page to try again.`;
  if (e?.name === 'HiRoPEError') return `These settings cannot be computed: ${message}.`;
  return `Something went wrong: ${message}.`;
}

const andList = (xs) =>
  xs.length < 2 ? String(xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

/**
 * The note beside the Language picker: the language detected in pasted code (detected: true), and
 * whether the model was trained on it (names: the languages' display names).
 */
export function languageNote({ model, language, trained, detected = false }) {
  const found = detected ? `Detected: ${language}. ` : '';
  if (trained.includes(language)) return detected ? `Detected: ${language}.` : '';
  return `${found}The ${model} was trained on ${andList(trained)} only, not ${language}: expect a high loss, and read the comparison of A and B with care.`;
}

/** The Language picker's help for a model (trained: the display names of its languages). */
export const languageHelp = (trained) =>
  `The grammar that gives HiRoPE its units and statements (pasting code detects it). The model was trained on ${andList(trained)} only; the other grammars are listed after them.`;

/** The hint over the model's maps: what a pointer does, with a mouse or on a touch screen. */
export function modelMapHint({ touch, unit }) {
  return touch
    ? `Tap a row to shade the ${unit}s that query attends to; drag sideways across a map to zoom. The small maps show every layer and head: tap one to open it here.`
    : `Click a row to shade the ${unit}s that query attends to; drag to zoom. The small maps show every layer and head: click one to open it here.`;
}
