// hr.unseenPairs: the core's rule for frequency pairs meeting angles unseen in training
// (docs/real-models.md), against counts written here from transformers' modeling_rope_utils
// formulas (_compute_linear_scaling_rope_parameters, _compute_yarn_parameters,
// _compute_llama3_parameters, _compute_longrope_parameters) on the gallery's configs, and the
// arguments it refuses by name. Both WASM builds.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { BUILDS, load } from './support/both-builds.mjs';

const config = (id) =>
  fs.readFileSync(new URL(`../../models/configs/${id}.json`, import.meta.url), 'utf8');

const plain = (base, d) => Array.from({ length: d / 2 }, (_, j) => 1 / base ** ((2 * j) / d));

function yarn(base, d, factor, original, truncate = true, betaFast = 32, betaSlow = 1) {
  const dim = (rotations) =>
    (d * Math.log(original / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
  let low = dim(betaFast);
  let high = dim(betaSlow);
  if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
  low = Math.max(low, 0);
  high = Math.min(high, d - 1);
  if (low === high) high += 0.001;
  return plain(base, d).map((f, j) => {
    const ramp = Math.min(1, Math.max(0, (j - low) / (high - low)));
    const extrapolation = 1 - ramp;
    return (f / factor) * (1 - extrapolation) + f * extrapolation;
  });
}

// The rule as docs/real-models.md states it.
const expected = (trained, now, seen, distance) =>
  trained.filter((t, j) => now[j] * distance > t * (seen + 1) && t * seen < 2 * Math.PI).length;

for (const build of BUILDS) {
  describe(`hr.unseenPairs (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    it('counts plain RoPE past its length: Mistral 7B at twice its 32,768, 24 of 64', () => {
      const u = hr.unseenPairs({ type: 'rope', base: 1e6 }, 128, {
        trainedLength: 32768,
        length: 65536,
      });
      assert.equal(u.count, 24);
      assert.deepEqual([u.pairs, u.rotated, u.trainedDistance, u.distance], [64, 64, 32767, 65535]);
      assert.ok(u.unseen instanceof Uint8Array);
      assert.deepEqual(
        [...u.unseen.keys()].filter((j) => u.unseen[j]),
        Array.from({ length: 24 }, (_, i) => 40 + i),
      );
      const split = (64 * Math.log(32768 / (2 * Math.PI))) / Math.log(1e6);
      assert.ok(Math.abs(u.splitPair - split) < 1e-9);
      assert.ok(u.limits.subarray(0, 40).every((x) => x === Infinity));
    });

    it("counts Phi-3.5's LongRoPE against its short factors: 17 of 48 at 131,072", () => {
      const c = JSON.parse(config('phi-3.5-mini'));
      const d = c.hidden_size / c.num_attention_heads;
      const shape = (j) => 10000 ** ((2 * j) / d);
      const trained = c.rope_scaling.short_factor.map((f, j) => 1 / (f * shape(j)));
      const now = c.rope_scaling.long_factor.map((f, j) => 1 / (f * shape(j)));
      const want = expected(trained, now, 4095, 131071);
      assert.equal(want, 17);
      const layer = hr.fromConfig(config('phi-3.5-mini')).layers[0];
      const u = hr.unseenPairs(layer.scheme, layer.headDim, {
        trainedLength: 4096,
        length: 131072,
        reach: layer.attention.window,
      });
      assert.equal(u.count, want);
    });

    it('counts the YaRN models against their unscaled frequencies', () => {
      for (const [id, index, d, base, factor, original, truncate, max] of [
        ['gpt-oss-20b', 1, 64, 150000, 32, 4096, false, 131072],
        ['deepseek-v3', 0, 64, 10000, 40, 4096, true, 163840],
        ['ministral-3-3b', 0, 128, 1e6, 16, 16384, true, 262144],
      ]) {
        const layer = hr.fromConfig(config(id)).layers[index];
        const now = yarn(base, d, factor, original, truncate);
        for (const n of [max, 2 * max]) {
          const u = hr.unseenPairs(layer.scheme, layer.headDim, {
            trainedLength: original,
            length: n,
          });
          assert.equal(u.count, expected(plain(base, d), now, original - 1, n - 1), `${id} ${n}`);
        }
        assert.equal(
          hr.unseenPairs(layer.scheme, layer.headDim, { trainedLength: original, length: max })
            .count,
          0,
          id,
        );
      }
    });

    it("counts Gemma 3 27B's global layer with its linear x8 and PI put on after training", () => {
      // Trained with x8 at 131,072: theta_j / 8 * 131071 < 2 pi from j > 36.44, 27 of 64.
      const world = hr.fromConfig(config('gemma-3-27b-it')).layers[5];
      const trained = plain(1e6, 128).map((f) => f / 8);
      const u = hr.unseenPairs(world.scheme, 128, { trainedLength: 131072, length: 661900 });
      assert.equal(u.count, expected(trained, trained, 131071, 661899));
      assert.equal(u.count, 27);
      assert.equal(Math.ceil(u.splitPair), 37);
      // PI x4 on RoPE trained at 128: within range to 4 x 128 + 1 positions.
      const pi = { type: 'rope', scaling: { type: 'linear', factor: 4 } };
      const at = (length) =>
        hr.unseenPairs(pi, 64, { trainedLength: 128, length, scaledAfterTraining: true }).count;
      assert.deepEqual([at(513), at(514)], [0, 21]);
      // HiRoPE's unit pairs meet the unit distance given for their band.
      const h = { type: 'hirope', ratio: 0.5, window: 64 };
      const bands = (bandDistances) =>
        hr.unseenPairs(h, 16, { trainedLength: 256, length: 2000, bandDistances }).count;
      assert.deepEqual([bands([1999, 12]), bands(Float64Array.of(1999, 300))], [0, 4]);
    });

    it('refuses what it cannot use, by name', () => {
      const rope = { type: 'rope' };
      const cases = [
        [
          () => hr.unseenPairs('alibi', 64, { trainedLength: 1, length: 1 }),
          /^scheme 'alibi' has no rotary frequencies$/,
        ],
        [() => hr.unseenPairs(rope, 64), /^options must be an object, got undefined$/],
        [
          () => hr.unseenPairs(rope, 64, { length: 5 }),
          /^trainedLength must be an integer, got undefined$/,
        ],
        [
          () => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 0 }),
          /^length must be at least 1, got 0$/,
        ],
        [
          () => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 5, reach: -1 }),
          /^reach must be at least 0, got -1$/,
        ],
        [() => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 5, lenght: 5 }), /lenght/],
        [
          () => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 5, bandDistances: [1, 2] }),
          /^bandDistances must have one entry per band \(1\), got 2$/,
        ],
        [
          () => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 5, bandDistances: [NaN] }),
          /^bandDistances\[0\] must be a finite number >= 0, got NaN$/,
        ],
        [
          () => hr.unseenPairs(rope, 64, { trainedLength: 5, length: 5, scaledAfterTraining: 1 }),
          /^scaledAfterTraining must be a boolean, got 1$/,
        ],
      ];
      for (const [call, message] of cases)
        assert.throws(
          call,
          (e) => e.name === 'HiRoPEError' && message.test(e.message),
          String(message),
        );
    });
  });
}
