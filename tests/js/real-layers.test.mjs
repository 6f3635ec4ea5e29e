// Real models' layers against transformers (tests/fixtures/real-layers.json): hr.fromConfig's layer
// run through hr.attention as it is (scheme, headDim, mask, temperature, scale, softcap; the sinks
// given per head), on both builds and both kernels, and through hirope/worker, against the
// probabilities of tests/python/transformers_reference.py, a numpy float64 transcription of
// transformers' eager attention that reads the raw config.json itself and never sees hirope's
// setup or output (tools/write-real-layer-fixture.py writes the file; tests/python/
// test_real_layers.py keeps it current). Pass: max |hirope - reference| <= the fixture's tolerance.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BUILDS, load, maxAbsDiff } from './support/both-builds.mjs';
import { installWorker } from './support/node-web-worker.mjs';

installWorker();
const { createWorker } = await import('../../dist/worker-client.js');

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/real-layers.json', import.meta.url), 'utf8'),
);
const configOf = (config) =>
  typeof config === 'string'
    ? readFileSync(new URL(`../../models/configs/${config}.json`, import.meta.url), 'utf8')
    : config;

// A case's hr.attention arguments from its layer in the setup fromConfig gave, and the expected
// probabilities (heads x n x n, masked = 0).
function callOf(setup, c) {
  const layer = setup.layers[c.layer];
  assert.ok(layer, `${c.id}: the config has no layer ${c.layer}`);
  // The fixture's head width is the layer's own (Gemma 4's global layers: 512), and it has a
  // sink logit exactly where the setup says the layer has sinks (weights, not in the config).
  assert.equal(layer.headDim, c.headDim, c.id);
  assert.equal(layer.sinks, c.sinks !== null, c.id);
  const n = c.positions.length;
  const args = {
    q: Float32Array.from(c.q), // float32 values written as short decimals, as the reference read them
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
  assert.equal(want.length, c.heads * n * n, c.id);
  assert.equal(args.q.length, n * c.heads * c.headDim, c.id);
  return { args, want, tolerance: c.tolerance ?? fixture.tolerance };
}

function assertMeets(got, want, tolerance, what) {
  const err = maxAbsDiff(got, want);
  assert.ok(err <= tolerance, `${what}: max |hirope - transformers| ${err} > ${tolerance}`);
  return err;
}

describe('real layers against transformers (tests/fixtures/real-layers.json)', () => {
  it('has its cases and a tolerance that means something', () => {
    assert.ok(fixture.cases.length >= 11, `${fixture.cases.length} cases`);
    assert.ok(fixture.tolerance > 0 && fixture.tolerance <= 1e-4, `${fixture.tolerance}`);
  });

  for (const { name, simd } of BUILDS) {
    it(`hr.fromConfig's layer in hr.attention, both kernels (${name})`, async () => {
      const hr = await load(simd);
      const worst = [];
      for (const c of fixture.cases) {
        const { args, want, tolerance } = callOf(hr.fromConfig(configOf(c.config)), c);
        const errs = ['tiled', 'reference'].map((kernel) =>
          assertMeets(hr.attention({ ...args, kernel }), want, tolerance, `${c.id} ${kernel}`),
        );
        worst.push(`${c.id} ${errs.map((e) => e.toExponential(2)).join(' ')}`);
      }
      console.log(`${name}, max |hirope - transformers| (tiled, reference): ${worst.join('; ')}`);
    });
  }

  describe('through hirope/worker', () => {
    const workers = [];
    let hr;
    before(async () => {
      hr = await load(true);
    });
    after(() => {
      for (const w of workers) w.terminate();
    });

    for (const { name, simd } of BUILDS) {
      it(`every case gives the reference's probabilities in the worker (${name})`, async () => {
        const w = createWorker({ simd });
        workers.push(w);
        const worst = [];
        for (const c of fixture.cases) {
          // hirope/worker has no fromConfig: the layer comes from this thread's reader.
          const { args, want, tolerance } = callOf(hr.fromConfig(configOf(c.config)), c);
          const errs = [];
          for (const kernel of ['tiled', 'reference']) {
            const got = await w.attention({ ...args, kernel });
            assert.ok(got instanceof Float32Array, c.id);
            errs.push(assertMeets(got, want, tolerance, `${c.id} worker ${kernel}`));
          }
          worst.push(`${c.id} ${errs.map((e) => e.toExponential(2)).join(' ')}`);
        }
        console.log(
          `worker ${name}, max |hirope - transformers| (tiled, reference): ${worst.join('; ')}`,
        );
      });
    }
  });
});
