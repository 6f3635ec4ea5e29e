// Model mode's controls: the model, language and shading pickers, the loss chart's and the
// attention's settings, generation's, both schemes (the ratio in whole frequency pairs, with its
// Split% hint), B's one-click ratios and the token model's story presets.
import { el } from './dom.js';
import { $ } from './shell.js';
import { buildControls, setPath } from './controls.js';
import { SMOOTHING, BYTE_FILTERS, unitOf, normal, sampleOf } from './model-mode.js';
import { SCALINGS, formatRatio } from '../shared/schemes.js';
import { MODEL_SPLIT_RATIO, modelDefaultsOf } from '../shared/model-state.js';
import { normalizeWith } from '../shared/link-state.js';
import { MODEL_NAMES, MODEL_SCHEMES, isBaseline } from '../shared/models.js';
import { LANGUAGE_NAMES } from '../shared/samples.js';
import {
  modelHelp,
  factorHelp,
  ratioOutput,
  ratioPresets,
  ratioHint,
} from '../shared/model-wording.js';
import { CATALOGUE, options, numberSpec } from '../shared/catalogue.js';

/** Builds the controls once the workers are ready (mx.info names the languages); changes go into mx.state. */
export function createModelControls(mx) {
  // ----- controls
  const MODEL_SCALINGS = SCALINGS.filter(([s]) => s !== 'llama3');
  const PAIRS = 16; // the shipped model's frequency pairs, until its config is known
  // The numbers' ranges and steps are the core's scheme table's (web/src/shared/catalogue.js); the help
  // is this page's, in bytes, and the ratio moves by one of the model's frequency pairs.
  function range(name) {
    const { min, max, minOpen, maxOpen, step, integer } = numberSpec(name);
    return { min, max, minOpen, maxOpen, step, integer };
  }

  function sideControls(side) {
    const k = (name) => `${side}.${name}`;
    return [
      {
        key: k('type'),
        label: 'Scheme',
        type: 'select',
        options: MODEL_SCHEMES,
        help: "The position scheme applied to the model's queries and keys at inference (it was trained with RoPE).",
      },
      {
        key: k('ratio'),
        label: 'Ratio',
        type: 'range',
        ...range('ratio'),
        step: 1 / PAIRS,
        numeric: true,
        help: modelHelp('byte').ratio,
        show: (s) => s[side].type === 'hirope',
      },
      {
        key: k('hierarchy'),
        label: 'Hierarchy',
        type: 'select',
        options: options(CATALOGUE.byteHierarchies),
        help: modelHelp('byte').hierarchy,
        show: (s) => s[side].type === 'hirope',
      },
      {
        key: k('segment'),
        label: 'Segment',
        noun: 'segment size',
        type: 'number',
        ...range('segmentSize'),
        help: modelHelp('byte').segment,
        show: (s) => s[side].type === 'hirope' && s[side].hierarchy === 'segments',
      },
      {
        key: k('window'),
        label: 'Window',
        type: 'number',
        ...range('window'),
        help: modelHelp('byte').window,
        show: (s) => s[side].type !== 'rope',
      },
      {
        key: k('group'),
        label: 'Group',
        type: 'number',
        ...range('group'),
        help: 'Self-Extend: far distances are divided by G.',
        show: (s) => s[side].type === 'self-extend',
      },
      {
        key: k('scaling'),
        label: 'Scaling',
        type: 'select',
        options: MODEL_SCALINGS,
        help: 'Frequency scaling relative to the training length: position interpolation, NTK-aware, dynamic NTK or YaRN.',
        show: (s) => !isBaseline(s[side].type),
      },
      {
        key: k('factor'),
        label: 'Factor',
        noun: 'scaling factor',
        type: 'number',
        ...range('factor'),
        help: factorHelp('linear'),
        show: (s) =>
          !isBaseline(s[side].type) &&
          s[side].scaling !== 'none' &&
          s[side].scaling !== 'dynamic-ntk',
      },
    ];
  }
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
          help: 'The grammar that gives HiRoPE its units and statements. The model itself was trained on Python only.',
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

  // Presets that tell the story, one sentence each (the token model; the first is the first view).
  const STORIES = [
    {
      id: 'baseline',
      label: 'baseline vs HiRoPE',
      sentence:
        "Past 512 tokens a sliding window (A) forgets what lies farther back; HiRoPE on 64-token segments (B) still reads it, and its loss drops below A's where names come back from far.",
      state: {},
    },
    {
      id: 'verdict',
      label: 'ReRoPE vs HiRoPE',
      sentence:
        'The held-out verdict: past 512 tokens HiRoPE on segments edges ReRoPE by a few hundredths of a bit, on ordinary tokens rather than far recall — on one file the two are hard to tell apart.',
      state: { a: { type: 'rerope', window: 256 } },
    },
    {
      id: 'rope',
      label: 'RoPE vs ReRoPE',
      sentence:
        'Plain RoPE falls apart past the training length; a window (ReRoPE) keeps the loss level.',
      state: { a: { type: 'rope' }, b: { type: 'rerope' } },
    },
    {
      id: 'far',
      label: 'far recall',
      sentence:
        'On names used again more than 512 tokens later (far-recall tokens only), a scheme that still sees them (Self-Extend) beats a sliding window that cannot.',
      state: { bytes: 'far', b: { type: 'self-extend', window: 128, group: 22 } },
    },
  ];
  const storyState = (story) => {
    const d = modelDefaultsOf('pyjs-llama2');
    return normalizeWith(d, {
      ...d,
      ...story.state,
      a: { ...d.a, ...story.state.a },
      b: { ...d.b, ...story.state.b },
    });
  };
  const story = {
    box: el('div', {
      class: 'presets stories',
      role: 'group',
      'aria-label': 'Presets: the story in one click',
      id: 'stories',
    }),
    line: el('p', { class: 'story-line', id: 'story-line', 'aria-live': 'polite' }),
    buttons: [],
    build() {
      this.box.append(el('span', { class: 'presets-label' }, 'Token model:'));
      for (const st of STORIES) {
        const button = el(
          'button',
          { type: 'button', class: 'preset', id: `story-${st.id}`, title: st.sentence },
          st.label,
        );
        button.addEventListener('click', () => {
          const wasSample = mx.state.code === null || mx.state.code === sampleOf(mx.state);
          const next = storyState(st);
          const switching = mx.state.model !== next.model;
          mx.state = {
            ...next,
            language: mx.state.language,
            code: switching && wasSample ? null : mx.state.code,
            layer: switching ? 0 : mx.state.layer,
            head: switching ? 0 : mx.state.head,
            colour: mx.state.colour,
          };
          if (switching) {
            mx.zoom = null;
            mx.result = null;
            mx.chars = null;
            if (wasSample) mx.editor.setText(sampleOf(mx.state) ?? '');
            mx.useModel(mx.state.model);
          }
          syncControls();
          mx.schedule();
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
        const same =
          mx.state.model === 'pyjs-llama2' &&
          mx.state.bytes === want.bytes &&
          ['a', 'b'].every((side) => JSON.stringify(mx.state[side]) === JSON.stringify(want[side]));
        button.setAttribute('aria-pressed', String(same));
        if (same) on = st;
      }
      this.line.textContent = on
        ? on.sentence
        : mx.state.model === 'pyjs-llama2'
          ? 'Your own settings: pick a preset above to see one point of the story.'
          : 'The byte model: pick the token model (Model, above the code) or a preset for the held-out story.';
    },
  };
  story.build();

  const pairsOf = () => (mx.config ? mx.config.headDim / 2 : PAIRS);

  function applyPreset(side, ratio) {
    mx.state[side].type = 'hirope';
    mx.state[side].ratio = ratio;
    mx.state = normal(mx.state);
    syncControls();
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
    mx.thumbs.build(mx.config.layers, mx.config.heads);
    syncControls();
  }

  function syncControls() {
    for (const group of controlGroups) group.sync(mx.state);
    sides.a.sync(mx.state);
    sides.b.sync(mx.state);
    const u = unitOf(mx.state);
    $('smooth-bytes').textContent =
      mx.state.bytes === 'far'
        ? `the ${u}s of each far-recall name (one dot per name)`
        : mx.state.smooth === 1
          ? `runs of 1 ${u} (no smoothing)`
          : `runs of ${mx.state.smooth} ${u}s`;
    // The words that name the unit the model reads, and the filters' option texts.
    for (const span of document.querySelectorAll('.unit-word')) span.textContent = u;
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

  // The ratio as pairs ("8/24 pairs (0.333)") and the Split% hint, from the core once the model's
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
      const sideBound = await mx.splitBoundOf(s.ratio);
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
    mx.selected = null;
    mx.result = null;
    mx.chars = null;
    for (const side of ['a', 'b']) mx.computed[side] = null;
    if (wasSample) mx.editor.setText(sampleOf(mx.state) ?? '');
    mx.useModel(mx.state.model);
    syncControls();
    mx.schedule();
  }

  function onControl(key, value) {
    const wasSample = mx.state.code === null || mx.state.code === sampleOf(mx.state);
    if (key === 'model') return switchModel(value, wasSample);
    // The ratio moves in whole pairs: k / pairs exactly (8/24 is the default, 1/3).
    if (key.endsWith('.ratio')) value = Math.round(value * pairsOf()) / pairsOf();
    setPath(mx.state, key, value);
    mx.state = normal(mx.state);
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

  return { syncControls, updateHints, configured, pairsOf };
}
