// Every JS test runs against both WASM builds, the way sql.js runs one suite per variant.
import init from '../../dist/index.js';

export const BUILDS = [
  { name: 'wasm-simd', simd: true },
  { name: 'wasm-scalar', simd: false },
];

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

export function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
  }
  return worst;
}
