// Real models' layers against transformers (tests/fixtures/real-layers.json): hr.fromConfig's layer
// run through hr.attention as it is (scheme, headDim, mask, temperature, scale, softcap; the sinks
// given per head), on both builds and both kernels, and through hirope/worker, against the
// probabilities of tests/python/transformers_reference.py, a numpy float64 transcription of
// transformers' eager attention that reads the raw config.json itself and never sees hirope's
// setup or output (tools/write-real-layer-fixture.py writes the file; tests/python/
// test_real_layers.py keeps it current). Pass: max |hirope - reference| <= the fixture's tolerance.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, load, maxAbsDiff } from './support/both-builds.mjs';
import { installWorker } from './support/node-web-worker.mjs';
import { realLayerCalls, realLayerFixture } from '../webgpu/cases.mjs';

installWorker();
const { createWorker } = await import('../../dist/worker-client.js');

const fixture = await realLayerFixture();

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
      for (const { id, args, want, tolerance } of await realLayerCalls(hr)) {
        const errs = ['tiled', 'reference'].map((kernel) =>
          assertMeets(hr.attention({ ...args, kernel }), want, tolerance, `${id} ${kernel}`),
        );
        worst.push(`${id} ${errs.map((e) => e.toExponential(2)).join(' ')}`);
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
        // hirope/worker has no fromConfig: the layers come from this thread's reader.
        for (const { id, args, want, tolerance } of await realLayerCalls(hr)) {
          const errs = [];
          for (const kernel of ['tiled', 'reference']) {
            const got = await w.attention({ ...args, kernel });
            assert.ok(got instanceof Float32Array, id);
            errs.push(assertMeets(got, want, tolerance, `${id} worker ${kernel}`));
          }
          worst.push(`${id} ${errs.map((e) => e.toExponential(2)).join(' ')}`);
        }
        console.log(
          `worker ${name}, max |hirope - transformers| (tiled, reference): ${worst.join('; ')}`,
        );
      });
    }
  });
});
