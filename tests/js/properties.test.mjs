// Property-based tests (fast-check, fixed seed, bounded runs): random valid and invalid arguments
// to the API of both builds. Every call either returns a result of the right shape or throws a
// HiRoPEError, never another error; the WASM heap is back at its level after each property; and
// on valid attention arguments the SIMD, scalar and reference kernels agree.
//
// Invalid arguments come from the core's own scheme catalogue (hr.catalogue): values in and out of
// each parameter's range, wrong types, unknown keys, null, Proxies and getters that mutate the
// object they sit on or resize the buffer of another argument while the call reads its options.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HiRoPEError } from '../../dist/index.js';
import { utf8Length } from '../../dist/marshal.js';
import { BUILDS, load, lcg, range, maxAbsDiff } from './support/both-builds.mjs';

// A fixed seed; FC_SEED=n explores others (a failure prints the seed and path to replay it).
const SEED = process.env.FC_SEED === undefined ? 0x5eed : Number(process.env.FC_SEED);
const runs = (numRuns) => ({ seed: SEED, numRuns, endOnFailure: true, includeErrorInReport: true });

// Results and HiRoPEErrors seen by the property running now: each must see enough of both.
let tally = { value: 0, error: 0 };
function startTally() {
  tally = { value: 0, error: 0 };
}
function expectBoth(minFraction = 0.1) {
  console.log(`# ${tally.value} results, ${tally.error} HiRoPEErrors`);
  const total = tally.value + tally.error;
  assert.ok(
    tally.value >= minFraction * total && tally.error >= minFraction * total,
    `results ${tally.value}, errors ${tally.error}`,
  );
  tally = { value: 0, error: 0 };
}

/** fn() as { value } or { error } (a HiRoPEError); any other error fails the property. */
function outcome(fn) {
  try {
    const value = fn();
    tally.value++;
    return { value };
  } catch (e) {
    if (!(e instanceof HiRoPEError))
      throw new Error(`expected a result or a HiRoPEError, got ${e?.name}: ${e?.message}`, {
        cause: e,
      });
    tally.error++;
    return { error: e };
  }
}

// Shapes kept small: every property runs in well under a second per hundred cases.
const MAX_N = 24;
const shapeArb = fc.record({
  n: fc.integer({ min: 1, max: MAX_N }),
  headDim: fc.integer({ min: 1, max: 16 }).map((h) => 2 * h),
  heads: fc.integer({ min: 1, max: 3 }),
});

// Values that are wrong for most options, and a few that are right for some.
const JUNK = [
  null,
  0,
  -1,
  1.5,
  NaN,
  Infinity,
  -Infinity,
  2 ** 31,
  4294967298,
  -(2 ** 40),
  2 ** 53,
  '',
  'x',
  '__proto__',
  'constructor',
  'toString',
  true,
  false,
  [],
  [1, 2],
  {},
  () => 1,
  Symbol('s'),
  10n,
  new Float32Array(3),
  new Int32Array(4),
  new Float64Array(2),
  new Uint8Array(2),
  new DataView(new ArrayBuffer(4)),
  new ArrayBuffer(8),
  new Proxy([0, 1], {}),
  new Proxy({}, {}),
];
const junkArb = fc.constantFrom(...JUNK);
/** Mostly null, sometimes a value of `arb`. */
const sometimes = (arb) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
/** Mostly `arb`, sometimes junk. */
const mostly = (arb, junk = junkArb) =>
  fc.oneof({ weight: 6, arbitrary: arb }, { weight: 1, arbitrary: junk });

/** A Float32Array of values in [-scale, scale), on a resizable buffer when asked. */
function floats(count, seed, { scale = 1, resizable = false, abs = false } = {}) {
  const data = lcg(count, seed).map((x) => (abs ? Math.abs(x) : x) * scale);
  if (!resizable) return data;
  const out = new Float32Array(new ArrayBuffer(count * 4, { maxByteLength: count * 8 }));
  out.set(data);
  return out;
}

