// Chart axes (web/src/page/charts/axes.js): round tick values and their labels, checked for the ranges the
// playground's charts meet and for the degenerate ones they should survive. drawAxes runs against
// a recording stand-in for a 2D context: its labels stay inside the canvas.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { niceTicks, niceDomain, formatTick, drawAxes } from '../../web/src/page/charts/axes.js';

/** Whether a step is 1, 2, 2.5 or 5 × 10^k. */
function isNiceStep(step) {
  const k = Math.floor(Math.log10(step));
  const m = step / 10 ** k;
  return [1, 2, 2.5, 5, 10].some((n) => Math.abs(m - n) < 1e-9 * n);
}

/** The properties every tick set must have: round, ascending, inside the range, not too many. */
function checkTicks(lo, hi, maxTicks) {
  const { ticks, step } = niceTicks(lo, hi, maxTicks);
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  assert.ok(ticks.length >= 1, `(${lo}, ${hi}): no ticks`);
  assert.ok(ticks.length <= (maxTicks ?? 6), `(${lo}, ${hi}): ${ticks.length} ticks`);
  assert.ok(isNiceStep(step), `(${lo}, ${hi}): step ${step}`);
  const slack = step * 1e-6;
  for (const t of ticks) {
    assert.ok(t >= a - slack && t <= b + slack, `(${lo}, ${hi}): tick ${t} outside`);
    const multiple = t / step;
    assert.ok(
      Math.abs(multiple - Math.round(multiple)) < 1e-6,
      `(${lo}, ${hi}): tick ${t} not a multiple of ${step}`,
    );
  }
  for (let i = 1; i < ticks.length; i++)
    assert.ok(ticks[i] > ticks[i - 1], `(${lo}, ${hi}): not ascending`);
  return { ticks, step };
}

describe('niceTicks', () => {
  it('covers 0..4096 in thousands', () => {
    assert.deepEqual(niceTicks(0, 4096), { ticks: [0, 1000, 2000, 3000, 4000], step: 1000 });
  });

  it('crosses zero symmetrically', () => {
    assert.deepEqual(niceTicks(-1, 1), { ticks: [-1, -0.5, 0, 0.5, 1], step: 0.5 });
  });

  it('gives exact decimals on a narrow range', () => {
    const { ticks, step } = niceTicks(0.3, 0.31);
    assert.equal(step, 0.002);
    // Exactly the doubles of the decimals, without 0.30400000000000005 noise.
    assert.deepEqual(ticks, [0.3, 0.302, 0.304, 0.306, 0.308, 0.31]);
  });

  it('replaces the odd values of the old decay chart', () => {
    assert.deepEqual(niceTicks(9.3, 16.5).ticks, [10, 12, 14, 16]);
    assert.deepEqual(niceTicks(16.5, 9.3).ticks, [10, 12, 14, 16], 'bounds in either order');
  });

  it('uses a 2.5 step where that is the finest that fits', () => {
    assert.deepEqual(niceTicks(0, 10, 5), { ticks: [0, 2.5, 5, 7.5, 10], step: 2.5 });
  });

  it('respects maxTicks', () => {
    for (const maxTicks of [2, 3, 4, 5, 6, 8, 10, 12]) {
      for (const [lo, hi] of [
        [0, 1],
        [0, 4096],
        [-37, 112],
        [0.001, 0.0173],
        [1, 1e6],
      ]) {
        const { ticks } = checkTicks(lo, hi, maxTicks);
        // With two allowed, one can be all a round step gives (0.001..0.0173: 0.005 gives three).
        if (maxTicks >= 3)
          assert.ok(ticks.length >= 2, `(${lo}, ${hi}, ${maxTicks}): only ${ticks.length} tick(s)`);
      }
    }
    assert.equal(niceTicks(0, 1, 1).ticks.length, 1);
  });

  it('handles negative, tiny and huge ranges', () => {
    checkTicks(-7, -3);
    checkTicks(-1e-9, -5e-10);
    checkTicks(1e-300, 3e-300);
    checkTicks(0, 1e300);
    checkTicks(-1e308, 1e308); // hi - lo overflows
    checkTicks(123456.7, 123456.8);
  });

  it("handles a range below the values' precision without repeating ticks", () => {
    const { ticks } = niceTicks(1e16, 1e16 + 4);
    assert.ok(ticks.length >= 1 && ticks.length <= 6);
    assert.equal(new Set(ticks).size, ticks.length);
  });

  it('gives the one value for a degenerate range', () => {
    assert.deepEqual(niceTicks(5, 5).ticks, [5]);
    assert.deepEqual(niceTicks(0, 0).ticks, [0]);
    assert.deepEqual(niceTicks(-0.3, -0.3).ticks, [-0.3]);
    const { ticks, step } = niceTicks(0.31, 0.31);
    assert.equal(formatTick(ticks[0], step), '0.31');
  });

  it('gives no ticks for non-finite input', () => {
    for (const [lo, hi] of [
      [NaN, 1],
      [0, NaN],
      [0, Infinity],
      [-Infinity, 0],
    ]) {
      assert.deepEqual(niceTicks(lo, hi).ticks, [], `(${lo}, ${hi})`);
    }
  });
});

