// The attributes of <hirope-attention> read into a playground state: pure (no DOM), so that
// tests/js can check them against the core's table.
import { normalizeState, DEFAULTS } from '../shared/playground-state.js';
import { numberSpec, numberProblem, CATALOGUE } from '../shared/core-catalogue.js';
import { TOKENIZER_DATA, TOKENIZER_ALIASES, canonicalTokenizer, closestName } from 'hirope/runtime';
import { GALLERY, OWN_CONFIG, modelSource } from '../shared/model-gallery.js';
import { schemeName, WINDOWED, SCHEME_TYPES } from '../shared/schemes.js';
import { plural } from '../shared/wording.js';
import { CHECKPOINT_MAX_BYTES } from '../shared/checkpoint.js';

/**
 * The gallery id a model attribute names: the id itself, or the id without its "-it" (the
 * instruction-tuned checkpoint's suffix: model="gemma-3-27b" is gemma-3-27b-it); null if none.
 */
export function galleryId(name) {
  if (GALLERY.includes(name)) return name;
  return GALLERY.includes(`${name}-it`) ? `${name}-it` : null;
}

// The scheme parameters an element takes as attributes (both sides use them), each named as the
// core's table names it in kebab case (leakyFactor: leaky-factor), with the state's key; ranges
// and defaults are the table's (web/src/shared/core-catalogue.js), so the element accepts what the API does.
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
export const NUMBER_PARAMETERS = [
  ['ratio', 'ratio'],
  ['window', 'window'],
  ['group', 'group'],
  ['leakyFactor', 'leakyFactor'],
  ['levels', 'levels'],
  ['base', 'base'],
  ['factor', 'factor'],
  ['segmentSize', 'segment'],
].map(([name, key]) => ({ name, key, attribute: kebab(name), spec: numberSpec(name) }));
// Enumerations: [attribute, the state's key, the names the table allows].
export const NAME_PARAMETERS = [
  ['layout', 'layout', CATALOGUE.layouts.map((x) => x.name)],
  [
    'scaling',
    'scaling',
    CATALOGUE.scalings.filter((x) => !x.parameters.includes('shortFactor')).map((x) => x.name),
  ],
];

/** The languages and tokenizers an element takes: the core's table and the package's files. */
export const LANGUAGES = CATALOGUE.languages.map((x) => x.name);
export const TOKENIZERS = ['lexical', ...TOKENIZER_DATA];
/** The scheme types a side takes, and those of a real model's side (its layer, or HiRoPE on it). */
export const SCHEMES = SCHEME_TYPES.map(([type]) => type);
export const MODEL_SCHEMES = ['rope', 'hirope'];
/**
 * The scheme types a checkpoint's side takes: rope (its own positions, as its config sets up each
 * layer; with the scaling attribute, RoPE so scaled) or a scheme that keeps its rotation, swapped
 * in on every RoPE layer (web/src/worker/checkpoint-engine.js).
 */
export const CHECKPOINT_SCHEMES = SCHEMES.filter((type) => type === 'rope' || WINDOWED.has(type));

// Attributes any HTML element takes, which the element leaves to the page: not typos of its own.
const GLOBAL_ATTRIBUTES = new Set(
  'accesskey autocapitalize autofocus class contenteditable dir draggable enterkeyhint exportparts hidden id inert inputmode is itemid itemprop itemref itemscope itemtype lang nonce part popover role slot spellcheck style tabindex title translate writingsuggestions'.split(
    ' ',
  ),
);
const isGlobalAttribute = (name) => GLOBAL_ATTRIBUTES.has(name) || /^(data-|aria-|on)/.test(name);

/** ' (did you mean "python"?)' for a misspelt name, or ''. */
function didYouMean(text, names) {
  const guess = closestName(text, names);
  return guess ? ` (did you mean "${guess}"?)` : '';
}
/** "The <attribute> attribute must be one of a, b, got "x" (did you mean "y"?)." */
const notOneOf = (attribute, names, text, shown = names) =>
  `The ${attribute} attribute must be one of ${shown.join(', ')}, got "${text}"${didYouMean(text, names)}.`;

/**
 * The element's attributes read into a state (a missing attribute keeps the page's default), and
 * the problems of those that are not acceptable, in plain words ([] when none). `names`: the
 * attributes the element has, each of which must be one it takes (or any element's).
 */
