// The playground page: editor, controls, heatmaps A / B / A−B, and the distance, angle and decay
// views, all fed by the worker. The whole state lives in the URL hash.
import { createEditor, HEAT_LEVELS } from './editor.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { renderDistances, renderAngles, renderDecay } from './charts.js';
import { PlaygroundClient } from './client.js';
import { buildControls, schemeControls, sharedControls, setPath } from './controls.js';
import { normalizeState, encodeState, decodeState, describeScheme } from './state.js';
import { LUTS, cssGradient, DECADES } from './colormap.js';
import { SAMPLES, LANGUAGE_NAMES } from './samples.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const progress = $('progress');
installUnitColours();

let state = await decodeState(location.hash);
let zoom = null; // region of token indices, or null for everything
let selected = { side: 'a', index: -1 };
let result = null; // the last run's result
let qkFileName = null;
const backendTimes = {};
const client = new PlaygroundClient(new URL('./worker.js', import.meta.url));
const info = await client.request('ready');

// ----- controls
const languages = info.languages;
const sourceBar = $('source-controls');
const shared = buildControls($('shared-controls'), sharedControls(languages, info.tokenizers), onControl);
const sides = {
  a: buildControls($('scheme-a'), schemeControls('a'), onControl),
  b: buildControls($('scheme-b'), schemeControls('b'), onControl),
};
$('scheme-a').prepend(Object.assign(document.createElement('h3'), { textContent: 'Scheme A' }));
$('scheme-b').prepend(Object.assign(document.createElement('h3'), { textContent: 'Scheme B' }));
const ratioHints = {};
for (const side of ['a', 'b']) {
  ratioHints[side] = Object.assign(document.createElement('p'), { className: 'hint', id: `ratio-hint-${side}` });
  $(`scheme-${side}`).append(ratioHints[side]);
}
// The language select sits in the editor's toolbar with the sample picker, file loading, detection.
const languageField = shared.built.find((c) => c.spec.key === 'language').label;
sourceBar.append(languageField);
const sampleSelect = Object.assign(document.createElement('select'), { id: 'sample', title: 'Load the sample for a language' });
sampleSelect.append(new Option('Samples…', ''));
for (const l of languages) sampleSelect.append(new Option(`${LANGUAGE_NAMES[l]} sample`, l));
const sampleLabel = Object.assign(document.createElement('label'), { className: 'field', title: 'Replace the code with a real-world sample in a language' });
sampleLabel.append(Object.assign(document.createElement('span'), { className: 'field-label', textContent: 'Sample' }), sampleSelect);
const detectButton = Object.assign(document.createElement('button'), { type: 'button', className: 'small', id: 'detect', textContent: 'Detect', title: 'Detect the language: the grammar that parses the code with the fewest errors' });
const openLabel = Object.assign(document.createElement('label'), { className: 'button small', title: 'Open a source file (its extension sets the language)' });
openLabel.append(Object.assign(document.createElement('span'), { textContent: 'Open file' }));
const openInput = Object.assign(document.createElement('input'), { type: 'file', className: 'sr-only', id: 'open-file' });
openLabel.append(openInput);
const qkLabel = Object.assign(document.createElement('label'), { className: 'button small', id: 'qk-file-label', title: 'q/k JSON: {"headDim": d, "q": [[d numbers] per token], "k": [...]} (see docs/playground.md)' });
const qkText = Object.assign(document.createElement('span'), { textContent: 'Load q/k…' });
const qkInput = Object.assign(document.createElement('input'), { type: 'file', accept: '.json,application/json', className: 'sr-only', id: 'qk-file' });
qkLabel.append(qkText, qkInput);
sourceBar.append(sampleLabel, detectButton, openLabel);
$('shared-controls').append(qkLabel);
const backendLabel = document.createElement('label');
backendLabel.className = 'field';
backendLabel.title = 'Where attention runs: WebAssembly (SIMD where supported) or WebGPU when this browser has an adapter';
const backendSelect = Object.assign(document.createElement('select'), { id: 'backend', name: 'backend' });
backendSelect.append(new Option('WebAssembly', 'wasm'), new Option('WebGPU', 'webgpu'));
backendLabel.append(Object.assign(document.createElement('span'), { className: 'field-label', textContent: 'Backend' }), backendSelect);
$('shared-controls').append(backendLabel);
backendSelect.addEventListener('change', () => schedule());

