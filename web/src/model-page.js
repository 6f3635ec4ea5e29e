// The playground's Model mode: hirope's code model under two schemes — loss by position, code
// shaded by loss, the model's real attention per layer and head, and generation — computed by
// the same two workers as the attention mode. The whole state lives in the URL hash.
import { createEditor, HEAT_LEVELS, heatLevel } from './editor.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { PairClient } from './client.js';
import { buildControls, setPath } from './controls.js';
import { MODEL_DEFAULTS, SCALINGS, normalizeWith, encodeWith, decodeWith, describeModelSide, splitBound, DEFAULTS } from './state.js';
import { MODEL_SCHEMES } from './model-engine.js';
import { LUTS, cssGradient, DECADES } from './colormap.js';
import { SAMPLES, LANGUAGE_NAMES } from './samples.js';
import { el, download } from './dom.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const progress = $('progress');
installUnitColours();

let state = await decodeWith(MODEL_DEFAULTS, location.hash);
let zoom = null;
let result = null; // { a, b } of the last run
let config = null; // the model's config (from the first run)
const workerURL = new URL('./worker.js', import.meta.url);
if (new URLSearchParams(location.search).get('simd') === '0') workerURL.searchParams.set('simd', '0');
const client = new PairClient(workerURL);
const info = await client.a.request('ready');

// ----- controls
const MODEL_SCALINGS = SCALINGS.filter(([s]) => s !== 'llama3');
function sideControls(side) {
  const k = (name) => `${side}.${name}`;
  return [
    { key: k('type'), label: 'Scheme', type: 'select', options: MODEL_SCHEMES, help: 'The position scheme applied to the model\'s queries and keys at inference (it was trained with RoPE).' },
    { key: k('ratio'), label: 'Ratio', type: 'range', min: 0, max: 1, step: 0.05, numeric: true, help: 'HiRoPE: fraction of frequency pairs (the fast ones) that keep the byte index; the rest carry the unit index beyond the window.', show: (s) => s[side].type === 'hirope' },
    { key: k('hierarchy'), label: 'Hierarchy', type: 'select', options: [['units', 'top-level units'], ['statements', 'statements'], ['segments', 'fixed segments']], help: 'Where HiRoPE\'s high-level index comes from: top-level functions/classes or statements of the tree-sitter parse, or fixed segments of bytes.', show: (s) => s[side].type === 'hirope' },
    { key: k('segment'), label: 'Segment', type: 'number', min: 1, step: 1, help: 'Bytes per segment.', show: (s) => s[side].type === 'hirope' && s[side].hierarchy === 'segments' },
    { key: k('window'), label: 'Window', type: 'number', min: 1, step: 1, help: 'Byte distances below W use plain RoPE; from W on the scheme\'s far rule applies.', show: (s) => s[side].type !== 'rope' },
    { key: k('group'), label: 'Group', type: 'number', min: 1, step: 1, help: 'Self-Extend: far distances are divided by G.', show: (s) => s[side].type === 'self-extend' },
    { key: k('scaling'), label: 'Scaling', type: 'select', options: MODEL_SCALINGS, help: 'Frequency scaling relative to the training length: position interpolation, NTK-aware, dynamic NTK or YaRN.' },
    { key: k('factor'), label: 'Factor', type: 'number', min: 1, step: 'any', help: 'Scaling factor s (PI divides every frequency by s).', show: (s) => s[side].scaling !== 'none' && s[side].scaling !== 'dynamic-ntk' },
  ];
}
const sharedSpecs = [
  { key: 'language', label: 'Language', type: 'select', options: info.languages.map((l) => [l, LANGUAGE_NAMES[l] ?? l]), help: 'The grammar that gives HiRoPE its units and statements. The model itself was trained on Python only.' },
  { key: 'layer', label: 'Layer', type: 'select', options: [0, 1, 2, 3].map((i) => [String(i), String(i)]), numeric: true, help: 'Which layer\'s attention the heatmaps show.' },
  { key: 'head', label: 'Head', type: 'select', options: [0, 1, 2, 3].map((i) => [String(i), String(i)]), numeric: true, help: 'Which attention head the heatmaps show.' },
  { key: 'colour', label: 'Shade code by', type: 'select', options: [['a', 'loss under A'], ['b', 'loss under B']], help: 'Which scheme\'s per-byte loss shades the code: darker bytes surprised the model more.' },
  { key: 'maxBytes', label: 'Continue by', type: 'number', min: 1, max: 2048, step: 1, help: 'Bytes to generate.' },
  { key: 'temperature', label: 'Temperature', type: 'number', min: 0, max: 2, step: 0.1, help: 'Sampling temperature; 0 always takes the most likely byte.' },
  { key: 'seed', label: 'Seed', type: 'number', min: 0, step: 1, help: 'Sampling seed (both sides use the same one).' },
];
const shared = buildControls($('shared-controls'), sharedSpecs, onControl);
const sides = { a: buildControls($('scheme-a'), sideControls('a'), onControl), b: buildControls($('scheme-b'), sideControls('b'), onControl) };
const ratioHints = {};
for (const side of ['a', 'b']) {
  $(`scheme-${side}`).prepend(el('h3', {}, `Scheme ${side.toUpperCase()}`));
  ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
  $(`scheme-${side}`).append(ratioHints[side]);
}
$('source-controls').append(shared.built.find((c) => c.spec.key === 'language').label);

