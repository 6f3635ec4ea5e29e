// hr.model against both WASM builds: the trainer's test vectors, loss/attention/generate, the
// CLI, and bad weights and inputs as HiRoPEErrors that leave nothing loaded.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { HiRoPEError } from '../../dist/index.js';
import { REGISTRY } from '../../dist/registry.js';
import { BUILDS, load } from './support/both-builds.mjs';
import {
  CODE,
  optionsOf,
  rethrows,
  root,
  trainerChecks,
  trainerExports,
  trainedContext,
} from './support/model-trainer-checks.mjs';

const { weights, vectors, trainerConfig } = trainerExports('pybyte');

for (const build of BUILDS) {
  describe(`code model (${build.name})`, () => {
    let hr, model;
    before(async () => {
      hr = await load(build.simd);
      model = await hr.model.load({ data: weights });
    });

    it("matches the trainer's logits within 1e-3 for every exported scheme", () => {
      assert.ok(vectors.cases.length >= 14);
      for (const c of vectors.cases) {
        const bytes = Buffer.from(c.input, 'base64');
        const logits = model.logits(new Uint8Array(bytes), optionsOf(c));
        assert.equal(logits.length, bytes.length * 256);
        let worst = 0;
        c.positions.forEach((p, i) => {
          for (let v = 0; v < 256; v++)
            worst = Math.max(worst, Math.abs(logits[p * 256 + v] - c.logits[i][v]));
        });
        assert.ok(worst < 1e-3, `${JSON.stringify(c.scheme)} on ${bytes.length} bytes: ${worst}`);
      }
    });

    trainerChecks({
      get: () => ({ hr, model }),
      weights,
      vectors,
      trainerConfig,
      unit: 'byte',
      inputOf: (p) => new Uint8Array(Buffer.from(p.input, 'base64')),
    });

    it('per-byte loss: n - 1 values in bits, the mean of the cross-entropy of the logits', () => {
      const text = CODE.slice(0, 300);
      const { losses, bitsPerByte, n } = model.loss(text);
      const bytes = new TextEncoder().encode(text);
      assert.equal(n, bytes.length);
      assert.equal(losses.length, n - 1);
      const logits = model.logits(text);
      let sum = 0;
      for (let t = 0; t + 1 < n; t++) {
        const row = logits.subarray(t * 256, (t + 1) * 256);
        const max = Math.max(...row);
        let z = 0;
        for (const x of row) z += Math.exp(x - max);
        const bits = (Math.log(z) - (row[bytes[t + 1]] - max)) / Math.LN2;
        assert.ok(Math.abs(bits - losses[t]) < 1e-3, `byte ${t + 1}: ${bits} vs ${losses[t]}`);
        sum += bits;
      }
      assert.ok(Math.abs(sum / (n - 1) - bitsPerByte) < 1e-4);
      // A trained model predicts its own language far better than uniform (8 bits).
      assert.ok(bitsPerByte < 4, `bits/byte ${bitsPerByte}`);
    });

    it('schemes change the loss only past their window or training length', () => {
      const text = CODE.slice(0, 600);
      const rope = model.loss(text).losses;
      const hirope = model.loss(text, {
        scheme: { type: 'hirope', ratio: 1 / 3 },
        hierarchy: 'segments',
        segmentSize: 32,
      }).losses;
      // Window 64 (half the training context): identical before byte 64, different after.
      let early = 0;
      let late = 0;
      for (let t = 0; t < rope.length; t++) {
        const d = Math.abs(rope[t] - hirope[t]);
        if (t < 63) early = Math.max(early, d);
        else late = Math.max(late, d);
      }
      assert.ok(early < 1e-4, `before the window: ${early}`);
      assert.ok(late > 1e-2, `after the window: ${late}`);
    });

    it('real attention: causal rows summing to 1, per layer and head', () => {
      const text = CODE.slice(0, 120);
      const a = model.attention(text, { layer: 2, head: 1 });
      const b = model.attention(text, { layer: 2, head: 3 });
      assert.equal(a.matrix.length, a.n * a.n);
      for (let i = 0; i < a.n; i++) {
        let sum = 0;
        for (let j = 0; j < a.n; j++) {
          if (j > i) assert.equal(a.matrix[i * a.n + j], 0);
          sum += a.matrix[i * a.n + j];
        }
        assert.ok(Math.abs(sum - 1) < 1e-5);
      }
      assert.notDeepEqual(a.matrix, b.matrix);
    });

    it("attentionAll: every layer's and head's map from one forward, each attention()'s", () => {
      const text = CODE.slice(0, 90);
      for (const scheme of ['rope', { type: 'hirope', window: 16 }]) {
        const all = model.attentionAll(text, { scheme });
        const { layers, heads, n } = all;
        assert.equal(all.matrices.length, layers * heads * n * n);
        for (let l = 0; l < layers; l++)
          for (let h = 0; h < heads; h++) {
            const at = (l * heads + h) * n * n;
            const one = model.attention(text, { scheme, layer: l, head: h }).matrix;
            assert.deepEqual(all.matrices.subarray(at, at + n * n), one, `layer ${l} head ${h}`);
          }
      }
      assert.throws(() => model.attentionAll(text, { scheme: 'truncate' }), {
        name: 'HiRoPEError',
        message: /takes no context limit: ask for one layer and head at a time/,
      });
    });

    it('generates past the training length, repeatably by seed, under any scheme', () => {
      const prompt = CODE.slice(0, 200);
      // Every scheme the model takes (docs/model.md: RoPE with each scaling, the windowed schemes,
      // xPos, NoPE, the two baselines), written out; past the window (128 bytes) and the training
      // length (256 bytes).
      const schemes = [
        'rope',
        'xpos',
        'nope',
        'rerope',
        'leaky-rerope',
        'self-extend',
        { type: 'hirope', ratio: 1 / 3 },
        ...['linear', 'ntk', 'dynamic-ntk', 'yarn', 'llama3'].map((type) => ({
          type: 'rope',
          scaling: { type, factor: 2 },
        })),
        { type: 'sliding-window', window: 64 },
        { type: 'truncate', length: 64 },
      ];
      for (const scheme of schemes) {
        const what = JSON.stringify(scheme);
        const g1 = model.generate(prompt, { scheme, maxBytes: 80, seed: 5 });
        const g2 = model.generate(prompt, { scheme, maxBytes: 80, seed: 5 });
        assert.equal(g1.text, g2.text, what);
        assert.equal(g1.bytes.length, 80, what);
        const greedy = model.generate(prompt, { scheme, maxBytes: 8, temperature: 0 });
        assert.equal(greedy.bytes.length, 8, what);
        // Greedy decoding equals the argmax of a full forward at each step (finite logits only).
        let text = new TextEncoder().encode(prompt);
        for (const byte of greedy.bytes) {
          const logits = model.logits(text, { scheme });
          assert.equal(logits.length, text.length * 256, what);
          const row = logits.subarray((text.length - 1) * 256);
          assert.ok(row.every(Number.isFinite), `${what}: logits not finite`);
          let best = 0;
          for (let v = 1; v < 256; v++) if (row[v] > row[best]) best = v;
          assert.equal(byte, best, what);
          text = Uint8Array.from([...text, best]);
        }
      }
      for (const type of ['sinusoidal', 'alibi'])
        assert.throws(
          () => model.generate(prompt, { scheme: type, maxBytes: 1 }),
          /the code model was trained with RoPE/,
        );
    });

    it('baselines: truncate is the plain model on the last L bytes; a sliding window bites only past W', () => {
      const text = new TextEncoder().encode(CODE.slice(0, 260));
      const L = 40;
      const truncated = model.loss(text, {
        scheme: { type: 'truncate', length: L, stride: 1 },
      }).losses;
      // losses[t] predicts byte t + 1 from bytes t - L + 1 .. t.
      for (const t of [0, 10, L - 1, L, L + 1, 100, 200, text.length - 2]) {
        const from = Math.max(0, t - L + 1);
        const plain = model.loss(text.subarray(from, t + 2)).losses;
        assert.ok(
          Math.abs(plain.at(-1) - truncated[t]) < 1e-4,
          `byte ${t + 1}: ${plain.at(-1)} vs ${truncated[t]}`,
        );
      }
      const strided = model.loss(text, {
        scheme: { type: 'truncate', length: L, stride: 10 },
      }).losses;
      // Stride 10: rows L..L+8 see 31..39 bytes (less than exact), row L + 9 sees 40 (as exact).
      assert.ok(Math.abs(strided[L + 9] - truncated[L + 9]) < 1e-4);
      assert.ok(
        Math.max(...[0, 1, 2, 3].map((k) => Math.abs(strided[L + k] - truncated[L + k]))) > 1e-3,
      );
      const rope = model.loss(text).losses;
      const W = 30;
      const windowed = model.loss(text, { scheme: { type: 'sliding-window', window: W } }).losses;
      let early = 0;
      let late = 0;
      for (let t = 0; t < rope.length; t++) {
        const d = Math.abs(rope[t] - windowed[t]);
        if (t < W) early = Math.max(early, d);
        else late = Math.max(late, d);
      }
      assert.ok(early < 1e-4 && late > 1e-2, `before W ${early}, after ${late}`);
      // Attention under a sliding window: each row sums to 1 over its last W keys.
      const a = model.attention(text.subarray(0, 80), {
        scheme: { type: 'sliding-window', window: W },
        layer: 1,
      });
      for (let i = 0; i < a.n; i++) {
        let sum = 0;
        for (let j = 0; j <= i; j++) {
          if (i - j >= W) assert.equal(a.matrix[i * a.n + j], 0);
          sum += a.matrix[i * a.n + j];
        }
        assert.ok(Math.abs(sum - 1) < 1e-5);
      }
      // Defaults: the training context, stride L / 8 (the registry's, as the evaluation runs it:
      // stride 1 would run one forward pass per byte), the training RoPE.
      const L0 = model.config.trainingContext;
      // The default is the core's (model::truncate_stride); the registry's divisor must match it.
      const S0 = Math.floor(L0 / REGISTRY.truncate.stride_divisor);
      assert.equal(S0, Math.floor(L0 / 8));
      assert.deepEqual(
        { ...model.scheme('truncate'), rope: undefined },
        {
          name: 'truncate',
          length: L0,
          stride: S0,
          rope: undefined,
          limit: { type: 2, length: L0, stride: S0 },
        },
      );
      // The stride follows a given length, and 1 is the least.
      assert.equal(model.scheme({ type: 'truncate', length: 100 }).stride, 12);
      assert.equal(model.scheme({ type: 'truncate', length: 7 }).stride, 1);
      // The default answers as the explicit stride does.
      assert.deepEqual(
        model.loss(text, { scheme: { type: 'truncate', length: L } }).losses,
        model.loss(text, { scheme: { type: 'truncate', length: L, stride: 5 } }).losses,
      );
      assert.equal(model.scheme({ type: 'sliding-window' }).window, L0);
      assert.equal(model.scheme('sliding-window').rope.base, model.config.ropeBase);
      // Generation under both, greedy, follows the baselines' forwards.
      for (const scheme of [
        { type: 'truncate', length: 48, stride: 1 }, // exact: each byte from the last 48
        { type: 'sliding-window', window: 24 },
      ]) {
        const g = model.generate(text.subarray(0, 60), { scheme, maxBytes: 12, temperature: 0 });
        let seen = text.subarray(0, 60);
        for (const byte of g.bytes) {
          const input =
            scheme.type === 'truncate' ? seen.subarray(Math.max(0, seen.length - 48)) : seen;
          const row = model
            .logits(input, { scheme: scheme.type === 'truncate' ? 'rope' : scheme })
            .subarray((input.length - 1) * 256);
          let best = 0;
          for (let v = 1; v < 256; v++) if (row[v] > row[best]) best = v;
          assert.equal(byte, best);
          seen = Uint8Array.from([...seen, best]);
        }
      }
      rethrows(
        () => model.loss('x = 1', { scheme: { type: 'truncate', length: 0 } }),
        /^scheme.length must be an integer in \[1, \d+\], got 0$/,
      );
      rethrows(
        () => model.loss('x = 1', { scheme: { type: 'truncate', length: 8, stride: 9 } }),
        /^scheme.stride must be an integer in \[1, 8\], got 9$/,
      );
      rethrows(
        () => model.loss('x = 1', { scheme: { type: 'sliding-window', window: 8, ratio: 2 } }),
        /unknown key 'ratio'/,
      );
      rethrows(
        () => model.loss('x = 1', { scheme: { type: 'sliding-window', window: 1.5 } }),
        /^scheme.window must be an integer/,
      );
    });

    it('byte positions by hierarchy', () => {
      const units = model.positions(CODE.slice(0, 400));
      const statements = model.positions(CODE.slice(0, 400), { hierarchy: 'statements' });
      const segments = model.positions(CODE.slice(0, 400), {
        hierarchy: 'segments',
        segmentSize: 50,
      });
      assert.equal(units.token.length, new TextEncoder().encode(CODE.slice(0, 400)).length);
      assert.deepEqual(statements.unit, statements.statement);
      assert.equal(segments.unit[49], 0);
      assert.equal(segments.unit[50], 1);
      assert.ok(units.unit.at(-1) >= 1);
    });

    it('bad weights: truncated, corrupted, another version, not a model; nothing half-loaded', async () => {
      const heapBefore = hr.heapBytes();
      const cases = [
        [weights.subarray(0, 20), /truncated/],
        [weights.subarray(0, weights.length - 100), /truncated/],
        [
          (() => {
            const b = weights.slice();
            b[5000] ^= 1;
            return b;
          })(),
          /corrupted/,
        ],
        [
          (() => {
            const b = weights.slice();
            b[8] = 9;
            return b;
          })(),
          /version 9 is not supported: this hirope reads version 1/,
        ],
        [new Uint8Array(64), /not a hirope model/],
        [Uint8Array.from([...weights, 1, 2, 3, 4]), /unexpected bytes/],
      ];
      for (const [data, pattern] of cases) {
        await assert.rejects(
          hr.model.load({ data }),
          (e) => e instanceof HiRoPEError && pattern.test(e.message),
        );
      }
      await assert.rejects(
        hr.model.load({ data: 'weights' }),
        /must be a Uint8Array or ArrayBuffer/,
      );
      await assert.rejects(hr.model.load({ url: 'file:///nonexistent/model.hrm' }), /cannot read/);
      assert.equal(hr.heapBytes(), heapBefore);
    });

    it('bad inputs and options are HiRoPEErrors', () => {
      const limit = model.maxInputBytes;
      rethrows(
        () => model.loss('x'.repeat(limit + 1)),
        new RegExp(`${limit + 1} bytes; the model's limit is ${limit}`),
      );
      rethrows(() => model.loss(''), /at least 1 byte/);
      rethrows(() => model.loss(42), /must be a string or a Uint8Array/);
      rethrows(() => model.loss('x = 1', { scheme: 'alibi' }), /trained with RoPE/);
      rethrows(
        () => model.loss('x = 1', { scheme: { type: 'rope', layout: 'interleaved' } }),
        /half-split layout/,
      );
      rethrows(() => model.loss('x = 1', { schem: 'rope' }), /unknown key 'schem'/);
      rethrows(() => model.loss('x = 1', { hierarchy: 'files' }), /hierarchy must be/);
      const lastLayer = model.config.layers - 1;
      rethrows(
        () => model.attention('x = 1', { layer: lastLayer + 1 }),
        new RegExp(`layer must be an integer in \\[0, ${lastLayer}\\]`),
      );
      rethrows(() => model.attention('x = 1', { head: -1 }), /head must be an integer/);
      rethrows(() => model.generate('x', { maxBytes: limit }), /exceeds the model's limit/);
      rethrows(() => model.generate('x', { temperature: -1 }), /temperature must be/);
      rethrows(() => model.logits('abc', { positions: { unit: [0, 0] } }), /3 entries/);
      const m2 = hr.model.load({ data: weights });
      return m2.then((m) => {
        m.dispose();
        rethrows(() => m.loss('x = 1'), /disposed/);
      });
    });

    it('options: objects only, enumerations by own name, positions as 32-bit integers, read once', () => {
      for (const [o, got] of [
        [null, 'null'],
        [[], 'an array'],
        [7, '7'],
      ]) {
        rethrows(
          () => model.loss('x', o),
          new RegExp(`^loss options must be an object, got ${got}$`),
        );
        rethrows(() => model.logits('x', o), /^logits options must be an object/);
        rethrows(() => model.attention('x', o), /^attention options must be an object/);
        rethrows(() => model.positions('x', o), /^positions options must be an object/);
        rethrows(() => model.generate('x', o), /^generate options must be an object/);
      }
      assert.equal(model.logits('x', undefined).length, 256);
      for (const name of ['__proto__', 'constructor', 'toString', 'valueOf']) {
        rethrows(
          () => model.loss('x = 1', { hierarchy: name }),
          /^hierarchy must be 'units', 'statements' or 'segments'/,
        );
        rethrows(
          () => model.loss('x = 1', { gap: name }),
          /^gap must be 'own', 'next' or 'previous'/,
        );
        rethrows(() => model.loss('x = 1', { language: name }), /^language must be one of/);
        rethrows(
          () => model.loss('x = 1', { scheme: name }),
          /trained with RoPE: scheme.type must be one of/,
        );
      }
      rethrows(
        () => model.logits('abc', { positions: { unit: [NaN, 1e12, 'a'] } }),
        /^positions.unit\[0\] must be a 32-bit integer, got NaN$/,
      );
      rethrows(
        () => model.logits('abc', { positions: { unit: [0, 1e12, 0] } }),
        /^positions.unit\[1\] must be a 32-bit integer, got 1000000000000$/,
      );
      rethrows(
        () => model.logits('abc', { positions: { statement: [0, 0, 'a'] } }),
        /^positions.statement\[2\] must be a 32-bit integer, got 'a'$/,
      );
      rethrows(
        () => model.logits('abc', { positions: { unit: new Float32Array(3) } }),
        /^positions.unit must be an Int32Array/,
      );
      const explicit = model.logits('abc', {
        positions: { unit: [0, 1, 1], statement: Int32Array.of(0, 1, 2) },
      });
      assert.equal(explicit.length, 3 * 256);
      // A getter that shrinks the input's buffer runs before the input is looked at.
      const buffer = new ArrayBuffer(3, { maxByteLength: 3 });
      const code = new Uint8Array(buffer);
      code.set([97, 98, 99]);
      rethrows(
        () =>
          model.logits(code, {
            get scheme() {
              buffer.resize(2);
              return 'rope';
            },
            positions: { unit: [0, 0, 0] },
          }),
        /^positions.unit must have 2 entries \(one per byte\), got 3$/,
      );
      assert.equal(model.logits(code).length, 2 * 256);
    });
  });
}

describe('code model memory', () => {
  it('frees the weights of a model collected without dispose()', () => {
    // 30 loads never disposed kept about 7 MB each; collected, their WASM handles are deleted.
    const script = `
      import init from ${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)};
      import fs from 'node:fs';
      const hr = await init({ simd: false });
      const weights = new Uint8Array(fs.readFileSync(${JSON.stringify(path.join(root, 'models/pybyte.hrm'))}));
      const settle = async () => {
        for (let i = 0; i < 3; i++) {
          globalThis.gc();
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      };
      (await hr.model.load({ data: weights })).dispose();
      await settle();
      const base = hr.heapBytes();
      for (let i = 0; i < 30; i++) {
        await hr.model.load({ data: weights });
        await settle();
      }
      const grown = hr.heapBytes() - base;
      // A disposed model, then collected: its handle is not deleted twice.
      const m = await hr.model.load({ data: weights });
      m.dispose();
      await settle();
      console.log(JSON.stringify({ grown, model: weights.length }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const { grown, model } = JSON.parse(out.trim().split('\n').at(-1));
    assert.ok(
      grown < 3 * model,
      `the heap grew by ${grown} bytes over 30 loads of a ${model}-byte model`,
    );
  });
});

describe('hirope eval-model and generate (CLI)', () => {
  const cli = path.join(root, 'bin/hirope.mjs');
  const file = path.join(root, 'tests/fixtures/model/sample.py');
  it('prints bits/byte per position bucket and recall class for each scheme', () => {
    const L = trainedContext(trainerConfig);
    const out = execFileSync(
      'node',
      [
        cli,
        'eval-model',
        file,
        '--length',
        String(4 * L),
        '--per-file',
        '1',
        '--scheme',
        'rope',
        '--scheme',
        'hirope-1/3-segments32',
        '--scheme',
        'truncate',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out);
    assert.deepEqual(r.buckets, [0, L, 2 * L, 4 * L]);
    assert.equal(r.windows, 1);
    for (const name of ['rope', 'hirope-1/3-segments32', 'truncate']) {
      assert.equal(r.bitsPerByte[name].length, 3);
      for (const x of r.bitsPerByte[name]) assert.ok(x > 0 && x < 8);
      for (const cls of ['far', 'near', 'first', 'other'])
        assert.ok(r.recall.bitsPerByte[name][cls] > 0);
    }
    // Every byte but the first is in one class.
    assert.equal(
      Object.values(r.recall.bytes).reduce((a, b) => a + b, 0),
      4 * L - 1,
    );
    assert.ok(r.recall.bytes.far > 0);
    // In distribution the schemes agree closely (the window is half the training context), and
    // truncation to L changes nothing there.
    assert.ok(Math.abs(r.bitsPerByte.rope[0] - r.bitsPerByte['hirope-1/3-segments32'][0]) < 0.05);
    assert.ok(Math.abs(r.bitsPerByte.rope[0] - r.bitsPerByte.truncate[0]) < 1e-4);
    const table = execFileSync(
      'node',
      [cli, 'eval-model', file, '--length', String(2 * L), '--per-file', '1', '--scheme', 'rope'],
      { encoding: 'utf8' },
    );
    assert.match(table, /^position\s+rope$/m);
    assert.match(table, new RegExp(`^${L}-${2 * L - 1}\\s+\\d\\.\\d{3}$`, 'm'));
    assert.match(table, /^far-recall\s+(\d\.\d{3}|—)\s+\(\d+ bytes\)$/m);
  });
  it('generates and reports usage errors', () => {
    const out = execFileSync(
      'node',
      [cli, 'generate', file, '--max-bytes', '30', '--seed', '2', '--scheme', 'rerope'],
      { encoding: 'utf8' },
    );
    assert.ok(out.length > 0);
    assert.throws(
      () =>
        execFileSync('node', [cli, 'eval-model', file, '--scheme', 'nosuch'], { stdio: 'pipe' }),
      (e) => e.status === 2 && /unknown scheme 'nosuch' \(schemes: .*; presets: /.test(e.stderr),
    );
    assert.throws(
      () =>
        execFileSync('node', [cli, 'eval-model', file, '--length', '100000'], { stdio: 'pipe' }),
      (e) => e.status === 1 && /no file holds 100000 bytes/.test(e.stderr),
    );
  });
});
