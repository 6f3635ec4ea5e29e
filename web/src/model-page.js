// The playground's Model mode: hirope's code model under two schemes — loss by position, code
// shaded by loss, the model's real attention per layer and head (and every layer and head as
// thumbnails), and generation — computed by the same two workers as the attention mode. The
// whole state lives in the URL hash.
import { assetURL } from './assets.js';
import { createEditor, HEAT_LEVELS, heatLevel } from './editor.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { PairClient } from './client.js';
import { buildControls, setPath } from './controls.js';
import { MODEL_DEFAULTS, MODEL_SPLIT_RATIO, SCALINGS, normalizeWith, encodeWith, decodeWith, readLink, describeModelSide, formatRatio, DEFAULTS } from './state.js';
import { MODEL_SCHEMES, THUMB_SIZE, isBaseline, lossCurve } from './model-engine.js';
import { RECALL_CLASSES } from '../../dist/recall.js';
import { LUTS, cssGradient, DECADES } from './colormap.js';
import { SAMPLES, LANGUAGE_NAMES } from './samples.js';
import { drawAxes, fitCanvas, niceTicks } from './axes.js';
import { el, download } from './dom.js';
import { plural, LINK_UNREADABLE } from './wording.js';
import { VOCABULARY, options, numberSpec } from './vocabulary.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const progress = $('progress');
installUnitColours();

const SMOOTHING = [1, 8, 32, 128];
const BYTE_FILTERS = [['all', 'every byte'], ['far', 'far-recall bytes only']];
/** The state a URL hash describes, with values the controls can show. */
async function stateFromHash(hash) {
  const s = await decodeWith(MODEL_DEFAULTS, hash);
  if (!SMOOTHING.includes(s.smooth)) s.smooth = MODEL_DEFAULTS.smooth;
  if (!BYTE_FILTERS.some(([v]) => v === s.bytes)) s.bytes = MODEL_DEFAULTS.bytes;
  return s;
}
let state = await stateFromHash(location.hash);
// A link that cannot be read (cut off or garbled when copied) says so; the page shows the defaults.
if ((await readLink(MODEL_DEFAULTS, location.hash)).unreadable) {
  const box = el('div', { class: 'link-notice', id: 'link-notice', role: 'alert' });
  const close = el('button', { type: 'button', class: 'small', title: 'Hide this notice' }, 'Dismiss');
  close.addEventListener('click', () => box.remove());
  box.append(el('p', {}, LINK_UNREADABLE), close);
  document.querySelector('.status-line').before(box);
}
let zoom = null;
let result = null; // { a, b } of the last run
let config = null; // the model's config (from its file, once loaded)
// The core's Split% bound for this model's training length, base and head size, at a ratio.
const splitBoundOf = (ratio) =>
  client.a.request('splitBound', { scheme: { type: 'hirope', ratio, base: config.ropeBase, trainingLength: config.trainingContext }, headDim: config.headDim });
let bound = null; // splitBoundOf(0): the largest band within the bound, once the config is known
let selected = null; // { side, index }: the query row shading the code, if any
let generating = false; // a generation is under way (Generate is disabled)
const workerURL = new URL('./worker.js', import.meta.url);
if (new URLSearchParams(location.search).get('simd') === '0') workerURL.searchParams.set('simd', '0');
const client = new PairClient(workerURL);

// The weights, fetched once per visit for both workers. hr.model.load() reads data/pybyte.hrm
// next to the hirope module, which the site bundles into worker.js: the same URL from here.
const MODEL_URL = assetURL('data/pybyte.hrm', workerURL);
const modelReady = fetch(MODEL_URL)
  .then((response) => {
    if (!response.ok) throw Object.assign(new Error(`could not fetch the model's weights (${MODEL_URL.pathname}: HTTP ${response.status})`), { name: 'NetworkError' });
    return response.arrayBuffer();
  })
  .then((data) => Promise.all(['a', 'b'].map((s) => client.side(s).request('modelLoad', { data })))) // each worker gets a copy
  .then(async ([loaded]) => {
    config = loaded;
    bound = await splitBoundOf(0);
    configured();
    return loaded;
  });
modelReady.catch(() => {}); // reported by the first run
const info = await client.a.request('ready');

// ----- controls
const MODEL_SCALINGS = SCALINGS.filter(([s]) => s !== 'llama3');
const PAIRS = 16; // the shipped model's frequency pairs, until its config is known
// The numbers' ranges and steps are the core's scheme table's (web/src/vocabulary.js); the help
// is this page's, in bytes, and the ratio moves by one of the model's frequency pairs.
function range(name) {
  const { min, max, minOpen, maxOpen, step, integer } = numberSpec(name);
  return { min, max, minOpen, maxOpen, step, integer };
}

