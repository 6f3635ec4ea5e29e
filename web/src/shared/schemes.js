// The scheme catalogue as the page's menus and names use it: scheme types, scalings and the
// model's baselines, from the core's table. Pure (no DOM), shared by the pages, the element and
// the workers.
import { CATALOGUE, options, namesWhere } from './core-catalogue.js';

// Scheme names, labels and flags come from the core's catalogue. The menu lists the schemes a
// comparison starts from first (RoPE, HiRoPE), then the other windowed ones, the other rotary
// ones, and the rest in the core's order.
const menuRank = (s) =>
  s.name === 'rope' ? 0 : s.name === 'hirope' ? 1 : s.windowed ? 2 : s.rotary ? 3 : 4;
export const SCHEME_TYPES = options(
  [...CATALOGUE.schemes].sort((x, y) => menuRank(x) - menuRank(y)),
);
// LongRoPE takes per-pair factor lists, which the page has no control for.
export const SCALINGS = options(
  CATALOGUE.scalings.filter((s) => !s.parameters.includes('shortFactor')),
);
export const ROTARY = namesWhere(CATALOGUE.schemes, (s) => s.rotary);
export const WINDOWED = namesWhere(CATALOGUE.schemes, (s) => s.windowed);
// The code model's baselines (attention limited to the last W bytes; context cut to the last W
// bytes), from the model's part of the catalogue: [name, label] pairs.
export const MODEL_BASELINES = CATALOGUE.contextLimits
  .filter((x) => x.name !== 'none')
  .map((x) => [x.name, x.label[0].toUpperCase() + x.label.slice(1)]);
/** The scalings that take the training length (originalLength). */
export const TAKES_LENGTH = namesWhere(CATALOGUE.scalings, (s) =>
  s.parameters.includes('originalLength'),
);

/** A scheme type's display name, as the Scheme menu lists it ("HiRoPE" for 'hirope'). */
export const schemeName = (type) => SCHEME_TYPES.find(([t]) => t === type)?.[1] ?? type;

/** A scaling's display name, as the Scaling control lists it ("NTK-aware" for 'ntk'). */
export const scalingLabel = (scaling) =>
  CATALOGUE.scalings.find((x) => x.name === scaling)?.label ?? scaling;

/**
 * A ratio as a short decimal: exact where it has a short one, as a whole number of a model's
 * pairs does (5/16 -> "0.3125", 0.5 -> "0.5"), else to three places (1/3 -> "0.333").
 */
export function formatRatio(ratio) {
  const short = Number(ratio.toFixed(6));
  return String(short === ratio ? short : Number(ratio.toFixed(3)));
}
