// The playground's Model mode: hirope's code model under two schemes — loss by position, code
// shaded by loss, the model's real attention per layer and head (and every layer and head as
// thumbnails), and generation — computed by the same two workers as the attention mode. The
// whole state lives in the URL hash.
import { assetURL } from './assets.js';
import { createEditor, HEAT_LEVELS, heatLevel } from './editor.js';
import { Heatmap, installUnitColours } from './heatmap.js';
import { PairClient } from './client.js';
import { buildControls, setPath } from './controls.js';
import { MODEL_DEFAULTS, MODEL_SPLIT_RATIO, SCALINGS, normalizeWith, encodeWith, readModelLink, encodeModelState, modelDefaultsOf, describeModelSide, formatRatio, DEFAULTS } from './state.js';
import { LONG_PYTHON_SAMPLE } from './model-samples.js';
import { EVAL_FILES, verdictData, renderVerdict } from './verdict.js';
import { MODEL_NAMES, MODEL_SCHEMES, THUMB_SIZE, isBaseline, lossCurve } from './model-engine.js';
import { RECALL_CLASSES } from '../../dist/recall.js';
import { LUTS, cssGradient, DECADES } from './colormap.js';
import { SAMPLES, LANGUAGE_NAMES } from './samples.js';
import { drawAxes, fitCanvas, niceTicks } from './axes.js';
import { el, download } from './dom.js';
import { plural, LINK_UNREADABLE } from './wording.js';
import { modelHelp, factorHelp, ratioOutput, ratioPresets, ratioHint, generatedSentence } from './model-wording.js';
import { VOCABULARY, options, numberSpec } from './vocabulary.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const progress = $('progress');
const progressLine = $('progress-line');
installUnitColours();

