// The playground page: presets that tell a story, the editor with its units outline, the heatmaps
// A / B / A vs B with the comparison in numbers, and the distance, angle and decay views below,
// all fed by two workers (one per scheme). The whole state lives in the URL hash.
import { createEditor, heatLevel, tokenAt } from './editor.js';
import { download, el } from './dom.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { renderDistances, renderAngles, renderDecay } from './charts.js';
import { PairClient } from './client.js';
import { diffImage, VISIBLE_RATIO } from './engine.js';
import { buildControls, schemeControls, sharedControls, setPath } from './controls.js';
import { normalizeState, encodeState, readStateLink, describeScheme, encodeWith, analyzeOptionsFor, MODEL_DEFAULTS, WINDOWED } from './state.js';
import { statementsPerUnit } from './counts.js';
import { codeSentence, plural, trainingSentence, splitHint, parseSentence, unitKinds, unitPhrase, mapHint, LINK_UNREADABLE, linkWithoutCode, LONG_LINK, linkSizeText, powerOfTen, formatProbability, qkFileHint } from './wording.js';
import { TokenizersBox } from './tokenizers-box.js';
import { PRESETS, presetState, matchesPreset } from './presets.js';
import { LUTS, cssGradient, DECADES, RATIO_LIMIT, RATIO_FLOOR, logRatio, divergingLut } from './colormap.js';
import { SAMPLES, LANGUAGE_NAMES } from './samples.js';
import { fitCanvas, drawAxes } from './axes.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const progress = $('progress');
installUnitColours();

const link = await readStateLink(location.hash);
let state = link.state;
let zoom = null; // region of token indices, or null for everything
let selected = { side: 'b', index: -1 };
let result = null; // the last run's result
let comparison = null; // { tv, kl } per row for the result on screen
let qkFileName = null;
let ready = false;
let pushNext = false; // the next URL write adds a history entry (a discrete choice was made)
let detected = null; // { code, language }: the last language detection, of that code
let syncSample = () => {}; // shows whether the code is a sample (set once the picker exists)
const backendTimes = {};
const dark = matchMedia('(prefers-color-scheme: dark)');
const theme = () => (dark.matches ? 'dark' : 'light');

// ----- a notice about the link that opened the page: cut off or garbled, or made without its code
function showLinkNotice(text) {
  $('link-notice')?.remove();
  if (!text) return;
  const box = el('div', { class: 'link-notice', id: 'link-notice', role: 'alert' });
  const close = el('button', { type: 'button', class: 'small', title: 'Hide this notice' }, 'Dismiss');
  close.addEventListener('click', () => box.remove());
  box.append(el('p', {}, text), close);
  $('story').before(box);
}
const linkNotice = (l) => (l.unreadable ? LINK_UNREADABLE : l.codeOmitted ? linkWithoutCode(LANGUAGE_NAMES[l.state.language] ?? l.state.language) : '');
showLinkNotice(linkNotice(link));

// ----- editor (first, so that a paste works while the module loads)
const editor = createEditor({
  parent: $('editor'),
  doc: state.code ?? SAMPLES[state.language] ?? '',
  language: state.language,
  label: 'Source code (tokens are underlined by unit; hover a token for its positions)',
  onChange(text, update) {
    state.code = text === SAMPLES[state.language] ? null : text;
    syncSample();
    const pasted = update.transactions.some((tr) => tr.isUserEvent('input.paste') || tr.isUserEvent('input.drop'));
    if (pasted && ready && update.state.doc.length > 0 && update.changes.length > 0) detectLanguage(true);
    scheduleEdit();
  },
  onSelect(pos) {
    const a = result?.analysis;
    if (!a) return;
    const t = tokenAt(a, pos);
    markUnit(t >= 0 ? a.unit[t] : -1, false);
  },
  describeToken(index) {
    const a = result?.analysis;
    if (!a) return [];
    return [
      ['token', `${index} of ${a.count}`],
      ['text', JSON.stringify(tokenText(index))],
      ['unit', unitName(a.unit[index])],
      ['statement', String(a.statement[index])],
    ];
  },
});

const workerURL = new URL('./worker.js', import.meta.url);
if (new URLSearchParams(location.search).get('simd') === '0') workerURL.searchParams.set('simd', '0'); // the scalar build
const client = new PairClient(workerURL);
const info = await client.a.request('ready');
ready = true;

// ----- presets
const presetButtons = PRESETS.map((p) => {
  const b = el('button', { type: 'button', class: 'preset', 'data-preset': p.id, 'aria-pressed': 'false' }, p.title);
  b.addEventListener('click', () => {
    state = presetState(p.id, state);
    pushNext = true;
    zoom = null;
    syncControls();
    schedule();
  });
  $('presets').append(b);
  return b;
});

function syncStory() {
  const active = matchesPreset(state) ? PRESETS.find((p) => p.id === state.preset) : null;
  if (!active) state.preset = '';
  for (const b of presetButtons) b.setAttribute('aria-pressed', String(b.dataset.preset === active?.id));
  $('caption').textContent = active
    ? active.caption
    : `Your own comparison: A is ${describeScheme(state.a)}, B is ${describeScheme(state.b)}. The third map shows where B attends more (blue) or less (orange) than A; pick a preset for a comparison with its explanation.`;
}