/** Non-decreasing unit (or statement) indices for n tokens, from a seed. */
function blocks(n, seed, every) {
  const out = new Int32Array(n);
  let x = seed >>> 0,
    u = 0;
  for (let i = 1; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    if (x % every === 0) u++;
    out[i] = u;
  }
  return out;
}

// A getter for obj[key] that runs `effect` each time it is read and returns the value it had.
function withGetter(obj, key, effect) {
  const value = obj[key];
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      effect(obj);
      return value;
    },
  });
  return obj;
}

// The ways an options object can be handed over: as it is, through a Proxy that counts reads,
// with a getter that changes another key, deletes itself, or resizes a buffer of the call.
const wrapperArb = fc.record({
  kind: fc.constantFrom(
    'plain',
    'plain',
    'plain',
    'plain',
    'plain',
    'proxy',
    'getter-mutates',
    'getter-resizes',
    'getter-varies',
  ),
  pick: fc.nat(),
  other: fc.nat(),
  bytes: fc.nat({ max: 4096 }),
  junk: junkArb,
});

// Objects whose getters change what they give (marked by wrap): each call may see another value.
const STATEFUL = Symbol('stateful');
const stateful = (x) => x !== null && typeof x === 'object' && x[STATEFUL] === true;

// `state.resized` turns true when a getter changed the length of one of `buffers`: the call must
// then see the new length (all options are read before anything is checked) and fail.
function wrap(obj, w, buffers = [], state = {}) {
  const keys = Object.keys(obj);
  if (!keys.length || w.kind === 'plain') return obj;
  if (w.kind !== 'proxy') Object.defineProperty(obj, STATEFUL, { value: true });
  const key = keys[w.pick % keys.length];
  const other = keys[w.other % keys.length];
  switch (w.kind) {
    case 'proxy':
      return new Proxy(obj, {});
    case 'getter-mutates':
      return withGetter(obj, key, (o) => {
        if (other !== key) o[other] = w.junk;
      });
    case 'getter-resizes':
      return withGetter(obj, key, () => {
        for (const b of buffers) {
          if (!b.resizable) continue;
          const before = b.byteLength;
          b.resize(Math.min(b.maxByteLength, w.bytes * 4));
          if (b.byteLength !== before) state.resized = true;
        }
      });
    case 'getter-varies': {
      // A value that changes on every read: the first read is the one that counts.
      let reads = 0;
      const value = obj[key];
      Object.defineProperty(obj, key, {
        enumerable: true,
        get: () => (reads++ === 0 ? value : w.junk),
      });
      return obj;
    }
    default:
      return obj;
  }
}

// ----- schemes from the catalogue -----

function validValue(p, v) {
  switch (p.kind) {
    case 'enum':
      return fc.constantFrom(...v[p.values].map((e) => e.name));
    case 'boolean':
      return fc.boolean();
    case 'list':
      return fc.array(fc.double({ min: 0.5, max: 4, noNaN: true }), {
        minLength: 1,
        maxLength: 16,
      });
    case 'integer': {
      if (p.allowed.length) return fc.constantFrom(...p.allowed);
      const lo = p.min === null ? -100 : p.minOpen ? p.min + 1 : p.min;
      return fc.integer({ min: lo, max: p.max === null ? lo + 600 : p.max });
    }
    default: {
      if (p.allowed.length) return fc.constantFrom(...p.allowed);
      const lo = p.min === null ? -100 : p.min;
      const hi = p.max === null ? Math.max(lo, 1) * 1000 : p.max;
      return fc.double({
        min: lo,
        max: hi,
        noNaN: true,
        minExcluded: p.minOpen,
        maxExcluded: p.maxOpen,
      });
    }
  }
}