function sideControls(side) {
  const k = (name) => `${side}.${name}`;
  return [
    { key: k('type'), label: 'Scheme', type: 'select', options: MODEL_SCHEMES, help: 'The position scheme applied to the model\'s queries and keys at inference (it was trained with RoPE).' },
    { key: k('ratio'), label: 'Ratio', type: 'range', ...range('ratio'), step: 1 / PAIRS, numeric: true, help: 'HiRoPE: fraction of frequency pairs (the fast ones) that keep the byte index; the rest carry the unit index beyond the window. One step is one pair.', show: (s) => s[side].type === 'hirope' },
    { key: k('hierarchy'), label: 'Hierarchy', type: 'select', options: options(VOCABULARY.byteHierarchies), help: 'Where HiRoPE\'s high-level index comes from: top-level functions/classes or statements of the tree-sitter parse, or fixed segments of bytes.', show: (s) => s[side].type === 'hirope' },
    { key: k('segment'), label: 'Segment', noun: 'segment size', type: 'number', ...range('segmentSize'), help: 'Bytes per segment.', show: (s) => s[side].type === 'hirope' && s[side].hierarchy === 'segments' },
    { key: k('window'), label: 'Window', type: 'number', ...range('window'), help: 'Byte distances below W use plain RoPE; from W on the scheme\'s far rule applies. Sliding window: attention in every layer reaches W bytes back. Truncate: each byte is predicted from the last W bytes only (one pass per W/8 bytes).', show: (s) => s[side].type !== 'rope' },
    { key: k('group'), label: 'Group', type: 'number', ...range('group'), help: 'Self-Extend: far distances are divided by G.', show: (s) => s[side].type === 'self-extend' },
    { key: k('scaling'), label: 'Scaling', type: 'select', options: MODEL_SCALINGS, help: 'Frequency scaling relative to the training length: position interpolation, NTK-aware, dynamic NTK or YaRN.', show: (s) => !isBaseline(s[side].type) },
    { key: k('factor'), label: 'Factor', noun: 'scaling factor', type: 'number', ...range('factor'), help: 'Scaling factor s (PI divides every frequency by s).', show: (s) => !isBaseline(s[side].type) && s[side].scaling !== 'none' && s[side].scaling !== 'dynamic-ntk' },
  ];
}
const indexOptions = (count) => Array.from({ length: count }, (_, i) => [String(i), String(i)]);
const controlGroups = [
  buildControls($('source-controls'), [
    { key: 'language', label: 'Language', type: 'select', options: info.languages.map((l) => [l, LANGUAGE_NAMES[l] ?? l]), help: 'The grammar that gives HiRoPE its units and statements. The model itself was trained on Python only.' },
    { key: 'colour', label: 'Shade code by', type: 'select', options: [['a', 'loss under A'], ['b', 'loss under B']], help: 'Which scheme\'s per-byte loss shades the code: darker bytes surprised the model more.' },
  ], onControl),
  buildControls($('loss-controls'), [
    { key: 'smooth', label: 'Smoothing', type: 'select', numeric: true, options: SMOOTHING.map((b) => [String(b), b === 1 ? 'none (every byte)' : `runs of ${b} bytes`]), help: 'The chart plots the mean loss over consecutive runs of this many bytes.', show: (s) => s.bytes === 'all' },
    { key: 'bytes', label: 'Bytes', type: 'select', options: BYTE_FILTERS, help: 'Far-recall bytes: the bytes of a name whose previous use is more than the training length back, with none nearer. Only there can context beyond the training length help; each dot is one such name.' },
  ], onControl),
  buildControls($('attention-controls'), [
    { key: 'layer', label: 'Layer', type: 'select', options: indexOptions(4), numeric: true, help: 'Which layer\'s attention the heatmaps show.' },
    { key: 'head', label: 'Head', type: 'select', options: indexOptions(4), numeric: true, help: 'Which attention head the heatmaps show.' },
  ], onControl),
  buildControls($('generation-controls'), [
    { key: 'maxBytes', label: 'Bytes', type: 'number', min: 1, max: 2048, step: 1, help: 'Bytes to generate.' },
    { key: 'temperature', label: 'Temperature', type: 'number', min: 0, max: 2, step: 0.1, help: 'Sampling temperature; 0 always takes the most likely byte.' },
    { key: 'seed', label: 'Seed', type: 'number', min: 0, step: 1, help: 'Sampling seed (both sides use the same one).' },
  ], onControl),
];
const sides = { a: buildControls($('scheme-a'), sideControls('a'), onControl), b: buildControls($('scheme-b'), sideControls('b'), onControl) };
const ratioHints = {};
for (const side of ['a', 'b']) {
  $(`scheme-${side}`).prepend(el('h3', {}, `Scheme ${side.toUpperCase()}`));
  ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
  $(`scheme-${side}`).append(ratioHints[side]);
}

// One-click settings for B: HiRoPE at this model's Split% bound, and at the paper's ratio 0.5.
const presets = el('div', { class: 'presets', role: 'group', 'aria-label': 'Presets for scheme B' });
const presetButtons = {
  bound: el('button', { type: 'button', class: 'preset', id: 'preset-bound', title: 'HiRoPE with the most frequency pairs on the byte index that stay within this model\'s Split% bound' }),
  paper: el('button', { type: 'button', class: 'preset', id: 'preset-paper', title: 'HiRoPE at the HiRoPE paper\'s ratio 0.5, above this model\'s Split% bound' }, 'the paper\'s 0.5'),
};
presetButtons.bound.addEventListener('click', () => applyPreset('b', boundRatio()));
presetButtons.paper.addEventListener('click', () => applyPreset('b', 0.5));
presets.append(el('span', { class: 'presets-label' }, 'HiRoPE at'), presetButtons.bound, presetButtons.paper);
$('scheme-b').querySelector('h3').after(presets);