// ----- controls
const languages = info.languages;
const shared = buildControls($('shared-controls'), sharedControls(languages, info.tokenizers), onControl, { moreLabel: 'More settings' });
const sides = {
  a: buildControls($('scheme-a'), schemeControls('a'), onControl),
  b: buildControls($('scheme-b'), schemeControls('b'), onControl),
};
$('scheme-a').prepend(el('h3', { class: 'side-title' }, 'A'));
$('scheme-b').prepend(el('h3', { class: 'side-title' }, 'B'));
const ratioHints = {};
for (const side of ['a', 'b']) {
  ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
  $(`scheme-${side}`).append(ratioHints[side]);
}
// The language select sits in the editor's toolbar with the sample picker, file loading, detection.
const sourceBar = $('source-controls');
sourceBar.append(shared.built.find((c) => c.spec.key === 'language').label);
const sampleSelect = el('select', { id: 'sample', title: 'Load the sample for a language', 'aria-label': 'Load a sample' });
// Once the code is edited or replaced the picker says so ("Your code", which cannot be picked),
// so that every sample, the one the code came from included, can be picked to restore it.
const customOption = new Option('Your code', 'custom');
customOption.disabled = true;
sampleSelect.append(customOption);
for (const l of languages) sampleSelect.append(new Option(`${LANGUAGE_NAMES[l]} sample`, l));
syncSample = () => {
  const custom = state.code !== null;
  customOption.hidden = !custom;
  sampleSelect.value = custom ? 'custom' : state.language;
};
const sampleLabel = el('label', { class: 'field', title: 'Replace the code with a real-world sample in a language' });
sampleLabel.append(el('span', { class: 'field-label' }, 'Sample'), sampleSelect);
const detectButton = el('button', { type: 'button', class: 'small', id: 'detect', title: 'Detect the language: the grammar that parses the code with the fewest errors' }, 'Detect');
const openLabel = el('label', { class: 'button small', title: 'Open a source file (its extension sets the language)' });
const openInput = el('input', { type: 'file', class: 'sr-only', id: 'open-file' });
openLabel.append(el('span', {}, 'Open file'), openInput);
const qkLabel = el('label', { class: 'button small', id: 'qk-file-label', title: 'q/k JSON: {"headDim": d, "q": [[d numbers] per token], "k": [...]} (see docs/playground.md)' });
const qkText = el('span', {}, 'Load q/k…');
const qkInput = el('input', { type: 'file', accept: '.json,application/json', class: 'sr-only', id: 'qk-file' });
qkLabel.append(qkText, qkInput);
// While a q/k file is being chosen the select says "from a file…" and the maps keep the previous
// source (qkPending), under a plain hint; cancelling the picker goes back to it.
let qkPending = null;
const qkHint = el('p', { class: 'hint', id: 'qk-hint', hidden: true });
const sourceLabel = (source) => shared.built.find((c) => c.spec.key === 'source').spec.options.find(([v]) => v === source)?.[1] ?? source;
/** A state asking for q/k from a file before one is loaded (a link, Back) waits for the file. */
function holdFileSource() {
  if (state.source !== 'file' || qkFileName) return;
  qkPending ??= 'ones';
  state.source = qkPending;
}
// Notes about the code (the detected language) have their own line: a redraw clears the query line.
const note = el('span', { id: 'note', class: 'note', role: 'status', 'aria-live': 'polite' });
sourceBar.append(sampleLabel, detectButton, openLabel, note);
$('shared-controls').insertBefore(qkLabel, shared.more);
qkLabel.after(qkHint);
qkInput.addEventListener('cancel', () => {
  if (qkPending === null) return;
  qkPending = null;
  syncControls();
});
const backendLabel = el('label', { class: 'field', title: 'Where attention runs: WebAssembly (SIMD where supported) or WebGPU when this browser has an adapter' });
const backendSelect = el('select', { id: 'backend', name: 'backend' });
backendSelect.append(new Option('WebAssembly', 'wasm'), new Option('WebGPU', 'webgpu'));
backendLabel.append(el('span', { class: 'field-label' }, 'Backend'), backendSelect);
shared.more.append(backendLabel);
backendSelect.addEventListener('change', () => schedule());
// WebGPU is offered only where this browser has an adapter; elsewhere the option is disabled and
// says why (choosing it could only fail).
(async () => {
  const adapter = await navigator.gpu?.requestAdapter().catch(() => null);
  if (adapter) return;
  const why = navigator.gpu ? 'this browser found no WebGPU adapter (GPU)' : 'this browser has no WebGPU';
  const option = backendSelect.querySelector('option[value=webgpu]');
  option.disabled = true;
  option.textContent = 'WebGPU (not available)';
  option.title = `Not available: ${why}.`;
  backendLabel.title = `Where attention runs: WebAssembly (SIMD where supported). WebGPU is not available: ${why}.`;
  if (backendSelect.value === 'webgpu') {
    backendSelect.value = 'wasm';
    schedule();
  }
})();

// The Tokenizers box under the units: the code under every tokenizer, and a tokenizer.json of
// the person's own (a choice of the Tokenizer control, kept in the page and never in the URL).
const tokenizerSelect = shared.built.find((c) => c.spec.key === 'tokenizer').input;
const tokenizersBox = new TokenizersBox($('source'), client, info.tokenizers, (name) => {
  if (![...tokenizerSelect.options].some((o) => o.value === name)) tokenizerSelect.append(new Option(tokenizersBox.label(name), name));
  onControl('tokenizer', name);
});

function syncControls() {
  shared.sync(state);
  sides.a.sync(state);
  sides.b.sync(state);
  holdFileSource();
  const sourceSelect = shared.built.find((c) => c.spec.key === 'source').input;
  if (qkPending !== null) sourceSelect.value = 'file';
  qkLabel.hidden = state.source !== 'file' && qkPending === null;
  qkHint.hidden = qkPending === null;
  qkHint.textContent = qkPending === null ? '' : qkFileHint(sourceLabel(qkPending));
  syncSample();
  qkText.textContent = qkFileName ? `q/k: ${qkFileName}` : 'Load q/k…';
  syncStory();
}

// Choices among a few values (menus, checkboxes) add a history entry, so that Back undoes them;
// numbers and sliders, like typing, replace the current one.
const isDiscrete = (key) => [shared, sides.a, sides.b].some((c) => c.built.some(({ spec }) => spec.key === key && (spec.type === 'select' || spec.type === 'checkbox')));

function onControl(key, value) {
  if (key === 'source') {
    if (value === 'file' && !qkFileName) {
      // Choosing a file opens the picker; the maps keep the current source until one is loaded.
      qkPending ??= state.source;
      syncControls();
      qkInput.click();
      return;
    }
    qkPending = null;
  }
  if (isDiscrete(key)) pushNext = true;
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
  if (['language', 'tokenizer', 'gap', 'descend'].includes(key)) zoom = null;
  schedule();
}

function setCode(code) {
  state.code = code;
  editor.setText(code ?? SAMPLES[state.language] ?? '');
}

sampleSelect.addEventListener('change', () => {
  const language = sampleSelect.value;
  if (!SAMPLES[language]) return;
  state.language = language;
  editor.setLanguage(language);
  setCode(null);
  pushNext = true;
  zoom = null;
  syncControls();
  schedule();
});