function syncControls() {
  shared.sync(state);
  sides.a.sync(state);
  sides.b.sync(state);
  qkLabel.hidden = state.source !== 'file';
  qkText.textContent = qkFileName ? `q/k: ${qkFileName}` : 'Load q/k…';
}

function onControl(key, value) {
  const languageChanged = key === 'language' && value !== state.language;
  const wasSample = state.code === null || state.code === SAMPLES[state.language];
  setPath(state, key, value);
  state = normalizeState(state);
  if (languageChanged) {
    editor.setLanguage(state.language);
    // Switching language on an untouched sample loads that language's sample.
    if (wasSample) setCode(null);
  }
  syncControls();
  if (['language', 'tokenizer', 'hierarchy', 'gap', 'descend', 'segment'].includes(key)) zoom = null;
  schedule();
}

// ----- editor
const editor = createEditor({
  parent: $('editor'),
  doc: state.code ?? SAMPLES[state.language] ?? '',
  language: state.language,
  label: 'Source code (tokens are underlined by unit; hover a token for its positions)',
  onChange(text, update) {
    state.code = text === SAMPLES[state.language] ? null : text;
    const pasted = update.transactions.some((tr) => tr.isUserEvent('input.paste') || tr.isUserEvent('input.drop'));
    if (pasted && update.state.doc.length > 0 && update.changes.length > 0) detectLanguage(true);
    schedule();
  },
  describeToken(index) {
    const a = result?.analysis;
    if (!a) return [];
    const unit = a.units[a.unit[index]];
    const text = editor.text.slice(a.start[index], a.end[index]);
    return [
      ['token', `${index} of ${a.count}`],
      ['text', JSON.stringify(text)],
      ['unit', unit ? `${unit.index}: ${unit.kind}${unit.name ? ` ${unit.name}` : ''}` : String(a.unit[index])],
      ['statement', String(a.statement[index])],
    ];
  },
});

function setCode(code) {
  state.code = code;
  editor.setText(code ?? SAMPLES[state.language] ?? '');
}

sampleSelect.addEventListener('change', () => {
  const language = sampleSelect.value;
  if (!language) return;
  state.language = language;
  editor.setLanguage(language);
  setCode(null);
  sampleSelect.value = '';
  zoom = null;
  syncControls();
  schedule();
});

async function detectLanguage(fromPaste) {
  const detected = await client.request('detect', { code: editor.text });
  if (!detected) return;
  if (detected !== state.language) {
    state.language = detected;
    editor.setLanguage(detected);
    syncControls();
    schedule();
  }
  showNote(`${fromPaste ? 'Detected' : 'Language'}: ${LANGUAGE_NAMES[detected]}.`);
}
detectButton.addEventListener('click', () => detectLanguage(false));

openInput.addEventListener('change', async () => {
  const file = openInput.files[0];
  if (!file) return;
  const text = await file.text();
  const ext = file.name.split('.').pop().toLowerCase();
  const byExt = { py: 'python', js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', ts: 'typescript', mts: 'typescript', tsx: 'tsx', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', java: 'java', go: 'go', rs: 'rust' }[ext];
  setCode(text);
  if (byExt) {
    state.language = byExt;
    editor.setLanguage(byExt);
    syncControls();
  } else await detectLanguage(false);
  zoom = null;
  schedule();
});

qkInput.addEventListener('change', async () => {
  const file = qkInput.files[0];
  if (!file) return;
  qkFileName = file.name;
  await client.request('qkFile', { text: await file.text() });
  syncControls();
  schedule();
});

