// The attention playground's controls: the presets and their caption, both schemes' and the shared
// settings, and the editor's toolbar (sample, Detect, Open file, q/k file, backend) with the
// Tokenizers box under the units.
import { el } from '../dom.js';
import { $, statusLine } from '../shell.js';
import { buildControls, schemeControls, sharedControls, setPath } from '../controls.js';
import { TokenizersBox } from './tokenizers-box.js';
import { normalizeState, describeScheme } from '../../shared/playground-state.js';
import { PRESETS, MODEL_PRESETS, presetState, matchesPreset } from '../../shared/presets.js';
import { SAMPLES, LANGUAGE_NAMES } from '../../shared/samples.js';
import { qkFileHint } from '../../shared/wording.js';
import { modelSource } from '../../shared/model-gallery.js';
import { createModelPickers } from './model-picker.js';

/**
 * Builds the controls once the workers are ready (pg.info names the languages and tokenizers);
 * every change goes into pg.state and schedules a redraw.
 */
export function createControls(pg) {
  // ----- presets
  // The scheme presets, then those on real models (in their own group, with its label).
  const realModels = el('span', { class: 'preset-group', id: 'model-presets' });
  realModels.append(el('span', { class: 'preset-group-label' }, 'Real models:'));
  const presetButtons = [...PRESETS, ...MODEL_PRESETS].map((p) => {
    const b = el(
      'button',
      { type: 'button', class: 'preset', 'data-preset': p.id, 'aria-pressed': 'false' },
      p.title,
    );
    b.addEventListener('click', () => {
      pg.choose();
      models.supersede(); // a model reading still on its way no longer sets the shared settings
      pg.state = presetState(p.id, pg.state);
      pg.zoom = null;
      syncControls();
      pg.schedule();
    });
    (MODEL_PRESETS.includes(p) ? realModels : $('presets')).append(b);
    return b;
  });
  $('presets').append(realModels);

  function syncStory() {
    const active = matchesPreset(pg.state)
      ? [...PRESETS, ...MODEL_PRESETS].find((p) => p.id === pg.state.preset)
      : null;
    if (!active) pg.state.preset = '';
    for (const b of presetButtons)
      b.setAttribute('aria-pressed', String(b.dataset.preset === active?.id));
    $('caption').textContent = active
      ? active.caption
      : `Your own comparison: A is ${describeScheme(pg.state.a, models.layerOf(pg.state.a))}, B is ${describeScheme(pg.state.b, models.layerOf(pg.state.b))}. The third map shows where B attends more (blue) or less (orange) than A; pick a preset for a comparison with its explanation.`;
  }

  // ----- controls
  const languages = pg.info.languages;
  const shared = buildControls(
    $('shared-controls'),
    sharedControls(languages, pg.info.tokenizers),
    onControl,
    { moreLabel: 'More settings' },
  );
  const sides = {
    a: buildControls($('scheme-a'), schemeControls('a'), onControl),
    b: buildControls($('scheme-b'), schemeControls('b'), onControl),
  };
  $('scheme-a').prepend(el('h3', { class: 'side-title' }, 'A'));
  $('scheme-b').prepend(el('h3', { class: 'side-title' }, 'B'));
  const models = createModelPickers(pg, () => {
    syncControls();
    pg.schedule();
  });
  const ratioHints = {};
  for (const side of ['a', 'b']) {
    ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
    $(`scheme-${side}`).append(ratioHints[side]);
  }
  // The language select sits in the editor's toolbar with the sample picker, file loading, detection.
  const sourceBar = $('source-controls');
  sourceBar.append(shared.built.find((c) => c.spec.key === 'language').label);
  const sampleSelect = el('select', {
    id: 'sample',
    title: 'Load the sample for a language',
    'aria-label': 'Load a sample',
  });
  // Once the code is edited or replaced the picker says so ("Your code", which cannot be picked),
  // so that every sample, the one the code came from included, can be picked to restore it.
  const customOption = new Option('Your code', 'custom');
  customOption.disabled = true;
  sampleSelect.append(customOption);
  for (const l of languages) sampleSelect.append(new Option(`${LANGUAGE_NAMES[l]} sample`, l));
  pg.syncSample = () => {
    const custom = pg.state.code !== null;
    customOption.hidden = !custom;
    sampleSelect.value = custom ? 'custom' : pg.state.language;
  };
  const sampleLabel = el('label', {
    class: 'field',
    title: 'Replace the code with a real-world sample in a language',
  });
  sampleLabel.append(el('span', { class: 'field-label' }, 'Sample'), sampleSelect);
  const detectButton = el(
    'button',
    {
      type: 'button',
      class: 'small',
      id: 'detect',
      title:
        'Detect the language: the grammar whose syntax errors cover the fewest bytes of the code',
    },
    'Detect',
  );
  const openLabel = el('label', {
    class: 'button small',
    title: 'Open a source file (its extension sets the language)',
  });
  const openInput = el('input', { type: 'file', class: 'sr-only', id: 'open-file' });
  openLabel.append(el('span', {}, 'Open file'), openInput);
  const qkLabel = el('label', {
    class: 'button small',
    id: 'qk-file-label',
    title:
      'q/k JSON: {"headDim": d, "q": [[d numbers] per token], "k": [...]} (see docs/playground.md)',
  });
  const qkText = el('span', {}, 'Load q/k…');
  const qkInput = el('input', {
    type: 'file',
    accept: '.json,application/json',
    class: 'sr-only',
    id: 'qk-file',
  });
  qkLabel.append(qkText, qkInput);
  // While a q/k file is being chosen the select says "from a file…" and the maps keep the previous
  // source (qkPending), under a plain hint; cancelling the picker goes back to it.
  let qkPending = null;
  const qkHint = el('p', { class: 'hint', id: 'qk-hint', hidden: true });
  const sourceLabel = (source) =>
    shared.built
      .find((c) => c.spec.key === 'source')
      .spec.options.find(([v]) => v === source)?.[1] ?? source;
  /** A state asking for q/k from a file before one is loaded (a link, Back) waits for the file. */
  function holdFileSource() {
    if (pg.state.source !== 'file' || pg.qkFileName) return;
    qkPending ??= 'ones';
    pg.state.source = qkPending;
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
  const backendLabel = el('label', {
    class: 'field',
    title:
      'Where attention runs: WebAssembly (SIMD where supported) or WebGPU when this browser has an adapter',
  });
  const backendSelect = el('select', { id: 'backend', name: 'backend' });
  backendSelect.append(new Option('WebAssembly', 'wasm'), new Option('WebGPU', 'webgpu'));
  backendLabel.append(el('span', { class: 'field-label' }, 'Backend'), backendSelect);
  shared.more.append(backendLabel);
  backendSelect.addEventListener('change', () => pg.schedule());
  // WebGPU is offered only where this browser has an adapter; elsewhere the option is disabled and
  // says why (choosing it could only fail).
  (async () => {
    const adapter = await navigator.gpu?.requestAdapter().catch(() => null);
    if (adapter) return;
    const why = navigator.gpu
      ? 'this browser found no WebGPU adapter (GPU)'
      : 'this browser has no WebGPU';
    const option = backendSelect.querySelector('option[value=webgpu]');
    option.disabled = true;
    option.textContent = 'WebGPU (not available)';
    option.title = `Not available: ${why}.`;
    backendLabel.title = `Where attention runs: WebAssembly (SIMD where supported). WebGPU is not available: ${why}.`;
    if (backendSelect.value === 'webgpu') {
      backendSelect.value = 'wasm';
      pg.schedule();
    }
  })();

  // The Tokenizers box under the units: the code under every tokenizer, and a tokenizer.json of
  // the person's own (a choice of the Tokenizer control, kept in the page and never in the URL).
  const tokenizerSelect = shared.built.find((c) => c.spec.key === 'tokenizer').input;
  const tokenizersBox = new TokenizersBox($('source'), pg.client, pg.info.tokenizers, (name) => {
    if (![...tokenizerSelect.options].some((o) => o.value === name))
      tokenizerSelect.append(new Option(tokenizersBox.label(name), name));
    onControl('tokenizer', name);
  });

  // With q/k from a file the head dimension is the file's: the Head dim control shows the one the
  // maps on screen were computed with, and cannot be changed, until another source is chosen.
  const headDim = shared.built.find((c) => c.spec.key === 'headDim');
  const headDimHelp = headDim.label.querySelector(`#${headDim.input.id}-help`);
  function syncHeadDim() {
    const shown = pg.result?.snapshot?.source === 'file' && pg.state.source === 'file';
    const fromFile = (shown && pg.result.headDim) || null;
    headDim.input.disabled = fromFile !== null;
    const help = fromFile
      ? `Set by the q/k file ${pg.qkFileName ?? ''}: its rows hold ${fromFile} numbers (d/2 = ${fromFile / 2} frequency pairs). Choose another Q/K source to set it here.`
      : headDim.spec.help;
    headDim.label.title = help;
    headDimHelp.textContent = help;
    if (fromFile !== null) headDim.input.value = String(fromFile);
  }

  function syncControls() {
    shared.sync(pg.state);
    syncHeadDim();
    sides.a.sync(pg.state);
    sides.b.sync(pg.state);
    // A side showing a real model takes its scheme from the model's layer: only HiRoPE's own
    // settings stay, when the switch applies it to the model.
    for (const side of ['a', 'b']) {
      if (!modelSource(pg.state[side])) continue;
      const keep =
        pg.state[side].type === 'hirope' ? ['ratio', 'window', 'levels', 'units', 'segment'] : [];
      for (const c of sides[side].built)
        if (!keep.includes(c.spec.key.slice(2))) c.label.hidden = true;
      if (sides[side].more)
        sides[side].more.hidden = sides[side].built.every(
          (c) => !c.spec.advanced || c.label.hidden,
        );
    }
    models.sync();
    holdFileSource();
    const sourceSelect = shared.built.find((c) => c.spec.key === 'source').input;
    if (qkPending !== null) sourceSelect.value = 'file';
    qkLabel.hidden = pg.state.source !== 'file' && qkPending === null;
    qkHint.hidden = qkPending === null;
    qkHint.textContent = qkPending === null ? '' : qkFileHint(sourceLabel(qkPending));
    pg.syncSample();
    // A note naming a language the picker no longer shows (a file opened, Back, a sample) goes.
    if (note.textContent && noteLanguage !== pg.state.language) note.textContent = '';
    qkText.textContent = pg.qkFileName ? `q/k: ${pg.qkFileName}` : 'Load q/k…';
    syncStory();
  }

  // Choices among a few values (menus, checkboxes) add a history entry, so that Back undoes them;
  // numbers and sliders, like typing, replace the current one.
  const isDiscrete = (key) =>
    [shared, sides.a, sides.b].some((c) =>
      c.built.some(
        ({ spec }) => spec.key === key && (spec.type === 'select' || spec.type === 'checkbox'),
      ),
    );

  function onControl(key, value) {
    if (key === 'source') {
      if (value === 'file' && !pg.qkFileName) {
        // Choosing a file opens the picker; the maps keep the current source until one is loaded.
        qkPending ??= pg.state.source;
        syncControls();
        qkInput.click();
        return;
      }
      qkPending = null;
    }
    if (isDiscrete(key)) pg.choose();
    const languageChanged = key === 'language' && value !== pg.state.language;
    const wasSample = pg.state.code === null || pg.state.code === SAMPLES[pg.state.language];
    setPath(pg.state, key, value);
    pg.state = normalizeState(pg.state);
    if (languageChanged) {
      pg.editor.setLanguage(pg.state.language);
      // Switching language on an untouched sample loads that language's sample.
      if (wasSample) setCode(null);
    }
    syncControls();
    if (['language', 'tokenizer', 'gap', 'descend'].includes(key)) pg.zoom = null;
    pg.schedule();
  }

  function setCode(code) {
    pg.state.code = code;
    pg.editor.setText(code ?? SAMPLES[pg.state.language] ?? '');
  }

  sampleSelect.addEventListener('change', () => {
    const language = sampleSelect.value;
    if (!SAMPLES[language]) return;
    pg.choose();
    pg.state.language = language;
    pg.editor.setLanguage(language);
    setCode(null);
    pg.zoom = null;
    syncControls();
    pg.schedule();
  });

  // chosen: the choice that asked for detection (opening a file) has its history entry already.
  async function detectLanguage(fromPaste, chosen = false) {
    const code = pg.editor.text;
    let language;
    try {
      language = await pg.client.a.detectLanguage(code);
    } catch (e) {
      if (e.name === 'Superseded') return; // a newer edit replaced the busy worker
      throw e;
    }
    if (!language) return;
    // The status says when even the best grammar found errors in this code (plainStatus).
    pg.detected = { code, language };
    if (language !== pg.state.language) {
      if (!fromPaste && !chosen) pg.choose();
      pg.state.language = language;
      pg.editor.setLanguage(language);
      syncControls();
      pg.schedule();
    } else if (pg.result?.snapshot && pg.result.code === code && !statusLine.failed)
      // Now it knows the code was detected. (A result of older code waits for the run of this
      // code, which says so itself: re-showing it would describe the old code as this one.)
      statusLine.show(pg.plainStatus(pg.result, pg.result.snapshot));
    showNote(`${fromPaste ? 'Detected' : 'Language'}: ${LANGUAGE_NAMES[language]}.`);
  }
  detectButton.addEventListener('click', () => detectLanguage(false));

  openInput.addEventListener('change', async () => {
    const file = openInput.files[0];
    if (!file) return;
    pg.choose();
    const text = await file.text();
    setCode(text);
    let byExt;
    try {
      byExt = await pg.client.a.request('languageOf', { name: file.name });
    } catch (e) {
      if (e.name === 'Superseded') return; // queued behind a run that a newer edit replaced
      throw e;
    }
    if (byExt) {
      pg.state.language = byExt;
      pg.editor.setLanguage(byExt);
      syncControls();
      showNote(`Language: ${LANGUAGE_NAMES[byExt]} (from the file name).`);
    } else await detectLanguage(false, true);
    pg.zoom = null;
    pg.schedule();
  });

  qkInput.addEventListener('change', async () => {
    const file = qkInput.files[0];
    if (!file) return;
    pg.qkFileName = file.name;
    await pg.client.both('qkFile', { text: await file.text() });
    if (pg.state.source !== 'file') pg.choose();
    pg.state.source = 'file';
    qkPending = null;
    syncControls();
    pg.schedule();
  });

  let noteTimer = 0;
  let noteLanguage = null; // the language the note names: a note about another one is stale
  function showNote(text, language = pg.state.language) {
    note.textContent = text;
    noteLanguage = language;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => {
      if (note.textContent === text) note.textContent = '';
    }, 6000);
  }
  /** After a refused run: marks the number fields that differ from the run the maps show. */
  function flagRefused(shown, refused) {
    const text = 'Not computed with this value: the status line says why.';
    for (const built of [shared, sides.a, sides.b]) built.flagChanged(shown, refused, text);
  }
  return {
    syncControls,
    flagRefused,
    syncHeadDim,
    detectLanguage,
    showNote,
    sourceLabel,
    ratioHints,
    tokenizersBox,
    backendSelect,
    modelViewLength: models.viewLength,
    supersedeModels: models.supersede,
  };
}
