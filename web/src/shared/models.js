// Model mode's names, shared by its page and its workers: the shipped models, the schemes
// their menu offers, the thumbnails' size and the loss curve. Pure (no DOM).
import { MODEL_BASELINES, SCHEME_TYPES, WINDOWED } from './schemes.js';

/** The shipped models Model mode offers: [name, label]. The first is the first view's. */
export const SHIPPED_MODELS = Object.freeze([
  ['pyjs-llama2', 'token model (llama2)'],
  ['pybyte', 'byte model (Python)'],
]);
/** A Hugging Face checkpoint the person opens (a folder, its files or its URL). */
export const CHECKPOINT = 'checkpoint';
/** The Model picker: the shipped models, then the person's own checkpoint. */
export const MODEL_NAMES = Object.freeze([
  ...SHIPPED_MODELS,
  [CHECKPOINT, 'your checkpoint (a folder or URL)…'],
]);

/**
 * The languages each shipped model was trained on: the grammars of its training config's file
 * extensions (training/models/NAME/config.json data.extensions, .py when none; tests/js check them).
 */
export const TRAINED_ON = Object.freeze({
  'pyjs-llama2': Object.freeze(['python', 'javascript']),
  pybyte: Object.freeze(['python']),
});

/** Bytes per point of the loss curve the engine returns (the page smooths the losses itself). */
export const CURVE_STEP = 8;

// RoPE and the windowed schemes (the ones that keep a RoPE-trained model's rotation), then the
// baselines every scheme is measured against.
export const MODEL_SCHEMES = SCHEME_TYPES.filter(
  ([name]) => name === 'rope' || WINDOWED.has(name),
).concat(MODEL_BASELINES);
/**
 * A checkpoint's schemes: its own positions (each layer as its config sets it up: the RoPE
 * scaling, sliding windows, NoPE layers it was trained with), then the same as the shipped
 * models', which replace the positions of every RoPE layer.
 */
export const CHECKPOINT_SCHEMES = [['model', 'its own positions'], ...MODEL_SCHEMES];
export const isBaseline = (type) => MODEL_BASELINES.some(([name]) => name === type);

/** Mean loss over consecutive runs of `step` bytes: { x (first byte of each run), y }. */
export function lossCurve(losses, step = CURVE_STEP) {
  const points = Math.ceil(losses.length / step);
  const x = new Float32Array(points);
  const y = new Float32Array(points);
  for (let p = 0; p < points; p++) {
    let sum = 0;
    const end = Math.min(losses.length, (p + 1) * step);
    for (let t = p * step; t < end; t++) sum += losses[t];
    x[p] = p * step + 1; // losses[t] is the loss of byte t + 1
    y[p] = sum / (end - p * step);
  }
  return { x, y };
}

/** Side of the layer x head thumbnails (pooled cells). */
export const THUMB_SIZE = 64;
