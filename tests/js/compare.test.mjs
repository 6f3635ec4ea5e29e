// The shared comparison helpers of builds.mjs fail on NaN and on a length mismatch (issue 35).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { maxAbsDiff, assertClose } from './support/both-builds.mjs';

describe('comparison helpers', () => {
  it('maxAbsDiff measures the largest difference', () => {
    assert.equal(maxAbsDiff([1, 2, 3], [1, 2, 3]), 0);
    assert.equal(maxAbsDiff(new Float32Array([1, 2.5, 3]), [1, 2, 3]), 0.5);
    assert.equal(maxAbsDiff([-Infinity, 1], [-Infinity, 1]), 0); // masked logits
    assert.equal(maxAbsDiff([-Infinity, 1], [0, 1]), Infinity);
    assert.equal(maxAbsDiff([], []), 0);
  });

  it('maxAbsDiff fails on NaN in either array', () => {
    for (const [a, b] of [
      [
        [NaN, 2],
        [1, 2],
      ],
      [
        [1, 2],
        [1, NaN],
      ],
      [[NaN], [NaN]],
    ]) {
      const d = maxAbsDiff(a, b);
      assert.ok(Number.isNaN(d), `${a} vs ${b}: ${d}`);
      assert.equal(d < 1e9, false); // what `assert.ok(maxAbsDiff(...) < tol)` sees
      assert.throws(() => assertClose(a, b, 1e9), /max \|difference\| NaN is not within/);
    }
  });

  it('maxAbsDiff fails on a length mismatch, shorter, longer or empty', () => {
    for (const [a, b] of [
      [
        [1, 2],
        [1, 2, 3],
      ],
      [
        [1, 2, 3],
        [1, 2],
      ],
      [new Float32Array(0), [1]],
      [[1], []],
    ])
      assert.throws(() => maxAbsDiff(a, b), /maxAbsDiff: lengths differ \(\d+ vs \d+\)/);
    assert.throws(() => maxAbsDiff(undefined, [1]), /maxAbsDiff: not arrays/);
    assert.throws(() => assertClose([1, 2], [1, 2, 3], 1), /lengths differ \(2 vs 3\)/);
  });

  it('assertClose passes within the tolerance and fails past it', () => {
    assertClose([1, 2], [1.05, 2], 0.1);
    assert.throws(
      () => assertClose([1, 2], [1.5, 2], 0.1, 'case'),
      /case: max \|difference\| 0\.5 is not within 0\.1/,
    );
  });
});