// ----- heatmaps
const maps = $('maps');
function exportHandler(which) {
  return async (kind) => {
    const name = `hirope-${which}`;
    if (kind === 'png') {
      const blob = await new Promise((resolve) => heatmaps[which].canvas.toBlob(resolve, 'image/png'));
      download(blob, `${name}.png`);
    } else {
      try {
        const csv = await client.request('csv', { which, region: zoom });
        download(new Blob([csv], { type: 'text/csv' }), `${name}.csv`);
      } catch (e) {
        showError(e);
      }
    }
  };
}
const heatmaps = {};
for (const [which, title] of [
  ['a', 'A'],
  ['b', 'B'],
  ['diff', 'A − B'],
]) {
  heatmaps[which] = new Heatmap(maps, {
    id: `map-${which}`,
    title,
    onRow: (index) => selectRow(which === 'diff' ? 'b' : which, index),
    onZoom: (region) => setZoom(region),
    onExport: exportHandler(which),
  });
}
$('reset-zoom').addEventListener('click', () => setZoom(null));

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function setZoom(region) {
  zoom = region;
  if (!result?.n) return;
  try {
    const images = await client.request('images', { view: { size: 512, region } });
    drawHeatmaps(images);
  } catch (e) {
    showError(e);
  }
}

function drawHeatmaps(images) {
  const units = result.analysis.unit;
  for (const which of ['a', 'b', 'diff']) heatmaps[which].draw({ rgba: images[which], rows: images.rows, cols: images.cols }, images.region, units, result.n);
  const { r0, r1, c0, c1 } = images.region;
  const pooled = r1 - r0 > images.rows || c1 - c0 > images.cols;
  $('zoom-info').textContent = zoom ? `Zoomed: queries ${r0}–${r1 - 1}, keys ${c0}–${c1 - 1}` : '';
  $('reset-zoom').disabled = !zoom;
  const note = pooled ? 'Downsampled: each cell is the mean over the tokens it covers.' : '';
  const rel = (p) => cssGradient(LUTS.magma);
  heatmaps.a.setLegend(rel(), `10⁻${DECADES}× row max`, 'row max', note);
  heatmaps.b.setLegend(rel(), `10⁻${DECADES}× row max`, 'row max', note);
  heatmaps.diff.setLegend(cssGradient(LUTS.diverging), `−${images.maxAbs.toPrecision(2)}`, `+${images.maxAbs.toPrecision(2)}`, 'Probability A − B; red: A attends more.');
}

async function selectRow(side, index) {
  if (!result?.n || index < 0 || index >= result.n) return;
  selected = { side, index };
  for (const h of Object.values(heatmaps)) h.select(index);
  try {
    const [rowA, rowB] = await Promise.all([client.request('row', { side: 'a', index }), client.request('row', { side: 'b', index })]);
    const row = side === 'a' ? rowA : rowB;
    const levels = new Uint8Array(result.n);
    for (let j = 0; j <= index; j++) {
      const r = row.max > 0 ? row.probs[j] / row.max : 0;
      // Three decades below the row maximum map onto the heat levels.
      levels[j] = r > 0 ? Math.max(0, Math.min(HEAT_LEVELS, Math.ceil(HEAT_LEVELS * (1 + Math.log10(r) / 3)))) : 0;
    }
    editor.setHeat({ levels, query: index });
    const a = result.analysis;
    const text = (j) => JSON.stringify(editor.text.slice(a.start[j], a.end[j]));
    const top = (r) => Array.from(r.probs.keys()).sort((x, y) => r.probs[y] - r.probs[x]).slice(0, 3).map((j) => `${text(j)}@${j} ${(100 * r.probs[j]).toFixed(1)}%`).join(', ');
    $('query-info').textContent = `Query ${index} ${text(index)}, shown for ${side.toUpperCase()} — top keys A: ${top(rowA)}; B: ${top(rowB)}.`;
  } catch (e) {
    showError(e);
  }
}