const SMOOTHING = [1, 8, 32, 128];
const BYTE_FILTERS = [['all', 'every byte'], ['far', 'far-recall bytes only']];
// The unit the model reads: 'byte' (pybyte) or 'token' (pyjs-llama2), from the state's model.
const unitOf = (s) => (s.model === 'pyjs-llama2' ? 'token' : 'byte');
/** The state normalized against its model's defaults. */
const normal = (s) => normalizeWith(modelDefaultsOf(s.model), s);
/** The sample a state shows when its code is null: the token model reads a long real file. */
const sampleOf = (s) => (s.model === 'pyjs-llama2' && s.language === 'python' ? LONG_PYTHON_SAMPLE : SAMPLES[s.language]);
/** The state a URL hash describes, with values the controls can show. */
async function stateFromHash(hash) {
  const link = await readModelLink(hash);
  let s = link.state;
  if (!MODEL_NAMES.some(([name]) => name === s.model)) s = normalizeWith(MODEL_DEFAULTS, { ...s, model: 'pybyte' });
  const d = modelDefaultsOf(s.model);
  if (!SMOOTHING.includes(s.smooth)) s.smooth = d.smooth;
  if (!BYTE_FILTERS.some(([v]) => v === s.bytes)) s.bytes = d.bytes;
  return s;
}
let state = await stateFromHash(location.hash);
// A link that cannot be read (cut off or garbled when copied) says so; the page shows the defaults.
if ((await readModelLink(location.hash)).unreadable) {
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
let paperBound = null; // splitBoundOf(0.5): the paper's ratio against this model's bound
let selected = null; // { side, index }: the query row shading the code, if any
let generating = false; // a generation is under way (Generate is disabled)
const workerURL = new URL('./worker.js', import.meta.url);
if (new URLSearchParams(location.search).get('simd') === '0') workerURL.searchParams.set('simd', '0');
const client = new PairClient(workerURL);

// The weights, fetched once per visit for both workers, and only for the model picked: the
// byte model (data/pybyte.hrm, about 1.3 MB) or the token model (data/pyjs-llama2.hrm, about
// 9.5 MB, with the llama2 vocabulary, data/llama2.bin). hr.model.load() reads data/NAME.hrm next
// to the hirope module, which the site bundles into worker.js: the same URL from here.
const MODEL_URLS = Object.fromEntries(MODEL_NAMES.map(([name]) => [name, assetURL(`data/${name}.hrm`, workerURL)]));
const TOKENIZER_URL = assetURL('data/llama2.bin', workerURL);
async function fetchBytes(url, what) {
  const response = await fetch(url);
  if (!response.ok) throw Object.assign(new Error(`could not fetch ${what} (${url.pathname}: HTTP ${response.status})`), { name: 'NetworkError' });
  return response.arrayBuffer();
}
// Sizes before download: the files' lengths from a HEAD request each (null if the host says none).
const sizeOf = (url) => fetch(url, { method: 'HEAD' }).then((r) => Number(r.headers.get('content-length')) || null).catch(() => null);
const modelSizes = Object.fromEntries(MODEL_NAMES.map(([name]) => [name, Promise.all([sizeOf(MODEL_URLS[name]), name === 'pyjs-llama2' ? sizeOf(TOKENIZER_URL) : 0]).then(([w, t]) => (w === null || t === null ? null : w + t))]));
const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;
const loads = new Map(); // model name -> Promise of its config, loaded by both workers
function loadModel(name) {
  if (!loads.has(name)) {
    const promise = (async () => {
      if (name === 'pyjs-llama2') {
        const data = await fetchBytes(TOKENIZER_URL, 'the llama2 vocabulary');
        await Promise.all(['a', 'b'].map((s) => client.side(s).request('tokenizerData', { name: 'llama2', data })));
      }
      const data = await fetchBytes(MODEL_URLS[name], 'the model\'s weights');
      const [loaded] = await Promise.all(['a', 'b'].map((s) => client.side(s).request('modelLoad', { data, name }))); // each worker gets a copy
      return loaded;
    })();
    promise.catch(() => loads.delete(name)); // a failed download is tried again on the next run
    loads.set(name, promise);
  }
  return loads.get(name);
}
// The held-out verdict of the model shown, from the evaluation's own files (data/eval/).
const verdicts = new Map(); // model name -> Promise of its verdictData
async function showVerdict(name, modelConfig) {
  if (!verdicts.has(name)) {
    verdicts.set(name, (async () => {
      const files = await Promise.all(EVAL_FILES[name].map(([evalFile, record]) => Promise.all([evalFile, record].map(async (f) => JSON.parse(new TextDecoder().decode(await fetchBytes(assetURL(`data/eval/${f}`, location.href), f)))))));
      const seeds = files.map(([, record], i) => `seed ${record.seed}${i === 0 ? ' (shipped)' : ''}`);
      return verdictData(files.map(([e]) => e), { seeds, config: modelConfig });
    })());
    verdicts.get(name).catch(() => verdicts.delete(name));
  }
  const box = $('verdict-body');
  try {
    const data = await verdicts.get(name);
    if (state.model !== name) return;
    renderVerdict(box, data);
    document.body.dataset.verdict = name;
  } catch (e) {
    box.replaceChildren(el('p', { class: 'muted' }, `The held-out verdict could not be read: ${e.message}. It is in docs/model-eval.md.`));
  }
}

let modelReady = null; // the current model's load, with config and bound set once it is loaded
let pageBuilt;
const built = new Promise((resolve) => (pageBuilt = resolve)); // the controls exist (end of this module)
function useModel(name) {
  const loading = loadModel(name);
  modelReady = loading.then(async (loaded) => {
    await built;
    if (state.model !== name) return loaded;
    config = loaded;
    bound = await splitBoundOf(0);
    bound = await splitBoundOf(bound.maxRatio);
    paperBound = await splitBoundOf(0.5);
    configured();
    showVerdict(name, loaded);
    return loaded;
  });
  modelReady.catch(() => {}); // reported by the first run
  return modelReady;
}
useModel(state.model);
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
    { key: k('ratio'), label: 'Ratio', type: 'range', ...range('ratio'), step: 1 / PAIRS, numeric: true, help: modelHelp('byte').ratio, show: (s) => s[side].type === 'hirope' },
    { key: k('hierarchy'), label: 'Hierarchy', type: 'select', options: options(VOCABULARY.byteHierarchies), help: modelHelp('byte').hierarchy, show: (s) => s[side].type === 'hirope' },
    { key: k('segment'), label: 'Segment', noun: 'segment size', type: 'number', ...range('segmentSize'), help: modelHelp('byte').segment, show: (s) => s[side].type === 'hirope' && s[side].hierarchy === 'segments' },
    { key: k('window'), label: 'Window', type: 'number', ...range('window'), help: modelHelp('byte').window, show: (s) => s[side].type !== 'rope' },
    { key: k('group'), label: 'Group', type: 'number', ...range('group'), help: 'Self-Extend: far distances are divided by G.', show: (s) => s[side].type === 'self-extend' },
    { key: k('scaling'), label: 'Scaling', type: 'select', options: MODEL_SCALINGS, help: 'Frequency scaling relative to the training length: position interpolation, NTK-aware, dynamic NTK or YaRN.', show: (s) => !isBaseline(s[side].type) },
    { key: k('factor'), label: 'Factor', noun: 'scaling factor', type: 'number', ...range('factor'), help: factorHelp('linear'), show: (s) => !isBaseline(s[side].type) && s[side].scaling !== 'none' && s[side].scaling !== 'dynamic-ntk' },
  ];
}
const indexOptions = (count) => Array.from({ length: count }, (_, i) => [String(i), String(i)]);
const controlGroups = [
  buildControls($('source-controls'), [
    { key: 'model', label: 'Model', type: 'select', options: MODEL_NAMES, help: 'Which shipped code model reads the code: the token model (llama2 tokens, trained on Python and JavaScript at 512 tokens) or the byte model (bytes, Python, 256 bytes). Each is downloaded once, when first picked; the size is shown beside its name.' },
    { key: 'language', label: 'Language', type: 'select', options: info.languages.map((l) => [l, LANGUAGE_NAMES[l] ?? l]), help: 'The grammar that gives HiRoPE its units and statements. The model itself was trained on Python only.' },
    { key: 'colour', label: 'Shade code by', type: 'select', options: [['a', 'loss under A'], ['b', 'loss under B']], help: 'Which scheme\'s loss shades the code (per byte, or per token for the token model): darker text surprised the model more.' },
  ], onControl),
  buildControls($('loss-controls'), [
    { key: 'smooth', label: 'Smoothing', type: 'select', numeric: true, options: SMOOTHING.map((b) => [String(b), b === 1 ? 'none (every byte)' : `runs of ${b} bytes`]), help: modelHelp('byte').smooth, show: (s) => s.bytes === 'all' },
    { key: 'bytes', label: 'Show', type: 'select', options: BYTE_FILTERS, help: 'Far-recall bytes (or tokens): those of a name whose previous use is more than the training length back, with none nearer. Only there can context beyond the training length help; each dot is one such name.' },
  ], onControl),
  buildControls($('attention-controls'), [
    { key: 'layer', label: 'Layer', type: 'select', options: indexOptions(4), numeric: true, help: 'Which layer\'s attention the heatmaps show.' },
    { key: 'head', label: 'Head', type: 'select', options: indexOptions(4), numeric: true, help: 'Which attention head the heatmaps show.' },
  ], onControl),
  buildControls($('generation-controls'), [
    { key: 'maxBytes', label: 'Bytes', type: 'number', min: 1, max: 2048, step: 1, help: modelHelp('byte').maxBytes },
    { key: 'temperature', label: 'Temperature', type: 'number', min: 0, max: 2, step: 0.1, help: modelHelp('byte').temperature },
    { key: 'seed', label: 'Seed', type: 'number', min: 0, step: 1, help: 'Sampling seed (both sides use the same one).' },
  ], onControl),
];
// The picker names each model's download size before it is fetched.
for (const [name, label] of MODEL_NAMES) {
  modelSizes[name].then((size) => {
    const option = [...$('c-model').options].find((o) => o.value === name);
    if (option && size) option.textContent = `${label} · ${megabytes(size)}${loads.has(name) ? '' : ' download'}`;
  });
}
const sides = { a: buildControls($('scheme-a'), sideControls('a'), onControl), b: buildControls($('scheme-b'), sideControls('b'), onControl) };
const ratioHints = {};
for (const side of ['a', 'b']) {
  $(`scheme-${side}`).prepend(el('h3', {}, `Scheme ${side.toUpperCase()}`));
  ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
  $(`scheme-${side}`).append(ratioHints[side]);
}