const pairsOf = () => (config ? config.headDim / 2 : PAIRS);
const boundRatio = () => (bound ? bound.maxRatio : MODEL_SPLIT_RATIO);

function applyPreset(side, ratio) {
  state[side].type = 'hirope';
  state[side].ratio = ratio;
  state = normalizeWith(MODEL_DEFAULTS, state);
  syncControls();
  schedule();
}

// Once the model's config is known: its layers and heads, and ratio steps of one pair.
function configured() {
  $('train-length').textContent = String(config.trainingContext);
  for (const [key, count] of [['layer', config.layers], ['head', config.heads]]) {
    const select = $(`c-${key}`);
    if (select.options.length !== count) select.replaceChildren(...indexOptions(count).map(([v, t]) => el('option', { value: v }, t)));
  }
  for (const side of ['a', 'b']) $(`c-${side}-ratio`).step = String(1 / pairsOf());
  thumbs.build(config.layers, config.heads);
  syncControls();
}

function syncControls() {
  for (const group of controlGroups) group.sync(state);
  sides.a.sync(state);
  sides.b.sync(state);
  $('smooth-bytes').textContent = state.bytes === 'far' ? 'the bytes of each far-recall name (one dot per name)'
    : state.smooth === 1 ? 'runs of 1 byte (no smoothing)' : `runs of ${state.smooth} bytes`;
  const b = state.b;
  presetButtons.bound.textContent = `the Split% bound (${Math.round(boundRatio() * pairsOf())}/${pairsOf()})`;
  presetButtons.bound.setAttribute('aria-pressed', String(b.type === 'hirope' && b.ratio === boundRatio()));
  presetButtons.paper.setAttribute('aria-pressed', String(b.type === 'hirope' && b.ratio === 0.5));
  thumbs.select(state.layer, state.head);
  updateHints();
  syncGenerate();
}

// Generate is disabled while it runs, and while any visible field holds a value that cannot be
// used (the field says why; the button's hover text names it).
function syncGenerate() {
  const button = $('generate');
  const invalid = [...document.querySelectorAll('[aria-invalid="true"]')].filter((input) => !input.closest('[hidden]'));
  const names = invalid.map((input) => $(`${input.id}-label`)?.textContent.trim() ?? input.name);
  button.disabled = generating || invalid.length > 0;
  button.title = invalid.length ? `Correct ${names.join(', ')} first: the marked field${invalid.length === 1 ? ' holds a value' : 's hold values'} that cannot be used.` : '';
}
document.addEventListener('input', syncGenerate); // after the field's own check (bubbling)

// The ratio as pairs ("8/24 pairs (0.333)") and the Split% hint, from the core once the model's
// config is known; a newer call supersedes an older one still waiting for the worker.
let hintCall = 0;
async function updateHints() {
  const call = ++hintCall;
  for (const side of ['a', 'b']) {
    const s = state[side];
    const output = $(`c-${side}-ratio`).closest('label').querySelector('output');
    const hint = ratioHints[side];
    if (!config || s.type !== 'hirope') {
      output.textContent = formatRatio(s.ratio);
      hint.textContent = '';
      hint.classList.remove('warn');
      continue;
    }
    const sideBound = await splitBoundOf(s.ratio);
    if (call !== hintCall) return;
    output.textContent = `${sideBound.tokenPairs}/${sideBound.pairs} pairs (${formatRatio(s.ratio)})`;
    hint.classList.toggle('warn', sideBound.over);
    hint.textContent =
      `Split% for this model (trained at ${config.trainingContext} bytes): ${(100 * sideBound.split).toFixed(1)}%, the ${sideBound.maxTokenPairs} of ${sideBound.pairs} pairs whose wavelength fits in the training length; ratio ${formatRatio(s.ratio)} keeps ${plural(sideBound.tokenPairs, 'pair')} on the byte index.` +
      (sideBound.over ? ` That is above the bound: pairs that never completed a period in training stay on the byte distance and see angles the model never saw (the paper's 0.5 breaks this model).` : ' Within the bound.');
  }
}

function onControl(key, value) {
  const wasSample = state.code === null || state.code === SAMPLES[state.language];
  // The ratio moves in whole pairs: k / pairs exactly (8/24 is the default, 1/3).
  if (key.endsWith('.ratio')) value = Math.round(value * pairsOf()) / pairsOf();
  setPath(state, key, value);
  state = normalizeWith(MODEL_DEFAULTS, state);
  if (key === 'language') {
    editor.setLanguage(state.language);
    if (wasSample) {
      state.code = null;
      editor.setText(SAMPLES[state.language] ?? '');
      zoom = null;
    }
  }
  syncControls();
  if (key === 'colour') return shadeCode();
  if (key === 'smooth' || key === 'bytes') {
    if (key === 'bytes') syncControls();
    drawLossChart();
    return writeURL();
  }
  if (['maxBytes', 'temperature', 'seed'].includes(key)) return writeURL();
  schedule();
}

