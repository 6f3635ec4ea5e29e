// The playground page: editor, controls, heatmaps A / B / A−B, and the distance, angle and decay
// views, all fed by the worker. The whole state lives in the URL hash.
import { createEditor, heatLevel } from './editor.js';
import { download } from './dom.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { renderDistances, renderAngles, renderDecay } from './charts.js';
import { PairClient } from './client.js';
import { diffImage } from './engine.js';
import { buildControls, schemeControls, sharedControls, setPath } from './controls.js';
import { normalizeState, encodeState, decodeState, describeScheme, encodeWith, MODEL_DEFAULTS } from './state.js';
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
const workerURL = new URL('./worker.js', import.meta.url);
if (new URLSearchParams(location.search).get('simd') === '0') workerURL.searchParams.set('simd', '0'); // the scalar build
const client = new PairClient(workerURL);
const info = await client.a.request('ready');

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
  const detected = await client.a.request('detect', { code: editor.text });
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
  await client.both('qkFile', { text: await file.text() });
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
        download(new Blob([await csvOf(which)], { type: 'text/csv' }), `${name}.csv`);
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

// The numbers of one heatmap over the visible region, as CSV with token indices.
async function csvOf(which) {
  const [a, b] = await Promise.all(['a', 'b'].filter((s) => which === 'diff' || which === s).map((s) => client.side(s).request('values', { region: zoom })));
  const { r0, r1, c0, c1 } = a.region;
  const width = c1 - c0;
  const lines = [['query\\key', ...Array.from({ length: width }, (_, j) => c0 + j)].join(',')];
  for (let i = r0; i < r1; i++) {
    const cells = [i];
    for (let j = 0; j < width; j++) {
      const c = (i - r0) * width + j;
      const v = b ? a.values[c] - b.values[c] : a.values[c];
      cells.push(Number.isNaN(v) ? '' : String(v));
    }
    lines.push(cells.join(','));
  }
  return lines.join('\n') + '\n';
}

function combineImages(a, b) {
  const diff = diffImage(a.raw, b.raw, a.rows, a.cols, a.region);
  // A side whose image did not change keeps its canvas (Heatmap.draw skips identical images).
  return { region: a.region, rows: a.rows, cols: a.cols, a: a.rgba, b: b.rgba, diff: diff.rgba, maxAbs: diff.maxAbs };
}

