// Every scheme on several shapes (sizes that are not multiples of the 16 x 16 tiles included),
// WebGPU against WASM, in the manner of ggml's test-backend-ops. Shared by the Node (Dawn) and
// the Chromium runs; `hr` must come from init({ backend: 'webgpu' }). The shapes are the smallest
// that cross the kernels' boundaries: on a software adapter each workgroup costs CPU time.
// LongRoPE's factor lists depend on the head dimension.
const longrope = (headDim) => ({
  type: 'rope',
  scaling: {
    type: 'longrope',
    factor: 4,
    originalLength: 16,
    shortFactor: Array.from({ length: headDim / 2 }, (_, j) => 1 + 0.1 * j),
    longFactor: Array.from({ length: headDim / 2 }, (_, j) => 1 + j),
  },
});

export const SCHEMES = [
  'nope',
  'alibi',
  'sinusoidal',
  { type: 'sinusoidal', variant: 'fairseq' },
  'rope',
  { type: 'rope', layout: 'interleaved', rotaryFraction: 0.5, base: 500000 },
  { type: 'rope', layout: 'interleaved', rotaryFraction: 0.5, rotaryLast: true }, // MLA
  { type: 'rope', scaling: { type: 'linear', factor: 4 } },
  { type: 'rope', scaling: { type: 'ntk', factor: 8 } },
  { type: 'rope', scaling: { type: 'dynamic-ntk', factor: 2, originalLength: 16 } },
  { type: 'rope', scaling: { type: 'yarn', factor: 8, originalLength: 32 } },
  longrope,
  { type: 'rope', scaling: { type: 'llama3', factor: 8, originalLength: 64 } },
  { type: 'xpos', scaleBase: 32 },
  { type: 'rerope', window: 9, trainingLength: 8 },
  { type: 'leaky-rerope', window: 9, leakyFactor: 3 },
  { type: 'self-extend', window: 9, group: 4 },
  { type: 'hirope', window: 6 },
  { type: 'hirope', window: 6, ratio: 1 / 3, layout: 'interleaved', tokenOnHigh: true },
  { type: 'hirope', window: 6, levels: 3, statementRatio: 0.25 },
];
export const SHAPES = [
  { n: 1, headDim: 8, heads: 1 },
  { n: 17, headDim: 8, heads: 2 },
  { n: 37, headDim: 20, heads: 1 },
  // Two heads over three row tiles (the last one partial) with exactly one 16-wide headDim tile;
  // n past 70 crosses no further boundary (the softmax's 256-wide rows are the property's).
  { n: 33, headDim: 16, heads: 2 },
];

// A real model layer's options on a few schemes (every shape): masks with windows and chunks that
// cut tiles, sinks above and below the logits, the query temperature, the softmax scale and the
// soft-cap; masks and temperatures at positions that are not the rows (an offset, a stride).
export const LAYER_SCHEMES = ['rope', 'alibi', { type: 'hirope', window: 6 }];
const spread = (n, start, stride) => {
  const token = Int32Array.from({ length: n }, (_, i) => start + i * stride);
  return { token, unit: token.map((t) => Math.floor(t / 5)) };
};
export const LAYER_OPTIONS = (heads, n) => [
  { scale: 0.8, softcap: 2 },
  {
    positions: spread(n, 20000, 1),
    mask: { type: 'chunked', chunkSize: 16 },
    temperature: { floorScale: 20010, scale: 0.3, offset: 1 },
  },
  { positions: spread(n, 5, 7), mask: { type: 'sliding', window: 20 }, softcap: 3 },
  { positions: spread(n, 5, 7), mask: { type: 'chunked', chunkSize: 50 } },
  { mask: { type: 'sliding', window: 5 } },
  { mask: { type: 'sliding', window: 1 }, sinks: Array.from({ length: heads }, (_, h) => h - 0.5) },
  { mask: { type: 'chunked', chunkSize: 7 } },
  {
    mask: { type: 'chunked', chunkSize: 16 },
    temperature: { floorScale: 3, scale: 0.4, offset: 1 },
  },
  { sinks: Array.from({ length: heads }, (_, h) => 2 - h) },
  { temperature: { floorScale: 5, scale: 0.2, offset: 0 } },
  {
    mask: { type: 'sliding', window: 20 },
    sinks: Array.from({ length: heads }, () => 0.3),
    temperature: { floorScale: 2, scale: 0.1, offset: 1 },
  },
];

// Real models' layers against transformers (tests/fixtures/real-layers.json, as
// tests/js/real-layers.test.mjs and tests/native/test_real_layers.cpp read it): hr.fromConfig's
// layer run as it is (scheme, headDim, mask, temperature, scale, softcap; the sinks per head). The
// fixture's probabilities come from tests/python/transformers_reference.py (numpy float64 from
// transformers' own code, never hirope's output). Both files load as JSON modules, in Node and in
// the page alike: the fixture, and the configs from dist/data/configs/ (the gallery's copies of
// models/configs), which chromium.test.mjs serves as application/json. Loaded when crossCheck
// runs, not when property.mjs imports this file.
const jsonModule = async (relative) =>
  (await import(new URL(relative, import.meta.url).href, { with: { type: 'json' } })).default;