// ----- editor: one mark per character, shaded by its loss
let chars = null; // { count, start, end, unit, firstByte, byteChar }
const editor = createEditor({
  parent: $('editor'),
  doc: state.code ?? SAMPLES[state.language] ?? '',
  language: state.language,
  label: 'Source code (shaded by the model\'s loss; hover a character for details)',
  onChange(text) {
    state.code = text === SAMPLES[state.language] ? null : text;
    schedule();
  },
  describeToken(index) {
    if (!chars || !result) return [];
    const byte = chars.firstByte[index];
    const bits = (side) => {
      const v = charBits(result[side].losses, index);
      return v === null ? '—' : `${v.toFixed(2)} bits`;
    };
    return [
      ['byte', `${byte} of ${result.a.n}`],
      ['text', JSON.stringify(editor.text.slice(chars.start[index], chars.end[index]))],
      ['loss A', bits('a')],
      ['loss B', bits('b')],
      ['unit (B)', String(chars.unit[index])],
    ];
  },
});

// Characters of the text the model read, with their UTF-16 and byte ranges.
function charTable(text, n, units) {
  const start = [];
  const end = [];
  const firstByte = [];
  const byteChar = new Int32Array(n);
  let byte = 0;
  let i = 0;
  while (i < text.length && byte < n) {
    const cp = text.codePointAt(i);
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const units16 = cp > 0xffff ? 2 : 1;
    start.push(i);
    end.push(i + units16);
    firstByte.push(byte);
    for (let b = byte; b < Math.min(n, byte + width); b++) byteChar[b] = start.length - 1;
    byte += width;
    i += units16;
  }
  const count = start.length;
  const unit = Int32Array.from(firstByte, (b) => (b < units.length ? units[b] : units[units.length - 1] ?? 0));
  return { count, start: Int32Array.from(start), end: Int32Array.from(end), unit, firstByte: Int32Array.from(firstByte), byteChar };
}

// Bits to predict a character: the sum over its bytes (null for the very first byte).
function charBits(losses, index) {
  const b0 = chars.firstByte[index];
  const b1 = index + 1 < chars.count ? chars.firstByte[index + 1] : losses.length + 1;
  if (b0 === 0) return null;
  let sum = 0;
  for (let b = b0; b < b1; b++) sum += losses[b - 1] ?? 0;
  return sum;
}

function shadeCode() {
  if (!chars || !result) return;
  const losses = result[state.colour].losses;
  const levels = new Uint8Array(chars.count);
  for (let c = 0; c < chars.count; c++) {
    const bits = charBits(losses, c);
    levels[c] = bits === null ? 0 : Math.max(0, Math.min(HEAT_LEVELS, Math.round(bits)));
  }
  editor.setHeat({ levels, query: -1 });
  $('code-legend').textContent = `Shading: bits to predict each character under ${state.colour.toUpperCase()}, ${describeModelSide(state[state.colour])} — one shade per bit, darkest at ${HEAT_LEVELS} bits or more.`;
  writeURL();
}

// ----- loss chart: the full width of its box, crisp at the device pixel ratio
const lossCanvas = el('canvas', { role: 'img' });
const lossKey = el('p', { class: 'chart-key' });
$('loss-chart').append(lossCanvas, lossKey);

const meanLoss = (r, from, to) => {
  let s = 0;
  let c = 0;
  for (let t = from; t < Math.min(to, r.losses.length); t++) {
    s += r.losses[t];
    c++;
  }
  return c ? s / c : NaN;
};

