// A side's attention matrix without the matrix: the playground keeps the arguments of its
// attention call (q, k, positions, scheme) and recomputes the rows a request needs, strip by
// strip, in the core (hr.attention({ rows })): one row for a hover or a click, a region's rows for
// CSV export and zoom, every row once for the per-row numbers and the A vs B comparison. At
// 2,000 tokens a strip of rows is ~1 MB where the matrix was 16 MB, copied out of WebAssembly
// memory on every slider move.
import { rowStats, compareRows } from './attention-numbers.js';
import { positionsFor } from './attention-views.js';

/** Floats per strip of rows (as the core's own strips: 4 MB). */
export const STRIP_FLOATS = 1 << 20;

/** Rows r0 .. r1-1 of the probability matrix that `args` (an hr.attention call) describes. */
export function attentionRows(hr, args, r0, r1) {
  return hr.attention({ ...args, output: 'probs', rows: [r0, r1] });
}

/**
 * The calls of schemes.a and schemes.b, from `args` (side's call) with the other's scheme and
 * extras (a real model's layer: mask, sinks, temperature, scale, softcap; model-sides.js).
 */
export function bothCalls(args, schemes, side, positions, extras = { a: {}, b: {} }) {
  const call = (s) => {
    if (s === side) return args;
    const { mask, sinks, temperature, scale, softcap, ...rest } = args;
    return {
      ...rest,
      scheme: schemes[s],
      positions: positionsFor(schemes[s], positions),
      ...extras[s],
    };
  };
  return { a: call('a'), b: call('b') };
}

/** Calls fn(strip, s0, s1) for strips of rows covering r0 .. r1-1, each computed by the core. */
export function eachStrip(hr, args, r0, r1, fn) {
  const step = Math.max(1, Math.floor(STRIP_FLOATS / args.n));
  for (let s0 = r0; s0 < r1; s0 += step) {
    const s1 = Math.min(r1, s0 + step);
    fn(attentionRows(hr, args, s0, s1), s0, s1);
  }
}

/** The per-row numbers (rowStats) of the matrix that `args` describes, strip by strip. */
export function stripStats(hr, args, positions) {
  const n = args.n;
  const out = { own: new Float32Array(n), distance: new Float32Array(n) };
  eachStrip(hr, args, 0, n, (strip, s0, s1) =>
    rowStats(strip, n, positions.unit, positions.token, s0, s1, out),
  );
  return out;
}

/**
 * TV and KL (compareRows) and both sides' per-row numbers (rowStats) for query rows r0 .. r1-1
 * of the two matrices that argsA and argsB describe, both recomputed here strip by strip:
 * { rows: [r0, r1], tv, kl, sides: { a: { own, distance }, b } }, arrays of r1 - r0 rows.
 */
export function compareStrips(hr, argsA, argsB, positions, r0, r1) {
  const n = argsA.n;
  const whole = () => ({ own: new Float32Array(n), distance: new Float32Array(n) });
  const sides = { a: whole(), b: whole() };
  const cmp = { tv: new Float32Array(n), kl: new Float32Array(n) };
  const { unit, token } = positions;
  eachStrip(hr, argsB, r0, r1, (b, s0, s1) => {
    const a = attentionRows(hr, argsA, s0, s1);
    compareRows(a, b, n, s0, s1, cmp);
    rowStats(a, n, unit, token, s0, s1, sides.a);
    rowStats(b, n, unit, token, s0, s1, sides.b);
  });
  const part = (x) => x.slice(r0, r1);
  return {
    rows: [r0, r1],
    tv: part(cmp.tv),
    kl: part(cmp.kl),
    sides: {
      a: { own: part(sides.a.own), distance: part(sides.a.distance) },
      b: { own: part(sides.b.own), distance: part(sides.b.distance) },
    },
  };
}

/**
 * Where to split rows 0 .. n-1 of a causal matrix so that both parts cost about the same (the
 * work of row i grows with i): n / sqrt(2).
 */
export function balancedSplit(n) {
  return Math.max(0, Math.min(n, Math.round(n / Math.SQRT2)));
}
