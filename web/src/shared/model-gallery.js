// Real models on the playground's sides: which gallery configs the page offers (models/configs/,
// shipped as the site's data/configs/), and what one layer of a model setup (hr.fromConfig) turns
// into for the attention call: its scheme (or HiRoPE on its own frequencies), mask, sinks and
// temperature. Pure functions (no DOM, no module), so the workers and Node tests use them.
import { CONFIG_GALLERY } from 'hirope/registry';

/** The gallery's ids, in models/configs/index.json's order (through hirope/registry). */
export const GALLERY = CONFIG_GALLERY.map((c) => c.id);

/** A side's keys that choose a real model and its layer (the worker reads the scheme from it). */
export const MODEL_KEYS = ['model', 'config', 'layer', 'sinks', 'sink'];

/** A side's model value for a pasted or dropped config.json (the text is the side's `config`). */
export const OWN_CONFIG = 'config';

/**
 * GPT-oss's sink logits are learned weights, not in the config: the page gives every head the
 * same logit, this one unless the person sets another. 0 is the logit of a key whose q·k is 0,
 * so a sink takes about as much as a key the query does not look at in particular.
 */
export const DEFAULT_SINK = 0;

/** Whether a side shows a real model: { id } for a gallery entry, { config } for its own, else null. */
export function modelSource(side) {
  if (side.model === OWN_CONFIG)
    return typeof side.config === 'string' ? { config: side.config } : null;
  return GALLERY.includes(side.model) ? { id: side.model } : null;
}

/** The site path of a gallery config. */
export const galleryPath = (id) => `data/configs/${id}.json`;

/**
 * What the page draws of a setup: its size, lengths and each layer's kind (the layer strip) and
 * what its sentence says. `hr` (the worker's instance) gives each RoPE layer's attention factor,
 * the factor on cos and sin that YaRN and LongRoPE apply (1 without it).
 */
export function setupSummary(setup, hr = null) {
  return {
    modelType: setup.modelType,
    headDim: setup.headDim,
    rotaryDim: setup.rotaryDim,
    trainedLength: setup.trainedLength,
    maxLength: setup.maxLength,
    warnings: setup.warnings.slice(),
    dualChunk: setup.dualChunk ? { ...setup.dualChunk } : null,
    layers: setup.layers.map((l) => ({
      headDim: l.headDim,
      attention: { ...l.attention },
      rope: l.rope,
      sinks: l.sinks,
      temperature: Boolean(l.temperature),
      scale: l.scale ?? null, // the softmax scale where it is not 1 / sqrt(headDim)
      softcap: l.softcap ?? null, // the logit soft-cap (Gemma 2)
      scaling: l.scheme.scaling?.type ?? 'none',
      factor: l.scheme.scaling?.factor ?? null, // the scaling's factor where it takes one
      originalLength: l.scheme.scaling?.originalLength ?? null, // LongRoPE's switch, YaRN's L
      base: l.scheme.base,
      layout: l.scheme.layout ?? 'half',
      rotaryFraction: l.scheme.rotaryFraction ?? 1,
      rotaryLast: Boolean(l.scheme.rotaryLast),
      attentionFactor: hr && l.rope ? hr.attentionFactor(l.scheme, l.headDim ?? setup.headDim) : 1,
    })),
  };
}

/**
 * Why `layer` is not a layer of a model with `count` layers, in words ('' when it is one): a link
 * or an element attribute may name any index, and a layer the model does not have is refused,
 * never shown as another one.
 */
export function layerProblem(layer, count, name = 'the model') {
  if (Number.isInteger(layer) && layer >= 0 && layer < count) return '';
  return `${name} has no layer ${layer} (its ${count} layers are 0 to ${count - 1})`;
}

/**
 * One layer of a setup as the playground computes it for `side`: { scheme, extras, headDim,
 * hirope } where extras holds the attention call's mask, sinks and temperature (only those the
 * layer has, since hr.attention refuses keys it does not know). The mask and the temperature are
 * the layer's own, in positions: hr.attention applies them at the tokens' positions (token i at
 * i × stride under a position stride), as transformers does at its cache positions. With the
 * side's type 'hirope' (the page's "HiRoPE on this model" switch; any other type shows the model
 * as it is), HiRoPE takes the layer's own frequencies (base, scaling, rotated share, layout) and
 * the side's ratio and window; a NoPE layer has no frequencies to apply it to, and stays NoPE
 * (hirope: false). A layer the model does not have is refused (layerProblem).
 */
export function layerCall(setup, side, heads = 1) {
  const problem = layerProblem(side.layer, setup.layers.length);
  if (problem) throw new Error(problem);
  const layer = setup.layers[side.layer];
  let scheme = layer.scheme;
  const hirope = side.type === 'hirope' && layer.rope;
  if (hirope) {
    scheme = {
      ...layer.scheme,
      type: 'hirope',
      ratio: side.ratio,
      levels: side.levels,
      window: side.window,
      trainingLength: setup.trainedLength, // the model's own, whatever the other side shows
    };
    if (side.units === 'segments') scheme.segmentSize = side.segment;
  }
  const extras = {};
  const a = layer.attention;
  if (a.type === 'sliding') extras.mask = { type: 'sliding', window: a.window };
  if (a.type === 'chunked') extras.mask = { type: 'chunked', chunkSize: a.chunkSize };
  if (layer.sinks && side.sinks) extras.sinks = new Float32Array(heads).fill(side.sink);
  // The layer's own softmax scale and logit soft-cap (Gemma 2 and 3, Gemma 4, DeepSeek).
  if (layer.scale) extras.scale = layer.scale;
  if (layer.softcap) extras.softcap = layer.softcap;
  if (layer.temperature) extras.temperature = { ...layer.temperature };
  return { scheme, extras, headDim: layer.headDim, hirope };
}

/**
 * What a model's config says that the maps and views do not compute, one item each, to show
 * beside its layer under NOT_COMPUTED: Dual Chunk Attention (the setup carries its sizes; hirope's
 * attention does not compute it) and every warning of the config reader as it words it ("key:
 * what it does": a vision tower, qk-norm, MLA's latent ranks, initial_context_length ...).
 */
export function modelNotes(summary) {
  const fmt = (x) => x.toLocaleString('en');
  const notes = [];
  const d = summary.dualChunk;
  if (d) {
    const c = d.chunkSize - d.localSize;
    notes.push(
      `Dual Chunk Attention (chunks of ${fmt(d.chunkSize)} positions, ${fmt(d.localSize)} local): vLLM gives keys position p mod ${fmt(c)} and each query one of three positions by chunk; hirope does not compute it, so the maps and views show the layer's RoPE at the real positions, as without it.`,
    );
  }
  notes.push(...summary.warnings);
  return notes;
}

/** The heading of modelNotes. */
export const NOT_COMPUTED = 'In the config, not computed here:';

/** A layer's kind in words: "sliding 1,024", "chunked 8,192", "full", with "NoPE" and "sinks". */
export function layerKind(layer) {
  const a = layer.attention;
  const kind =
    a.type === 'sliding'
      ? `sliding ${a.window.toLocaleString('en')}`
      : a.type === 'chunked'
        ? `chunked ${a.chunkSize.toLocaleString('en')}`
        : 'full';
  return [kind, ...(layer.rope ? [] : ['NoPE']), ...(layer.sinks ? ['sinks'] : [])].join(', ');
}
