// Model mode's controls: the model, language and shading pickers, the loss chart's and the
// attention's settings, generation's, both schemes' boxes (their fields in
// model-scheme-fields.js; the ratio in whole frequency pairs, with its Split% hint), B's one-click
// ratios, and the token model's story presets (model-stories.js) kept in step with the state.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { buildControls, setPath } from '../controls.js';
import { SMOOTHING, BYTE_FILTERS, unitOf, normal, sampleOf, ratiosOnPairs } from './model-mode.js';
import { PAIRS, sideControls } from './model-scheme-fields.js';
import { createStories } from './model-stories.js';
import { formatRatio } from '../../shared/schemes.js';
import { MODEL_SPLIT_RATIO, modelDefaultsOf } from '../../shared/model-state.js';
import { normalizeWith } from '../../shared/link-state.js';
import { MODEL_NAMES, TRAINED_ON, CHECKPOINT } from '../../shared/models.js';
import { LANGUAGE_NAMES } from '../../shared/samples.js';
import {
  modelHelp,
  factorHelp,
  ratioOutput,
  ratioPresets,
  ratioHint,
  languageNote,
  languageHelp,
} from '../../shared/model-wording.js';

/** Builds the controls once the workers are ready (mx.info names the languages); changes go into mx.state. */
export function createModelControls(mx) {
  // ----- controls
  const indexOptions = (count) => Array.from({ length: count }, (_, i) => [String(i), String(i)]);
  const controlGroups = [
    buildControls(
      $('source-controls'),
      [
        {
          key: 'model',
          label: 'Model',
          type: 'select',
          options: MODEL_NAMES,
          help: 'Which shipped code model reads the code: the token model (llama2 tokens, trained on Python and JavaScript at 512 tokens) or the byte model (bytes, Python, 256 bytes). Each is downloaded once, when first picked; the size is shown beside its name.',
        },
        {
          key: 'language',
          label: 'Language',
          type: 'select',
          options: mx.info.languages.map((l) => [l, LANGUAGE_NAMES[l] ?? l]),
          help: languageHelp(['Python']),
        },
        {
          key: 'colour',
          label: 'Shade code by',
          type: 'select',
          options: [
            ['a', 'loss under A'],
            ['b', 'loss under B'],
          ],
          help: "Which scheme's loss shades the code (per byte, or per token for the token model): darker text surprised the model more.",
        },
      ],
      onControl,
    ),
    buildControls(
      $('loss-controls'),
      [
        {
          key: 'smooth',
          label: 'Smoothing',
          type: 'select',
          numeric: true,
          options: SMOOTHING.map((b) => [
            String(b),
            b === 1 ? 'none (every byte)' : `runs of ${b} bytes`,
          ]),
          help: modelHelp('byte').smooth,
          show: (s) => s.bytes === 'all',
        },
        {
          key: 'bytes',
          label: 'Show',
          type: 'select',
          options: BYTE_FILTERS,
          help: 'Far-recall bytes (or tokens): those of a name whose previous use is more than the training length back, with none nearer. Only there can context beyond the training length help; each dot is one such name.',
        },
      ],
      onControl,
    ),
    buildControls(
      $('attention-controls'),
      [
        {
          key: 'layer',
          label: 'Layer',
          type: 'select',
          options: indexOptions(4),
          numeric: true,
          help: "Which layer's attention the heatmaps show.",
        },
        {
          key: 'head',
          label: 'Head',
          type: 'select',
          options: indexOptions(4),
          numeric: true,
          help: 'Which attention head the heatmaps show.',
        },
      ],
      onControl,
    ),
    buildControls(
      $('generation-controls'),
      [
        {
          key: 'maxBytes',
          label: 'Bytes',
          type: 'number',
          min: 1,
          max: 2048,
          step: 1,
          help: modelHelp('byte').maxBytes,
        },
        {
          key: 'temperature',
          label: 'Temperature',
          type: 'number',
          min: 0,
          max: 2,
          step: 0.1,
          help: modelHelp('byte').temperature,
        },
        {
          key: 'seed',
          label: 'Seed',
          type: 'number',
          min: 0,
          step: 1,
          help: 'Sampling seed (both sides use the same one).',
        },
      ],
      onControl,
    ),
  ];
  mx.labelSizes($('c-model')); // each model's download size, before it is fetched
  const sides = {
    a: buildControls($('scheme-a'), sideControls('a'), onControl),
    b: buildControls($('scheme-b'), sideControls('b'), onControl),
  };
  const ratioHints = {};
  for (const side of ['a', 'b']) {
    $(`scheme-${side}`).prepend(el('h3', {}, `Scheme ${side.toUpperCase()}`));
    ratioHints[side] = el('p', { class: 'hint', id: `ratio-hint-${side}` });
    $(`scheme-${side}`).append(ratioHints[side]);
  }

  // One-click settings for B: HiRoPE at this model's Split% bound, and at the paper's ratio 0.5 (one
  // button when the two are the same); their values, labels and titles come from the core's
  // splitBound once the model's config is known (ratioPresets).
  const presets = el('div', {
    class: 'presets',
    role: 'group',
    'aria-label': 'Presets for scheme B',
  });
  const presetButtons = {
    bound: el(
      'button',
      { type: 'button', class: 'preset', id: 'preset-bound' },
      'the Split% bound',
    ),
    paper: el('button', { type: 'button', class: 'preset', id: 'preset-paper' }, "the paper's 0.5"),
  };
  const presetRatio = { bound: MODEL_SPLIT_RATIO, paper: 0.5 };
  for (const id of ['bound', 'paper'])
    presetButtons[id].addEventListener('click', () => applyPreset('b', presetRatio[id]));
  presets.append(
    el('span', { class: 'presets-label' }, 'HiRoPE at'),
    presetButtons.bound,
    presetButtons.paper,
  );
  $('scheme-b').querySelector('h3').after(presets);

  // A menu is a discrete choice: it adds a history entry (Back undoes it); sliders and numbers
  // replace the entry.
  const discrete = new Set(
    [...controlGroups, sides.a, sides.b]
      .flatMap((group) => group.built)
      .filter((c) => c.spec.type === 'select')
      .map((c) => c.spec.key),
  );

  // The Language picker lists the languages the model was trained on first, the other grammars
  // after them under a heading that says so; the note beside it says when the code's language is
  // not one the model knows, and what detection found in pasted code.
  const languageNames = (list) => list.map((l) => LANGUAGE_NAMES[l] ?? l);
  const modelWord = (name) =>
    (MODEL_NAMES.find(([n]) => n === name)?.[1] ?? name).replace(/ \(.*\)$/, '');
  const note = el('span', { id: 'language-note', class: 'note', role: 'status' });
  $('source-controls').append(note); // after the pickers: a long note wraps onto its own line
  let detected = null; // { code, language }: the last detection, of that code
  let listedFor = null; // the model the Language picker's groups were built for
  function syncLanguages() {
    const select = $('c-language');
    if (mx.state.model === CHECKPOINT) {
      // A checkpoint's training languages are not in its files: every grammar, no note.
      if (listedFor !== CHECKPOINT) {
        listedFor = CHECKPOINT;
        select.replaceChildren(
          ...mx.info.languages.map((l) => el('option', { value: l }, LANGUAGE_NAMES[l] ?? l)),
        );
        const help =
          'The grammar that gives HiRoPE its units and statements (pasting code detects it).';
        select.closest('label').title = help;
        $('c-language-help').textContent = help;
      }
      select.value = mx.state.language;
      note.textContent =
        detected?.code === mx.editor?.text && detected.language === mx.state.language
          ? `Detected: ${LANGUAGE_NAMES[mx.state.language] ?? mx.state.language}.`
          : '';
      return;
    }
    const trained = TRAINED_ON[mx.state.model] ?? [];
    if (listedFor !== mx.state.model) {
      listedFor = mx.state.model;
      const option = (l) => el('option', { value: l }, LANGUAGE_NAMES[l] ?? l);
      const others = mx.info.languages.filter((l) => !trained.includes(l));
      const group = (label, list) => {
        const g = el('optgroup', { label });
        g.append(...list.map(option));
        return g;
      };
      select.replaceChildren(
        group('Trained on', trained),
        group('Not in its training data', others),
      );
      select.value = mx.state.language;
      const help = languageHelp(languageNames(trained));
      select.closest('label').title = help;
      $('c-language-help').textContent = help;
    }
    note.textContent = languageNote({
      model: modelWord(mx.state.model),
      language: LANGUAGE_NAMES[mx.state.language] ?? mx.state.language,
      trained: languageNames(trained),
      detected: detected?.code === mx.editor?.text && detected.language === mx.state.language,
    });
  }

  /** Pasted code: its language, as the attention mode detects it (no history entry of its own). */
  async function detectLanguage() {
    const code = mx.editor.text;
    let language;
    try {
      language = await mx.client.a.detectLanguage(code);
    } catch (e) {
      if (e.name === 'Superseded') return;
      throw e;
    }
    if (!language || code !== mx.editor.text) return; // the code changed meanwhile
    detected = { code, language };
    if (language !== mx.state.language) {
      mx.state.language = language;
      mx.editor.setLanguage(language);
      syncControls();
      mx.writeURL();
      mx.schedule();
    } else syncLanguages();
  }

  const story = createStories(mx, () => {
    syncControls();
    mx.writeURL({ push: true });
    mx.schedule();
  });

  const pairsOf = () => (mx.config ? mx.config.headDim / 2 : PAIRS);

  function applyPreset(side, ratio) {
    mx.state[side].type = 'hirope';
    mx.state[side].ratio = ratio;
    mx.state = normal(mx.state);
    syncControls();
    mx.writeURL({ push: true });
    mx.schedule();
  }

  // Once the model's config is known: its layers and heads, and ratio steps of one pair.
  function configured() {
    $('train-length').textContent = String(mx.config.trainingContext);
    for (const [key, count] of [
      ['layer', mx.config.layers],
      ['head', mx.config.heads],
    ]) {
      const select = $(`c-${key}`);
      if (select.options.length !== count)
        select.replaceChildren(
          ...indexOptions(count).map(([v, t]) => el('option', { value: v }, t)),
        );
    }
    for (const side of ['a', 'b']) $(`c-${side}-ratio`).step = String(1 / pairsOf());
    ratiosOnPairs(mx.state, pairsOf());
    mx.thumbs.build(mx.config.layers, mx.config.heads, {
      oneLayer: mx.state.model === CHECKPOINT,
    });
    syncControls();
  }

  function syncControls() {
    syncLanguages();
    for (const group of controlGroups) group.sync(mx.state);
    sides.a.sync(mx.state);
    sides.b.sync(mx.state);
    // A checkpoint: its source panel, and "its own positions" in the scheme menus (a shipped
    // model's own positions are its RoPE, already in them).
    const checkpoint = mx.state.model === CHECKPOINT;
    mx.checkpointSource.show(checkpoint);
    $('lede-shipped').hidden = checkpoint;
    $('lede-checkpoint').hidden = !checkpoint;
    for (const side of ['a', 'b']) {
      const own = $(`c-${side}-type`).querySelector('option[value=model]');
      own.hidden = own.disabled = !checkpoint;
    }
    const u = unitOf(mx.state);
    $('smooth-bytes').textContent =
      mx.state.bytes === 'far'
        ? `the ${u}s of each far-recall name (one dot per name)`
        : mx.state.smooth === 1
          ? `runs of 1 ${u} (no smoothing)`
          : `runs of ${mx.state.smooth} ${u}s`;
    // The words that name the unit the model reads, and the filters' option texts.
    for (const span of document.querySelectorAll('.unit-word')) span.textContent = u;
    mx.syncMapHint?.();
    const texts = {
      bytes: [`every ${u}`, `far-recall ${u}s only`],
      smooth: SMOOTHING.map((b) => (b === 1 ? `none (every ${u})` : `runs of ${b} ${u}s`)),
    };
    for (const [key, list] of Object.entries(texts))
      [...$(`c-${key}`).options].forEach((o, i) => {
        o.textContent = list[i];
      });
    story.sync();
    // The help texts that name the unit the model reads, and the Factor's for the chosen scaling.
    const help = modelHelp(u);
    const setHelp = (id, text) => {
      if (!$(id)) return;
      $(id).closest('label').title = text;
      $(`${id}-help`).textContent = text;
    };
    for (const side of ['a', 'b']) {
      for (const key of ['ratio', 'hierarchy', 'segment', 'window'])
        setHelp(`c-${side}-${key}`, help[key]);
      setHelp(`c-${side}-factor`, factorHelp(mx.state[side].scaling));
    }
    for (const key of ['smooth', 'maxBytes', 'temperature']) setHelp(`c-${key}`, help[key]);
    $('reset-zoom').title = help.resetZoom;
    const b = mx.state.b;
    const list =
      mx.bound && mx.paperBound
        ? ratioPresets({ bound: mx.bound, paper: mx.paperBound, unit: u })
        : [];
    for (const id of ['bound', 'paper']) {
      const preset = list.find((x) => x.id === id);
      presetButtons[id].hidden = mx.bound ? !preset : false;
      if (!preset) continue;
      presetRatio[id] = preset.ratio;
      presetButtons[id].textContent = preset.label;
      presetButtons[id].title = preset.title;
    }
    for (const id of ['bound', 'paper'])
      presetButtons[id].setAttribute(
        'aria-pressed',
        String(!presetButtons[id].hidden && b.type === 'hirope' && b.ratio === presetRatio[id]),
      );
    mx.thumbs.select(mx.state.layer, mx.state.head);
    updateHints();
    mx.syncGenerate();
  }

  // The ratio and its pairs ("0.3125 · 5 of 16 pairs") and the Split% hint, from the core once the model's
  // config is known; a newer call supersedes an older one still waiting for the worker.
  let hintCall = 0;
  async function updateHints() {
    const call = ++hintCall;
    for (const side of ['a', 'b']) {
      const s = mx.state[side];
      const output = $(`c-${side}-ratio`).closest('label').querySelector('output');
      const hint = ratioHints[side];
      if (!mx.config || s.type !== 'hirope') {
        output.textContent = formatRatio(s.ratio);
        hint.textContent = '';
        hint.classList.remove('warn');
        continue;
      }
      let sideBound;
      try {
        sideBound = await mx.splitBoundOf(s.ratio);
      } catch (e) {
        // A newer run replaced the busy worker: that run updates the hints when it is done.
        if (e.name === 'Superseded') return;
        throw e;
      }
      if (call !== hintCall) return;
      output.textContent = ratioOutput({
        ratio: s.ratio,
        tokenPairs: sideBound.tokenPairs,
        pairs: sideBound.pairs,
      });
      hint.classList.toggle('warn', sideBound.over);
      hint.textContent = ratioHint({
        bound: sideBound,
        paper: mx.paperBound ?? sideBound,
        ratio: s.ratio,
        train: mx.config.trainingContext,
        unit: unitOf(mx.state),
      });
    }
  }

  // Another model: its own defaults (its windows count its own units), keeping the code and the
  // language; the sample follows the model when the code is a sample.
  function switchModel(name, wasSample) {
    mx.state = normalizeWith(modelDefaultsOf(name), {
      ...modelDefaultsOf(name),
      language: mx.state.language,
      code: wasSample ? null : mx.state.code,
      colour: mx.state.colour,
    });
    mx.zoom = null;
    mx.clearRow();
    mx.result = null;
    mx.chars = null;
    for (const side of ['a', 'b']) mx.computed[side] = null;
    mx.clearResults();
    if (wasSample) mx.editor.setText(sampleOf(mx.state) ?? '');
    mx.useModel(mx.state.model);
    syncControls();
    mx.writeURL({ push: true });
    mx.schedule();
  }

  function onControl(key, value) {
    const wasSample = mx.state.code === null || mx.state.code === sampleOf(mx.state);
    if (key === 'model') return switchModel(value, wasSample);
    // The ratio moves in whole pairs: k / pairs exactly (the token model's default is 5/16).
    if (key.endsWith('.ratio')) value = Math.round(value * pairsOf()) / pairsOf();
    setPath(mx.state, key, value);
    mx.state = normal(mx.state);
    mx.writeURL({ push: discrete.has(key) });
    if (key === 'language') {
      mx.editor.setLanguage(mx.state.language);
      if (wasSample) {
        mx.state.code = null;
        mx.editor.setText(sampleOf(mx.state) ?? '');
        mx.zoom = null;
      }
    }
    syncControls();
    if (key === 'colour') return mx.shadeCode();
    if (key === 'smooth' || key === 'bytes') {
      if (key === 'bytes') syncControls();
      mx.drawLossChart();
      return mx.writeURL();
    }
    if (['maxBytes', 'temperature', 'seed'].includes(key)) return mx.writeURL();
    mx.schedule();
  }

  return { syncControls, updateHints, configured, pairsOf, detectLanguage };
}
