// Every JS test runs against both WASM builds, the way sql.js runs one suite per variant.
import assert from 'node:assert/strict';
import init from '../../../dist/index.js';

// HIROPE_BUILDS=wasm-simd (npm run test:quick) runs one build; npm test always runs both.
const ALL_BUILDS = [
  { name: 'wasm-simd', simd: true },
  { name: 'wasm-scalar', simd: false },
];
const only = process.env.HIROPE_BUILDS?.split(',').filter(Boolean);
export const BUILDS = only ? ALL_BUILDS.filter((b) => only.includes(b.name)) : ALL_BUILDS;
if (BUILDS.length === 0)
  throw new Error(`HIROPE_BUILDS names no build (${ALL_BUILDS.map((b) => b.name).join(', ')})`);

const cache = new Map();
export function load(simd) {
  if (!cache.has(simd)) cache.set(simd, init({ simd }));
  return cache.get(simd);
}

// Deterministic pseudo-random floats in [-1, 1) that do not come from the library.
export function lcg(count, seed) {
  const out = new Float32Array(count);
  let x = seed >>> 0;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x / 2 ** 31 - 1;
  }
  return out;
}

export function range(n) {
  return Int32Array.from({ length: n }, (_, i) => i);
}

// The largest |a[i] - b[i]| over two arrays of the same length (issue 35). A length mismatch
// throws (a truncated or empty result must not compare as 0); a NaN in either array gives NaN, so
// `maxAbsDiff(...) < tol` fails; equal infinities (masked logits) count as 0, unequal ones as
// Infinity.
export function maxAbsDiff(a, b) {
  if (a?.length === undefined || b?.length === undefined)
    throw new TypeError(`maxAbsDiff: not arrays (${typeof a}, ${typeof b})`);
  if (a.length !== b.length)
    throw new RangeError(`maxAbsDiff: lengths differ (${a.length} vs ${b.length})`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) return NaN;
    if (a[i] === b[i]) continue;
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

// Asserts that two arrays have the same length, no NaN, and differ by at most tol everywhere.
export function assertClose(a, b, tol, what = '') {
  const d = maxAbsDiff(a, b);
  if (!(d <= tol))
    throw new assert.AssertionError({
      message: `${what ? what + ': ' : ''}max |difference| ${d} is not within ${tol}`,
      actual: d,
      expected: tol,
      operator: '<=',
    });
}