describe('niceDomain', () => {
  it('widens a range to the round ticks around it', () => {
    assert.deepEqual(niceDomain(2.7, 16.3, 5), {
      lo: 0,
      hi: 20,
      ticks: [0, 5, 10, 15, 20],
      step: 5,
    });
    assert.deepEqual(niceDomain(-3.2, -0.1, 4), { lo: -4, hi: 0, ticks: [-4, -2, 0], step: 2 });
  });

  it('keeps a range that already ends on ticks', () => {
    assert.deepEqual(niceDomain(-1, 1), { lo: -1, hi: 1, ticks: [-1, -0.5, 0, 0.5, 1], step: 0.5 });
    assert.deepEqual(niceDomain(0.3, 0.31).ticks, [0.3, 0.302, 0.304, 0.306, 0.308, 0.31]);
  });

  it('covers the range with at most maxTicks ticks, the ends among them', () => {
    for (const maxTicks of [2, 3, 4, 5, 6, 8]) {
      for (const [lo, hi] of [
        [2.7, 16.3],
        [0, 4096],
        [0.001, 0.0173],
        [-37, 112],
        [123456.7, 123456.8],
      ]) {
        const d = niceDomain(lo, hi, maxTicks);
        assert.ok(d.lo <= lo && d.hi >= hi, `(${lo}, ${hi}, ${maxTicks}): [${d.lo}, ${d.hi}]`);
        // Across zero, three (the ends and zero) are the fewest possible.
        const most = lo < 0 && hi > 0 ? Math.max(3, maxTicks) : maxTicks;
        assert.ok(
          d.ticks.length >= 2 && d.ticks.length <= most,
          `(${lo}, ${hi}, ${maxTicks}): ${d.ticks}`,
        );
        assert.equal(d.ticks[0], d.lo);
        assert.equal(d.ticks.at(-1), d.hi);
        assert.ok(isNiceStep(d.step));
      }
    }
  });

  it('opens a degenerate range and survives non-finite input', () => {
    const d = niceDomain(5, 5);
    assert.ok(d.lo < 5 && d.hi > 5 && d.ticks.includes(5), JSON.stringify(d));
    assert.deepEqual(niceDomain(0, 0).ticks, [-1, -0.5, 0, 0.5, 1]);
    assert.deepEqual([niceDomain(NaN, 1).lo, niceDomain(NaN, 1).hi], [0, 1]);
  });
});