// One-click settings for B: HiRoPE at this model's Split% bound, and at the paper's ratio 0.5 (one
// button when the two are the same); their values, labels and titles come from the core's
// splitBound once the model's config is known (ratioPresets).
const presets = el('div', { class: 'presets', role: 'group', 'aria-label': 'Presets for scheme B' });
const presetButtons = {
  bound: el('button', { type: 'button', class: 'preset', id: 'preset-bound' }, 'the Split% bound'),
  paper: el('button', { type: 'button', class: 'preset', id: 'preset-paper' }, 'the paper\'s 0.5'),
};
const presetRatio = { bound: MODEL_SPLIT_RATIO, paper: 0.5 };
for (const id of ['bound', 'paper']) presetButtons[id].addEventListener('click', () => applyPreset('b', presetRatio[id]));
presets.append(el('span', { class: 'presets-label' }, 'HiRoPE at'), presetButtons.bound, presetButtons.paper);
$('scheme-b').querySelector('h3').after(presets);

// Presets that tell the story, one sentence each (the token model; the first is the first view).
const STORIES = [
  { id: 'baseline', label: 'baseline vs HiRoPE', sentence: 'Past 512 tokens a sliding window (A) forgets what lies farther back; HiRoPE on 64-token segments (B) still reads it, and its loss drops below A\'s where names come back from far.', state: {} },
  { id: 'verdict', label: 'ReRoPE vs HiRoPE', sentence: 'The held-out verdict: past 512 tokens HiRoPE on segments edges ReRoPE by a few hundredths of a bit, on ordinary tokens rather than far recall — on one file the two are hard to tell apart.', state: { a: { type: 'rerope', window: 256 } } },
  { id: 'rope', label: 'RoPE vs ReRoPE', sentence: 'Plain RoPE falls apart past the training length; a window (ReRoPE) keeps the loss level.', state: { a: { type: 'rope' }, b: { type: 'rerope' } } },
  { id: 'far', label: 'far recall', sentence: 'On names used again more than 512 tokens later (far-recall tokens only), a scheme that still sees them (Self-Extend) beats a sliding window that cannot.', state: { bytes: 'far', b: { type: 'self-extend', window: 128, group: 22 } } },
];
const storyState = (story) => {
  const d = modelDefaultsOf('pyjs-llama2');
  return normalizeWith(d, { ...d, ...story.state, a: { ...d.a, ...story.state.a }, b: { ...d.b, ...story.state.b } });
};
const story = {
  box: el('div', { class: 'presets stories', role: 'group', 'aria-label': 'Presets: the story in one click', id: 'stories' }),
  line: el('p', { class: 'story-line', id: 'story-line', 'aria-live': 'polite' }),
  buttons: [],
  build() {
    this.box.append(el('span', { class: 'presets-label' }, 'Token model:'));
    for (const st of STORIES) {
      const button = el('button', { type: 'button', class: 'preset', id: `story-${st.id}`, title: st.sentence }, st.label);
      button.addEventListener('click', () => {
        const wasSample = state.code === null || state.code === sampleOf(state);
        const next = storyState(st);
        const switching = state.model !== next.model;
        state = { ...next, language: state.language, code: switching && wasSample ? null : state.code, layer: switching ? 0 : state.layer, head: switching ? 0 : state.head, colour: state.colour };
        if (switching) {
          zoom = null;
          result = null;
          chars = null;
          if (wasSample) editor.setText(sampleOf(state) ?? '');
          useModel(state.model);
        }
        syncControls();
        schedule();
      });
      this.buttons.push([st, button]);
      this.box.append(button);
    }
    // Above the chart they explain: the first thing a visitor reads.
    $('loss').querySelector('.loss-and-verdict').before(this.box, this.line);
  },
  sync() {
    let on = null;
    for (const [st, button] of this.buttons) {
      const want = storyState(st);
      const same = state.model === 'pyjs-llama2' && state.bytes === want.bytes && ['a', 'b'].every((side) => JSON.stringify(state[side]) === JSON.stringify(want[side]));
      button.setAttribute('aria-pressed', String(same));
      if (same) on = st;
    }
    this.line.textContent = on ? on.sentence : state.model === 'pyjs-llama2' ? 'Your own settings: pick a preset above to see one point of the story.' : 'The byte model: pick the token model (Model, above the code) or a preset for the held-out story.';
  },
};
story.build();