export function readAttributes(get, names = []) {
  const problems = [];
  for (const name of names)
    if (!ATTRIBUTES.includes(name) && !isGlobalAttribute(name))
      problems.push(
        `<hirope-attention> has no attribute "${name}"${didYouMean(name, ATTRIBUTES)}; its attributes: ${ATTRIBUTES.join(', ')}.`,
      );
  const params = {};
  for (const { key, attribute, spec } of NUMBER_PARAMETERS) {
    const text = get(attribute);
    if (text === null) continue;
    const problem = numberProblem(spec, text, `${attribute} attribute`);
    if (problem) problems.push(`${problem.replace(/\.$/, '')} (${spec.range}), got "${text}".`);
    else params[key] = Number(text);
  }
  for (const [attribute, key, names] of NAME_PARAMETERS) {
    const text = get(attribute);
    if (text === null) continue;
    if (names.includes(text)) params[key] = text;
    else problems.push(notOneOf(attribute, names, text));
  }
  // Checked here, before any request: an unknown language would first fetch a grammar file that
  // is not there (tree-sitter-<name>.wasm, a 404), an unknown tokenizer a vocabulary.
  // A tokenizer also by its tiktoken name (cl100k_base), as the API takes it.
  const language = get('language');
  if (language !== null && language !== '' && !LANGUAGES.includes(language))
    problems.push(notOneOf('language', LANGUAGES, language));
  const tokenizerText = get('tokenizer');
  const tokenizer = tokenizerText ? canonicalTokenizer(tokenizerText) : tokenizerText;
  if (tokenizer !== null && tokenizer !== '' && !TOKENIZERS.includes(tokenizer))
    problems.push(
      notOneOf(
        'tokenizer',
        [...TOKENIZERS, ...Object.keys(TOKENIZER_ALIASES)],
        tokenizer,
        TOKENIZERS,
      ),
    );
  if (params.segment !== undefined) params.units = 'segments';
  // A real model on both sides: A shows its layer as it is (scheme-a rope), B with HiRoPE on its
  // frequencies (scheme-b hirope); the worker reads the config (web/src/worker/model-sides.js).
  const modelName = get('model');
  const configText = get('config');
  if (modelName !== null && modelName !== '') {
    const id = galleryId(modelName);
    if (id) params.model = id;
    else
      problems.push(
        `The model attribute must be one of the gallery's models (${GALLERY.join(', ')}), got "${modelName}"${didYouMean(modelName, GALLERY)}.`,
      );
  } else if (configText !== null && configText.trim() !== '') {
    params.model = OWN_CONFIG;
    params.config = configText;
  }
  // A Hugging Face checkpoint folder by URL: its real heads, A its own positions, B a scheme on
  // the same weights; the worker fetches it (web/src/worker/checkpoint-engine.js).
  const checkpointText = get('checkpoint');
  let checkpoint = null;
  if (checkpointText !== null && checkpointText.trim() !== '') {
    if (params.model !== undefined)
      problems.push(
        'An element shows one model: give it the checkpoint attribute, or the model or config attribute, not both.',
      );
    checkpoint = { url: checkpointText.trim(), head: 0, maxBytes: CHECKPOINT_MAX_BYTES, layer: 0 };
    const headText = get('head');
    if (headText !== null) {
      const head = Number(headText);
      if (headText.trim() !== '' && Number.isInteger(head) && head >= 0) checkpoint.head = head;
      else
        problems.push(
          `The head attribute must be a head index (an integer >= 0), got "${headText}".`,
        );
    }
    const maxText = get('max-bytes');
    if (maxText !== null) {
      const max = Number(maxText);
      if (maxText.trim() !== '' && Number.isSafeInteger(max) && max > 0) checkpoint.maxBytes = max;
      else
        problems.push(
          `The max-bytes attribute must be a number of bytes (an integer > 0), got "${maxText}".`,
        );
    }
  } else
    for (const attribute of ['head', 'max-bytes'])
      if (get(attribute) !== null)
        problems.push(`The ${attribute} attribute needs the checkpoint attribute (a folder URL).`);
  const layerText = get('layer');
  if (layerText !== null) {
    const layer = Number(layerText);
    if (layerText.trim() !== '' && Number.isInteger(layer) && layer >= 0) params.layer = layer;
    else
      problems.push(
        `The layer attribute must be a layer index (an integer >= 0), got "${layerText}".`,
      );
  }
  const num = (name, fallback) => {
    const v = Number(get(name));
    return get(name) !== null && Number.isFinite(v) ? v : fallback;
  };
  // The schemes: any type; on a real model's side, its layer (rope) or HiRoPE on it (hirope); on
  // a checkpoint, its own positions (rope) or a scheme that keeps its rotation.
  const model = params.model !== undefined;
  const allowed = checkpoint ? CHECKPOINT_SCHEMES : model ? MODEL_SCHEMES : SCHEMES;
  for (const attribute of ['scheme-a', 'scheme-b']) {
    const text = get(attribute);
    if (text === null || text === '' || allowed.includes(text)) continue;
    problems.push(
      checkpoint && SCHEMES.includes(text)
        ? `On a checkpoint, the ${attribute} attribute must be rope (the model's own positions) or a scheme that keeps its rotation (${CHECKPOINT_SCHEMES.filter((x) => x !== 'rope').join(', ')}), got "${text}".`
        : model && SCHEMES.includes(text)
          ? `On a real model (the model or config attribute), the ${attribute} attribute must be rope (the layer as the model computes it) or hirope (HiRoPE on its frequencies), got "${text}".`
          : notOneOf(attribute, allowed, text),
    );
  }
  if (checkpoint) {
    if (params.layer !== undefined) checkpoint.layer = params.layer;
    // Each side: its type and only the attributes given (the model fills in the rest).
    checkpoint.a = { ...params, type: get('scheme-a') || 'rope' };
    checkpoint.b = { ...params, type: get('scheme-b') || 'hirope' };
  }
  const state = normalizeState({
    language: language || 'python',
    tokenizer: tokenizer || 'lexical',
    headDim: num('head-dim', DEFAULTS.headDim),
    train: num('train', DEFAULTS.train),
    source: get('source') || 'ones',
    a: { ...params, type: get('scheme-a') || 'rope' },
    b: { ...params, type: get('scheme-b') || 'hirope' },
  });
  return { state, problems, checkpoint };
}

