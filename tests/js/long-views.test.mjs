// The decay view up to a model's maximum length (issue 42 section 6) and the angle view at the
// code's own span (issue 48 section 2): past DENSE_DECAY_DISTANCE the decay curve is the core's
// long_term_decay at log-spaced distances (checked against the core's curve at every distance it
// can give); the angle view's columns are the code's keys, or log-spaced distances up to a sliding
// or chunked layer's reach (checked against theta_j * distance from the core's frequencies); a
// run takes viewLength for the decay view only. Both WASM builds.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { BUILDS, load } from './support/both-builds.mjs';
import {
  sampledDecay,
  decayView,
  angleView,
  logDistances,
  DECAY_SAMPLES,
  DENSE_DECAY_DISTANCE,
  ANGLE_VIEW_COLUMNS,
} from '../../web/src/worker/attention-views.js';
import { SideEngine, MAX_VIEW_LENGTH } from '../../web/src/worker/attention-engine.js';
import { logTicks, distanceLabel } from '../../web/src/page/charts/decay.js';
import { normalizeState } from '../../web/src/shared/playground-state.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

const SCHEMES = [
  { type: 'rope' },
  { type: 'rope', scaling: { type: 'yarn', factor: 8, originalLength: 4096 } },
  { type: 'hirope', window: 64, ratio: 0.4 },
  { type: 'hirope', segmentSize: 64 },
  { type: 'rerope', window: 512 },
  { type: 'self-extend', window: 512, group: 8 },
];

describe('log-spaced distances and their ticks', () => {
  it('descend from the maximum to 1 without repeats', () => {
    for (const max of [2, 10, 1000, 1e6, 2 ** 30 - 1]) {
      const d = logDistances(max, 384);
      assert.equal(d[0], max);
      assert.equal(d.at(-1), 1);
      for (let i = 1; i < d.length; i++) assert.ok(d[i] < d[i - 1]);
    }
  });
  it('label powers of ten briefly', () => {
    assert.deepEqual(logTicks(2e6), [0, 1, 10, 100, 1000, 1e4, 1e5, 1e6]);
    assert.deepEqual([0, 100, 4096, 1e4, 2e6, 1048575, 1e9].map(distanceLabel), [
      '0',
      '100',
      '4096',
      '10k',
      '2M',
      '1.05M',
      '1G',
    ]);
  });
});