function invalidValue(p) {
  const near = p.min === null ? [] : [p.min - 1, p.min, p.min - 1e-9];
  const far = p.max === null ? [] : [p.max + 1, p.max + 1e-9];
  const huge =
    p.kind === 'list' ? [new Array(1e6), new Float64Array(4096), [NaN, 1], ['a'], [1, null]] : [];
  return fc.constantFrom(...near, ...far, ...huge, ...JUNK);
}

const valueArb = (p, v) =>
  fc.oneof({ weight: 15, arbitrary: validValue(p, v) }, { weight: 1, arbitrary: invalidValue(p) });

function scalingArb(v) {
  const byName = new Map(v.scalingParameters.map((p) => [p.name, p]));
  return fc.constantFrom(...v.scalings).chain((s) =>
    fc
      .record({
        fields: fc.record(
          Object.fromEntries(s.parameters.map((name) => [name, valueArb(byName.get(name), v)])),
          { requiredKeys: [] },
        ),
        unknown: sometimes(
          fc.constantFrom('bogus', 'windw', ...v.scalingParameters.map((p) => p.name)),
        ),
        alias: fc.constantFrom(s.name, ...s.aliases),
        wrapper: wrapperArb,
      })
      .map(({ fields, unknown, alias, wrapper }) => {
        const o = { type: alias, ...fields };
        if (s.parameters.includes('originalLength') && o.originalLength === undefined)
          o.originalLength = 8;
        if (s.parameters.includes('factor') && o.factor === undefined) o.factor = 2;
        if (unknown !== null) o[unknown] = 1;
        return wrap(o, wrapper);
      }),
  );
}

/** Scheme arguments from the catalogue: mostly valid, many not; objects, names and junk. */
function schemeArb(v) {
  const byName = new Map(v.parameters.map((p) => [p.name, p]));
  const objectArb = fc.constantFrom(...v.schemes).chain((s) =>
    fc
      .record({
        fields: fc.record(
          Object.fromEntries(
            s.parameters.map((name) => [
              name,
              name === 'scaling'
                ? fc.oneof(
                    { weight: 6, arbitrary: scalingArb(v) },
                    { weight: 1, arbitrary: junkArb },
                  )
                : valueArb(byName.get(name), v),
            ]),
          ),
          { requiredKeys: [] },
        ),
        unknown: sometimes(
          fc.constantFrom('bogus', '__proto__', ...v.parameters.map((p) => p.name)),
        ),
        wrapper: wrapperArb,
      })
      .map(({ fields, unknown, wrapper }) => {
        const o = { type: s.name, ...fields };
        if (stateful(fields.scaling)) Object.defineProperty(o, STATEFUL, { value: true });
        if (unknown !== null)
          Object.defineProperty(o, unknown, {
            value: 1,
            enumerable: true,
            configurable: true,
            writable: true,
          });
        return wrap(o, wrapper);
      }),
  );
  return fc.oneof(
    { weight: 8, arbitrary: objectArb },
    { weight: 2, arbitrary: fc.constantFrom(...v.schemes.map((s) => s.name)) },
    { weight: 1, arbitrary: junkArb },
  );
}

// Schemes every kernel computes (for the agreement property), with the positions they need.
const GOOD_SCHEMES = [
  'nope',
  'sinusoidal',
  'rope',
  'xpos',
  'alibi',
  { type: 'rope', layout: 'interleaved', base: 500 },
  { type: 'rope', rotaryFraction: 0.5 },
  { type: 'rope', scaling: { type: 'yarn', factor: 4, originalLength: 8 } },
  { type: 'rope', scaling: { type: 'linear', factor: 2 } },
  { type: 'rope', scaling: { type: 'llama3', factor: 8, originalLength: 16 } },
  { type: 'rerope', window: 4 },
  { type: 'leaky-rerope', window: 3, leakyFactor: 4 },
  { type: 'self-extend', window: 4, group: 3 },
  { type: 'hirope', window: 4, ratio: 0.5 },
  { type: 'hirope', window: 2, levels: 3, ratio: 0.5 },
  { type: 'hirope', window: 3, segmentSize: 5 },
];
const goodSchemeArb = fc.constantFrom(...GOOD_SCHEMES.keys());