describe('formatTick', () => {
  it('writes the decimals the step needs', () => {
    assert.equal(formatTick(0.75, 0.25), '0.75');
    assert.equal(formatTick(0.5, 0.25), '0.50');
    assert.equal(formatTick(7.5, 2.5), '7.5');
    assert.equal(formatTick(0.302, 0.002), '0.302');
    assert.equal(formatTick(0.1 + 0.2, 0.1), '0.3');
    assert.equal(formatTick(-0.5, 0.5), '-0.5');
  });

  it('writes integers in full', () => {
    assert.equal(formatTick(1500, 500), '1500');
    assert.equal(formatTick(4096, 1), '4096');
    assert.equal(formatTick(4096), '4096');
    assert.equal(formatTick(2000000, 500000), '2000000');
  });

  it('never writes minus zero', () => {
    assert.equal(formatTick(-0, 1), '0');
    assert.equal(formatTick(-1e-17, 0.1), '0.0');
  });

  it('uses exponents only for extreme values', () => {
    assert.equal(formatTick(1e20, 1e19), '1e+20');
    assert.equal(formatTick(1.5e20, 5e19), '1.5e+20');
    assert.equal(formatTick(3e-9, 1e-9), '3e-9');
  });

  it('labels every tick of a range distinctly', () => {
    for (const [lo, hi] of [
      [0, 4096],
      [-1, 1],
      [0.3, 0.31],
      [0, 10],
      [1e-300, 3e-300],
      [-1e308, 1e308],
    ]) {
      const { ticks, step } = niceTicks(lo, hi);
      const labels = ticks.map((t) => formatTick(t, step));
      assert.equal(new Set(labels).size, labels.length, labels.join(' '));
      for (const [i, label] of labels.entries())
        assert.ok(Math.abs(Number(label) - ticks[i]) <= step * 1e-6, `${label} for ${ticks[i]}`);
    }
  });
});

/** A 2D context stand-in that records text and measures it at 6 px a character. */
function recordingContext(width, height) {
  const texts = [];
  const state = { textAlign: 'start', rotated: false };
  const stack = [];
  const noop = () => {};
  const ctx = {
    canvas: { width, height },
    getTransform: () => ({ a: 1, d: 1 }),
    save: () => stack.push({ ...state }),
    restore: () => Object.assign(state, stack.pop()),
    rotate: () => (state.rotated = true),
    measureText: (s) => ({ width: s.length * 6 }),
    fillText: (s, x, y) => texts.push({ s, x, y, align: ctx.textAlign, rotated: state.rotated }),
    setLineDash: noop,
    beginPath: noop,
    moveTo: noop,
    lineTo: noop,
    stroke: noop,
    strokeRect: noop,
    translate: noop,
  };
  return { ctx, texts };
}

describe('drawAxes', () => {
  it('draws round tick labels and both titles inside the canvas', () => {
    const { ctx, texts } = recordingContext(600, 200);
    const scale = drawAxes(ctx, {
      box: { left: 50, top: 10, width: 540, height: 150 },
      x: { lo: 0, hi: 4096, title: 'relative distance (tokens)' },
      y: { lo: 9.3, hi: 16.5, title: 'decay bound' },
      ink: '#000',
      grid: true,
    });
    const labels = texts.map((t) => t.s);
    for (const label of [
      '0',
      '1000',
      '4000',
      '10',
      '16',
      'relative distance (tokens)',
      'decay bound',
    ])
      assert.ok(labels.includes(label), `${label} in ${labels}`);
    assert.ok(!labels.some((s) => /\d\.\d/.test(s)), `no decimals: ${labels}`);
    assert.ok(texts.find((t) => t.s === 'decay bound').rotated);
    for (const t of texts.filter((t) => !t.rotated && t.align === 'left')) {
      assert.ok(t.x >= 0 && t.x + t.s.length * 6 <= 600, `${t.s} at ${t.x} clipped`);
    }
    assert.equal(scale.x(0), 50);
    assert.equal(scale.x(4096), 590);
    assert.equal(scale.y(9.3), 160);
  });

  it('shifts a label at the canvas edge inward and drops overlapping ones', () => {
    const { ctx, texts } = recordingContext(120, 80);
    drawAxes(ctx, {
      box: { left: 0, top: 0, width: 120, height: 50 },
      x: { lo: 0, hi: 100000, ticks: [0, 25000, 50000, 75000, 100000] },
      y: { lo: 0, hi: 1, reverse: true },
      ink: '#000',
    });
    const x = texts.filter((t) => /^\d{5,6}$/.test(t.s) || t.s === '0').filter((t) => t.y > 50);
    assert.equal(x[0].x, 0, 'first label starts at the edge, not before it');
    for (const t of x) assert.ok(t.x >= 0 && t.x + t.s.length * 6 <= 120, `${t.s} at ${t.x}`);
    for (let i = 1; i < x.length; i++)
      assert.ok(x[i].x >= x[i - 1].x + x[i - 1].s.length * 6, 'overlap');
    assert.ok(x.length < 5, 'some labels dropped');
  });
});
