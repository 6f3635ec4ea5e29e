// The error type and the small argument helpers shared by the JS API modules. Internal: the entry
// points re-export HiRoPEError only.

/** Error thrown for every invalid argument or failed computation. */
export class HiRoPEError extends Error {
  constructor(message) {
    super(message);
    this.name = 'HiRoPEError';
  }
}

export const fail = (message) => {
  throw new HiRoPEError(message);
};

/** A value as an error message names it ('an array', 'a Float32Array', "'text'", ...). */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'string') return `'${value}'`;
  return typeof value === 'object' ? 'an object' : String(value);
}

/** Names as a message lists them: "'a', 'b' or 'c'". */
export function orList(names) {
  const quoted = names.map((n) => `'${n}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** 0, 1, ..., n - 1 (token positions). */
export function iota(n) {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** An integer count in [min, max], named in the message. */
export function checkCount(value, name, { min = 1, max = Infinity } = {}) {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(`${name} must be an integer, got ${describe(value)}`);
  if (value < min) fail(`${name} must be at least ${min}, got ${value}`);
  if (value > max) fail(`${name} must be at most ${max}, got ${value}`);
  return value;
}

/** A Float32Array of exactly `length` values (`shape` says how the length is made). */
export function checkFloat32(value, name, length, shape) {
  if (!(value instanceof Float32Array)) fail(`${name} must be a Float32Array, got ${describe(value)}`);
  if (value.length !== length) fail(`${name} has length ${value.length}, expected ${shape} = ${length}`);
  return value;
}
