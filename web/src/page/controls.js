// Form controls generated from one description, each with a label and a short explanation on
// hover (title). Values are read and written by a dotted key into the state ("a.window").
import { SCHEME_TYPES, SCALINGS, ROTARY, WINDOWED } from '../shared/schemes.js';
import { LANGUAGE_NAMES } from '../shared/samples.js';
import { el } from './dom.js';
import { CATALOGUE, parameter, numberSpec, numberProblem } from '../shared/core-catalogue.js';

// Layouts with the core's default (half-split) first.
const LAYOUT_DEFAULT = parameter('layout').default;
const LAYOUTS = [...CATALOGUE.layouts].sort(
  (a, b) => (b.name === LAYOUT_DEFAULT) - (a.name === LAYOUT_DEFAULT),
);

export function getPath(state, key) {
  return key.split('.').reduce((o, k) => o?.[k], state);
}
export function setPath(state, key, value) {
  const parts = key.split('.');
  const last = parts.pop();
  parts.reduce((o, k) => o[k], state)[last] = value;
}

/**
 * A labelled control. spec: { key, label, help, type: 'select'|'number'|'range'|'checkbox', options,
 * min, max, step, show(state), advanced (behind the "More" disclosure), side ('A' or 'B': part of
 * the accessible name, so the two sides' controls are told apart) }.
 */
function control(spec) {
  const label = el('label', { class: `field field-${spec.type}`, title: spec.help });
  const id = `c-${spec.key.replace('.', '-')}`;
  let input;
  if (spec.type === 'select') {
    input = el('select', { id, name: spec.key });
    for (const [value, text, title] of spec.options)
      input.append(el('option', { value, title }, text));
  } else {
    input = el('input', {
      id,
      name: spec.key,
      type: spec.type,
      min: spec.min,
      max: spec.max,
      step: spec.step,
      inputmode: spec.type === 'number' ? 'decimal' : undefined,
    });
  }
  input.dataset.key = spec.key;
  input.dataset.kind =
    spec.type === 'checkbox'
      ? 'boolean'
      : spec.numeric || spec.type === 'number' || spec.type === 'range'
        ? 'number'
        : 'string';
  // The accessible name is the caption alone (with the side); the help is the description.
  const caption = el('span', { class: 'field-label', id: `${id}-label` }, spec.label);
  if (spec.side) caption.append(el('span', { class: 'sr-only' }, ` (scheme ${spec.side})`));
  if (spec.type === 'checkbox') label.append(input, caption);
  else label.append(caption, input);
  if (spec.type === 'range') label.append(el('output', { for: id, class: 'range-value' }));
  const message = el('span', {
    id: `${id}-error`,
    class: 'field-error',
    role: 'alert',
    hidden: true,
  });
  input.setAttribute('aria-labelledby', `${id}-label`);
  input.setAttribute(
    'aria-describedby',
    spec.type === 'number' || spec.type === 'range' ? `${id}-help ${id}-error` : `${id}-help`,
  );
  label.append(el('span', { id: `${id}-help`, class: 'sr-only' }, spec.help), message);
  return { spec, label, input, message };
}

/** Why a typed number is not acceptable for a spec, in plain words; null when it is. */
export function invalidNumber(spec, text) {
  return numberProblem(spec, text, spec.noun ?? spec.label.toLowerCase());
}

// A number control's range, step, default and help come from the core's scheme table
// (web/src/shared/core-catalogue.js numberSpec), as the API checks them; `key` is the state's name for it.
const fromTable = (name) => {
  const { min, max, minOpen, maxOpen, allowed, step, integer, help } = numberSpec(name);
  return { min, max, minOpen, maxOpen, allowed, step, integer, help };
};
// A select's help and each option's hover text from the core's table.
const titled = (list) => list.map((x) => [x.name, x.label, x.description]);
const LEVEL_LABELS = { 2: '2: unit, token', 3: '3: unit, statement, token' };

