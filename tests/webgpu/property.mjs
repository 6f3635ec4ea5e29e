// The WebGPU property: random shapes (n 1-300 with primes, head dims 2-256 that are not multiples
// of 4, 8 or 16 included), value scales 1e-3 to 1e3 of sin, xorshift or constant data, every
// scheme, every output, and several calls in flight at once, each checked against WASM within a
// bound derived from float32 rounding, plus invariants that need no reference (finite values,
// probabilities in [0, 1] whose rows sum to 1, exact zeros where the causal mask is). Shared by the
// Node (Dawn) child process and the Chromium page; `fc` is fast-check, passed in so that each
// environment loads it its own way.
import { SCHEMES } from './cases.mjs';

const EPS = 2 ** -23;
const PRIMES = [2, 3, 5, 7, 13, 17, 31, 61, 67, 127, 131, 251, 257, 263, 293, 509, 521, 691, 701];
// n past 256 crosses the last boundary, the softmax's 256-wide workgroup striding a row; longer
// rows only cost time on a software adapter (bench/webgpu-property.mjs runs n up to 700).
export const MAX_N = 300;
const WINDOWED = new Set(['rerope', 'leaky-rerope', 'self-extend', 'hirope']);

/** The data of one array: n * width values of a kind at a scale. */
export function data(kind, length, scale, seed) {
  const x = new Float32Array(length);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    if (kind === 'sin') x[i] = scale * Math.sin(i * 12.9898 + seed);
    else if (kind === 'constant') x[i] = scale * (seed % 2 ? 0.75 : -0.5);
    else {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      x[i] = scale * (((s >>> 0) / 2 ** 32) * 2 - 1);
    }
  }
  return x;
}

/** One case as plain data (printed by a failing run, so that it can be rerun as it is). */
export function caseArbitrary(fc, maxN = MAX_N) {
  return fc.record({
    n: fc.oneof(
      fc.integer({ min: 1, max: maxN }),
      fc.constantFrom(...PRIMES.filter((p) => p <= maxN)),
    ),
    headDim: fc.integer({ min: 1, max: 128 }).map((h) => 2 * h),
    heads: fc.integer({ min: 1, max: 2 }),
    scheme: fc.integer({ min: 0, max: SCHEMES.length - 1 }),
    output: fc.constantFrom('logits', 'probs', 'values'),
    causal: fc.boolean(),
    kind: fc.constantFrom('sin', 'xorshift', 'constant'),
    exponent: fc.integer({ min: -30, max: 30 }).map((e) => e / 10),
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    unitSize: fc.integer({ min: 1, max: 40 }),
    statementSize: fc.integer({ min: 1, max: 9 }),
  });
}

/** The attention arguments of a case. */
export function argsOf(c) {
  const entry = SCHEMES[c.scheme];
  const scheme = typeof entry === 'function' ? entry(c.headDim) : entry;
  const type = typeof scheme === 'string' ? scheme : scheme.type;
  const causal = WINDOWED.has(type) ? true : c.causal;
  const length = c.n * c.heads * c.headDim;
  const scale = 10 ** c.exponent;
  const token = Int32Array.from({ length: c.n }, (_, i) => i);
  const positions = {
    token,
    unit: token.map((t) => Math.floor(t / c.unitSize)),
    statement: token.map((t) => Math.floor(t / c.statementSize)),
  };
  return {
    n: c.n,
    headDim: c.headDim,
    heads: c.heads,
    scheme,
    output: c.output,
    causal,
    positions,
    q: data(c.kind, length, scale, c.seed),
    k: data(c.kind, length, scale, c.seed + 1),
    v: data(c.kind, length, scale, c.seed + 2),
  };
}

// Per head and token, the largest norm of the transformed vector over the scheme's branches.
function norms(hr, args, role) {
  const { n, headDim, heads } = args;
  const out = new Float64Array(heads * n);
  for (const branch of ['near', 'far']) {
    const y = hr.rotate({
      x: role === 'query' ? args.q : args.k,
      n,
      headDim,
      heads,
      scheme: args.scheme,
      positions: args.positions,
      role,
      branch,
    });
    for (let t = 0; t < n; t++) {
      for (let h = 0; h < heads; h++) {
        let s = 0;
        for (let d = 0; d < headDim; d++) s += y[(t * heads + h) * headDim + d] ** 2;
        out[h * n + t] = Math.max(out[h * n + t], Math.sqrt(s));
      }
    }
  }
  return out;
}

/**
 * Compares GPU output `got` with WASM's `want` for `args`; returns null or the first failure as a
 * sentence. The logit bound: each side's dot product of transformed vectors in float32 is off by at
 * most about (d + 4) eps |q~| |k~| (their coefficients and ALiBi's bias add a few eps more), so the
 * two differ by at most twice that; softmax turns a logit error e into a relative error of about 2e.
 */