/** Valid attention arguments: shape, scheme, positions, q, k, v. */
const attentionArb = fc.record({
  // headDim >= 4: rotaryFraction 0.5 must leave a pair to rotate.
  shape: fc.record({
    n: fc.integer({ min: 1, max: MAX_N }),
    headDim: fc.integer({ min: 2, max: 16 }).map((h) => 2 * h),
    heads: fc.integer({ min: 1, max: 3 }),
  }),
  scheme: goodSchemeArb,
  seed: fc.nat({ max: 1 << 20 }),
  scale: fc.constantFrom(1, 3),
  causal: fc.boolean(),
  output: fc.constantFrom('probs', 'probs', 'logits', 'values'),
  every: fc.integer({ min: 1, max: 6 }),
});

function attentionArgs(
  { shape: { n, headDim, heads }, scheme: index, seed, scale, causal, output, every },
  { resizable = false } = {},
) {
  const scheme = GOOD_SCHEMES[index];
  const windowed =
    typeof scheme === 'object' &&
    ['rerope', 'leaky-rerope', 'self-extend', 'hirope'].includes(scheme.type);
  const count = n * heads * headDim;
  const args = {
    q: floats(count, seed, { scale, resizable }),
    k: floats(count, seed + 1, { scale, resizable }),
    v: floats(count, seed + 2, { resizable }),
    n,
    headDim,
    heads,
    scheme,
    output,
    causal: windowed || causal,
  };
  if (scheme.type === 'hirope' && !scheme.segmentSize) {
    args.positions = { token: range(n), unit: blocks(n, seed, every) };
    if (scheme.levels === 3)
      args.positions.statement = blocks(n, seed + 7, Math.max(1, every >> 1)).map((s, i) =>
        Math.max(s, args.positions.unit[i]),
      );
  }
  return args;
}

function attentionLength(args) {
  const { n, headDim, heads } = args;
  return args.output === 'values' ? n * heads * headDim : heads * n * n;
}