const pairsOf = () => (config ? config.headDim / 2 : PAIRS);

function applyPreset(side, ratio) {
  state[side].type = 'hirope';
  state[side].ratio = ratio;
  state = normal(state);
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
  const u = unitOf(state);
  $('smooth-bytes').textContent = state.bytes === 'far' ? `the ${u}s of each far-recall name (one dot per name)`
    : state.smooth === 1 ? `runs of 1 ${u} (no smoothing)` : `runs of ${state.smooth} ${u}s`;
  // The words that name the unit the model reads, and the filters' option texts.
  for (const span of document.querySelectorAll('.unit-word')) span.textContent = u;
  const texts = { bytes: [`every ${u}`, `far-recall ${u}s only`], smooth: SMOOTHING.map((b) => (b === 1 ? `none (every ${u})` : `runs of ${b} ${u}s`)) };
  for (const [key, list] of Object.entries(texts)) [...$(`c-${key}`).options].forEach((o, i) => (o.textContent = list[i]));
  story.sync();
  // The help texts that name the unit the model reads, and the Factor's for the chosen scaling.
  const help = modelHelp(u);
  const setHelp = (id, text) => {
    if (!$(id)) return;
    $(id).closest('label').title = text;
    $(`${id}-help`).textContent = text;
  };
  for (const side of ['a', 'b']) {
    for (const key of ['ratio', 'hierarchy', 'segment', 'window']) setHelp(`c-${side}-${key}`, help[key]);
    setHelp(`c-${side}-factor`, factorHelp(state[side].scaling));
  }
  for (const key of ['smooth', 'maxBytes', 'temperature']) setHelp(`c-${key}`, help[key]);
  $('reset-zoom').title = help.resetZoom;
  const b = state.b;
  const list = bound && paperBound ? ratioPresets({ bound, paper: paperBound, unit: u }) : [];
  for (const id of ['bound', 'paper']) {
    const preset = list.find((x) => x.id === id);
    presetButtons[id].hidden = bound ? !preset : false;
    if (!preset) continue;
    presetRatio[id] = preset.ratio;
    presetButtons[id].textContent = preset.label;
    presetButtons[id].title = preset.title;
  }
  for (const id of ['bound', 'paper']) presetButtons[id].setAttribute('aria-pressed', String(!presetButtons[id].hidden && b.type === 'hirope' && b.ratio === presetRatio[id]));
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
    output.textContent = ratioOutput({ ratio: s.ratio, tokenPairs: sideBound.tokenPairs, pairs: sideBound.pairs });
    hint.classList.toggle('warn', sideBound.over);
    hint.textContent = ratioHint({ bound: sideBound, paper: paperBound ?? sideBound, ratio: s.ratio, train: config.trainingContext, unit: unitOf(state) });
  }
}