async function detectLanguage(fromPaste) {
  const code = editor.text;
  let language;
  try {
    language = await client.a.request('detect', { code });
  } catch (e) {
    if (e.name === 'Superseded') return; // a newer edit replaced the busy worker
    throw e;
  }
  if (!language) return;
  // The status says when even the best grammar found errors in this code (plainStatus).
  detected = { code, language };
  if (language !== state.language) {
    if (!fromPaste) pushNext = true;
    state.language = language;
    editor.setLanguage(language);
    syncControls();
    schedule();
  } else if (result?.snapshot && !status.classList.contains('error')) status.textContent = plainStatus(result, result.snapshot); // now it knows the code was detected
  showNote(`${fromPaste ? 'Detected' : 'Language'}: ${LANGUAGE_NAMES[language]}.`);
}
detectButton.addEventListener('click', () => detectLanguage(false));

openInput.addEventListener('change', async () => {
  const file = openInput.files[0];
  if (!file) return;
  const text = await file.text();
  setCode(text);
  let byExt;
  try {
    byExt = await client.a.request('languageOf', { name: file.name });
  } catch (e) {
    if (e.name === 'Superseded') return; // queued behind a run that a newer edit replaced
    throw e;
  }
  if (byExt) {
    state.language = byExt;
    editor.setLanguage(byExt);
    syncControls();
  } else await detectLanguage(false);
  pushNext = true;
  zoom = null;
  schedule();
});

qkInput.addEventListener('change', async () => {
  const file = qkInput.files[0];
  if (!file) return;
  qkFileName = file.name;
  await client.both('qkFile', { text: await file.text() });
  if (state.source !== 'file') pushNext = true;
  state.source = 'file';
  qkPending = null;
  syncControls();
  schedule();
});

// ----- token texts and units
function tokenText(j) {
  const a = result?.analysis;
  return a ? editor.text.slice(a.start[j], a.end[j]) : '';
}
function unitName(u) {
  const unit = result?.analysis.units[u];
  return unit ? `${unit.index}: ${unitPhrase(unit)}` : String(u);
}
/** Short label of a token for the axes: its text with whitespace made visible. */
const shortLabel = (j) => tokenText(j).replace(/\n/g, '⏎').replace(/\t/g, '⇥').replace(/ /g, '·') || '∅';

// ----- heatmaps
const maps = $('maps');
const heatmaps = {};
for (const [which, title] of [
  ['a', 'A'],
  ['b', 'B'],
  ['diff', 'A vs B'],
]) {
  heatmaps[which] = new Heatmap(maps, {
    id: `map-${which}`,
    title,
    onRow: (index) => selectRow(which === 'a' ? 'a' : 'b', index),
    onZoom: (region) => setZoom(region),
    onExport: exportHandler(which),
    onHover: (cell, event) => hover(cell, event),
  });
}
$('reset-zoom').addEventListener('click', () => setZoom(null));
// The hint over the maps names what a pointer can do: hover with a mouse, tap on a touch screen.
const touchScreen = matchMedia('(hover: none)');
const syncMapHint = () => (document.querySelector('.section-head .how').textContent = mapHint(touchScreen.matches));
syncMapHint();
touchScreen.addEventListener('change', syncMapHint);

function exportHandler(which) {
  return async (kind) => {
    const name = `hirope-${which}`;
    try {
      if (kind === 'png') {
        const names = { a: `A: ${describeScheme(state.a)}`, b: `B: ${describeScheme(state.b)}`, diff: `log2(pB / pA): B = ${describeScheme(state.b)} vs A = ${describeScheme(state.a)}` };
        const r = heatmaps[which].region;
        const subtitle = `${LANGUAGE_NAMES[state.language]}, ${plural(result.n, 'token')} (${tokenizersBox.label(state.tokenizer)}), head dim ${result.headDim}, training length ${state.train}, q/k ${sourceLabel(state.source)}; queries ${r.r0}–${r.r1 - 1}, keys ${r.c0}–${r.c1 - 1}`;
        download(await heatmaps[which].exportPNG({ title: names[which], subtitle, theme: theme() }), `${name}.png`);
      } else {
        download(new Blob([await csvOf(which)], { type: 'text/csv' }), `${name}.csv`);
      }
    } catch (e) {
      showError(e);
    }
  };
}

const csvCell = (text) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The numbers of one heatmap over the visible region as CSV: two header rows (key index, key
 * token text), then per query its index, its text and the values (empty where masked). The
 * A vs B map exports log2(pB / pA) with the floor the map uses.
 */
async function csvOf(which) {
  const [a, b] = await Promise.all(['a', 'b'].filter((s) => which === 'diff' || which === s).map((s) => client.side(s).request('values', { region: zoom })));
  const { r0, r1, c0, c1 } = a.region;
  const width = c1 - c0;
  const keys = Array.from({ length: width }, (_, j) => c0 + j);
  const lines = [
    ['query', 'query token', ...keys].join(','),
    ['', '', ...keys.map((j) => csvCell(tokenText(j)))].join(','),
  ];
  for (let i = r0; i < r1; i++) {
    const cells = [i, csvCell(tokenText(i))];
    for (let j = 0; j < width; j++) {
      const c = (i - r0) * width + j;
      const v = b ? logRatio(a.values[c], b.values[c]) : a.values[c];
      cells.push(Number.isNaN(v) ? '' : String(v));
    }
    lines.push(cells.join(','));
  }
  return lines.join('\n') + '\n';
}

function combineImages(a, b) {
  const diff = diffImage(a.raw, b.raw, a.rows, a.cols, a.region, theme());
  // A side whose image did not change keeps its canvas (Heatmap.draw skips identical images).
  return { region: a.region, rows: a.rows, cols: a.cols, a: a.rgba, b: b.rgba, diff: diff.rgba, visibleShare: diff.visibleShare, raw: { a: a.raw, b: b.raw } };
}

async function setZoom(region) {
  zoom = region;
  if (!result?.n) return;
  try {
    const [a, b] = await client.both('images', { view: { size: 512, region } });
    result.images = combineImages(a, b);
    drawHeatmaps(result.images);
  } catch (e) {
    showError(e);
  }
}

// The unit strips along a map's axes: the side's own units (fixed segments for a HiRoPE side on
// segments; the parse tree's units otherwise, and on the A vs B map).
const segmentStrips = new Map();
function stripUnits(which) {
  const side = result.snapshot?.[which];
  if (!side || side.type !== 'hirope' || side.units !== 'segments') return result.analysis.unit;
  const key = `${result.analysis.count}|${side.segment}`;
  if (!segmentStrips.has(key)) {
    if (segmentStrips.size >= 4) segmentStrips.clear(); // A and B may each have their own size
    segmentStrips.set(key, Int32Array.from({ length: result.analysis.count }, (_, t) => Math.floor(t / side.segment)));
  }
  return segmentStrips.get(key);
}