// ----- running
let scheduled = false;
let startedAt = 0;
let progressTimer = 0;
function schedule() {
  if (!scheduled) startedAt = performance.now();
  scheduled = true;
  queueMicrotask(run);
}

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = startedAt;
  const code = editor.text;
  const snapshot = normalizeState(state);
  clearTimeout(progressTimer);
  progressTimer = setTimeout(() => (progress.hidden = false), 150);
  let value;
  try {
    value = await client.latest('run', { code, state: snapshot, backend: backendSelect.value, view: { size: 512, region: zoom } }, (stage) => {
      progress.title = stage;
      status.dataset.stage = stage;
    });
  } catch (e) {
    clearTimeout(progressTimer);
    progress.hidden = true;
    showError(e);
    return;
  }
  if (value === null) return; // superseded by a newer state
  clearTimeout(progressTimer);
  progress.hidden = true;
  const tPaint = performance.now();
  paint(value, snapshot);
  const now = performance.now();
  const total = now - t0;
  backendTimes[value.backend] = value.timings.a + value.timings.b;
  const t = value.timings;
  const parts = ['analysis', 'a', 'b', 'images', 'views'].filter((k) => t[k] !== undefined).map((k) => `${k === 'a' ? 'A' : k === 'b' ? 'B' : k} ${t[k].toFixed(1)}`);
  const backends = Object.entries(backendTimes).map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join(', ');
  status.classList.remove('error');
  status.textContent = `${value.analysis.count} tokens (${LANGUAGE_NAMES[value.analysis.language]}, ${value.analysis.tokenizer}), ${value.analysis.units.length} units, ${value.analysis.statements} statements · redraw ${total.toFixed(1)} ms (${parts.join(', ')}, paint ${(now - tPaint).toFixed(1)}) · attention A+B: ${backends}${value.notes.length ? ' · ' + value.notes.join(' ') : ''}`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(new CustomEvent('hirope:redraw', { detail: { total, paint: now - tPaint, tokens: value.n, ...t } }));
  writeURL(snapshot);
}

let lastAnalysis = 0;
function paint(value, snapshot) {
  const previous = result;
  result = value;
  const a = value.analysis;
  if (a.version !== lastAnalysis || previous?.analysis.count !== a.count) {
    lastAnalysis = a.version;
    editor.setTokens({ count: a.count, start: a.start, end: a.end, unit: a.unit });
    selected.index = -1;
    $('query-info').textContent = '';
    for (const h of Object.values(heatmaps)) h.selected = -1;
  }
  const names = { a: describeScheme(snapshot.a), b: describeScheme(snapshot.b) };
  heatmaps.a.setTitle('A', names.a);
  heatmaps.b.setTitle('B', names.b);
  heatmaps.diff.setTitle('A − B', '');
  if (!value.n) {
    for (const h of Object.values(heatmaps)) h.draw(null);
    return;
  }
  drawHeatmaps(value.images);
  renderDistances($('distances'), value.views.distances);
  renderAngles($('angles-a'), value.views.angles.a, `A: ${names.a}`, snapshot.train);
  renderAngles($('angles-b'), value.views.angles.b, `B: ${names.b}`, snapshot.train);
  renderDecay($('decay'), value.views.decay, names);
  for (const side of ['a', 'b']) {
    const angles = value.views.angles[side];
    const hint = ratioHints[side];
    if (snapshot[side].type !== 'hirope' || !angles) {
      hint.textContent = '';
      continue;
    }
    const split = angles.splitPair / angles.pairs;
    const over = snapshot[side].ratio > split + 1e-9;
    hint.classList.toggle('warn', over);
    hint.textContent = `Split% for training length ${snapshot.train}: ${(100 * split).toFixed(1)}%.` + (over ? ` The ratio is above it: token-band pairs slower than one period per ${snapshot.train} tokens meet unseen angles beyond the training length.` : ' The ratio is within it.');
  }
  if (selected.index >= 0 && selected.index < value.n) selectRow(selected.side, selected.index);
}

function showError(e) {
  status.classList.add('error');
  status.textContent = `${e.name}: ${e.message}`;
  document.body.dataset.ready = 'true';
}
function showNote(text) {
  $('query-info').textContent = text;
}

let urlTimer = 0;
function writeURL(snapshot) {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(async () => {
    const hash = await encodeState({ ...snapshot, code: state.code });
    if (hash !== location.hash && !(hash === '' && location.hash === '')) history.replaceState(null, '', hash || location.pathname + location.search);
  }, 150);
}

window.addEventListener('hashchange', async () => {
  const next = await decodeState(location.hash);
  const code = next.code ?? SAMPLES[next.language] ?? '';
  state = next;
  editor.setLanguage(state.language);
  if (code !== editor.text) editor.setText(code);
  state.code = next.code;
  syncControls();
  schedule();
});

syncControls();
schedule();