// Another model: its own defaults (its windows count its own units), keeping the code and the
// language; the sample follows the model when the code is a sample.
function switchModel(name, wasSample) {
  state = normalizeWith(modelDefaultsOf(name), { ...modelDefaultsOf(name), language: state.language, code: wasSample ? null : state.code, colour: state.colour });
  zoom = null;
  selected = null;
  result = null;
  chars = null;
  for (const side of ['a', 'b']) computed[side] = null;
  if (wasSample) editor.setText(sampleOf(state) ?? '');
  useModel(state.model);
  syncControls();
  schedule();
}

function onControl(key, value) {
  const wasSample = state.code === null || state.code === sampleOf(state);
  if (key === 'model') return switchModel(value, wasSample);
  // The ratio moves in whole pairs: k / pairs exactly (8/24 is the default, 1/3).
  if (key.endsWith('.ratio')) value = Math.round(value * pairsOf()) / pairsOf();
  setPath(state, key, value);
  state = normal(state);
  if (key === 'language') {
    editor.setLanguage(state.language);
    if (wasSample) {
      state.code = null;
      editor.setText(sampleOf(state) ?? '');
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
  doc: state.code ?? sampleOf(state) ?? '',
  language: state.language,
  label: 'Source code (shaded by the model\'s loss; hover a character for details)',
  onChange(text) {
    state.code = text === sampleOf(state) ? null : text;
    schedule();
  },
  describeToken(index) {
    if (!chars || !result) return [];
    if (chars.tokens) {
      // A token: its text, its llama2 id, and its loss (bits) under A and B, as the API gives them.
      const bits = (side) => (index === 0 ? '—' : `${result[side].losses[index - 1].toFixed(2)} bits`);
      return [
        ['token', `${index} of ${result.a.n}`],
        ['text', JSON.stringify(editor.text.slice(chars.start[index], chars.end[index]))],
        ['id', String(chars.tokens.ids[index])],
        ['loss A', bits('a')],
        ['loss B', bits('b')],
        ['unit (B)', String(chars.unit[index])],
      ];
    }
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

// The marks of the text the model read: its tokens (a token model: one mark per token, UTF-16
// ranges from the tokens' byte spans; posMark[k] = k), or its characters (the byte model).
function markTable(text, r, units) {
  if (!r.tokens) return charTable(text, r.n, units);
  const { start, end } = r.tokens;
  // UTF-16 offset of every byte boundary of the text read (a byte inside a character: its start).
  const bytes = r.bytes;
  const offset = new Int32Array(bytes + 1);
  let byte = 0;
  for (let i = 0; i < text.length && byte < bytes;) {
    const cp = text.codePointAt(i);
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let b = byte; b < Math.min(bytes, byte + width); b++) offset[b] = i;
    byte += width;
    i += cp > 0xffff ? 2 : 1;
    if (byte <= bytes) offset[byte] = i;
  }
  const count = start.length;
  const s16 = new Int32Array(count);
  const e16 = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    s16[k] = offset[start[k]];
    e16[k] = Math.max(s16[k], offset[end[k]]);
  }
  const unit = Int32Array.from({ length: count }, (_, k) => units[k] ?? 0);
  // The heatmaps' axis label of token k: its text (made visible: spaces and newlines as signs).
  const label = (k) => (k < count ? text.slice(s16[k], e16[k]).replace(/ /g, '·').replace(/\n/g, '↵').replace(/\t/g, '→') : '');
  return { count, start: s16, end: e16, unit, tokens: r.tokens, label, byteChar: Int32Array.from({ length: count }, (_, k) => k) };
}

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

// Bits to predict a character: the sum over its bytes (null for the very first byte); a token
// model's mark is a token: its loss.
function charBits(losses, index) {
  if (chars.tokens) return index === 0 ? null : losses[index - 1];
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
  $('code-legend').textContent = `Shading: bits to predict each ${chars.tokens ? 'token (hover one for its text, id and loss)' : 'character'} under ${state.colour.toUpperCase()}, ${describeModelSide(state[state.colour], unitOf(state))} — one shade per bit, darkest at ${HEAT_LEVELS} bits or more.`;
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
  const u = a.unit; // 'byte' or 'token': what the model reads, and what the chart counts
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
  const y = { lo: 0, hi: yTop, title: `bits per ${u}`, ticks: niceTicks(0, yTop, 6).ticks };
  const axes = drawAxes(ctx, { box, x: { lo: 0, hi: n, title: `${u} position` }, y, ink, grid: true });
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
    const head = `${side.toUpperCase()} ${describeModelSide(r.side, r.unit)}: `;
    if (farOnly) return head + (far ? `${meanOver(r.losses, a.recall).toFixed(2)} bits/${u} on far-recall ${u}s` : `no far-recall ${u}s`);
    return head + `${meanLoss(r, 0, L - 1).toFixed(2)} bits/${u} within ${L}, ${n > L ? meanLoss(r, L - 1, n).toFixed(2) : '—'} beyond`;
  });
  const what = farOnly ? `far-recall ${u}s only: ${plural(far, u)} in ${plural(curves.a.x.length, 'name')}` : smooth === 1 ? `every ${u}` : `runs of ${smooth} ${u}s`;
  lossCanvas.setAttribute('aria-label', `Loss by position (${what}). ${summary.join('; ')}.`);
  lossKey.replaceChildren();
  for (const [i, side] of ['a', 'b'].entries()) {
    lossKey.append(el('span', { class: `swatch swatch-${side}` }), ` ${summary[i]}`, i === 0 ? el('br') : '');
  }
  if (farOnly) {
    lossKey.append(el('br'), far
      ? `${plural(far, `far-recall ${u}`)} in ${plural(curves.a.x.length, 'name')}: each dot is one name used again more than ${L} ${u}s after its previous use. Only on such ${u}s can context past the training length help; a truncated model cannot see the earlier use.`
      : `This code has no far-recall ${u}s: no name is used again more than ${L} ${u}s after its previous use.`);
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
    heatmaps[side].setTitle(side.toUpperCase(), `${describeModelSide(r.side, r.unit)} · layer ${r.layer}, head ${r.head}`);
    // A token model's maps label their axes with the tokens' text when zoomed in far enough.
    const labels = r.unit === 'token' && chars?.tokens ? chars.label : null;
    heatmaps[side].draw({ rgba: img.rgba, rows: img.rows, cols: img.cols }, img.region, r.units, r.attentionBytes, labels);
    heatmaps[side].setLegend(cssGradient(LUTS.magma), `10⁻${DECADES}× row max`, 'row max', img.rows < img.region.r1 - img.region.r0 ? `Downsampled: each cell is the mean over the ${r.unit}s it covers.` : '');
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
          image = await client.side(side).request('modelThumbnail', { code: payload.code, language: payload.language, model: payload.state.model, side: payload.state[side], layer: l, head: h, size: THUMB_SIZE });
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
    if (this.note) this.note.textContent = ready ? `Each map: the first ${result?.a.attentionBytes ?? ''} ${result?.a.unit ?? 'byte'}s pooled to ${THUMB_SIZE} × ${THUMB_SIZE} cells, same colours as above. Click one to open it.` : 'Computing every layer and head…';
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
    $('query-info').textContent = `${result[side].unit === 'token' ? 'Token' : 'Byte'} ${index} ${text(index)} under ${side.toUpperCase()}, layer ${result[side].layer}, head ${result[side].head} — top keys: ${top}. Change the code or a scheme to shade by loss again.`;
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
  const snapshot = normal(state);
  for (const side of ['a', 'b']) {
    $(`gen-${side}`).classList.remove('gen-empty');
    $(`gen-${side}`).textContent = 'Generating…';
    $(`gen-title-${side}`).textContent = `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))}`;
  }
  try {
    const payload = { code: editor.text, language: snapshot.language, model: snapshot.model, maxBytes: snapshot.maxBytes, temperature: snapshot.temperature, seed: snapshot.seed };
    const [a, b] = await Promise.all(['a', 'b'].map((s) => client.side(s).request('modelGenerate', { ...payload, side: snapshot[s] })));
    for (const [side, g] of [['a', a], ['b', b]]) {
      const pre = $(`gen-${side}`);
      const tail = editor.text.slice(-240);
      pre.replaceChildren(el('span', { class: 'prompt-tail' }, tail), el('mark', { class: 'generated' }, g.text));
      $(`gen-title-${side}`).textContent = `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))} — ${generatedSentence({ unit: unitOf(snapshot), bytes: g.bytes, asked: snapshot.maxBytes, promptBytes: g.promptBytes, bytesPerSecond: g.bytesPerSecond })}`;
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
  return JSON.stringify([payload.state.model, payload.code, payload.language, payload.state[side]]);
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
    const r = await client.side(s).request('modelRun', { code: payload.code, language: payload.language, model: payload.state.model, layer: payload.layer, head: payload.head, view: payload.view, side: payload.state[s], parts: parts[s] });
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
  const snapshot = normal(state);
  const payload = { code: editor.text, state: snapshot, language: snapshot.language, layer: snapshot.layer, head: snapshot.head, view: { size: 512, region: zoom } };
  clearTimeout(progressTimer);
  // A progress line while the workers run (the page itself stays responsive: the forward passes
  // are in the workers), saying what runs.
  const lossWanted = ['a', 'b'].some((s) => !computed[s] || computed[s].key !== sideKey(payload, s));
  const unit = unitOf(snapshot);
  progressTimer = setTimeout(() => {
    progress.hidden = false;
    progressLine.hidden = false;
    progressLine.textContent = !config ? 'Downloading the model…'
      : lossWanted ? `Running the model over the code under A and B (the loss at every ${unit}, then the attention)…`
        : `Computing layer ${snapshot.layer}, head ${snapshot.head}'s attention under A and B (no loss pass)…`;
  }, 150);
  let pair;
  try {
    await modelReady;
    pair = await client.latest(payload, null, runBoth);
  } catch (e) {
    clearTimeout(progressTimer);
    progress.hidden = true;
    progressLine.hidden = true;
    return showError(e);
  }
  if (!pair) return;
  clearTimeout(progressTimer);
  progress.hidden = true;
  progressLine.hidden = true;
  const { parts } = pair;
  const lossRan = parts.a.loss || parts.b.loss;
  result = { a: pair.a, b: pair.b };
  $('attention-bytes').textContent = String(pair.a.attentionBytes);
  if (lossRan || !chars) {
    chars = markTable(payload.code, pair.a, pair.b.byteUnits);
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
  const u = pair.a.unit;
  const per = (r) => (u === 'token' ? r.bitsPerToken : r.bitsPerByte);
  status.textContent = `${plural(pair.a.n, u)}${u === 'token' ? ` (${plural(pair.a.bytes, 'byte')})` : ''}${pair.a.clipped ? ` (the first ${u === 'token' ? '2,560 tokens' : '4,096'}; the rest is not read)` : ''} read by ${config.name} (${config.parameters.toLocaleString('en')} parameters, ${info.backend}): A ${per(pair.a).toFixed(3)} bits/${u}, B ${per(pair.b).toFixed(3)} (lower is better).`;
  document.getElementById('timing-text').textContent = `Last run ${ms.toFixed(0)} ms in the workers, which run side by side: ${detail}.`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(new CustomEvent('hirope:model', { detail: { total: ms, model: snapshot.model, unit: u, a: per(pair.a), b: per(pair.b) } }));
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
    const hash = await encodeModelState(state);
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
  const code = state.code ?? sampleOf(state) ?? '';
  if (!config || config.tokenizer !== (state.model === 'pyjs-llama2' ? 'llama2' : null)) useModel(state.model);
  editor.setLanguage(state.language);
  if (code !== editor.text) editor.setText(code);
  syncControls();
  schedule();
});

pageBuilt();
syncControls();
schedule();