// Dashed diagonals at the windows (W) and the training length (L): where the far rules start and
// where plain RoPE leaves what it saw in training.
function guidesFor(which) {
  const snap = result.snapshot;
  if (!snap) return [];
  const list = [];
  for (const side of which === 'diff' ? ['a', 'b'] : [which]) {
    if (WINDOWED.has(snap[side].type) && !list.some((g) => g.distance === snap[side].window)) list.push({ distance: snap[side].window, label: `W ${snap[side].window}` });
  }
  if (snap.train < result.n) list.push({ distance: snap.train, label: `L ${snap.train}` });
  return list;
}

function drawHeatmaps(images) {
  for (const which of ['a', 'b', 'diff']) heatmaps[which].setGuides(guidesFor(which));
  for (const which of ['a', 'b', 'diff']) heatmaps[which].draw({ rgba: images[which], rows: images.rows, cols: images.cols }, images.region, stripUnits(which), result.n, shortLabel);
  const { r0, r1, c0, c1 } = images.region;
  const pooled = r1 - r0 > images.rows || c1 - c0 > images.cols;
  $('zoom-info').textContent = zoom ? `Zoomed: queries ${r0}–${r1 - 1}, keys ${c0}–${c1 - 1}` : '';
  $('reset-zoom').hidden = !zoom;
  const note = pooled ? 'Downsampled: each cell is the mean over the tokens it covers.' : '';
  for (const side of ['a', 'b']) heatmaps[side].setLegend(cssGradient(LUTS.magma), `${powerOfTen(-DECADES)}× row max`, 'row max', `Brighter: more attention, relative to the row's largest. ${note}`);
  const times = 2 ** RATIO_LIMIT;
  heatmaps.diff.setLegend(cssGradient(divergingLut(theme())), `A ${times}× more`, `B ${times}× more`, `Blue: B attends more to that key than A; orange: A does (log₂ p_B / p_A). ${(100 * images.visibleShare).toFixed(0)}% of cells differ by ${VISIBLE_RATIO}× or more. ${note}`);
  maps.dataset.visibleShare = String(images.visibleShare);
}
dark.addEventListener('change', () => {
  const images = result?.images;
  if (!images) return;
  images.diff = diffImage(images.raw.a, images.raw.b, images.rows, images.cols, images.region, theme()).rgba;
  drawHeatmaps(images);
});

async function selectRow(side, index) {
  if (!result?.n || index < 0 || index >= result.n) return;
  selected = { side, index };
  for (const h of Object.values(heatmaps)) h.select(index);
  renderSummary();
  try {
    const [rowA, rowB] = await client.both('row', { index });
    const row = side === 'a' ? rowA : rowB;
    const levels = new Uint8Array(result.n);
    for (let j = 0; j <= index; j++) levels[j] = heatLevel(row.max > 0 ? row.probs[j] / row.max : 0);
    editor.setHeat({ levels, query: index });
    const text = (j) => JSON.stringify(tokenText(j));
    const top = (r) => Array.from(r.probs.keys()).sort((x, y) => r.probs[y] - r.probs[x]).slice(0, 3).map((j) => `${text(j)}@${j} ${formatProbability(r.probs[j])}`).join(', ');
    $('query-info').textContent = `Query ${index} ${text(index)}, shaded in the code by ${side.toUpperCase()} — top keys A: ${top(rowA)}; B: ${top(rowB)}.`;
  } catch (e) {
    showError(e);
  }
}

// ----- hover: the numbers of one cell
const tip = el('div', { class: 'hm-tip', role: 'tooltip', hidden: true });
document.body.append(tip);
// A tapped cell's card stays until a tap elsewhere (a finger has no hover to end).
document.addEventListener('pointerdown', (e) => {
  if (e.pointerType === 'touch' && !tip.hidden && !e.target.closest?.('.hm canvas')) hover(null);
});
let hoverSeq = 0;
let hoverFrame = 0;
function hover(cell, event) {
  cancelAnimationFrame(hoverFrame);
  if (!cell || !result?.n) {
    hoverSeq++;
    tip.hidden = true;
    return;
  }
  const { clientX, clientY } = event;
  hoverFrame = requestAnimationFrame(async () => {
    const seq = ++hoverSeq;
    const { row: i, col: j } = cell;
    let cells;
    try {
      cells = await client.both('cell', { i, j });
    } catch {
      return;
    }
    if (seq !== hoverSeq) return;
    renderTip(i, j, cells[0], cells[1]);
    const x = Math.min(clientX + 14, innerWidth - tip.offsetWidth - 8);
    const y = clientY + 16 + tip.offsetHeight > innerHeight ? clientY - tip.offsetHeight - 12 : clientY + 16;
    tip.style.left = `${Math.max(4, x)}px`;
    tip.style.top = `${Math.max(4, y)}px`;
  });
}

/** The hover card: both tokens, both probabilities, and the distance each band sees. */
function renderTip(i, j, a, b) {
  const an = result.analysis;
  const token = (t) => `${t} ${JSON.stringify(tokenText(t))} · unit ${unitName(an.unit[t])} · statement ${an.statement[t]}`;
  const rows = [
    ['query', token(i)],
    ['key', token(j)],
  ];
  if (j > i) rows.push(['', 'masked: the key comes after the query']);
  else {
    rows.push(['token distance', String(i - j)]);
    rows.push(['p under A', formatProbability(a.p)], ['p under B', formatProbability(b.p)], ['B ÷ A', (Math.max(b.p, RATIO_FLOOR) / Math.max(a.p, RATIO_FLOOR)).toPrecision(3)]);
    const bands = (s) => s.bands.map((band) => `${band.name === 'all' ? 'all pairs' : `${band.name} (pairs ${band.pairs[0]}–${band.pairs[1] - 1})`}: ${band.distance}`).join('; ');
    rows.push(['distance A sees', bands(a)], ['distance B sees', bands(b)]);
  }
  const dl = el('dl', { class: 'hr-card' });
  for (const [k, v] of rows) dl.append(el('dt', {}, k), el('dd', {}, v));
  tip.replaceChildren(dl);
  tip.hidden = false;
  tip.dataset.cell = `${i},${j}`;
}

