// Model mode's page-side helpers: the loss chart's filters, the unit a state's model reads, its
// state normalized against that model's defaults, the sample it shows, and the state of a link.
import {
  MODEL_DEFAULTS,
  readModelLink,
  modelDefaultsOf,
  ratioOnPairs,
} from '../../shared/model-state.js';
import { PAIRS } from './model-scheme-fields.js';
import { normalizeWith } from '../../shared/link-state.js';
import { MODEL_NAMES } from '../../shared/models.js';
import { LONG_PYTHON_SAMPLE } from '../../shared/model-samples.js';
import { SAMPLES } from '../../shared/samples.js';

export const SMOOTHING = [1, 8, 32, 128];
export const BYTE_FILTERS = [
  ['all', 'every byte'],
  ['far', 'far-recall bytes only'],
];
// The unit the model reads: 'byte' (pybyte) or 'token' (pyjs-llama2, a checkpoint), from the state's model.
export const unitOf = (s) => (s.model === 'pybyte' ? 'byte' : 'token');
/** The state normalized against its model's defaults. */
export const normal = (s) => normalizeWith(modelDefaultsOf(s.model), s);
/** The sample a state shows when its code is null: the token model reads a long real file. */
export const sampleOf = (s) =>
  s.model === 'pyjs-llama2' && s.language === 'python' ? LONG_PYTHON_SAMPLE : SAMPLES[s.language];
/**
 * The state with both sides' ratios on the slider's grid of whole pairs (the same schemes: the
 * core gives a ratio its nearest pair count), so that the slider holds the ratio the label shows.
 */
export function ratiosOnPairs(s, pairs = PAIRS) {
  for (const side of ['a', 'b']) s[side].ratio = ratioOnPairs(s[side].ratio, pairs);
  return s;
}
/** The state a URL hash describes, with values the controls can show. */
export async function stateFromHash(hash) {
  const link = await readModelLink(hash);
  let s = link.state;
  if (!MODEL_NAMES.some(([name]) => name === s.model))
    s = normalizeWith(MODEL_DEFAULTS, { ...s, model: 'pybyte' });
  const d = modelDefaultsOf(s.model);
  if (!SMOOTHING.includes(s.smooth)) s.smooth = d.smooth;
  if (!BYTE_FILTERS.some(([v]) => v === s.bytes)) s.bytes = d.bytes;
  return ratiosOnPairs(s);
}