function drawLossChart() {
  if (!result || !config) return;
  const { a, b } = result;
  const width = Math.max(240, Math.floor($('loss-chart').clientWidth));
  const height = width < 560 ? 230 : 290;
  const ctx = fitCanvas(lossCanvas, width, height);
  ctx.clearRect(0, 0, width, height);
  const css = getComputedStyle(document.documentElement);
  const ink = css.getPropertyValue('--ink').trim() || '#222';
  const colour = { a: css.getPropertyValue('--a').trim(), b: css.getPropertyValue('--b').trim() };
  const n = a.n;
  const smooth = state.smooth;
  const farOnly = state.bytes === 'far';
  // Runs of `smooth` bytes, each drawn at its middle byte (losses[t] is the loss of byte t + 1);
  // or, far-recall bytes only, one dot per far-recall name at its mean loss.
  const curves = {};
  let yMax = 4;
  for (const side of ['a', 'b']) {
    if (farOnly) {
      curves[side] = farRecallPoints(result[side].losses, a.recall);
    } else {
      const c = lossCurve(result[side].losses, smooth);
      const x = new Float32Array(c.x.length);
      for (let p = 0; p < c.x.length; p++) x[p] = c.x[p] + (Math.min(smooth, result[side].losses.length - p * smooth) - 1) / 2;
      curves[side] = { x, y: c.y };
    }
    for (const y of curves[side].y) yMax = Math.max(yMax, y);
  }
  // Up to 6 round y ticks (whole bits for the usual range), the top one at or above every point.
  const { ticks, step } = niceTicks(0, yMax, 6);
  const yTop = ticks.at(-1) < yMax ? ticks.at(-1) + step : ticks.at(-1);
  const box = { left: 50, top: 10, width: width - 50 - 14, height: height - 10 - 44 };
  const y = { lo: 0, hi: yTop, title: 'bits per byte', ticks: niceTicks(0, yTop, 6).ticks };
  const axes = drawAxes(ctx, { box, x: { lo: 0, hi: n, title: 'byte position' }, y, ink, grid: true });
  ctx.save();
  ctx.beginPath();
  ctx.rect(box.left, box.top, box.width, box.height);
  ctx.clip();
  const L = config.trainingContext;
  if (L < n) {
    ctx.strokeStyle = ink;
    ctx.fillStyle = ink;
    ctx.lineWidth = 1;
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(Math.round(axes.x(L)) + 0.5, box.top);
    ctx.lineTo(Math.round(axes.x(L)) + 0.5, box.top + box.height);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.font = '11px system-ui, sans-serif';
    const label = `training length ${L}`;
    const w = ctx.measureText(label).width;
    const right = axes.x(L) + 4 + w <= box.left + box.width - 2;
    ctx.textAlign = right ? 'left' : 'right';
    ctx.textBaseline = 'top';
    ctx.fillText(label, axes.x(L) + (right ? 4 : -4), box.top + 4);
  }
  ctx.lineWidth = smooth === 1 ? 1 : 1.75;
  ctx.lineJoin = 'round';
  for (const side of ['a', 'b']) {
    const { x, y } = curves[side];
    ctx.strokeStyle = colour[side];
    ctx.fillStyle = colour[side];
    ctx.beginPath();
    if (farOnly) {
      // A: filled dots; B: rings, so that equal values stay visible.
      for (let p = 0; p < x.length; p++) {
        ctx.moveTo(axes.x(x[p]) + 3.5, axes.y(y[p]));
        ctx.arc(axes.x(x[p]), axes.y(y[p]), 3.5, 0, 2 * Math.PI);
      }
      if (side === 'a') ctx.fill();
      else ctx.stroke();
    } else {
      for (let p = 0; p < x.length; p++) (p ? ctx.lineTo : ctx.moveTo).call(ctx, axes.x(x[p]), axes.y(y[p]));
      ctx.stroke();
    }
  }
  ctx.restore();
  const far = farRecallBytes(a.recall);
  const summary = ['a', 'b'].map((side) => {
    const r = result[side];
    const head = `${side.toUpperCase()} ${describeModelSide(r.side)}: `;
    if (farOnly) return head + (far ? `${meanOver(r.losses, a.recall).toFixed(2)} bits/byte on far-recall bytes` : 'no far-recall bytes');
    return head + `${meanLoss(r, 0, L - 1).toFixed(2)} bits/byte within ${L}, ${n > L ? meanLoss(r, L - 1, n).toFixed(2) : '—'} beyond`;
  });
  const what = farOnly ? `far-recall bytes only: ${plural(far, 'byte')} in ${plural(curves.a.x.length, 'name')}` : smooth === 1 ? 'every byte' : `runs of ${smooth} bytes`;
  lossCanvas.setAttribute('aria-label', `Loss by position (${what}). ${summary.join('; ')}.`);
  lossKey.replaceChildren();
  for (const [i, side] of ['a', 'b'].entries()) {
    lossKey.append(el('span', { class: `swatch swatch-${side}` }), ` ${summary[i]}`, i === 0 ? el('br') : '');
  }
  if (farOnly) {
    lossKey.append(el('br'), far
      ? `${plural(far, 'far-recall byte')} in ${plural(curves.a.x.length, 'name')}: each dot is one name used again more than ${L} bytes after its previous use. Only on such bytes can context past the training length help; a truncated model cannot see the earlier use.`
      : `This code has no far-recall bytes: no name is used again more than ${L} bytes after its previous use.`);
  }
}

const FAR = RECALL_CLASSES.indexOf('far');
const farRecallBytes = (recall) => recall.reduce((c, x) => c + (x === FAR), 0);
// Mean loss over the far-recall bytes (losses[t - 1] is the loss of byte t).
function meanOver(losses, recall) {
  let sum = 0;
  let count = 0;
  for (let t = 1; t <= losses.length; t++) {
    if (recall[t] !== FAR) continue;
    sum += losses[t - 1];
    count++;
  }
  return count ? sum / count : NaN;
}
// One point per run of far-recall bytes (a name): { x (its middle byte), y (its mean loss) }.
function farRecallPoints(losses, recall) {
  const xs = [];
  const ys = [];
  for (let t = 1; t <= losses.length; t++) {
    if (recall[t] !== FAR) continue;
    let end = t;
    let sum = 0;
    while (end <= losses.length && recall[end] === FAR) sum += losses[end++ - 1];
    xs.push((t + end - 1) / 2);
    ys.push(sum / (end - t));
    t = end;
  }
  return { x: Float32Array.from(xs), y: Float32Array.from(ys) };
}

// Redrawn at its new width when the page's layout changes (once per frame at most).
let chartFrame = 0;
let chartWidth = 0;
new ResizeObserver(() => {
  const width = Math.floor($('loss-chart').clientWidth);
  if (width === chartWidth) return;
  chartWidth = width;
  cancelAnimationFrame(chartFrame);
  chartFrame = requestAnimationFrame(drawLossChart);
}).observe($('loss-chart'));