export function compare(hr, args, want, got) {
  const { n, headDim, heads, output, causal } = args;
  if (!got || got.length !== want.length)
    return `length ${got ? got.length : got}, expected ${want.length}`;
  const Q = norms(hr, args, 'query');
  const K = norms(hr, args, 'key');
  const scale = 1 / Math.sqrt(headDim);
  const alibi = (typeof args.scheme === 'string' ? args.scheme : args.scheme.type) === 'alibi';
  const logitError = (h, i, j) =>
    4 * (headDim + 8) * EPS * scale * Q[h * n + i] * K[h * n + j] + (alibi ? 4 * EPS * n : 0);
  const rowError = (h, i) => {
    let m = 0;
    for (let j = 0; j < n; j++) m = Math.max(m, logitError(h, i, j));
    return m;
  };
  for (let i = 0; i < got.length; i++) {
    if (Number.isNaN(got[i]) || (output !== 'logits' && !Number.isFinite(got[i])))
      return `element ${i} is ${got[i]}`;
  }
  if (output === 'values') {
    const width = heads * headDim;
    for (let t = 0; t < n; t++) {
      for (let h = 0; h < heads; h++) {
        let vmax = 0;
        for (let j = 0; j < n; j++)
          for (let d = 0; d < headDim; d++)
            vmax = Math.max(vmax, Math.abs(args.v[j * width + h * headDim + d]));
        const tol = (1e-4 + 4 * rowError(h, t) + 8 * n * EPS) * vmax;
        for (let d = 0; d < headDim; d++) {
          const at = t * width + h * headDim + d;
          if (!(Math.abs(got[at] - want[at]) <= tol))
            return `out[${t}, head ${h}, ${d}] = ${got[at]}, WASM ${want[at]}, bound ${tol}`;
        }
      }
    }
    return null;
  }
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < n; i++) {
      const row = h * n * n + i * n;
      const re = output === 'probs' ? rowError(h, i) : 0;
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const w = want[row + j],
          g = got[row + j];
        const masked = causal && j > i;
        if (output === 'logits') {
          if (w === g) continue; // the mask's -Infinity on both sides
          const tol = 2 * logitError(h, i, j) + 1e-5 * (1 + Math.abs(w));
          if (!(Math.abs(g - w) <= tol))
            return `logit[${h}, ${i}, ${j}] = ${g}, WASM ${w}, bound ${tol}`;
          continue;
        }
        if (masked && g !== 0) return `prob[${h}, ${i}, ${j}] = ${g} under the causal mask`;
        if (!(g >= 0 && g <= 1)) return `prob[${h}, ${i}, ${j}] = ${g} outside [0, 1]`;
        sum += g;
        const tol = 1e-4 + 4 * re + 16 * EPS;
        if (!(Math.abs(g - w) <= tol))
          return `prob[${h}, ${i}, ${j}] = ${g}, WASM ${w}, bound ${tol}`;
      }
      if (output === 'probs' && !(Math.abs(sum - 1) <= 1e-4 + n * 4 * EPS))
        return `row ${i} of head ${h} sums to ${sum}`;
    }
  }
  return null;
}

/**
 * Runs cases on `hr` (init({ backend: 'webgpu' })): all of them in flight at once, then each
 * checked against WASM. A case WASM refuses must be refused the same way. `log` sees each case
 * before it runs, so that a crash leaves the last one printed.
 */
export async function runCases(hr, cases, log = () => {}) {
  for (const c of cases) log(c);
  const prepared = cases.map((c) => ({ c, args: argsOf(c) }));
  for (const p of prepared) {
    try {
      p.want = hr.attention(p.args);
    } catch (e) {
      p.refused = e;
    }
  }
  const settled = await Promise.allSettled(prepared.map((p) => hr.attentionAsync(p.args)));
  if (hr.attentionBackend !== 'webgpu') return `the backend fell back to ${hr.attentionBackend}`;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i],
      s = settled[i];
    const where = `case ${JSON.stringify(p.c)}`;
    if (p.refused) {
      if (
        s.status !== 'rejected' ||
        s.reason.name !== 'HiRoPEError' ||
        s.reason.message !== p.refused.message
      ) {
        return `${where}: WASM refused it (${p.refused.message}) but WebGPU gave ${s.status === 'rejected' ? s.reason : 'a result'}`;
      }
      continue;
    }
    if (s.status === 'rejected') return `${where}: rejected with ${s.reason?.stack || s.reason}`;
    const failure = compare(hr, p.args, p.want, s.value);
    if (failure) return `${where}: ${failure}`;
  }
  return null;
}

/** A case for the lost-device checks. */
export const LOST_CASE = Object.freeze({
  n: 97,
  headDim: 40,
  heads: 2,
  scheme: 0,
  output: 'probs',
  causal: true,
  kind: 'sin',
  exponent: 0,
  seed: 5,
  unitSize: 7,
  statementSize: 3,
});

/**
 * Destroys hr's device while a call is queued on it; that call must fall back to WASM with WASM's
 * result. Returns the case's arguments and that result, for further checks.
 */
export async function loseDeviceMidCall(hr) {
  const args = argsOf(LOST_CASE);
  const want = hr.attention(args);
  const call = hr.attentionAsync(args); // its work is queued on the GPU; the device goes now
  hr._attention.gpu.device.destroy();
  const got = await call;
  if (hr.attentionBackend !== 'wasm')
    throw new Error(`backend is ${hr.attentionBackend} after the device was lost`);
  if (got.length !== want.length || got.some((x, i) => !(x === want[i])))
    throw new Error('the fallback result differs from WASM');
  return { args, want };
}

/** The property over single calls and groups of calls in flight at once, n up to maxN. */
export function property(fc, hr, log, maxN = MAX_N) {
  return fc.asyncProperty(
    fc.array(caseArbitrary(fc, maxN), { minLength: 1, maxLength: 3 }),
    async (cases) => {
      const failure = await runCases(hr, cases, log);
      if (failure) throw new Error(failure);
    },
  );
}