// ----- units outline
let outlineItems = [];
let outlineStructure = '';
function renderOutline(a) {
  const list = $('outline');
  const first = new Int32Array(a.units.length).fill(-1);
  const last = new Int32Array(a.units.length).fill(-1);
  for (let t = 0; t < a.count; t++) {
    const u = a.unit[t];
    if (u < 0 || u >= a.units.length) continue;
    if (first[u] < 0) first[u] = t;
    last[u] = t;
  }
  // Counted where each statement starts, so that they add up to the status's count.
  const statements = statementsPerUnit(a);
  const tokens = (u) => (first[u] < 0 ? 'no tokens' : first[u] === last[u] ? `token ${first[u]}` : `tokens ${first[u]}–${last[u]}`);
  const meta = (u) => `${tokens(u)} · ${plural(statements[u], 'statement')}`;
  const structure = JSON.stringify(a.units.map((unit) => [unit.kind, unit.languageKind, unit.name]));
  // Typing inside a unit moves token ranges, not units: update the numbers in place.
  if (structure === outlineStructure) {
    outlineItems.forEach((li, u) => {
      li.querySelector('.outline-meta').textContent = meta(u);
      li.range = first[u] >= 0 ? { from: first[u], to: last[u] + 1 } : null;
      li.unit = a.units[u];
    });
    return;
  }
  outlineStructure = structure;
  outlineItems = a.units.map((unit, u) => {
    const li = el('li', { class: `outline-item hr-u${u % 6}-edge`, 'data-unit': String(u) });
    const button = el('button', { type: 'button', class: 'outline-unit' });
    // HiRoPE's kind of unit, then the language's own word for it where that says more (a Rust
    // struct and its impl are both class units).
    const { kind, own } = unitKinds(unit);
    button.append(el('span', { class: 'outline-kind' }, kind), document.createTextNode(' '));
    if (own) button.append(el('span', { class: 'outline-own', title: `${LANGUAGE_NAMES[a.language] ?? a.language}'s own kind: ${own}` }, own), document.createTextNode(' '));
    button.append(el('span', { class: 'outline-name' }, unit.name || '(unnamed)'));
    li.append(button, el('span', { class: 'outline-meta' }, meta(u)));
    li.unit = unit;
    button.addEventListener('click', () => {
      editor.selectRange(li.unit.start, li.unit.end);
      markUnit(u, true);
    });
    li.range = first[u] >= 0 ? { from: first[u], to: last[u] + 1 } : null;
    return li;
  });
  list.replaceChildren(...outlineItems);
  $('outline-count').textContent = `(${a.units.length})`;
}

function markUnit(u, fromOutline) {
  let range = null;
  for (const li of outlineItems) {
    const on = Number(li.dataset.unit) === u;
    if (on) {
      li.setAttribute('aria-current', 'true');
      range = li.range;
      if (!fromOutline) li.scrollIntoView({ block: 'nearest' });
    } else li.removeAttribute('aria-current');
  }
  for (const h of Object.values(heatmaps)) h.setHighlight(range);
}

// ----- the comparison in numbers
function mean(values) {
  let s = 0;
  for (const v of values) s += v;
  return values.length ? s / values.length : NaN;
}