export function schemeControls(side) {
  const k = (name) => `${side}.${name}`;
  const S = side.toUpperCase();
  const is =
    (...types) =>
    (s) =>
      types.includes(s[side].type);
  return [
    {
      key: k('type'),
      label: 'Scheme',
      type: 'select',
      options: SCHEME_TYPES.map(([name, label]) => [
        name,
        label,
        CATALOGUE.schemes.find((x) => x.name === name).description,
      ]),
      help: 'The position encoding applied to q and k (or added to the logits, for ALiBi).',
    },
    {
      key: k('ratio'),
      label: 'Ratio',
      type: 'range',
      numeric: true,
      ...fromTable('ratio'),
      show: is('hirope'),
    },
    {
      key: k('window'),
      label: 'Window',
      type: 'number',
      ...fromTable('window'),
      show: (s) => WINDOWED.has(s[side].type),
    },
    {
      key: k('group'),
      label: 'Group',
      type: 'number',
      ...fromTable('group'),
      show: is('self-extend'),
    },
    {
      key: k('scaling'),
      label: 'Scaling',
      type: 'select',
      options: titled(CATALOGUE.scalings.filter((x) => SCALINGS.some(([n]) => n === x.name))),
      help: `${parameter('scaling').description}.`,
      show: (s) => ROTARY.has(s[side].type),
    },
    {
      key: k('factor'),
      label: 'Factor',
      noun: 'scaling factor',
      type: 'number',
      ...fromTable('factor'),
      show: (s) => ROTARY.has(s[side].type) && s[side].scaling !== 'none',
    },
    {
      key: k('units'),
      label: 'Units',
      type: 'select',
      options: [
        ['syntax', 'functions and classes'],
        ['segments', 'fixed segments'],
      ],
      advanced: true,
      help: "Where HiRoPE's unit index comes from: the parse tree's functions and classes, or fixed segments of tokens.",
      show: is('hirope'),
    },
    {
      key: k('segment'),
      label: 'Segment',
      noun: 'segment size',
      type: 'number',
      ...fromTable('segmentSize'),
      advanced: true,
      show: (s) => s[side].type === 'hirope' && s[side].units === 'segments',
    },
    {
      key: k('levels'),
      label: 'Levels',
      type: 'select',
      options: parameter('levels').allowed.map((v) => [String(v), LEVEL_LABELS[v] ?? String(v)]),
      numeric: true,
      advanced: true,
      help: `${parameter('levels').description}.`,
      show: is('hirope'),
    },
    {
      key: k('leakyFactor'),
      label: 'Leak factor',
      noun: 'leak factor',
      type: 'number',
      ...fromTable('leakyFactor'),
      advanced: true,
      show: is('leaky-rerope'),
    },
    {
      key: k('base'),
      label: 'Base',
      type: 'number',
      ...fromTable('base'),
      advanced: true,
      show: (s) => ROTARY.has(s[side].type) || s[side].type === 'sinusoidal',
    },
    {
      key: k('layout'),
      label: 'Layout',
      type: 'select',
      options: titled(LAYOUTS),
      advanced: true,
      help: `${parameter('layout').description}.`,
      show: (s) => ROTARY.has(s[side].type),
    },
  ].map((spec) => ({ ...spec, side: S }));
}

// The models each tokenizer's vocabulary belongs to, as the page names them.
const TOKENIZER_LABELS = {
  lexical: 'lexical (grammar tokens)',
  cl100k: 'cl100k (GPT-4)',
  o200k: 'o200k (GPT-4o, gpt-oss)',
  llama2: 'Llama 2 / Code Llama',
  llama3: 'Llama 3',
  qwen3: 'Qwen 3 / Qwen3-Coder',
  'deepseek-v3': 'DeepSeek-V3',
  gemma3: 'Gemma 3',
};

/** A tokenizer's name as the page shows it (its own name when the page has no label for it). */
export function tokenizerLabel(name) {
  return TOKENIZER_LABELS[name] ?? name;
}

