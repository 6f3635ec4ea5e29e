// The error type and the small argument helpers shared by the JS API modules (api.js, model.js).
// Internal: the entry points re-export HiRoPEError only.

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

/** 0, 1, ..., n - 1 (token positions). */
export function iota(n) {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}