// ----- heatmaps
const heatmaps = {};
for (const side of ['a', 'b']) {
  heatmaps[side] = new Heatmap($('maps'), {
    id: `map-${side}`,
    title: side.toUpperCase(),
    onRow: (index) => selectRow(side, index),
    onZoom: (region) => setZoom(region),
    onExport: (kind) => exportMap(side, kind),
  });
}
$('reset-zoom').addEventListener('click', () => setZoom(null));

function drawMaps() {
  for (const side of ['a', 'b']) {
    const r = result[side];
    const img = r.image;
    heatmaps[side].setTitle(side.toUpperCase(), `${describeModelSide(r.side)} · layer ${r.layer}, head ${r.head}`);
    heatmaps[side].draw({ rgba: img.rgba, rows: img.rows, cols: img.cols }, img.region, r.units, r.attentionBytes);
    heatmaps[side].setLegend(cssGradient(LUTS.magma), `10⁻${DECADES}× row max`, 'row max', img.rows < img.region.r1 - img.region.r0 ? 'Downsampled: each cell is the mean over the bytes it covers.' : '');
  }
  const r = result.a.image.region;
  $('zoom-info').textContent = zoom ? `Zoomed: queries ${r.r0}–${r.r1 - 1}, keys ${r.c0}–${r.c1 - 1}` : '';
  $('reset-zoom').disabled = !zoom;
}

async function setZoom(region) {
  zoom = region;
  if (!result) return;
  try {
    const [a, b] = await Promise.all(['a', 'b'].map((s) => client.side(s).request('images', { view: { size: 512, region } })));
    // The images belong to the results now (a side that a later run does not recompute keeps them).
    result.a.image = a;
    result.b.image = b;
    drawMaps();
  } catch (e) {
    showError(e);
  }
}

// ----- every layer and head as thumbnails (bertviz's model view), A's and B's
const thumbs = {
  figure: el('figure', { class: 'thumbs', id: 'thumbs' }),
  grids: {},
  cells: { a: [], b: [] },
  key: { a: null, b: null }, // the input whose thumbnails are shown or being computed, per side
  done: { a: false, b: false },
  layers: 0,
  heads: 0,

  build(layers, heads) {
    if (layers === this.layers && heads === this.heads) return;
    this.layers = layers;
    this.heads = heads;
    const caption = el('figcaption', {}, 'Every layer and head');
    const pair = el('div', { class: 'thumbs-pair' });
    for (const side of ['a', 'b']) {
      const grid = el('div', { class: `thumb-grid side-${side}`, id: `thumbs-${side}`, role: 'group', 'aria-label': `Scheme ${side.toUpperCase()}: attention of every layer and head` });
      grid.style.setProperty('--heads', String(heads));
      grid.append(el('span', { class: 'thumb-corner' }, side.toUpperCase()));
      for (let h = 0; h < heads; h++) grid.append(el('span', { class: 'thumb-col' }, `head ${h}`));
      this.cells[side] = [];
      for (let l = 0; l < layers; l++) {
        grid.append(el('span', { class: 'thumb-row' }, `layer ${l}`));
        for (let h = 0; h < heads; h++) {
          const button = el('button', { type: 'button', class: 'thumb', 'aria-label': `Layer ${l}, head ${h} (${side.toUpperCase()})`, title: `Open layer ${l}, head ${h}` });
          const canvas = el('canvas', { width: String(THUMB_SIZE), height: String(THUMB_SIZE) });
          button.append(canvas);
          button.addEventListener('click', () => openHead(l, h));
          grid.append(button);
          this.cells[side].push({ button, canvas });
        }
      }
      this.grids[side] = grid;
      pair.append(grid);
    }
    this.note = el('p', { class: 'legend-note thumbs-note' });
    this.figure.replaceChildren(caption, pair, this.note);
    if (!this.figure.isConnected) $('maps').append(this.figure);
    this.key = { a: null, b: null };
    this.select(state.layer, state.head);
  },

  select(layer, head) {
    for (const side of ['a', 'b']) {
      this.cells[side].forEach(({ button }, i) => button.setAttribute('aria-pressed', String(i === layer * this.heads + head)));
    }
  },

  /** Computes one side's thumbnails for an input, one request at a time (so that others can pass). */
  async fill(side, payload) {
    const key = sideKey(payload, side);
    if (!this.layers || this.key[side] === key) return;
    this.key[side] = key;
    this.done[side] = false;
    this.update();
    for (const { canvas, button } of this.cells[side]) {
      canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
      button.classList.add('pending');
    }
    for (let l = 0; l < this.layers; l++) {
      for (let h = 0; h < this.heads; h++) {
        if (this.key[side] !== key) return;
        let image;
        try {
          image = await client.side(side).request('modelThumbnail', { code: payload.code, language: payload.language, side: payload.state[side], layer: l, head: h, size: THUMB_SIZE });
        } catch {
          if (this.key[side] === key) this.key[side] = null; // shown by the run's own error
          return;
        }
        if (this.key[side] !== key) return;
        counts[side] = image.counts;
        const { canvas, button } = this.cells[side][l * this.heads + h];
        canvas.width = image.cols;
        canvas.height = image.rows;
        canvas.getContext('2d').putImageData(new ImageData(image.rgba, image.cols, image.rows), 0, 0);
        button.classList.remove('pending');
      }
    }
    this.done[side] = true;
    this.update();
  },

  update() {
    const ready = this.done.a && this.done.b;
    document.body.dataset.thumbs = ready ? 'ready' : 'busy';
    this.figure.setAttribute('aria-busy', String(!ready));
    if (this.note) this.note.textContent = ready ? `Each map: the first ${result?.a.attentionBytes ?? ''} bytes pooled to ${THUMB_SIZE} × ${THUMB_SIZE} cells, same colours as above. Click one to open it.` : 'Computing every layer and head…';
  },
};