function syncControls() {
  shared.sync(state);
  sides.a.sync(state);
  sides.b.sync(state);
  updateHints();
}

function updateHints() {
  if (!config) return;
  for (const side of ['a', 'b']) {
    const hint = ratioHints[side];
    const s = state[side];
    if (s.type !== 'hirope') {
      hint.textContent = '';
      hint.classList.remove('warn');
      continue;
    }
    const bound = splitBound(s.ratio, config);
    hint.classList.toggle('warn', bound.over);
    hint.textContent =
      `Split% for this model (trained at ${config.trainingContext} bytes): ${(100 * bound.split).toFixed(1)}%, the ${Math.ceil(bound.splitPair)} of ${bound.pairs} pairs whose wavelength fits in the training length; ratio ${s.ratio} keeps ${bound.tokenPairs} pairs on the byte index.` +
      (bound.over ? ` That is above the bound: pairs that never completed a period in training stay on the byte distance and see angles the model never saw (the paper's 0.5 breaks this model).` : ' Within the bound.');
  }
}

function onControl(key, value) {
  const wasSample = state.code === null || state.code === SAMPLES[state.language];
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

// ----- loss chart
function drawLossChart(a, b) {
  const parent = $('loss-chart');
  const width = 760;
  const height = 260;
  const pad = { l: 44, r: 12, t: 12, b: 30 };
  const canvas = el('canvas', { width: String(width), height: String(height), role: 'img' });
  const ctx = canvas.getContext('2d');
  const css = getComputedStyle(document.documentElement);
  const fg = css.getPropertyValue('--ink').trim() || '#222';
  const colour = { a: css.getPropertyValue('--a').trim(), b: css.getPropertyValue('--b').trim() };
  const n = a.n;
  let yMax = 4;
  for (const r of [a, b]) for (const y of r.curve.y) yMax = Math.max(yMax, y);
  yMax = Math.ceil(yMax);
  const X = (x) => pad.l + ((width - pad.l - pad.r) * x) / n;
  const Y = (y) => height - pad.b - ((height - pad.t - pad.b) * y) / yMax;
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = fg;
  ctx.strokeStyle = fg;
  ctx.globalAlpha = 0.25;
  for (let y = 0; y <= yMax; y += yMax > 8 ? 2 : 1) {
    ctx.beginPath();
    ctx.moveTo(pad.l, Y(y));
    ctx.lineTo(width - pad.r, Y(y));
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  for (let y = 0; y <= yMax; y += yMax > 8 ? 2 : 1) ctx.fillText(String(y), 8, Y(y) + 4);
  ctx.fillText('bits', 8, pad.t + 2);
  const step = n > 2000 ? 512 : n > 600 ? 256 : 64;
  for (let x = 0; x <= n; x += step) ctx.fillText(String(x), X(x) - 6, height - 10);
  const L = config.trainingContext;
  ctx.setLineDash([5, 4]);
  ctx.beginPath();
  ctx.moveTo(X(L), pad.t);
  ctx.lineTo(X(L), height - pad.b);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillText(`training length ${L}`, X(L) + 4, pad.t + 10);
  for (const [side, r] of [['a', a], ['b', b]]) {
    ctx.strokeStyle = colour[side];
    ctx.lineWidth = 2;
    ctx.beginPath();
    r.curve.x.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(r.curve.y[i])) : ctx.moveTo(X(x), Y(r.curve.y[i]))));
    ctx.stroke();
  }
  const mean = (r, from, to) => {
    let s = 0;
    let c = 0;
    for (let t = from; t < Math.min(to, r.losses.length); t++) {
      s += r.losses[t];
      c++;
    }
    return c ? s / c : NaN;
  };
  const summary = ['a', 'b'].map((side) => {
    const r = side === 'a' ? a : b;
    return `${side.toUpperCase()} ${describeModelSide(state[side])}: ${mean(r, 0, L - 1).toFixed(2)} bits/byte within ${L}, ${n > L ? mean(r, L - 1, n).toFixed(2) : '—'} beyond`;
  });
  canvas.setAttribute('aria-label', `Loss by position. ${summary.join('; ')}.`);
  const key = el('p', { class: 'chart-key' });
  for (const [i, side] of ['a', 'b'].entries()) {
    key.append(el('span', { class: `swatch swatch-${side}` }), ` ${summary[i]}`, i === 0 ? el('br') : '');
  }
  parent.replaceChildren(canvas, key);
}

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