function renderSummary() {
  const box = $('summary');
  if (!result?.n) {
    box.replaceChildren();
    return;
  }
  // The per-row numbers arrive with the comparison, after the maps.
  const { a, b } = comparison?.stats ?? { a: {}, b: {} };
  const i = selected.index;
  const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)}%` : '…');
  const tok = (v) => (Number.isFinite(v) ? `${v.toFixed(1)}` : '…');
  const table = el('table', { class: 'stats' });
  const head = el('tr');
  head.append(el('th', { scope: 'col' }, ''), el('th', { scope: 'col', class: 'col-a' }, 'A'), el('th', { scope: 'col', class: 'col-b' }, 'B'));
  if (i >= 0) head.append(el('th', { scope: 'col', class: 'col-a' }, `A, query ${i}`), el('th', { scope: 'col', class: 'col-b' }, `B, query ${i}`));
  table.append(head);
  const row = (label, help, fa, fb, fmt) => {
    const tr = el('tr', { title: help });
    tr.append(el('th', { scope: 'row' }, label), el('td', {}, fmt(fa ? mean(fa) : NaN)), el('td', {}, fmt(fb ? mean(fb) : NaN)));
    if (i >= 0) tr.append(el('td', {}, fmt(fa?.[i])), el('td', {}, fmt(fb?.[i])));
    table.append(tr);
  };
  row('attention on the query\'s own unit', 'The share of each query\'s attention on keys in its own function, class or gap (mean over all queries).', a.own, b.own, pct);
  row('mean distance attended (tokens)', 'Σⱼ p(i→j)·(i − j): how far back a query looks on average.', a.distance, b.distance, tok);
  const cmp = el('p', { class: 'stats-compare' });
  if (comparison) {
    const tv = mean(comparison.tv);
    const kl = mean(comparison.kl);
    cmp.textContent = `B differs from A by a total variation of ${tv.toFixed(3)} per query on average (0: the same attention, 1: disjoint) and KL(A‖B) = ${kl.toFixed(3)} bits` + (i >= 0 ? `; query ${i}: ${comparison.tv[i].toFixed(3)} and ${comparison.kl[i].toFixed(3)} bits.` : '.');
  } else cmp.textContent = 'Comparing the two matrices…';
  box.replaceChildren(table, cmp, tvChart);
  drawTVChart(tvChart);
}
const tvChart = el('canvas', { class: 'tv-chart', role: 'img', 'aria-label': 'Total variation between A and B for every query token' });
// The chart's width comes from a ResizeObserver, so drawing it never forces a layout.
let summaryWidth = 0;
new ResizeObserver((entries) => {
  const width = Math.round(entries[0].contentRect.width);
  if (width === summaryWidth) return;
  summaryWidth = width;
  if (result?.n) drawTVChart(tvChart);
}).observe($('summary'));

// Total variation between A's and B's attention, one value per query row, with the selected row.
function drawTVChart(canvas) {
  const width = Math.max(240, summaryWidth);
  const height = 96;
  const ctx = fitCanvas(canvas, width, height);
  const ink = getComputedStyle($('summary')).color;
  const box = { left: 44, top: 6, width: width - 56, height: height - 42 };
  const n = result.n;
  drawAxes(ctx, { box, x: { lo: 0, hi: n - 1, title: 'query token' }, y: { lo: 0, hi: 1, title: 'TV(A, B)', ticks: [0, 0.5, 1] }, ink, grid: true });
  if (!comparison) return;
  const X = (i) => box.left + (n > 1 ? (i / (n - 1)) * box.width : 0);
  const Y = (v) => box.top + (1 - v) * box.height;
  ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#2455c3';
  ctx.lineWidth = 1.25;
  ctx.beginPath();
  for (let i = 0; i < n; i++) (i ? ctx.lineTo : ctx.moveTo).call(ctx, X(i), Y(comparison.tv[i]));
  ctx.stroke();
  if (selected.index >= 0) {
    ctx.strokeStyle = ink;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(X(selected.index), box.top);
    ctx.lineTo(X(selected.index), box.top + box.height);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  canvas.onclick = (e) => {
    const r = canvas.getBoundingClientRect();
    const i = Math.round(((e.clientX - r.left - box.left) / box.width) * (n - 1));
    if (i >= 0 && i < n) selectRow(selected.side, i);
  };
}

// ----- running
// Typing: a burst of keystrokes computes once the typing pauses (EDIT_IDLE) or at least every
// EDIT_MAX_WAIT while it goes on, so the maps follow the code without a computation per key.
const EDIT_IDLE = 150;
const EDIT_MAX_WAIT = 750;
let editTimer = 0;
let firstEdit = 0;
let lastEdit = -Infinity;
function scheduleEdit() {
  lastEdit = performance.now();
  if (!ready) return;
  const now = performance.now();
  if (!editTimer) firstEdit = now;
  clearTimeout(editTimer);
  editTimer = setTimeout(() => {
    editTimer = 0;
    schedule();
  }, Math.max(0, Math.min(EDIT_IDLE, firstEdit + EDIT_MAX_WAIT - now)));
}

let scheduled = false;
const lastHalves = { a: null, b: null }; // each worker's last full result
let startedAt = 0;
let progressTimer = 0;
function schedule() {
  if (!scheduled) startedAt = performance.now();
  scheduled = true;
  queueMicrotask(run);
}

let viewsVisible = false;
let viewsPending = null; // a result whose views are not drawn yet (the views are off screen)
new IntersectionObserver((entries) => {
  viewsVisible = entries.some((e) => e.isIntersecting);
  if (viewsVisible && viewsPending) {
    const value = viewsPending;
    viewsPending = null;
    if (!value.views.distances) schedule(); // computed only once they are seen
    else renderViews(value);
  }
}, { rootMargin: '0px' }).observe($('views'));

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = startedAt;
  const code = editor.text;
  const snapshot = normalizeState(state);
  const viewsWanted = viewsVisible;
  clearTimeout(progressTimer);
  progressTimer = setTimeout(() => (progress.hidden = false), 150);
  let value;
  try {
    const pair = await client.latest({ code, state: snapshot, backend: backendSelect.value, view: { size: 512, region: zoom }, reuse: true, views: true, distancesWanted: viewsWanted }, (stage) => {
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
    value = pair && combine(pair.a, pair.b, snapshot, code.length);
    if (value) value.code = code;
  } catch (e) {
    clearTimeout(progressTimer);
    progress.hidden = true;
    showError(e);
    if (e.name !== 'Superseded') retitleUncomputed(snapshot);
    return;
  }
  if (value === null) return; // superseded by a newer state
  clearTimeout(progressTimer);
  progress.hidden = true;
  const tPaint = performance.now();
  const compareNeeded = value.n > 0 && value.matrices !== result?.matrices;
  paint(value, snapshot);
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (result !== value) return; // a newer result was painted meanwhile
  paintRest(value, snapshot);
  const now = performance.now();
  const total = now - t0;
  if (value.n) backendTimes[value.backend] = value.timings.a + value.timings.b;
  const t = value.timings;
  const parts = ['analysis', 'a', 'b', 'images', 'views'].filter((k) => Number.isFinite(t[k])).map((k) => `${k === 'a' ? 'attention A' : k === 'b' ? 'attention B' : k} ${t[k].toFixed(1)} ms`);
  const backends = Object.entries(backendTimes).map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join(', ');
  status.classList.remove('error');
  status.textContent = plainStatus(value, snapshot);
  $('timing-text').textContent = `Last redraw ${total.toFixed(1)} ms: ${parts.join(', ')}, painting ${(now - tPaint).toFixed(1)} ms.${backends ? ` Attention A + B by backend: ${backends}.` : ''}`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(new CustomEvent('hirope:redraw', { detail: { total, paint: now - tPaint, tokens: value.n, ...t, received: tPaint - t0, visibleShare: value.images?.visibleShare, paintEditor: paintTimes.editor, paintMaps: paintTimes.maps, paintViews: paintTimes.views } }));
  writeURL(snapshot);
  if (compareNeeded) compareSides(value);
  // The views came into view while this run computed without them (the observer reports after the
  // first run has started, and reports again only when visibility changes): compute them now.
  if (value.n && !viewsWanted && viewsVisible && !value.views.distances) {
    viewsPending = null;
    schedule();
  }
}

// TV and KL per row need both matrices; B's worker computes them after the maps are on screen.
async function compareSides(value) {
  comparison = null;
  renderSummary();
  try {
    const c = await client.compare();
    // A later result with the same two matrices (a zoom, the views arriving) keeps the comparison.
    if (result?.matrices !== value.matrices) return;
    comparison = c;
    renderSummary();
    document.dispatchEvent(new CustomEvent('hirope:compare', { detail: { tv: c.tv, kl: c.kl } }));
  } catch {
    // A newer run replaced a matrix in between; its own comparison follows.
  }
}

/** The status line in plain words: what was read, and what is out of distribution. */
function plainStatus(value, snapshot) {
  const a = value.analysis;
  if (!a.count) return 'The code has no tokens: paste or type some code.';
  // The tokenizer and the schemes under their display names: the Tokenizer control's and the map titles'.
  const parts = [codeSentence({ count: a.count, languageName: LANGUAGE_NAMES[a.language], tokenizer: tokenizersBox.label(a.tokenizer), units: a.units.length, statements: a.statements })];
  // Which schemes meet angles they never saw in training: each side's own count of pairs.
  const sides = ['a', 'b'].map((s) => ({ label: s.toUpperCase(), name: describeScheme(snapshot[s]), ood: value.views?.angles?.[s]?.value ?? null }));
  parts.push(trainingSentence({ n: value.n, total: a.count, train: snapshot.train, sides }));
  const parse = parseSentence({ languageName: LANGUAGE_NAMES[a.language] ?? a.language, errors: a.errors?.length ?? 0, detected: detected?.code === value.code && detected.language === a.language });
  if (parse) parts.push(parse);
  if (value.notes.length) parts.push(value.notes.join(' '));
  return parts.join(' ');
}

// One result from the two workers' halves.
function combine(a, b, snapshot, length) {
  const timings = {
    analysis: Math.max(a.timings.analysis ?? 0, b.timings.analysis ?? 0),
    a: a.timings.attention,
    b: b.timings.attention,
    images: Math.max(a.timings.images ?? 0, b.timings.images ?? 0),
    views: Math.max(a.timings.views ?? 0, b.timings.views ?? 0),
  };
  const analysis = { ...a.analysis, length };
  if (!a.n) return { analysis, n: 0, notes: a.notes, timings, backend: a.backend };
  return {
    analysis,
    n: a.n,
    headDim: a.headDim,
    notes: a.notes,
    backend: a.backend,
    timings,
    matrices: `${a.matrix}|${b.matrix}`,
    images: combineImages(a.image, b.image),
    views: {
      distances: b.views.distances,
      angles: { a: a.views.angles, b: b.views.angles },
      decay: { a: a.views.decay, b: b.views.decay, maxDistance: a.views.maxDistance, train: snapshot.train },
    },
    snapshot,
  };
}

const drawn = {}; // keys of the views on screen
const paintTimes = {};
function paint(value, snapshot) {
  paintTimes.editor = 0;
  const previous = result;
  // The analysis object is kept when its version is unchanged, so the heatmaps' unit strips and
  // the editor's marks are not rebuilt.
  if (previous && value.analysis.version === previous.analysis.version && value.analysis.count === previous.analysis.count) value.analysis = previous.analysis;
  result = value;
  const a = value.analysis;
  if (a !== previous?.analysis) {
    selected.index = -1;
    $('query-info').textContent = '';
    for (const h of Object.values(heatmaps)) {
      h.selected = -1;
      h.highlight = null;
    }
  }
  const names = { a: describeScheme(snapshot.a), b: describeScheme(snapshot.b) };
  heatmaps.a.setTitle('A', names.a);
  heatmaps.b.setTitle('B', names.b);
  heatmaps.diff.setTitle('A vs B', 'B ÷ A');
  if (!value.n) {
    for (const h of Object.values(heatmaps)) h.draw(null);
  } else {
    const t = performance.now();
    drawHeatmaps(value.images);
    paintTimes.maps = performance.now() - t;
  }
}

// The rest of a redraw, in the task after the maps: the editor's marks, the outline, the numbers
// and the hints (so that no single task of a redraw blocks typing for long).
let marked = null; // the analysis whose tokens the editor and the outline show
function paintRest(value, snapshot) {
  const a = value.analysis;
  if (a !== marked) {
    marked = a;
    const t = performance.now();
    editor.setTokens({ count: a.count, start: a.start, end: a.end, unit: a.unit, length: a.length });
    paintTimes.editor = performance.now() - t;
    renderOutline(a);
    tokenizersBox.update(value.code, { ...analyzeOptionsFor(snapshot), tokenizer: undefined }, snapshot.tokenizer);
  }
  renderSummary();
  if (!value.n) return;
  paintTimes.views = 0;
  if (viewsVisible && value.views.distances) deferViews(value);
  else viewsPending = value;
  for (const side of ['a', 'b']) {
    const angles = value.views.angles[side]?.value;
    const hint = ratioHints[side];
    if (snapshot[side].type !== 'hirope' || !angles) {
      hint.textContent = '';
      hint.classList.remove('warn');
      continue;
    }
    // The token band is in distribution when its slowest pair turns a full period within the
    // training length, i.e. its index is below Split% of the pairs.
    const { text, over } = splitHint({ splitPair: angles.splitPair, pairs: angles.pairs, tokenPairs: angles.bands[0].pairs[1], train: snapshot.train });
    hint.classList.toggle('warn', over);
    hint.textContent = text;
  }
  if (selected.index >= 0 && selected.index < value.n) selectRow(selected.side, selected.index);
}

// While a person types, the views wait until the typing pauses (VIEWS_AFTER_TYPING): they are
// below the maps and cost tens of milliseconds on the page's thread.
const VIEWS_AFTER_TYPING = 600;
let viewsTimer = 0;
function deferViews(value) {
  clearTimeout(viewsTimer);
  const wait = Math.max(0, lastEdit + VIEWS_AFTER_TYPING - performance.now());
  viewsTimer = setTimeout(() => result === value && renderViews(value), wait);
}

// The views below the maps, drawn in their own task and only when they are on screen.
function renderViews(value) {
  const t = performance.now();
  const v = value.views;
  const names = { a: describeScheme(value.snapshot.a), b: describeScheme(value.snapshot.b) };
  if (v.distances && drawn.distances !== v.distances.key) {
    renderDistances($('distances'), v.distances.value);
    drawn.distances = v.distances.key;
  }
  for (const side of ['a', 'b']) {
    const key = `${v.angles[side]?.key}|${names[side]}`;
    if (drawn[`angles-${side}`] !== key) {
      renderAngles($(`angles-${side}`), v.angles[side]?.value ?? null, `${side.toUpperCase()}: ${names[side]}`, value.snapshot.train);
      drawn[`angles-${side}`] = key;
    }
  }
  const decayKey = `${v.decay.a.key}|${v.decay.b.key}|${names.a}|${names.b}`;
  if (drawn.decay !== decayKey) {
    renderDecay($('decay'), { ...v.decay, a: v.decay.a.value, b: v.decay.b.value }, names);
    drawn.decay = decayKey;
  }
  paintTimes.views = performance.now() - t;
}

/**
 * After a run that failed: a map whose scheme is no longer the one it shows is emptied and titled
 * with the scheme that could not be computed, so that no map keeps a result under a scheme's
 * title it does not belong to (the status line says why).
 */
function retitleUncomputed(snapshot) {
  const shown = result?.snapshot;
  const stale = { a: !shown || JSON.stringify(shown.a) !== JSON.stringify(snapshot.a), b: !shown || JSON.stringify(shown.b) !== JSON.stringify(snapshot.b) };
  if (!stale.a && !stale.b) return; // the code failed, not the schemes: the maps keep the last code
  const names = { a: describeScheme(snapshot.a), b: describeScheme(snapshot.b) };
  for (const side of ['a', 'b']) if (stale[side]) heatmaps[side].setTitle(side.toUpperCase(), `${names[side]}: not computed`);
  heatmaps.diff.setTitle('A vs B', 'not computed');
  for (const which of ['a', 'b', 'diff']) if (which === 'diff' || stale[which]) heatmaps[which].clear('Not computed:\nsee the status line above.');
  $('summary').replaceChildren(); // its numbers were the previous schemes'
}

function showError(e) {
  status.classList.add('error');
  status.textContent = errorText(e);
  document.body.dataset.ready = 'true';
}
/** The status line for an error: the code's own problems in the page's words, else the API's. */
function errorText(e) {
  const api = e.name === 'HiRoPEError' || e.name === 'PlaygroundError';
  const kept = result?.n ? ' The maps still show the last code that could be read.' : '';
  if (e.name === 'NetworkError') return e.message; // a data file that could not be downloaded (client.js)
  // The parse budget (engine.js pageParseBudget) and the heap: the code, not the settings.
  const slow = api && /^parsing stopped after (\d+) ms at byte (\d+) of (\d+): the input is pathological for the tree-sitter (\w+) grammar/.exec(e.message);
  if (slow) {
    const [, ms, at, of, language] = slow;
    return `This code cannot be parsed in time: tree-sitter's ${LANGUAGE_NAMES[language] ?? language} grammar recovers from its syntax errors very slowly on it (stopped after ${(ms / 1000).toFixed(1)} s at byte ${Number(at).toLocaleString('en')} of ${Number(of).toLocaleString('en')}).${kept}`;
  }
  if (api && /^out of memory/.test(e.message)) return `This code is too large for the browser's WebAssembly memory: ${e.message.replace(/^out of memory: /, '')}.${kept}`;
  return `${api ? 'These settings cannot be computed' : e.name}: ${e.message}`;
}
let noteTimer = 0;
function showNote(text) {
  note.textContent = text;
  clearTimeout(noteTimer);
  noteTimer = setTimeout(() => note.textContent === text && (note.textContent = ''), 6000);
}