/** tests/fixtures/real-layers.json as a module. */
export const realLayerFixture = () => jsonModule('../fixtures/real-layers.json');

/**
 * Each fixture case as { id, args, want, tolerance }: hr.attention's arguments from the layer that
 * hr.fromConfig gives, checked against the fixture's shape, and the expected probabilities.
 */
export async function realLayerCalls(hr) {
  const fixture = await realLayerFixture();
  const calls = [];
  for (const c of fixture.cases) {
    const config =
      typeof c.config === 'string'
        ? await jsonModule(`../../dist/data/configs/${c.config}.json`)
        : c.config;
    const layer = hr.fromConfig(config).layers[c.layer];
    if (!layer || layer.headDim !== c.headDim || layer.sinks !== (c.sinks !== null))
      throw new Error(`${c.id}: the setup's layer ${c.layer} does not match the fixture's`);
    const n = c.positions.length;
    const args = {
      q: Float32Array.from(c.q),
      k: Float32Array.from(c.k),
      n,
      headDim: layer.headDim,
      heads: c.heads,
      scheme: layer.scheme,
      positions: { token: Int32Array.from(c.positions) },
      mask: layer.attention,
      temperature: layer.temperature,
      scale: layer.scale,
      softcap: layer.softcap,
      sinks: c.sinks ?? undefined,
    };
    const want = c.probs.flat();
    if (want.length !== c.heads * n * n || args.q.length !== n * c.heads * c.headDim)
      throw new Error(`${c.id}: the fixture's q or probabilities do not have its shape`);
    calls.push({ id: c.id, args, want, tolerance: c.tolerance ?? fixture.tolerance });
  }
  return calls;
}

export async function crossCheck(hr) {
  let worst = 0,
    compared = 0;
  const failures = [];
  // One call on both backends: the largest relative difference, a failure past 1e-4.
  const compare = async (args, label) => {
    const want = hr.attention(args);
    const got = await hr.attentionAsync(args);
    let err = 0;
    for (let i = 0; i < want.length; i++) {
      if (want[i] === got[i]) continue;
      err = Math.max(err, Math.abs(want[i] - got[i]) / (1 + Math.abs(want[i])));
    }
    compared++;
    worst = Math.max(worst, err);
    if (!(err <= 1e-4)) failures.push(`${label}: ${err}`);
  };
  for (const shape of SHAPES) {
    const { n, headDim, heads } = shape;
    const { q, k, v } = hr.qk({ n, headDim, heads, seed: 7 });
    const token = Int32Array.from({ length: n }, (_, i) => i);
    const positions = {
      token,
      unit: token.map((t) => Math.floor(t / 7)),
      statement: token.map((t) => Math.floor(t / 3)),
    };
    for (const entry of SCHEMES) {
      const scheme = typeof entry === 'function' ? entry(headDim) : entry;
      const windowed =
        typeof scheme === 'object' &&
        ['rerope', 'leaky-rerope', 'self-extend', 'hirope'].includes(scheme.type);
      for (const causal of windowed ? [true] : [true, false]) {
        for (const output of ['logits', 'probs', 'values']) {
          const args = { q, k, v, n, headDim, heads, positions, scheme, output, causal };
          await compare(
            args,
            `${JSON.stringify(scheme)} n=${n} d=${headDim} h=${heads} ${output} causal=${causal}`,
          );
        }
      }
    }
  }
  for (const shape of SHAPES) {
    const { n, headDim, heads } = shape;
    const { q, k, v } = hr.qk({ n, headDim, heads, seed: 9 });
    const token = Int32Array.from({ length: n }, (_, i) => i);
    const positions = { token, unit: token.map((t) => Math.floor(t / 5)) };
    for (const scheme of LAYER_SCHEMES) {
      for (const layer of LAYER_OPTIONS(heads, n)) {
        for (const output of ['logits', 'probs', 'values']) {
          const args = { q, k, v, n, headDim, heads, positions, scheme, output, ...layer };
          await compare(
            args,
            `${JSON.stringify(scheme)} ${JSON.stringify(layer)} n=${n} d=${headDim} h=${heads} ${output}`,
          );
        }
      }
    }
  }
  // The real layers: WebGPU against WASM as above (probabilities and logits), and its
  // probabilities against transformers' within the fixture's tolerance.
  let realWorst = 0,
    realCases = 0;
  for (const { id, args, want, tolerance } of await realLayerCalls(hr)) {
    for (const output of ['probs', 'logits']) await compare({ ...args, output }, `${id} ${output}`);
    const got = await hr.attentionAsync(args);
    // Math.max keeps a NaN; a length that differs is an infinite error.
    let err = got.length === want.length ? 0 : Infinity;
    for (let i = 0; i < want.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
    realCases++;
    realWorst = Math.max(realWorst, err);
    if (!(err <= tolerance))
      failures.push(`${id}: WebGPU against transformers, max |difference| ${err} > ${tolerance}`);
  }
  if (realCases < 11)
    failures.push(`the real layers' fixture has ${realCases} cases, not 11 or more`);
  return { compared, worst, failures, realLayers: { cases: realCases, worst: realWorst } };
}