async function setZoom(region) {
  zoom = region;
  if (!result?.n) return;
  try {
    const [a, b] = await client.both('images', { view: { size: 512, region } });
    drawHeatmaps(combineImages(a, b));
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
  for (const side of ['a', 'b']) heatmaps[side].setLegend(cssGradient(LUTS.magma), `10⁻${DECADES}× row max`, 'row max', note);
  heatmaps.diff.setLegend(cssGradient(LUTS.diverging), `−${images.maxAbs.toPrecision(2)}`, `+${images.maxAbs.toPrecision(2)}`, 'Probability A − B; red: A attends more.');
}

async function selectRow(side, index) {
  if (!result?.n || index < 0 || index >= result.n) return;
  selected = { side, index };
  for (const h of Object.values(heatmaps)) h.select(index);
  try {
    const [rowA, rowB] = await client.both('row', { index });
    const row = side === 'a' ? rowA : rowB;
    const levels = new Uint8Array(result.n);
    for (let j = 0; j <= index; j++) {
      levels[j] = heatLevel(row.max > 0 ? row.probs[j] / row.max : 0);
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
const lastHalves = { a: null, b: null }; // each worker's last full result
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
    const pair = await client.latest({ code, state: snapshot, backend: backendSelect.value, view: { size: 512, region: zoom }, reuse: true }, (stage) => {
      progress.title = stage;
      status.dataset.stage = stage;
    });
    if (pair) {
      // A side that reports no change keeps its last result.
      for (const side of ['a', 'b']) {
        if (pair[side].unchanged) pair[side] = { ...lastHalves[side], timings: pair[side].timings };
        else lastHalves[side] = pair[side];
      }
    }
    value = pair && combine(pair.a, pair.b, snapshot);

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
  document.dispatchEvent(new CustomEvent('hirope:redraw', { detail: { total, paint: now - tPaint, tokens: value.n, ...t, received: tPaint - t0, paintEditor: paintTimes.editor, paintMaps: paintTimes.maps, paintViews: paintTimes.views } }));
  writeURL(snapshot);
}

// One result from the two workers' halves.
function combine(a, b, snapshot) {
  const timings = {
    analysis: Math.max(a.timings.analysis, b.timings.analysis),
    a: a.timings.attention,
    b: b.timings.attention,
    images: Math.max(a.timings.images ?? 0, b.timings.images ?? 0),
    views: Math.max(a.timings.views ?? 0, b.timings.views ?? 0),
  };
  if (!a.n) return { analysis: a.analysis, n: 0, notes: a.notes, timings, backend: a.backend };
  return {
    analysis: a.analysis,
    n: a.n,
    headDim: a.headDim,
    notes: a.notes,
    backend: a.backend,
    timings,
    images: combineImages(a.image, b.image),
    views: {
      distances: b.views.distances,
      angles: { a: a.views.angles, b: b.views.angles },
      decay: { a: a.views.decay, b: b.views.decay, maxDistance: a.views.maxDistance, train: snapshot.train },
    },
  };
}

let lastAnalysis = 0;
const drawn = {}; // keys of the views on screen
const paintTimes = {};
function paint(value, snapshot) {
  paintTimes.editor = 0;
  const previous = result;
  result = value;
  const a = value.analysis;
  if (a.version !== lastAnalysis || previous?.analysis.count !== a.count) {
    lastAnalysis = a.version;
    const t = performance.now();
    editor.setTokens({ count: a.count, start: a.start, end: a.end, unit: a.unit });
    paintTimes.editor = performance.now() - t;
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
  let t = performance.now();
  drawHeatmaps(value.images);
  paintTimes.maps = performance.now() - t;
  t = performance.now();
  // Views are redrawn only when their data changed (the worker keys what it computed).
  const v = value.views;
  const names2 = `${names.a}|${names.b}`;
  if (drawn.distances !== v.distances.key) {
    renderDistances($('distances'), v.distances.value);
    drawn.distances = v.distances.key;
  }
  for (const side of ['a', 'b']) {
    const key = `${v.angles[side]?.key}|${names[side]}`;
    if (drawn[`angles-${side}`] !== key) {
      renderAngles($(`angles-${side}`), v.angles[side]?.value ?? null, `${side.toUpperCase()}: ${names[side]}`, snapshot.train);
      drawn[`angles-${side}`] = key;
    }
  }
  const decayKey = `${v.decay.a.key}|${v.decay.b.key}|${names2}`;
  if (drawn.decay !== decayKey) {
    renderDecay($('decay'), { ...v.decay, a: v.decay.a.value, b: v.decay.b.value }, names);
    drawn.decay = decayKey;
  }
  paintTimes.views = performance.now() - t;
  for (const side of ['a', 'b']) {
    const angles = value.views.angles[side]?.value;
    const hint = ratioHints[side];
    if (snapshot[side].type !== 'hirope' || !angles) {
      hint.textContent = '';
      continue;
    }
    // The token band is in distribution when its slowest pair turns a full period within the
    // training length, i.e. its index is below Split% of the pairs.
    const split = angles.splitPair / angles.pairs;
    const tokenPairs = angles.bands[0].pairs[1];
    const over = tokenPairs - 1 >= angles.splitPair;
    hint.classList.toggle('warn', over);
    hint.textContent =
      `Split% for training length ${snapshot.train}: ${(100 * split).toFixed(1)}% (${Math.ceil(angles.splitPair)} of ${angles.pairs} pairs); the token band has ${tokenPairs}.` +
      (over ? ` The ratio is above it: the token band's slowest pairs meet angles never seen in training beyond ${snapshot.train} tokens.` : ' Within it.');
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

// The mode link carries the code and language to Model mode.
$('mode-model').addEventListener('click', async (e) => {
  e.preventDefault();
  location.href = `model.html${await encodeWith(MODEL_DEFAULTS, { language: state.language, code: state.code })}`;
});

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
