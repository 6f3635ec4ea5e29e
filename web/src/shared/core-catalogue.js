// The C++ core's scheme catalogue (hr.catalogue), written out at build time by
// tools/write-catalogue.mjs: scheme names, labels and flags, scalings, value lists, languages.
// The page reads it instead of keeping copies; adding a scheme to the core adds it here.
import CATALOGUE from '../../../build/generated/catalogue.js';

export { CATALOGUE };

/** [name, label] pairs of a value list (layouts, gaps, byteHierarchies, ...). */
export const options = (list) => list.map((x) => [x.name, x.label]);

/** The names in a list whose entry satisfies test. */
export const namesWhere = (list, test) => new Set(list.filter(test).map((x) => x.name));

/** A scheme or scaling parameter's row of the core's table, by its JavaScript name. */
export function parameter(name) {
  const p =
    CATALOGUE.parameters.find((x) => x.name === name) ??
    CATALOGUE.scalingParameters.find((x) => x.name === name);
  if (!p) throw new Error(`the core's scheme catalogue has no parameter '${name}'`);
  return p;
}

/**
 * What a form control for a number parameter needs, from the core's table: its range (min, max,
 * strict where minOpen / maxOpen; the implementation limit where the range is unbounded above;
 * the smallest and largest of an `allowed` list), its step ('any' where the table has none), the
 * help text (the parameter's description), its default, and the range as messages state it.
 */
export function numberSpec(name) {
  const p = parameter(name);
  const allowed = p.allowed.length ? p.allowed : null;
  return {
    min: allowed ? Math.min(...allowed) : (p.min ?? undefined),
    max: allowed ? Math.max(...allowed) : (p.max ?? p.limit ?? undefined),
    minOpen: p.minOpen,
    maxOpen: p.maxOpen,
    allowed: allowed ?? undefined,
    step: p.step ?? 'any',
    integer: p.kind === 'integer',
    help: `${p.description}.`,
    default: p.default,
    range: p.range,
  };
}

const orList = (xs) =>
  xs.length < 2 ? String(xs[0]) : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;

/**
 * Why a typed number is not acceptable for a spec ({ min, max, minOpen, maxOpen, allowed, step,
 * integer }, as numberSpec gives), in plain words naming it `noun`; null when it is.
 */
export function numberProblem(spec, text, noun) {
  const value = Number(text);
  if (String(text).trim() === '' || !Number.isFinite(value))
    return `Enter a number for the ${noun}.`;
  const whole = spec.integer || spec.step === 1 || spec.step === 2;
  if (whole && !Number.isInteger(value)) return `The ${noun} must be a whole number.`;
  if (spec.allowed && !spec.allowed.includes(value))
    return `The ${noun} must be ${orList(spec.allowed)}.`;
  if (spec.min !== undefined && (spec.minOpen ? value <= spec.min : value < spec.min))
    return `The ${noun} must be ${spec.minOpen ? 'more than' : 'at least'} ${spec.min}.`;
  if (spec.max !== undefined && (spec.maxOpen ? value >= spec.max : value > spec.max))
    return `The ${noun} must be ${spec.maxOpen ? 'less than' : 'at most'} ${spec.max}.`;
  if (spec.step === 2 && value % 2 !== 0) return `The ${noun} must be even.`;
  return null;
}