function openHead(layer, head) {
  if (layer === state.layer && head === state.head) return;
  state.layer = layer;
  state.head = head;
  syncControls();
  schedule();
}

async function selectRow(side, index) {
  if (!result || !chars || index < 0 || index >= result[side].attentionBytes) return;
  selected = { side, index };
  for (const h of Object.values(heatmaps)) h.select(index);
  try {
    const row = await client.side(side).request('row', { index });
    const levels = new Uint8Array(chars.count);
    for (let j = 0; j <= index; j++) {
      const c = chars.byteChar[j];
      levels[c] = Math.max(levels[c], heatLevel(row.max > 0 ? row.probs[j] / row.max : 0));
    }
    editor.setHeat({ levels, query: chars.byteChar[index] });
    const text = (j) => JSON.stringify(editor.text.slice(chars.start[chars.byteChar[j]], chars.end[chars.byteChar[j]]));
    const top = Array.from(row.probs.keys()).sort((x, y) => row.probs[y] - row.probs[x]).slice(0, 3).map((j) => `${text(j)}@${j} ${(100 * row.probs[j]).toFixed(1)}%`).join(', ');
    $('query-info').textContent = `Byte ${index} ${text(index)} under ${side.toUpperCase()}, layer ${result[side].layer}, head ${result[side].head} — top keys: ${top}. Change the code or a scheme to shade by loss again.`;
  } catch (e) {
    showError(e);
  }
}

async function exportMap(side, kind) {
  if (kind === 'png') {
    const blob = await new Promise((resolve) => heatmaps[side].canvas.toBlob(resolve, 'image/png'));
    return download(blob, `hirope-model-${side}.png`);
  }
  try {
    const { region, values } = await client.side(side).request('values', { region: zoom });
    const width = region.c1 - region.c0;
    const lines = [['query\\key', ...Array.from({ length: width }, (_, j) => region.c0 + j)].join(',')];
    for (let i = region.r0; i < region.r1; i++) lines.push([i, ...values.subarray((i - region.r0) * width, (i - region.r0 + 1) * width)].join(','));
    download(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), `hirope-model-${side}.csv`);
  } catch (e) {
    showError(e);
  }
}

// ----- generation
$('generate').addEventListener('click', async () => {
  generating = true;
  syncGenerate();
  await modelReady.catch(() => {}); // the workers load the page's copy of the weights first
  const snapshot = normalizeWith(MODEL_DEFAULTS, state);
  for (const side of ['a', 'b']) {
    $(`gen-${side}`).classList.remove('gen-empty');
    $(`gen-${side}`).textContent = 'Generating…';
    $(`gen-title-${side}`).textContent = `${side.toUpperCase()}: ${describeModelSide(snapshot[side])}`;
  }
  try {
    const payload = { code: editor.text, language: snapshot.language, maxBytes: snapshot.maxBytes, temperature: snapshot.temperature, seed: snapshot.seed };
    const [a, b] = await Promise.all(['a', 'b'].map((s) => client.side(s).request('modelGenerate', { ...payload, side: snapshot[s] })));
    for (const [side, g] of [['a', a], ['b', b]]) {
      const pre = $(`gen-${side}`);
      const tail = editor.text.slice(-240);
      pre.replaceChildren(el('span', { class: 'prompt-tail' }, tail), el('mark', { class: 'generated' }, g.text));
      $(`gen-title-${side}`).textContent = `${side.toUpperCase()}: ${describeModelSide(snapshot[side])} — ${plural(g.bytes, 'byte')} after a ${g.promptBytes}-byte prompt, ${Math.round(g.bytesPerSecond)} bytes/s`;
    }
    document.body.dataset.generated = 'true';
  } catch (e) {
    showError(e);
  } finally {
    generating = false;
    syncGenerate();
  }
});

// ----- running
// A side's loss depends on the code and its scheme; its attention also on the layer and head.
// Each worker keeps what it computed last, so a layer or head change asks only for the attention
// (no loss pass), and a change to one scheme leaves the other side's worker idle.
let scheduled = false;
let progressTimer = 0;
const computed = { a: null, b: null }; // per side: { key, layer, head } of the worker's last result
const counts = { a: null, b: null }; // the workers' pass counters, as last reported
function schedule() {
  scheduled = true;
  queueMicrotask(run);
}

