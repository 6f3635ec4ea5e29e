// The one view both playground engines give of their n x n causal attention matrix
// (web/src/worker/matrix-view.js): a region's values with the keys after their query masked as
// NaN (an empty CSV cell), a query's row and its maximum, the grid of a view. The attention
// engine (SideEngine) and Model mode's (ModelEngine) answer alike.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import {
  clampRegion,
  gridFor,
  matrixRow,
  matrixValues,
  MAX_VALUES,
} from '../../web/src/worker/matrix-view.js';
import { SideEngine } from '../../web/src/worker/attention-engine.js';
import { ModelEngine } from '../../web/src/worker/model-engine.js';
import { normalizeState } from '../../web/src/shared/playground-state.js';

/** A causal 4 x 4 matrix with distinct values below the diagonal and garbage (7) above it. */
function matrix(n = 4) {
  const m = new Float32Array(n * n).fill(7);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) m[i * n + j] = (i + 1) / 10 + j / 100;
  return m;
}

describe('matrix view', () => {
  it('masks every key after its query as NaN, whatever the matrix holds there', () => {
    const m = matrix();
    const { region, values } = matrixValues(m, 4, null);
    assert.deepEqual(region, { r0: 0, r1: 4, c0: 0, c1: 4 });
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) {
        if (j > i) assert.ok(Number.isNaN(values[i * 4 + j]), `(${i}, ${j}) masked`);
        else assert.equal(values[i * 4 + j], m[i * 4 + j]);
      }
    }
    // A region: row-major over it, the same rule.
    const part = matrixValues(m, 4, { r0: 1, r1: 3, c0: 1, c1: 4 });
    assert.deepEqual(part.region, { r0: 1, r1: 3, c0: 1, c1: 4 });
    assert.equal(part.values.length, 6);
    assert.equal(part.values[0], m[1 * 4 + 1]);
    assert.ok(Number.isNaN(part.values[1]) && Number.isNaN(part.values[2]));
    assert.deepEqual([part.values[3], part.values[4]], [m[2 * 4 + 1], m[2 * 4 + 2]]);
    assert.ok(Number.isNaN(part.values[5]));
  });

  it('gives a row over keys 0..i with its maximum, given or computed', () => {
    const m = matrix();
    const row = matrixRow(m, 4, 2);
    assert.deepEqual(Array.from(row.probs), Array.from(m.subarray(8, 11)));
    assert.equal(row.max, Math.max(...m.subarray(8, 11)));
    assert.equal(matrixRow(m, 4, 2, 0.5).max, 0.5);
    for (const bad of [-1, 4, 1.5])
      assert.throws(
        () => matrixRow(m, 4, bad),
        (e) => e.name === 'PlaygroundError' && /no row/.test(e.message),
      );
  });

  it('clamps regions and views to the matrix, and refuses exports over MAX_VALUES cells', () => {
    assert.deepEqual(clampRegion({ r0: -3, r1: 99, c0: 2, c1: 2 }, 10), {
      r0: 0,
      r1: 10,
      c0: 2,
      c1: 3,
    });
    assert.deepEqual(gridFor({}, 100), {
      region: { r0: 0, r1: 100, c0: 0, c1: 100 },
      rows: 100,
      cols: 100,
    });
    assert.deepEqual(gridFor({ size: 64 }, 1000), {
      region: { r0: 0, r1: 1000, c0: 0, c1: 1000 },
      rows: 64,
      cols: 64,
    });
    const n = Math.ceil(Math.sqrt(MAX_VALUES)) + 1;
    assert.throws(() => matrixValues({ length: n * n }, n, null), /more than 4M cells/);
  });

  it('is the same in both engines: the attention side and Model mode', async () => {
    const hr = await init();
    const side = new SideEngine(hr);
    const state = normalizeState({ language: 'python' });
    await side.run({ code: 'def f(x):\n    return x + 1\n', state, side: 'a', views: false });
    const { n, probs } = side.exportProbs();
    const fromSide = side.values(null);
    const model = new ModelEngine(hr);
    // Model mode's matrix as the model returns it, with whatever lies above the diagonal.
    model.matrix = probs.map((p, c) => (c % n > Math.floor(c / n) ? 1 : p));
    model.n = n;
    const fromModel = model.values(null);
    assert.deepEqual(fromModel.region, fromSide.region);
    assert.deepEqual(
      Array.from(fromModel.values, (v) => (Number.isNaN(v) ? 'masked' : v)),
      Array.from(fromSide.values, (v) => (Number.isNaN(v) ? 'masked' : v)),
    );
    assert.deepEqual(Array.from(model.row(3).probs), Array.from(side.row(3).probs));
    assert.ok(Math.abs(model.row(3).max - side.row(3).max) < 1e-6);
    assert.throws(() => new ModelEngine(hr).values(null), /nothing has been computed/);
  });
});