function drawMaps(images) {
  for (const side of ['a', 'b']) {
    const img = images[side];
    heatmaps[side].draw({ rgba: img.rgba, rows: img.rows, cols: img.cols }, img.region, result[side].units, result[side].attentionBytes);
    heatmaps[side].setLegend(cssGradient(LUTS.magma), `10⁻${DECADES}× row max`, 'row max', img.rows < img.region.r1 - img.region.r0 ? 'Downsampled: each cell is the mean over the bytes it covers.' : '');
  }
  const r = images.a.region;
  $('zoom-info').textContent = zoom ? `Zoomed: queries ${r.r0}–${r.r1 - 1}, keys ${r.c0}–${r.c1 - 1}` : '';
  $('reset-zoom').disabled = !zoom;
}

async function setZoom(region) {
  zoom = region;
  if (!result) return;
  try {
    const [a, b] = await Promise.all(['a', 'b'].map((s) => client.side(s).request('images', { view: { size: 512, region } })));
    drawMaps({ a, b });
  } catch (e) {
    showError(e);
  }
}

async function selectRow(side, index) {
  if (!result || !chars || index < 0 || index >= result[side].attentionBytes) return;
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
    $('query-info').textContent = `Byte ${index} ${text(index)} under ${side.toUpperCase()}, layer ${state.layer}, head ${state.head} — top keys: ${top}. Change a control to shade by loss again.`;
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
  const button = $('generate');
  button.disabled = true;
  const snapshot = normalizeWith(MODEL_DEFAULTS, state);
  for (const side of ['a', 'b']) {
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
      $(`gen-title-${side}`).textContent = `${side.toUpperCase()}: ${describeModelSide(snapshot[side])} — ${g.bytes} bytes after a ${g.promptBytes}-byte prompt, ${Math.round(g.bytesPerSecond)} bytes/s`;
    }
    document.body.dataset.generated = 'true';
  } catch (e) {
    showError(e);
  } finally {
    button.disabled = false;
  }
});

// ----- running
let scheduled = false;
let progressTimer = 0;
function schedule() {
  scheduled = true;
  queueMicrotask(run);
}

function runBoth(payload) {
  return Promise.all(['a', 'b'].map((s) => client.side(s).request('modelRun', { ...payload, side: payload.state[s] }))).then(([a, b]) => ({ a, b }));
}

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = performance.now();
  const snapshot = normalizeWith(MODEL_DEFAULTS, state);
  clearTimeout(progressTimer);
  progressTimer = setTimeout(() => (progress.hidden = false), 150);
  let pair;
  try {
    pair = await client.latest({ code: editor.text, state: snapshot, language: snapshot.language, layer: snapshot.layer, head: snapshot.head, view: { size: 512, region: zoom } }, null, runBoth);
  } catch (e) {
    clearTimeout(progressTimer);
    progress.hidden = true;
    return showError(e);
  }
  if (!pair) return;
  clearTimeout(progressTimer);
  progress.hidden = true;
  result = pair;
  config = pair.a.config;
  $('train-length').textContent = String(config.trainingContext);
  $('attention-bytes').textContent = String(pair.a.attentionBytes);
  chars = charTable(editor.text, pair.a.n, pair.b.units);
  editor.setTokens({ count: chars.count, start: chars.start, end: chars.end, unit: chars.unit });
  shadeCode();
  drawLossChart(pair.a, pair.b);
  heatmaps.a.setTitle('A', `${describeModelSide(snapshot.a)} · layer ${snapshot.layer}, head ${snapshot.head}`);
  heatmaps.b.setTitle('B', `${describeModelSide(snapshot.b)} · layer ${snapshot.layer}, head ${snapshot.head}`);
  drawMaps({ a: pair.a.image, b: pair.b.image });
  updateHints();
  const t = (side) => pair[side].timings;
  const ms = performance.now() - t0;
  status.classList.remove('error');
  status.textContent = `${pair.a.n} bytes${pair.a.clipped ? ' (the first 4,096; the rest is not read)' : ''} · ${config.name}, ${config.parameters.toLocaleString('en')} parameters, ${info.backend} · A ${pair.a.bitsPerByte.toFixed(3)} bits/byte, B ${pair.b.bitsPerByte.toFixed(3)} · ${ms.toFixed(0)} ms (loss A ${t('a').loss.toFixed(0)}, B ${t('b').loss.toFixed(0)}; attention A ${t('a').attention.toFixed(0)}, B ${t('b').attention.toFixed(0)})`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(new CustomEvent('hirope:model', { detail: { total: ms, a: pair.a.bitsPerByte, b: pair.b.bitsPerByte } }));
  writeURL();
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
  state = await decodeWith(MODEL_DEFAULTS, location.hash);
  const code = state.code ?? SAMPLES[state.language] ?? '';
  editor.setLanguage(state.language);
  if (code !== editor.text) editor.setText(code);
  syncControls();
  schedule();
});

syncControls();
schedule();
