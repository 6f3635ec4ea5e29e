// The report's copy control summary (training/eval/data.mjs's copyStyle): means, standard errors,
// the first unit's floor and the pass / copies verdicts; and the evaluation's table of a run
// (dist/eval-stats.js summarize): against values worked out by hand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  COPY_GATE,
  controlName,
  copyGate,
  copyGateProbe,
  copyStyle,
} from '../../training/eval/data.mjs';
import { summarize } from '../../dist/eval-stats.js';

const close = (actual, expected, what) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual}, expected ${expected}`);

describe('copyStyle', () => {
  // Two probes: a 4-token name whose first token costs 6 bits (the rest 2/3 bit each, 2 bits/token
  // in all), and a 5-token one at 3 bits then 0.5 each (1 bit/token in all).
  const rows = [
    { units: 4, first: 12, second: 2, head: 6, afterFirst: 2 / 3 },
    { units: 5, first: 10, second: 1, head: 3, afterFirst: 0.5 },
  ];

  it('gives means and standard errors over probes', () => {
    const c = copyStyle(rows, 1);
    assert.equal(c.n, 2);
    close(c.units, 4.5, 'units');
    close(c.first.mean, 11, 'first');
    close(c.first.se, 1, 'first se'); // sd √2, over √2 probes
    close(c.second.mean, 1.5, 'second');
    close(c.second.se, 0.5, 'second se');
    close(c.head.mean, 4.5, 'head');
    close(c.head.se, 1.5, 'head se');
    close(c.afterFirst.mean, 7 / 12, 'after first');
    close(c.gain.mean, 9.5, 'gain');
    close(c.gain.se, 0.5, 'gain se');
  });

  it('spreads the first unit over its occurrence, per probe, for the floor', () => {
    // 6 / 4 and 3 / 5: not (mean head) / (mean units) = 4.5 / 4.5 = 1
    close(copyStyle(rows, 1).floor, (1.5 + 0.6) / 2, 'floor');
  });

  it('passes at the threshold and not above it', () => {
    assert.equal(copyStyle(rows, 1).pass, false);
    assert.equal(copyStyle(rows, 1.5).pass, true);
  });

  it('copies only with a gain of at least 1 bit beyond two standard errors', () => {
    assert.equal(copyStyle(rows, 1).copies, true);
    const small = [
      { units: 3, first: 5, second: 4.5, head: 4, afterFirst: 4.75 },
      { units: 3, first: 5, second: 4.3, head: 4, afterFirst: 4.45 },
    ];
    assert.equal(copyStyle(small, 1).copies, false); // gain 0.6: under 1 bit
    const noisy = [
      { units: 3, first: 5, second: 4.8, head: 4, afterFirst: 5.2 },
      { units: 3, first: 5, second: 2, head: 4, afterFirst: 1 },
    ];
    assert.equal(copyStyle(noisy, 1).copies, false); // gain 1.6 ± 1.4: within two standard errors
  });

  it('leaves one-unit occurrences out of the part after the first unit', () => {
    const one = [{ units: 1, first: 8, second: 3, head: 3, afterFirst: null }];
    assert.equal(copyStyle(one, 1).afterFirst, null);
    close(copyStyle(one, 1).floor, 3, 'floor of a one-unit occurrence');
    const mixed = [...one, rows[0]];
    close(copyStyle(mixed, 1).afterFirst.mean, 2 / 3, 'after first, one probe');
  });
});

describe('the copy gate (issue 32)', () => {
  it('controlName: same length and shape, every letter and digit changed, deterministic', () => {
    for (const name of ['irbhtlh', 'fonova_kuthu', 'QfrqTbfmf84', 'xyzzyQ9']) {
      const c = controlName(name);
      assert.equal(c.length, name.length);
      assert.equal(c, controlName(name));
      for (let i = 0; i < name.length; i++) {
        const [a, b] = [name[i], c[i]];
        if (/[A-Za-z0-9]/.test(a)) assert.notEqual(a, b, `${name} -> ${c} at ${i}`);
        else assert.equal(a, b);
        for (const re of [/[aeiou]/, /[AEIOU]/, /[0-9]/, /[a-z]/, /[A-Z]/])
          assert.equal(re.test(a), re.test(b), `${name} -> ${c}: ${a} vs ${b}`);
      }
    }
  });

  it("copyGateProbe: the called name's units after its first, per byte, in the repeated and the control text", () => {
    const name = 'kasile';
    const text = `import os\n\ndef ${name}(value):\n    pass\n\nresult = ${name}(value)\n`;
    const s = text.lastIndexOf(name);
    const seen = [];
    // A byte model that costs 1 bit a byte, and 9 bits at the bytes of a name it has not seen.
    const model = {
      loss(t) {
        seen.push(t);
        const losses = new Float32Array(t.length - 1).fill(1);
        if (!t.slice(s, s + name.length).includes(name))
          for (let k = s; k < s + name.length; k++) losses[k - 1] = 9;
        return { n: t.length, losses, tokens: null };
      },
    };
    const r = copyGateProbe(model, {
      style: 'syllables',
      input: Buffer.from(text).toString('base64'),
    });
    assert.equal(seen[0], text);
    assert.equal(seen[1], text.slice(0, s) + controlName(name) + text.slice(s + name.length));
    assert.deepEqual([r.repeat, r.other, r.saving, r.bytes], [1, 9, 8, 6]);
  });

  it('copyGate: every style at least perStyle and the average at least average', () => {
    const rows = (savings) =>
      COPY_GATE.styles.flatMap((style, i) =>
        [0, 1].map((k) => ({
          style,
          repeat: 0.5,
          other: 0.5 + savings[i] + (k ? 0.1 : -0.1),
          saving: savings[i] + (k ? 0.1 : -0.1),
        })),
      );
    const ok = copyGate(rows([4, 3, 2.5]));
    assert.equal(ok.pass, true);
    close(ok.average, 9.5 / 3, 'average');
    assert.deepEqual(
      ok.styles.map((s) => s.n),
      [2, 2, 2],
    );
    assert.equal(copyGate(rows([6, 6, 1.9])).pass, false); // one style under 2
    assert.equal(copyGate(rows([3, 2.5, 2.5])).pass, false); // average under 3
  });
});

describe('summarize (the statistics hirope.eval reads)', () => {
  // Two files: a has two windows, b one; edges [0, 2, 4] (1 unit in bucket 0, 2 in bucket 1).
  const run = {
    length: 4,
    edges: [0, 2, 4],
    counts: [1, 2],
    windows: [
      { file: 'a', offset: 0 },
      { file: 'a', offset: 4 },
      { file: 'b', offset: 0 },
    ],
    schemes: {
      x: {
        sums: [
          [1, 4],
          [3, 2],
          [2, 6],
        ],
        classSums: [
          [0, 1, 0, 4],
          [0, 0, 0, 2],
          [0, 0, 0, 6],
        ],
        classCounts: [
          [0, 1, 0, 2],
          [0, 0, 0, 2],
          [0, 0, 0, 1],
        ],
      },
      y: {
        sums: [
          [1, 2],
          [1, 2],
          [1, 2],
        ],
        classSums: [
          [0, 1, 0, 2],
          [0, 0, 0, 2],
          [0, 0, 0, 2],
        ],
        classCounts: [
          [0, 1, 0, 2],
          [0, 0, 0, 2],
          [0, 0, 0, 1],
        ],
      },
    },
  };

  it('gives per-file means, their mean and standard error, and the paired far difference', () => {
    const { summary, baseline } = summarize(run, ['y', 'x']);
    assert.equal(baseline, 'y'); // far 1.5 against x's 3.75
    const x = summary.x;
    // Bucket 0: a (1 + 3) / 2 = 2, b 2 / 1 = 2. Bucket 1: a 6 / 4 = 1.5, b 6 / 2 = 3: mean 2.25,
    // sd 1.5 / √2, se sd / √2 = 0.75.
    close(x.buckets[0].mean, 2, 'bucket 0');
    close(x.buckets[0].se, 0, 'bucket 0 se');
    close(x.buckets[1].mean, 2.25, 'bucket 1');
    close(x.buckets[1].se, 0.75, 'bucket 1 se');
    close(x.beyond.mean, 2.25, 'beyond');
    // Far: a 6 / 4 = 1.5, b 6 / 1 = 6: mean 3.75, se 4.5 / 2 = 2.25.
    close(x.far.mean, 3.75, 'far');
    close(x.far.se, 2.25, 'far se');
    assert.equal(x.first.files, 1); // only a has a first occurrence: no standard error
    assert.ok(Number.isNaN(x.first.se));
    assert.ok(Number.isNaN(x.near.mean));
    // x - y on far by file: a 1.5 - 1 = 0.5, b 6 - 2 = 4: mean 2.25, se 3.5 / 2 = 1.75.
    close(x.far_minus_baseline.diff, 2.25, 'far - baseline');
    close(x.far_minus_baseline.se, 1.75, 'far - baseline se');
    assert.equal(summary.y.far_minus_baseline, null);
    assert.deepEqual(x.by_file.b, {
      buckets: [2, 3],
      beyond: 3,
      far: 6,
      near: null,
      first: null,
      other: null,
    });
  });
});