/** The attributes an element takes. */
export const ATTRIBUTES = [
  'code',
  'language',
  'scheme-a',
  'scheme-b',
  ...NUMBER_PARAMETERS.map((p) => p.attribute),
  ...NAME_PARAMETERS.map(([a]) => a),
  'head-dim',
  'tokenizer',
  'train',
  'source',
  'model',
  'config',
  'layer',
  'checkpoint',
  'head',
  'max-bytes',
];

/**
 * Why A and B came out the same, in plain words. The defaults stay the API's (window 64), so that
 * an element's numbers are the ones hr.attention gives for the same scheme; the hint says which
 * attribute to set instead. A windowed scheme sees every token of a snippet no longer than its
 * window as plain RoPE does.
 */
export function sameHint(state, n, model = null) {
  // A real model's NoPE layer: HiRoPE has no frequencies there, so both sides are the layer.
  const layer = model?.layers[state.b.layer];
  if (model && layer && !layer.rope && state.b.type === 'hirope') {
    const rope = model.layers.findIndex((l) => l.rope);
    const name = modelSource(state.b).id ?? 'the config';
    return `A and B are the same here: layer ${state.b.layer} of ${name} is a NoPE layer, with no frequencies for HiRoPE to change, so B is that layer as it is.${rope >= 0 ? ` Set layer="${rope}" (a RoPE layer) to see them differ.` : ''}`;
  }
  const side = [state.b, state.a].find((x) => WINDOWED.has(x.type) && n <= x.window);
  if (!side)
    return 'A and B give the same attention for this code: try other schemes or longer code.';
  const suggestion = Math.max(1, Math.floor(n / 4));
  const inside = modelSource(side) ? "the layer's own RoPE" : 'plain RoPE';
  return `A and B are the same here: all ${plural(n, 'token')} are within ${schemeName(side.type)}'s window of ${side.window}, inside which it is ${inside}. Set window="${suggestion}" (below ${n}) to see them differ.`;
}