export function sharedControls(languages, tokenizers) {
  return [
    {
      key: 'language',
      label: 'Language',
      type: 'select',
      options: languages.map((l) => [l, LANGUAGE_NAMES[l] ?? l]),
      help: 'The tree-sitter grammar that parses the code (pasting code detects it).',
    },
    // The training length is the page's own (the angle view, Split%, the scalings' original
    // length and ReRoPE's log-n): its range is the core's trainingLength's, its help the page's.
    {
      key: 'train',
      label: 'Training length',
      type: 'number',
      min: numberSpec('trainingLength').min,
      step: 1,
      help: "The context length the model was trained on: the angle view's limit, Split%, and the original length for scalings and ReRoPE's log-n.",
    },
    {
      key: 'source',
      label: 'Q/K',
      type: 'select',
      options: [
        ['ones', 'content-free (all ones)'],
        ['seeded', 'seeded per token'],
        ['file', 'from a file…'],
      ],
      help: 'Content-free q = k = 1 isolates the position effect; seeded gives each distinct token its own random vector; a file supplies real q/k rows.',
    },
    {
      key: 'seed',
      label: 'Seed',
      type: 'number',
      min: 0,
      max: 2147483647,
      step: 1,
      help: 'Random seed of the per-token vectors.',
      show: (s) => s.source === 'seeded',
    },
    {
      key: 'headDim',
      label: 'Head dim',
      noun: 'head dimension',
      type: 'number',
      min: 2,
      max: 256,
      step: 2,
      advanced: true,
      help: 'Dimension d of the attention head: d/2 frequency pairs.',
    },
    {
      key: 'stride',
      label: 'Position stride',
      noun: 'position stride',
      type: 'number',
      min: 1,
      max: 4096,
      step: 1,
      advanced: true,
      help: "Token i sits at position i × stride: the code's few hundred tokens then span stride times as many positions, as a long context would (a real model's windows, chunks and scalings count positions).",
    },
    {
      key: 'tokenizer',
      label: 'Tokenizer',
      type: 'select',
      options: tokenizers.map((t) => [t, tokenizerLabel(t)]),
      advanced: true,
      help: "How code becomes tokens: the grammar's own tokens, or a real code LLM tokenizer (its vocabulary loads on first use; the Tokenizers box under the code compares them and takes a tokenizer.json of your own).",
    },
    {
      key: 'gap',
      label: 'Gaps',
      type: 'select',
      options: titled(CATALOGUE.gaps),
      advanced: true,
      help: 'Code between definitions (imports, statements): its own unit, or part of the next or previous definition.',
    },
    {
      key: 'descend',
      label: 'Methods as units',
      type: 'checkbox',
      advanced: true,
      help: 'Split classes into their methods, each method its own unit.',
    },
  ];
}

/**
 * Builds controls into parent (advanced ones inside a "More" disclosure); returns an object that
 * syncs them with a state. A number that is not acceptable is marked in place with a message and
 * not passed on.
 */
export function buildControls(parent, specs, onInput, { moreLabel = 'More' } = {}) {
  const built = specs.map(control);
  let more = null;
  for (const c of built) {
    if (c.spec.advanced) {
      if (!more) {
        more = el('details', { class: 'more' });
        more.append(el('summary', {}, moreLabel));
      }
      more.append(c.label);
    } else parent.append(c.label);
  }
  if (more) parent.append(more);
  const bySpecKey = new Map(built.map((c) => [c.spec.key, c]));
  const setError = (c, text) => {
    c.input.setAttribute('aria-invalid', text ? 'true' : 'false');
    c.message.hidden = !text;
    c.message.textContent = text || '';
    c.label.classList.toggle('invalid', Boolean(text));
  };
  // One listener per input, not one on the parent: a control may be moved elsewhere on the page
  // (the Language select sits in the editor's toolbar) and must still be heard.
  const onInputEvent = (e) => {
    const input = e.currentTarget;
    const c = bySpecKey.get(input.dataset.key);
    let value = input.dataset.kind === 'boolean' ? input.checked : input.value;
    if (input.dataset.kind === 'number') {
      const problem = c && c.spec.type === 'number' ? invalidNumber(c.spec, input.value) : null;
      if (c) setError(c, problem);
      if (problem) return;
      value = Number(value);
    }
    onInput(input.dataset.key, value);
  };
  for (const c of built) c.input.addEventListener('input', onInputEvent);
  return {
    built,
    more,
    sync(state) {
      for (const c of built) {
        const { spec, label, input } = c;
        const value = getPath(state, spec.key);
        if (spec.type === 'checkbox') input.checked = Boolean(value);
        else if (
          document.activeElement !== input ||
          input.getAttribute('aria-invalid') !== 'true'
        ) {
          if (String(input.value) !== String(value)) input.value = String(value);
          if (document.activeElement !== input) setError(c, null);
        }
        label.hidden = spec.show ? !spec.show(state) : false;
        const out = label.querySelector('output');
        if (out) out.textContent = String(value);
      }
      if (more) more.hidden = built.every((c) => !c.spec.advanced || c.label.hidden);
    },
    /**
     * Marks the number fields whose value differs between two states, after a run with `after`
     * was refused: the field a person just changed says so in place, as a value out of its range
     * does. The mark goes with the next valid input or the next sync.
     */
    flagChanged(before, after, text) {
      if (!before) return;
      for (const c of built)
        if (
          (c.spec.type === 'number' || c.spec.type === 'range') &&
          getPath(before, c.spec.key) !== getPath(after, c.spec.key)
        )
          setError(c, text);
    },
  };
}