let urlTimer = 0;
// A tokenizer.json of the person's own stays in the page: the link names the default.
const linkState = (snapshot) => ({ ...snapshot, tokenizer: info.tokenizers.includes(snapshot.tokenizer) ? snapshot.tokenizer : 'lexical', code: state.code });
function writeURL(snapshot) {
  clearTimeout(urlTimer);
  // Compressing the code into the URL waits until the typing pauses.
  urlTimer = setTimeout(async () => {
    const hash = await encodeState(linkState(snapshot));
    // A discrete choice (preset, menu, checkbox, sample, file) adds a history entry, so that Back
    // undoes it; typing and numbers replace the entry.
    const push = pushNext;
    pushNext = false;
    if (hash !== location.hash && !(hash === '' && location.hash === '')) history[push ? 'pushState' : 'replaceState'](null, '', hash || location.pathname + location.search);
    showLinkSize(hash, snapshot);
  }, Math.max(150, lastEdit + 1000 - performance.now()));
}

// A link long enough to be cut by chat apps (the code is in it) offers one without the code.
const linkSize = el('p', { id: 'link-size', class: 'link-size', hidden: true });
const linkSizeText_ = el('span');
const shortLink = el('button', { type: 'button', class: 'small', id: 'copy-short-link', title: 'Copy a link to this view that leaves the code out: it opens the language\'s sample with these settings' }, 'Copy link without the code');
linkSize.append(linkSizeText_, ' ', shortLink);
$('timings').after(linkSize);
let linkSnapshot = null;
let linkHash = '';
const linkField = el('input', { type: 'text', readonly: true, class: 'link-field', hidden: true, 'aria-label': 'Link without the code' });
linkSize.append(' ', linkField);
function showLinkSize(hash, snapshot) {
  linkSnapshot = snapshot;
  const long = hash.length > LONG_LINK && state.code !== null;
  if (long) linkSizeText_.textContent = linkSizeText(hash.length);
  linkSize.hidden = !long;
  if (hash !== linkHash) {
    // The view changed: a link copied before is not this view's.
    linkHash = hash;
    shortLink.textContent = 'Copy link without the code';
    linkField.hidden = true;
  }
}
shortLink.addEventListener('click', async () => {
  const hash = await encodeState(linkState(linkSnapshot ?? normalizeState(state)), { withoutCode: true });
  const url = `${location.origin}${location.pathname}${location.search}${hash}`;
  shortLink.dataset.link = url;
  try {
    await navigator.clipboard.writeText(url);
    shortLink.textContent = `Copied (${url.length.toLocaleString('en')} characters)`;
  } catch {
    // No clipboard (permission, an insecure origin): the link is shown to copy by hand.
    linkField.value = url;
    linkField.hidden = false;
    linkField.select();
  }
});

// The mode link carries the code and language to Model mode.
$('mode-model').addEventListener('click', async (e) => {
  e.preventDefault();
  location.href = `model.html${await encodeWith(MODEL_DEFAULTS, { language: state.language, code: state.code })}`;
});

// Back and Forward (and a hash edited by hand) restore the state their entry holds.
window.addEventListener('popstate', async () => {
  clearTimeout(urlTimer); // a write pending for the entry just left must not land on this one
  pushNext = false;
  const read = await readStateLink(location.hash);
  showLinkNotice(linkNotice(read));
  const next = read.state;
  const code = next.code ?? SAMPLES[next.language] ?? '';
  state = next;
  editor.setLanguage(state.language);
  if (code !== editor.text) editor.setText(code);
  state.code = next.code;
  zoom = null;
  syncControls();
  schedule();
});

// Window width changes redraw the width-filling charts.
let resizeTimer = 0;
addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (!result?.n) return;
    renderSummary();
    for (const k of Object.keys(drawn)) delete drawn[k];
    if (viewsVisible) renderViews(result);
  }, 150);
});

syncControls();
schedule();