for (const build of BUILDS) {
  describe(`views at long lengths (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it("the sampled decay is the core's curve at its distances", () => {
      const max = 20000;
      for (const scheme of SCHEMES) {
        const dense = hr.longTermDecay(scheme, 16, max);
        const s = sampledDecay(hr, scheme, 16, max, 128);
        assert.equal(s.distances[0], 0);
        assert.equal(s.distances.at(-1), max);
        for (let i = 0; i < s.distances.length; i++)
          assert.ok(
            Math.abs(s.values[i] - dense[s.distances[i]]) < 1e-5,
            `${JSON.stringify(scheme)} at ${s.distances[i]}: ${s.values[i]} vs ${dense[s.distances[i]]}`,
          );
      }
    });

    it('the decay view is dense up to DENSE_DECAY_DISTANCE and sampled beyond, to 10^9', () => {
      assert.equal(
        decayView(hr, { type: 'rope' }, 64, DENSE_DECAY_DISTANCE).length,
        DENSE_DECAY_DISTANCE + 1,
      );
      for (const max of [DENSE_DECAY_DISTANCE + 1, 1_048_575, MAX_VIEW_LENGTH - 1]) {
        const v = decayView(hr, { type: 'rope' }, 128, max);
        assert.equal(v.sampled, true);
        assert.ok(v.values.length <= DECAY_SAMPLES + 1);
        assert.equal(v.distances.at(-1), max);
        assert.ok(v.values.every(Number.isFinite));
      }
      // In the page's words: the scheme's name, not the API function's.
      for (const max of [100, 1e6])
        assert.equal(
          decayView(hr, { type: 'alibi' }, 64, max).error,
          "ALiBi does not rotate q and k, so RoFormer's long-term decay does not apply",
        );
    });

    it("the angle view stops at a layer's reach on log-spaced distances", () => {
      // Tokens 1,000 positions apart over 0 .. 2,999,000 (the code spans 2,999,001 positions), a
      // sliding window of 1,000,000: the distances it sees, from 999,999 down to 1.
      const state = normalizeState({ train: 256 });
      const headDim = 64;
      const n = 3000;
      const analysis = {
        n,
        positions: {
          token: Int32Array.from({ length: n }, (_, i) => 1000 * i),
          unit: new Int32Array(n),
          statement: new Int32Array(n),
        },
      };
      const reach = 1_000_000;
      const scheme = { type: 'rope' };
      const v = angleView(hr, state, scheme, headDim, analysis, { reach });
      assert.equal(v.span, 2_999_001);
      assert.equal(v.length, v.span);
      assert.equal(v.image.cols, v.distances.length);
      assert.ok(v.distances.length <= ANGLE_VIEW_COLUMNS);
      assert.equal(v.distances[0], reach - 1);
      assert.deepEqual(
        v.keys,
        v.distances.map((d) => 2_999_000 - d),
      );
      // cos(theta_j * distance) in grey where in distribution (attention-views.js angleImage).
      const inv = hr.inverseFrequencies(scheme, headDim);
      const seen = (j) => inv[j] * 255;
      let ood = 0;
      for (let j = 0; j < inv.length; j++) {
        // Never a full turn in 256 tokens, and 999,999 back is far past them (docs/real-models.md).
        if (seen(j) < 2 * Math.PI) ood++;
        const c = v.distances.length - 1; // distance 1: in distribution
        const o = 4 * (j * v.image.cols + c);
        assert.ok(Math.abs(v.image.rgba[o] - Math.round(40 + 100 * (1 + Math.cos(inv[j])))) <= 1);
      }
      assert.equal(v.oodPairs, ood);
      // The training line: after the last column at least L back.
      const last = v.distances.findLastIndex((d) => d >= 256);
      assert.equal(v.trainColumn, last + 1);
      // A reach the code does not pass keeps the code's keys.
      assert.equal(
        angleView(hr, state, scheme, headDim, analysis, { reach: 3_000_000 }).distances,
        undefined,
      );
    });

    it("counts a real model's pairs against its own base and rotated dims", () => {
      // Llama 3.1 8B's layer (base 500000, llama3 x8 over 8,192) on tokens 332 positions apart,
      // on a side whose own base is the page's default: the 29 pairs divided by 8 (wavelength
      // over 8,192, so never a full turn in training) reach 130,476 / 8 > 8,191 steps.
      const state = normalizeState({ train: 8192 });
      const n = 394;
      const analysis = {
        n,
        positions: {
          token: Int32Array.from({ length: n }, (_, i) => 332 * i),
          unit: new Int32Array(n),
          statement: new Int32Array(n),
        },
      };
      const text = fs.readFileSync(
        new URL('../../models/configs/llama-3.1-8b.json', import.meta.url),
        'utf8',
      );
      const { scheme, headDim } = hr.fromConfig(text).layers[0];
      assert.notEqual(state.a.base, 500000);
      assert.equal(angleView(hr, state, scheme, headDim, analysis).oodPairs, 29);
      // DeepSeek-V3 rotates 64 of its 192 dims: 32 pairs, each against its own plain frequency.
      const ds = hr.fromConfig(
        fs.readFileSync(new URL('../../models/configs/deepseek-v3.json', import.meta.url), 'utf8'),
      ).layers[0];
      const v = angleView(hr, state, ds.scheme, ds.headDim, analysis);
      assert.equal(v.pairs, 32);
    });

    it("stops at a sliding or chunked layer's reach when the code spans more", () => {
      // Tokens 100 positions apart over 0 .. 29,900; a chunked layer (8,192) with L = 8,192 sees
      // distances up to 8,191 only, which training showed: no pair is out of distribution, where
      // the code's keys (up to 29,900 back) would count the slow pairs.
      const state = normalizeState({ train: 8192 });
      const n = 300;
      const analysis = {
        n,
        positions: {
          token: Int32Array.from({ length: n }, (_, i) => 100 * i),
          unit: new Int32Array(n),
          statement: new Int32Array(n),
        },
      };
      const scheme = { type: 'rope', base: 500000 };
      const whole = angleView(hr, state, scheme, 128, analysis);
      assert.ok(whole.oodPairs > 0);
      const chunk = angleView(hr, state, scheme, 128, analysis, { reach: 8192 });
      assert.equal(chunk.distances[0], 8191);
      assert.equal(chunk.oodPairs, 0);
    });

    it('a run takes viewLength for its decay view, the angle view stays at the code, and a bad one is refused', async () => {
      const engine = new SideEngine(hr);
      const state = normalizeState({});
      const request = { code: SAMPLES.python, state, side: 'b', view: { size: 32 } };
      const r = await engine.run({ ...request, viewLength: 131072 });
      assert.equal(r.views.maxDistance, 131071);
      assert.equal(r.views.decay.value.sampled, true);
      // The angles the code reaches: its last token, whatever length the decay view runs to.
      assert.equal(r.views.angles.value.distances, undefined);
      assert.equal(r.views.angles.value.span, r.n);
      const plain = await engine.run(request);
      assert.deepEqual(plain.views.angles.value, r.views.angles.value);
      for (const bad of [1, 2.5, MAX_VIEW_LENGTH + 1, '1000'])
        await assert.rejects(engine.run({ ...request, viewLength: bad }), {
          name: 'PlaygroundError',
          message: /^viewLength must be an integer from 2 to 1,073,741,824/,
        });
    });
  });
}