describe('properties', () => {
  const builds = {};
  const level = {};

  before(async () => {
    for (const b of BUILDS) {
      const hr = await load(b.simd);
      await hr.loadTokenizer('cl100k');
      // Every grammar in ahead: a grammar's first load links its side module into the heap
      // once (wasm/grammars.js), which is a cache, not a leak.
      for (const language of hr.languages) await hr.loadLanguage(language);
      builds[b.name] = hr;
      // Warm-up at the largest sizes the properties draw, then the heap's level.
      for (const output of ['probs', 'logits', 'values']) {
        const args = attentionArgs({
          shape: { n: MAX_N, headDim: 32, heads: 3 },
          scheme: GOOD_SCHEMES.length - 2,
          seed: 1,
          scale: 1,
          causal: true,
          output,
          every: 3,
        });
        hr.attention(args);
        hr.attention({ ...args, kernel: 'reference' });
        hr.rotate({
          x: args.q,
          n: MAX_N,
          headDim: 32,
          heads: 3,
          scheme: args.scheme,
          positions: args.positions,
        });
        hr.relativeDistances({
          n: MAX_N,
          headDim: 32,
          scheme: args.scheme,
          positions: args.positions,
        });
      }
      hr.pool({ matrix: new Float32Array(MAX_N * MAX_N), n: MAX_N, rows: MAX_N, cols: MAX_N });
      for (const tokenizer of ['lexical', 'cl100k'])
        hr.analyze('def f(x):\n  return "é🙂"\n'.repeat(20), { language: 'python', tokenizer });
      hr.encode('x = "é🙂"\n'.repeat(40));
      level[b.name] = hr.heapBytes();
    }
  });

  const heapBack = () => {
    // (and the tally of results and errors starts afresh for the next property)
    for (const [name, hr] of Object.entries(builds))
      assert.equal(hr.heapBytes(), level[name], `${name}: the heap grew`);
  };

  it('attention: the SIMD, scalar and reference kernels agree on valid arguments', () => {
    const simd = builds['wasm-simd'],
      scalar = builds['wasm-scalar'];
    startTally();
    fc.assert(
      fc.property(attentionArb, fc.boolean(), (a, resizable) => {
        const args = attentionArgs({ ...a, output: 'probs' }, { resizable });
        const fast = simd.attention(args);
        const scalarFast = scalar.attention(args);
        const reference = simd.attention({ ...args, kernel: 'reference' });
        assert.equal(fast.length, attentionLength(args));
        assert.ok(
          maxAbsDiff(fast, scalarFast) <= 2e-5,
          `simd vs scalar ${maxAbsDiff(fast, scalarFast)}`,
        );
        assert.ok(
          maxAbsDiff(fast, reference) <= 2e-5,
          `tiled vs reference ${maxAbsDiff(fast, reference)}`,
        );
        // Rows of probabilities sum to 1.
        const { n, heads } = args;
        for (let r = 0; r < heads * n; r++) {
          let sum = 0;
          for (let c = 0; c < n; c++) sum += fast[r * n + c];
          assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r} sums to ${sum}`);
        }
      }),
      runs(400),
    );
    heapBack();
  });

  it('attention: random valid and invalid arguments give a result of the right shape or a HiRoPEError', () => {
    const keys = [
      'q',
      'k',
      'v',
      'n',
      'headDim',
      'heads',
      'scheme',
      'output',
      'causal',
      'scale',
      'kernel',
      'positions',
      'out',
      'pool',
      'bogus',
    ];
    const mutationArb = fc.record({
      key: fc.constantFrom(...keys),
      value: junkArb,
      remove: fc.boolean(),
    });
    startTally();
    fc.assert(
      fc.property(
        attentionArb,
        fc.array(mutationArb, { maxLength: 2 }),
        wrapperArb,
        fc.boolean(),
        fc.constantFrom(...BUILDS.map((b) => b.name)),
        (a, mutations, wrapper, withPool, build) => {
          const hr = builds[build];
          const args = attentionArgs(a, { resizable: true });
          if (withPool && args.output === 'probs' && args.heads === 1) {
            const rows = 1 + (a.seed % args.n),
              cols = 1 + ((a.seed >> 3) % args.n);
            args.pool = {
              rows,
              cols,
              ratio: new Float32Array(rows * cols),
              raw: new Float32Array(rows * cols),
            };
          }
          for (const m of mutations) {
            if (m.remove) delete args[m.key];
            else args[m.key] = m.value;
          }
          const buffers = [args.q, args.k, args.v]
            .filter((x) => x instanceof Float32Array)
            .map((x) => x.buffer);
          const state = {};
          const r = outcome(() => hr.attention(wrap(args, wrapper, buffers, state)));
          if (state.resized)
            assert.ok(r.error, 'q, k or v was resized by a getter, and the call did not see it');
          if (r.value !== undefined) {
            assert.ok(r.value instanceof Float32Array);
            // The shape the arguments ask for (heads x n x n, or n x heads x headDim with v), where
            // no getter changed them during the call; output defaults to values with v, heads to 1.
            const want = stateful(args)
              ? null
              : attentionLength({
                  n: args.n,
                  headDim: args.headDim,
                  heads: args.heads ?? 1,
                  output: args.output ?? (args.v === undefined ? 'probs' : 'values'),
                });
            if (want === null) assert.ok(r.value.length > 0);
            else
              assert.equal(
                r.value.length,
                want,
                JSON.stringify({
                  n: args.n,
                  headDim: args.headDim,
                  heads: args.heads,
                  output: args.output,
                  v: args.v?.length,
                }),
              );
          }
        },
      ),
      runs(1000),
    );
    heapBack();
    expectBoth();
  });

  it('rotate and relativeDistances: schemes from the catalogue, valid or not', () => {
    const v = builds['wasm-simd'].catalogue;
    const roleArb = mostly(fc.constantFrom(...v.roles.map((e) => e.name)));
    const branchArb = mostly(fc.constantFrom(...v.branches.map((e) => e.name)));
    startTally();
    fc.assert(
      fc.property(
        shapeArb,
        schemeArb(v),
        roleArb,
        branchArb,
        fc.nat(),
        fc.boolean(),
        wrapperArb,
        (shape, scheme, role, branch, seed, units, wrapper) => {
          const { n, headDim, heads } = shape;
          const positions = units
            ? { token: range(n), unit: blocks(n, seed, 4), statement: blocks(n, seed, 2) }
            : undefined;
          for (const hr of Object.values(builds)) {
            const x = floats(n * heads * headDim, seed, { resizable: seed % 2 === 0 });
            const state = {};
            const args = wrap(
              { x, n, headDim, heads, scheme, role, branch, positions },
              wrapper,
              [x.buffer],
              state,
            );
            const r = outcome(() => hr.rotate(args));
            if (state.resized)
              assert.ok(r.error, 'x was resized by a getter, and the call did not see it');
            if (r.value !== undefined) {
              assert.ok(r.value instanceof Float32Array);
              assert.equal(r.value.length, n * heads * headDim);
            }
            const d = outcome(() => hr.relativeDistances({ n, headDim, scheme, positions }));
            if (d.value !== undefined) {
              assert.ok(Array.isArray(d.value) && d.value.length >= 1);
              for (const band of d.value) assert.equal(band.distances.length, n * n);
            }
          }
        },
      ),
      runs(600),
    );
    heapBack();
    expectBoth();
  });

  it('inverseFrequencies and attentionFactor: schemes from the catalogue, headDim and seqLen', () => {
    const v = builds['wasm-simd'].catalogue;
    const headDimArb = mostly(fc.integer({ min: 1, max: 64 }).map((h) => 2 * h));
    const optionsArb = fc.oneof(
      fc.constant(undefined),
      fc.record({ seqLen: mostly(fc.integer({ min: 1, max: 1 << 20 })) }, { requiredKeys: [] }),
      junkArb,
    );
    startTally();
    fc.assert(
      fc.property(schemeArb(v), headDimArb, optionsArb, (scheme, headDim, options) => {
        const results = Object.values(builds).map((hr) =>
          outcome(() => hr.inverseFrequencies(scheme, headDim, options)),
        );
        const factors = Object.values(builds).map((hr) =>
          outcome(() => hr.attentionFactor(scheme, headDim, options)),
        );
        // (Values are the core's: extreme parameters in range, such as an NTK factor of 1e-300,
        // give non-finite frequencies, so only the shape is checked here.)
        // NoPE (a real model's NoPE layer, as it is) has no frequencies and a factor of 1.
        // (A stateful scheme's getters may read 'nope' when hirope reads them.)
        const nope = (typeof scheme === 'string' ? scheme : scheme?.type) === 'nope';
        const maybeNope = nope || stateful(scheme);
        for (const r of results) {
          if (r.value === undefined) continue;
          assert.ok(r.value instanceof Float64Array);
          assert.ok(r.value.length >= (maybeNope ? 0 : 1) && r.value.length <= headDim / 2);
          if (nope && !stateful(scheme)) assert.equal(r.value.length, 0);
        }
        for (const f of factors) if (f.value !== undefined) assert.equal(typeof f.value, 'number');
        // Both builds compute the same frequencies (no kernel involved), or fail alike.
        if (stateful(scheme) || stateful(options)) return;
        assert.equal(results[0].value === undefined, results[1].value === undefined);
        if (results[0].value) assert.deepEqual(results[0].value, results[1].value);
      }),
      runs(800),
    );
    heapBack();
    expectBoth(0.05); // sinusoidal and alibi have no rotary frequencies: errors by design
  });

  it('pool: grids and regions, valid or not', () => {
    // Mostly a valid region and grid for n, sometimes anything.
    const caseArb = fc.integer({ min: 1, max: MAX_N }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        rowSpan: fc.tuple(fc.nat({ max: n - 1 }), fc.nat({ max: n - 1 })),
        colSpan: fc.tuple(fc.nat({ max: n - 1 }), fc.nat({ max: n - 1 })),
        whole: fc.boolean(),
        rows: fc.nat(),
        cols: fc.nat(),
        badRegion: sometimes(
          fc.oneof(
            fc.record({
              r0: fc.integer({ min: -1, max: MAX_N }),
              r1: fc.nat({ max: MAX_N + 1 }),
              c0: fc.nat({ max: MAX_N }),
              c1: fc.nat({ max: MAX_N + 1 }),
            }),
            junkArb,
          ),
        ),
        badGrid: sometimes(
          fc.tuple(
            mostly(fc.integer({ min: 0, max: MAX_N + 2 })),
            mostly(fc.integer({ min: 0, max: MAX_N + 2 })),
          ),
        ),
      }),
    );
    startTally();
    fc.assert(
      fc.property(
        caseArb,
        mostly(fc.boolean()),
        wrapperArb,
        fc.nat(),
        (c, causal, wrapper, seed) => {
          const { n } = c;
          const [r0, r1] = [Math.min(...c.rowSpan), Math.max(...c.rowSpan) + 1];
          const [c0, c1] = [Math.min(...c.colSpan), Math.max(...c.colSpan) + 1];
          const region = c.badRegion ?? (c.whole ? undefined : { r0, r1, c0, c1 });
          const [rows, cols] = c.badGrid ?? [
            1 + (c.rows % (c.whole ? n : r1 - r0)),
            1 + (c.cols % (c.whole ? n : c1 - c0)),
          ];
          for (const hr of Object.values(builds)) {
            const matrix = floats(n * n, seed, { resizable: seed % 3 !== 0, abs: true });
            const state = {};
            const r = outcome(() =>
              hr.pool(
                wrap({ matrix, n, rows, cols, region, causal }, wrapper, [matrix.buffer], state),
              ),
            );
            if (state.resized)
              assert.ok(r.error, 'matrix was resized by a getter, and the call did not see it');
            if (r.value === undefined) continue;
            assert.equal(r.value.ratio.length, rows * cols);
            assert.equal(r.value.raw.length, rows * cols);
            assert.equal(r.value.rowMax.length, n);
            for (const x of r.value.ratio) assert.ok(Number.isFinite(x));
          }
        },
      ),
      runs(600),
    );
    heapBack();
    expectBoth();
  });

  it('qk: shapes, sources, seeds and token ids; both builds give the same vectors', () => {
    const idsArb = fc.oneof(
      fc.constant(undefined),
      fc.array(fc.integer({ min: -5, max: 1 << 20 }), { maxLength: MAX_N }),
      junkArb,
    );
    const optionsArb = fc.record(
      {
        n: mostly(fc.integer({ min: 1, max: MAX_N })),
        headDim: mostly(fc.integer({ min: 1, max: 16 }).map((h) => 2 * h)),
        heads: mostly(fc.integer({ min: 1, max: 3 })),
        source: mostly(fc.constantFrom('seeded', 'ones')),
        seed: mostly(fc.nat()),
        tokenIds: idsArb,
      },
      { requiredKeys: ['n', 'headDim'] },
    );
    startTally();
    fc.assert(
      fc.property(
        fc.oneof({ weight: 10, arbitrary: optionsArb }, { weight: 1, arbitrary: junkArb }),
        wrapperArb,
        (options, wrapper) => {
          const results = Object.values(builds).map((hr) =>
            outcome(() =>
              hr.qk(
                options &&
                  typeof options === 'object' &&
                  !Array.isArray(options) &&
                  !ArrayBuffer.isView(options)
                  ? wrap({ ...options }, wrapper)
                  : options,
              ),
            ),
          );
          for (const r of results) {
            if (r.value === undefined) continue;
            const count = options.n * (options.heads ?? 1) * options.headDim;
            for (const name of ['q', 'k', 'v']) assert.equal(r.value[name].length, count);
          }
          if (results[0].value && results[1].value && wrapper.kind === 'plain')
            assert.deepEqual(results[0].value, results[1].value);
        },
      ),
      runs(800),
    );
    heapBack();
    expectBoth();
  });

  it('analyze and encode: random text (lone surrogates included), languages, tokenizers and options', () => {
    const first = builds['wasm-simd'];
    const v = first.catalogue;
    const charArb = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom(
          ...'def class if x = ( ) : { } ; " \' # / * \n \t'.split(' '),
          ' ',
          '\n',
          'return ',
          'fn ',
          'int ',
        ),
      },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
      },
    );
    const codeArb = fc.array(charArb, { maxLength: 60 }).map((parts) => parts.join(''));
    const optionsArb = fc.record(
      {
        language: mostly(fc.constantFrom(...first.languages)),
        tokenizer: mostly(fc.constantFrom('lexical', 'cl100k')),
        gap: mostly(fc.constantFrom(...v.gaps.map((e) => e.name))),
        hierarchy: mostly(fc.constantFrom(...v.hierarchies.map((e) => e.name))),
        descendClasses: mostly(fc.boolean()),
        segmentSize: mostly(fc.integer({ min: 1, max: 64 })),
        bogus: fc.constant(1),
      },
      { requiredKeys: ['language'] },
    );
    startTally();
    const encodeOptionsArb = fc.constantFrom(
      undefined,
      { tokenizer: 'cl100k' },
      { tokenizer: 'lexical' },
      { tokenizer: 'gpt2' },
      null,
      3,
      {},
    );
    fc.assert(
      fc.property(
        codeArb,
        optionsArb,
        wrapperArb,
        encodeOptionsArb,
        (code, options, wrapper, encodeOptions) => {
          const analyses = Object.values(builds).map((hr) =>
            outcome(() => hr.analyze(code, wrap({ ...options }, wrapper))),
          );
          for (const r of analyses) {
            if (r.value === undefined) continue;
            const a = r.value;
            const n = a.tokens.count;
            for (const column of [
              a.tokens.ids,
              a.tokens.start,
              a.tokens.end,
              a.tokens.byteStart,
              a.tokens.byteEnd,
              a.positions.token,
              a.positions.unit,
              a.positions.statement,
            ]) {
              assert.equal(column.length, n);
            }
            for (let i = 0; i < n; i++) {
              assert.ok(a.tokens.end[i] <= code.length);
              assert.ok(a.tokens.byteEnd[i] <= utf8Length(code));
            }
          }
          assert.equal(analyses[0].value === undefined, analyses[1].value === undefined);
          if (analyses[0].value && wrapper.kind === 'plain') {
            assert.deepEqual(analyses[0].value.tokens.ids, analyses[1].value.tokens.ids);
            assert.deepEqual(analyses[0].value.positions, analyses[1].value.positions);
          }
          const ids = Object.values(builds).map((hr) =>
            outcome(() => hr.encode(code, encodeOptions)),
          );
          for (const r of ids)
            if (r.value !== undefined)
              assert.ok(r.value instanceof Int32Array && r.value.length <= utf8Length(code));
          if (ids[0].value) assert.deepEqual(ids[0].value, ids[1].value);
          // The UTF-8 length the text is allocated with is TextEncoder's.
          assert.equal(utf8Length(code), new TextEncoder().encode(code).length);
        },
      ),
      runs(400),
    );
    for (const hr of Object.values(builds)) assert.throws(() => hr.encode(42), HiRoPEError);
    heapBack();
    expectBoth();
  });
});