function sideKey(payload, side) {
  return JSON.stringify([payload.code, payload.language, payload.state[side]]);
}

async function runBoth(payload) {
  const parts = {};
  const [a, b] = await Promise.all(['a', 'b'].map(async (s) => {
    const key = sideKey(payload, s);
    const prev = computed[s];
    const loss = !prev || prev.key !== key;
    const attention = loss || prev.layer !== payload.layer || prev.head !== payload.head;
    parts[s] = { loss, attention };
    if (!attention) return prev.result;
    const r = await client.side(s).request('modelRun', { code: payload.code, language: payload.language, layer: payload.layer, head: payload.head, view: payload.view, side: payload.state[s], parts: parts[s] });
    counts[s] = r.counts;
    const merged = loss ? r : { ...prev.result, ...r };
    Object.assign(merged, { side: payload.state[s], layer: payload.layer, head: payload.head });
    computed[s] = { key, layer: payload.layer, head: payload.head, result: merged };
    return merged;
  }));
  return { a, b, parts };
}

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = performance.now();
  const snapshot = normalizeWith(MODEL_DEFAULTS, state);
  const payload = { code: editor.text, state: snapshot, language: snapshot.language, layer: snapshot.layer, head: snapshot.head, view: { size: 512, region: zoom } };
  clearTimeout(progressTimer);
  progressTimer = setTimeout(() => (progress.hidden = false), 150);
  let pair;
  try {
    await modelReady;
    pair = await client.latest(payload, null, runBoth);
  } catch (e) {
    clearTimeout(progressTimer);
    progress.hidden = true;
    return showError(e);
  }
  if (!pair) return;
  clearTimeout(progressTimer);
  progress.hidden = true;
  const { parts } = pair;
  const lossRan = parts.a.loss || parts.b.loss;
  result = { a: pair.a, b: pair.b };
  $('attention-bytes').textContent = String(pair.a.attentionBytes);
  if (lossRan || !chars) {
    chars = charTable(payload.code, pair.a.n, pair.b.byteUnits);
    // length: the text these offsets belong to (the editor maps older marks until it matches).
    editor.setTokens({ count: chars.count, start: chars.start, end: chars.end, unit: chars.unit, length: payload.code.length });
    selected = null;
    shadeCode();
    drawLossChart();
  }
  drawMaps();
  updateHints();
  thumbs.select(snapshot.layer, snapshot.head);
  if (!lossRan && selected) selectRow(selected.side, selected.index); // the same query under the new head
  const ms = performance.now() - t0;
  const t = (side) => pair[side].timings;
  const timing = (side, what) => (parts[side][what] ? `${side.toUpperCase()} ${t(side)[what].toFixed(0)}` : `${side.toUpperCase()} —`);
  const detail = lossRan
    ? `loss ${timing('a', 'loss')}, ${timing('b', 'loss')}; attention ${timing('a', 'attention')}, ${timing('b', 'attention')}`
    : `layer ${snapshot.layer}, head ${snapshot.head}: attention only, ${timing('a', 'attention')}, ${timing('b', 'attention')}`;
  status.classList.remove('error');
  // The status says what was read and how well each side predicts it; the timings are one click away.
  status.textContent = `${plural(pair.a.n, 'byte')}${pair.a.clipped ? ' (the first 4,096; the rest is not read)' : ''} read by ${config.name} (${config.parameters.toLocaleString('en')} parameters, ${info.backend}): A ${pair.a.bitsPerByte.toFixed(3)} bits/byte, B ${pair.b.bitsPerByte.toFixed(3)} (lower is better).`;
  document.getElementById('timing-text').textContent = `Last run ${ms.toFixed(0)} ms in the workers, which run side by side: ${detail}.`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(new CustomEvent('hirope:model', { detail: { total: ms, a: pair.a.bitsPerByte, b: pair.b.bitsPerByte } }));
  // Which parts ran on each side, and each worker's pass counters (tests count loss passes).
  document.dispatchEvent(new CustomEvent('hirope:model-run', { detail: { total: ms, parts, counts: { a: counts.a, b: counts.b } } }));
  writeURL();
  for (const side of ['a', 'b']) thumbs.fill(side, payload);
}

function showError(e) {
  status.classList.add('error');
  status.textContent = `${e.name}: ${e.message}`;
  document.body.dataset.ready = 'true';
}

let urlTimer = 0;
function writeURL() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(async () => {
    const hash = await encodeWith(MODEL_DEFAULTS, state);
    if (hash !== location.hash && !(hash === '' && location.hash === '')) history.replaceState(null, '', hash || location.pathname + location.search);
  }, 150);
}

// The mode links carry the code and language to the other mode.
$('mode-attention').addEventListener('click', async (e) => {
  e.preventDefault();
  location.href = `index.html${await encodeWith(DEFAULTS, { language: state.language, code: state.code })}`;
});

window.addEventListener('hashchange', async () => {
  state = await stateFromHash(location.hash);
  const code = state.code ?? SAMPLES[state.language] ?? '';
  editor.setLanguage(state.language);
  if (code !== editor.text) editor.setText(code);
  syncControls();
  schedule();
});

syncControls();
schedule();
