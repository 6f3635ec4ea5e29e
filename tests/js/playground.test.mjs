// The playground's compute side in Node: pooling against a naive mean, the A vs B map (log2(pB/pA)
// colours, masking, visible share), per-row statistics and TV/KL against a direct computation, the
// presets (their state, their match, a visible difference on every sample), q/k file parsing and
// its errors, URL state round trips, language detection on the samples, and a SideEngine run.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import { SideEngine, MAX_ATTENTION_TOKENS } from '../../web/src/worker/attention-engine.js';
import { diffImage, VISIBLE_RATIO } from '../../web/src/shared/diff-image.js';
import { parseQKFile } from '../../web/src/worker/qk-file.js';
import { sampleIndices, positionsFor } from '../../web/src/worker/attention-views.js';
import { rowStats, compareRows } from '../../web/src/worker/attention-numbers.js';
import {
  normalizeState,
  encodeState,
  decodeState,
  schemeFor,
  DEFAULTS,
} from '../../web/src/shared/playground-state.js';
import {
  probIndex,
  ratioIndex,
  logRatio,
  divergingLut,
  rgb,
  DECADES,
  RATIO_FLOOR,
  RATIO_LIMIT,
} from '../../dist/colormap.js';
import { PRESETS, presetState, matchesPreset } from '../../web/src/shared/presets.js';
import { SAMPLES } from '../../web/src/shared/samples.js';
import {
  detectLanguage,
  detectionOrder,
  errorBytes,
  LANGUAGE_PREFERENCE,
} from '../../web/src/shared/language-detection.js';
import { pageProbabilities } from './support/page-probabilities.mjs';
import { parseSentence } from '../../web/src/shared/wording.js';
import { LANGUAGE_NAMES } from '../../web/src/shared/samples.js';
import fs from 'node:fs';
import {
  expectedScheme,
  expectedPositions,
  expectedAnalyzeOptions,
} from './support/page-schemes.mjs';

function naivePool(p, inv, n, region, rows, cols) {
  const out = { ratio: new Float64Array(rows * cols), raw: new Float64Array(rows * cols) };
  const rowEdge = (y) => region.r0 + Math.ceil((y * (region.r1 - region.r0)) / rows);
  const colEdge = (x) => region.c0 + Math.ceil((x * (region.c1 - region.c0)) / cols);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      let sr = 0;
      let sp = 0;
      let count = 0;
      for (let i = rowEdge(y); i < rowEdge(y + 1); i++) {
        for (let j = colEdge(x); j < colEdge(x + 1); j++) {
          const v = j > i ? 0 : p[i * n + j];
          sr += v * inv[i];
          sp += v;
          count++;
        }
      }
      out.ratio[y * cols + x] = sr / count;
      out.raw[y * cols + x] = sp / count;
    }
  }
  return out;
}

describe('playground engine', () => {
  let hr;
  before(async () => {
    hr = await init();
  });

  it('pools by the mean over each cell, causal entries as zero (hr.pool and attention({ pool }))', () => {
    const n = 37;
    const p = new Float32Array(n * n).map((_, c) => (((c * 2654435761) % 1000) + 1) / 1000);
    const inv = new Float32Array(n).map(
      (_, i) => 1 / Math.max(...p.subarray(i * n, i * n + i + 1)),
    );
    for (const [region, rows, cols] of [
      [{ r0: 0, r1: n, c0: 0, c1: n }, 10, 10],
      [{ r0: 5, r1: 30, c0: 2, c1: 25 }, 7, 4],
      [{ r0: 0, r1: n, c0: 0, c1: n }, n, n],
    ]) {
      const got = hr.pool({ matrix: p, n, rows, cols, region });
      const want = naivePool(p, inv, n, region, rows, cols);
      for (let c = 0; c < rows * cols; c++) {
        assert.ok(Math.abs(got.ratio[c] - want.ratio[c]) < 1e-5, `ratio cell ${c}`);
        assert.ok(Math.abs(got.raw[c] - want.raw[c]) < 1e-5, `raw cell ${c}`);
      }
    }
    // attention() pools the same numbers while it computes them.
    const { q, k } = hr.qk({ source: 'seeded', n, headDim: 16, seed: 3 });
    const pool = {
      rows: 9,
      cols: 5,
      region: { r0: 2, r1: 35, c0: 0, c1: 30 },
      ratio: new Float32Array(45),
      raw: new Float32Array(45),
      rowMax: new Float32Array(n),
    };
    const probs = hr.attention({ q, k, n, headDim: 16, scheme: 'rope', pool });
    const again = hr.pool({ matrix: probs, n, rows: 9, cols: 5, region: pool.region });
    assert.deepEqual(pool.ratio, again.ratio);
    assert.deepEqual(pool.raw, again.raw);
    assert.deepEqual(pool.rowMax, again.rowMax);
    assert.throws(
      () => hr.attention({ q, k, n, headDim: 16, output: 'logits', pool }),
      /pool needs output 'probs' and one head/,
    );
    assert.throws(
      () => hr.pool({ matrix: probs, n, rows: 40, cols: 5 }),
      /pool\.rows must be at most 37, got 40/,
    );
    assert.throws(
      () => hr.pool({ matrix: probs.subarray(1), n, rows: 4, cols: 4 }),
      /matrix has length 1368, expected n \* n = 1369/,
    );
  });

  it('colours A vs B by log2(pB / pA) on a fixed scale, masks cells above the diagonal, and counts the visible share', () => {
    const n = 4;
    const region = { r0: 0, r1: n, c0: 0, c1: n };
    // [i, j, pA, pB] for the lower triangle; cells above the diagonal hold numbers that must not show.
    const lower = [
      [0, 0, 0.5, 0.5], // equal: neutral
      [1, 0, 0.25, 0.34375], // 1.375x: visible
      [1, 1, 0.25, 0.28125], // 1.125x: not visible
      [2, 0, 0.1, 0.8], // 8x: B's end of the scale
      [2, 1, 0.8, 0.1], // A's end
      [2, 2, 1e-8, 1e-7], // both below the floor: neutral
      [3, 0, 0.01, 0.32], // 32x: saturated
      [3, 1, 0, 1e-6], // 0 against the floor: neutral
      [3, 2, 0, 1e-3], // 1000x (A's 0 floored): saturated
      [3, 3, 0.5, 0.25], // A 2x: a third of the way to A's end
    ];
    const a = new Float32Array(n * n).fill(0.7);
    const b = new Float32Array(n * n).fill(0.1);
    for (const [i, j, pa, pb] of lower) {
      a[i * n + j] = pa;
      b[i * n + j] = pb;
    }
    const index = (i, j) => ratioIndex(a[i * n + j], b[i * n + j]);
    // Equal (or both floored) is the neutral middle, 8x either way the ends, A 2x a third of the way.
    for (const [i, j] of [
      [0, 0],
      [2, 2],
      [3, 1],
    ])
      assert.equal(index(i, j), 128, `(${i}, ${j})`);
    for (const [i, j] of [
      [2, 0],
      [3, 0],
      [3, 2],
    ])
      assert.equal(index(i, j), 255, `(${i}, ${j})`);
    assert.equal(index(2, 1), 0);
    assert.ok(Math.abs(index(3, 3) - 85) <= 1);
    // The direct formula: index = round(clamp(1/2 + log2(max(pB, floor) / max(pA, floor)) / (2 * limit)) * 255),
    // within one step (the map reads log2 from a table, within 0.003 of the exact value).
    for (const [i, j] of lower) {
      const r = Math.log2(
        Math.max(b[i * n + j], RATIO_FLOOR) / Math.max(a[i * n + j], RATIO_FLOOR),
      );
      assert.ok(
        Math.abs(
          index(i, j) - Math.round(Math.min(1, Math.max(0, 0.5 + r / (2 * RATIO_LIMIT))) * 255),
        ) <= 1,
        `(${i}, ${j})`,
      );
      assert.equal(logRatio(a[i * n + j], b[i * n + j]), r);
    }
    for (const theme of ['light', 'dark']) {
      const { rgba, visibleShare } = diffImage(a, b, n, n, region, theme);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const px = Array.from(rgba.subarray(4 * (i * n + j), 4 * (i * n + j) + 4));
          if (j > i) assert.equal(px[3], 0, `(${i}, ${j}) is masked`);
          else
            assert.deepEqual(
              px,
              [...rgb(divergingLut(theme), index(i, j)), 255],
              `(${i}, ${j}) ${theme}`,
            );
        }
      }
      // Visible: at least VISIBLE_RATIO either way: (1,0), (2,0), (2,1), (3,0), (3,2), (3,3).
      const visible = lower.filter(
        ([i, j]) => Math.abs(logRatio(a[i * n + j], b[i * n + j])) >= Math.log2(VISIBLE_RATIO),
      ).length;
      assert.equal(visible, 6);
      assert.equal(visibleShare, visible / lower.length);
    }
    // The themes differ in their ramps, in the neutral middle above all.
    assert.notDeepEqual(rgb(divergingLut('light'), 128), rgb(divergingLut('dark'), 128));
    // A zoomed region masks by token index, not by cell: rows 2-3 against keys 1-2.
    const zoomed = diffImage(
      Float32Array.of(0.5, 0.5, 0.5, 0.5),
      Float32Array.of(0.5, 0.5, 0.5, 1),
      2,
      2,
      { r0: 2, r1: 4, c0: 1, c1: 3 },
    );
    assert.deepEqual(
      [3, 7, 11, 15].map((o) => zoomed.rgba[o]),
      [255, 255, 255, 255],
    );
    assert.equal(zoomed.visibleShare, 1 / 4);
    const upper = diffImage(
      Float32Array.of(0.5, 0.5, 0.5, 0.5),
      Float32Array.of(0.5, 0.5, 0.5, 0.5),
      2,
      2,
      { r0: 0, r1: 2, c0: 2, c1: 4 },
    );
    assert.deepEqual(
      [3, 7, 11, 15].map((o) => upper.rgba[o]),
      [0, 0, 0, 0],
    );
    assert.equal(upper.visibleShare, 0);
  });

  it('computes per-row own-unit mass and mean distance (rowStats) and TV / KL (compareRows) as defined', () => {
    const n = 23;
    // Causal rows that sum to 1, some with zeros.
    const rows = (seed) => {
      const p = new Float32Array(n * n);
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let j = 0; j <= i; j++)
          sum += p[i * n + j] = (j * seed + i) % 5 === 0 ? 0 : ((i * 31 + j * seed * 17) % 97) + 1;
        if (sum === 0) p[i * n + i] = sum = 1;
        for (let j = 0; j <= i; j++) p[i * n + j] /= sum;
      }
      return p;
    };
    const a = rows(3);
    const b = rows(7);
    const unit = Int32Array.from({ length: n }, (_, t) => Math.floor(t / 6));
    const token = Int32Array.from({ length: n }, (_, t) => t);
    const stats = rowStats(a, n, unit, token);
    const cmp = compareRows(a, b, n);
    for (let i = 0; i < n; i++) {
      let own = 0;
      let distance = 0;
      let tv = 0;
      let kl = 0;
      for (let j = 0; j <= i; j++) {
        const pa = a[i * n + j];
        const pb = b[i * n + j];
        if (unit[j] === unit[i]) own += pa;
        distance += pa * (i - j);
        tv += Math.abs(pa - pb) / 2;
        if (pa > 0) kl += pa * Math.log2(pa / Math.max(pb, 1e-30));
      }
      assert.ok(Math.abs(stats.own[i] - own) < 1e-6, `own ${i}`);
      assert.ok(Math.abs(stats.distance[i] - distance) < 1e-5, `distance ${i}`);
      assert.ok(Math.abs(cmp.tv[i] - tv) < 1e-6, `tv ${i}`);
      assert.ok(Math.abs(cmp.kl[i] - Math.max(0, kl)) < 1e-5, `kl ${i}`);
    }
    assert.equal(stats.own[0], 1); // the first query sees only itself
    // The same matrix: no difference; disjoint rows: TV 1.
    const same = compareRows(a, a, n);
    assert.ok(same.tv.every((v) => v === 0) && same.kl.every((v) => v === 0));
    const left = new Float32Array(4).fill(0);
    const right = new Float32Array(4).fill(0);
    left[2] = 1; // row 1, key 0
    right[3] = 1; // row 1, key 1
    left[0] = right[0] = 1;
    const disjoint = compareRows(left, right, 2);
    assert.deepEqual(Array.from(disjoint.tv), [0, 1]);
    assert.ok(disjoint.kl[1] > 90, 'KL with a floored zero is large');
  });

  it("gives HiRoPE a longer mean attended distance than RoPE on the sample (the default preset's story)", async () => {
    const state = normalizeState({});
    const code = SAMPLES.python;
    const analysis = hr.analyze(code, expectedAnalyzeOptions(state));
    const n = analysis.tokens.count;
    const { q, k } = hr.qk({ source: state.source, n, headDim: state.headDim });
    const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
    const stats = {};
    for (const side of ['a', 'b']) {
      const scheme = expectedScheme(state[side], state);
      const probs = hr.attention({
        q,
        k,
        n,
        headDim: state.headDim,
        positions: expectedPositions(scheme, analysis.positions),
        scheme,
        causal: true,
      });
      stats[side] = rowStats(probs, n, analysis.positions.unit, analysis.positions.token);
      assert.ok(stats[side].own.every((v) => v >= 0 && v <= 1 + 1e-6));
    }
    assert.ok(
      mean(stats.b.distance) > 1.5 * mean(stats.a.distance),
      `${mean(stats.a.distance)} vs ${mean(stats.b.distance)}`,
    );
  });

  it('builds presets that keep the code, match until a control moves, and show a visible difference on every sample', () => {
    const mine = {
      language: 'go',
      code: 'package x\n',
      tokenizer: 'cl100k',
      gap: 'next',
      descend: true,
      train: 999,
      headDim: 16,
      a: { type: 'alibi' },
    };
    for (const preset of PRESETS) {
      const state = presetState(preset.id, normalizeState(mine));
      assert.equal(state.preset, preset.id);
      for (const key of ['language', 'code', 'tokenizer', 'gap', 'descend'])
        assert.equal(state[key], mine[key], `${preset.id} keeps ${key}`);
      assert.equal(state.train, preset.state.train);
      assert.equal(state.headDim, DEFAULTS.headDim, 'the rest comes from the defaults');
      assert.deepEqual(state, normalizeState(state));
      assert.equal(matchesPreset(state), true);
      // The code and language are not part of a preset; the schemes and shared settings are.
      assert.equal(matchesPreset({ ...state, code: 'x = 1\n', language: 'python' }), true);
      assert.equal(matchesPreset({ ...state, train: state.train + 1 }), false);
      assert.equal(
        matchesPreset({ ...state, b: { ...state.b, window: state.b.window + 1 } }),
        false,
      );
      assert.equal(
        matchesPreset({ ...state, source: state.source === 'ones' ? 'seeded' : 'ones' }),
        false,
      );
      assert.equal(matchesPreset({ ...state, preset: '' }), false);
    }
    assert.equal(presetState('nope'), null);
    assert.equal(new Set(PRESETS.map((p) => p.id)).size, PRESETS.length);
    // The defaults are the first preset.
    assert.equal(PRESETS[0].id, DEFAULTS.preset);
    assert.equal(matchesPreset(normalizeState({})), true);
    assert.deepEqual(presetState(DEFAULTS.preset, normalizeState({})), normalizeState({}));

    // Every preset colours at least 10% of the A vs B cells on every sample (the browser test's
    // threshold; the lowest is ReRoPE vs Self-Extend on the Java sample, 17%); equal schemes, none.
    for (const preset of PRESETS) {
      for (const [language, code] of Object.entries(SAMPLES)) {
        const state = presetState(preset.id, normalizeState({ language }));
        const { n, probs } = pageProbabilities(hr, code, state);
        const region = { r0: 0, r1: n, c0: 0, c1: n };
        const { visibleShare } = diffImage(probs.a, probs.b, n, n, region);
        assert.ok(
          visibleShare >= 0.1,
          `${preset.id} on ${language}: ${(100 * visibleShare).toFixed(1)}%`,
        );
        if (language === 'python')
          assert.equal(diffImage(probs.b, probs.b, n, n, region).visibleShare, 0);
      }
    }
  });

  it('maps probability ratios to colour indices on a log scale (table lookup = formula)', () => {
    for (let e = -DECADES - 1; e <= 0; e += 0.013) {
      const r = Math.fround(10 ** e);
      const t = 1 + Math.log10(r) / DECADES;
      const exact = t <= 0 ? 0 : Math.round(Math.min(1, t) * 255);
      assert.ok(Math.abs(probIndex(r) - exact) <= 1, `ratio ${r}`);
    }
    assert.equal(probIndex(1), 255);
    assert.equal(probIndex(0), 0);
    assert.equal(probIndex(NaN), 0);
  });

  it('parses q/k files, nested or flat, and refuses bad ones with a message', () => {
    const f = parseQKFile(
      JSON.stringify({
        headDim: 2,
        q: [
          [1, 2],
          [3, 4],
        ],
        k: [5, 6, 7, 8],
      }),
    );
    assert.equal(f.n, 2);
    assert.deepEqual(Array.from(f.k), [5, 6, 7, 8]);
    const bad = [
      ['not json', /not valid JSON/],
      ['[1]', /must hold a JSON object|headDim/],
      [JSON.stringify({ headDim: 3, q: [], k: [] }), /headDim must be an even integer/],
      [JSON.stringify({ headDim: 2, q: [[1, 2]] }), /needs "k"/],
      [
        JSON.stringify({ headDim: 2, q: [[1, 2, 3]], k: [[1, 2]] }),
        /"q" row 0 does not hold 2 numbers/,
      ],
      [
        JSON.stringify({ headDim: 2, q: [[1, null]], k: [[1, 2]] }),
        /"q" row 0 column 1 is not a finite number/,
      ],
      [JSON.stringify({ headDim: 2, q: [1, 2, 3], k: [1, 2] }), /not a whole number of rows/],
      [
        JSON.stringify({
          headDim: 2,
          q: [[1, 2]],
          k: [
            [1, 2],
            [3, 4],
          ],
        }),
        /"q" has 1 row but "k" has 2/,
      ],
    ];
    for (const [text, message] of bad)
      assert.throws(
        () => parseQKFile(text),
        (e) => e.name === 'PlaygroundError' && message.test(e.message),
      );
  });

  it('round-trips the state through the URL, keeping only what differs from the defaults', async () => {
    assert.equal(await encodeState(normalizeState({})), '');
    const state = normalizeState({
      code: 'def f():\n    return "é ✓"\n',
      language: 'go',
      headDim: 32,
      b: { type: 'self-extend', group: 4 },
    });
    const hash = await encodeState(state);
    assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
    assert.deepEqual(await decodeState(hash), state);
    // Unreadable or hostile hashes give the defaults.
    assert.deepEqual(await decodeState('#s=%%%'), normalizeState({}));
    assert.deepEqual(await decodeState('#s=AAAA'), normalizeState({}));
    // Wrong types are replaced by defaults, unknown keys dropped.
    assert.deepEqual(
      normalizeState({ headDim: 'x', a: { window: Infinity }, evil: 1 }),
      normalizeState({}),
    );
    assert.equal(DEFAULTS.b.type, 'hirope');
  });

  it('builds API schemes from the controls', () => {
    const state = normalizeState({
      train: 256,
      b: { type: 'hirope', ratio: 0.25, levels: 3, scaling: 'yarn', factor: 8 },
    });
    assert.deepEqual(schemeFor(state.b, state), {
      type: 'hirope',
      base: 10000,
      layout: 'half',
      scaling: { type: 'yarn', factor: 8, originalLength: 256 },
      window: DEFAULTS.b.window,
      trainingLength: 256,
      ratio: 0.25,
      levels: 3,
    });
    assert.deepEqual(schemeFor({ ...state.a, type: 'alibi' }, state), { type: 'alibi' });
    // HiRoPE on fixed segments: the core derives the unit from the token index, so no unit positions.
    const segments = normalizeState({ b: { type: 'hirope', units: 'segments', segment: 16 } });
    const scheme = schemeFor(segments.b, segments);
    assert.equal(scheme.segmentSize, 16);
    const positions = {
      token: Int32Array.of(0, 1),
      unit: Int32Array.of(0, 0),
      statement: Int32Array.of(0, 0),
    };
    assert.deepEqual(Object.keys(positionsFor(scheme, positions)), ['token', 'statement']);
    assert.equal(positionsFor(schemeFor(state.b, state), positions), positions);
  });

  it('detects the language of every sample', () => {
    const engine = new SideEngine(hr);
    for (const [language, code] of Object.entries(SAMPLES))
      assert.equal(engine.detectLanguage(code), language);
  });

  // Each grammar is a download: the code's own words pick the first one to try (issue 33).
  it('detection loads the grammar of each sample only, and keeps the preference on ties', async () => {
    for (const [language, code] of Object.entries(SAMPLES)) {
      const fresh = await init();
      assert.equal(detectLanguage(fresh, code), language);
      assert.deepEqual(fresh.loadedLanguages, [language], language);
    }
    // Nothing to go by: the preference order (Python first).
    assert.deepEqual(detectionOrder('x = 1\n'), LANGUAGE_PREFERENCE);
    assert.equal(detectLanguage(await init(), 'x = 1\n'), 'python');
    // JavaScript is valid TypeScript: with no TypeScript words it stays JavaScript.
    assert.equal(detectLanguage(hr, 'const f = (a, b) => a + b;\n'), 'javascript');
    assert.equal(
      detectLanguage(hr, 'interface P { x: number }\nconst p: P = { x: 1 };\n'),
      'typescript',
    );
    assert.equal(detectLanguage(hr, '#include <vector>\nstd::vector<int> v;\n'), 'cpp');
    assert.equal(detectLanguage(hr, '#include <stdio.h>\nint main(void) { printf("hi"); }\n'), 'c');
  });

  // glibc's stdio.h (tests/fixtures/glibc): C++ leaves fewer error bytes than C but in more
  // regions (118 against 26). Detection and the status's "the closest" use one measure, bytes.
  it("on glibc's stdio.h the status calls the detected grammar the closest by detection's own measure", () => {
    const code = fs.readFileSync(new URL('../fixtures/glibc/stdio.h', import.meta.url), 'utf8');
    const detected = detectLanguage(hr, code);
    const measure = (language) => {
      const errors = hr.analyze(code, { language }).errors;
      return { regions: errors.length, bytes: errorBytes(errors) };
    };
    const chosen = measure(detected);
    for (const other of Object.keys(SAMPLES))
      assert.ok(measure(other).bytes >= chosen.bytes, `${other} against ${detected}`);
    const sentence = parseSentence({
      languageName: LANGUAGE_NAMES[detected],
      errors: chosen.regions,
      errorBytes: chosen.bytes,
      detected: true,
    });
    assert.match(
      sentence,
      new RegExp(
        `^No grammar parses this code cleanly: ${LANGUAGE_NAMES[detected].replace(/\+/g, '\\+')} is the closest, its syntax errors covering the fewest bytes \\(${chosen.bytes} bytes in ${chosen.regions} regions\\)`,
      ),
    );
  });

  it('runs one side: analysis, attention, pooled image, views; and says when it truncates', async () => {
    const engine = new SideEngine(hr);
    const state = normalizeState({});
    const result = await engine.run({
      code: SAMPLES.python,
      state,
      side: 'b',
      summary: true,
      distances: true,
      view: { size: 64 },
    });
    assert.equal(result.n, result.analysis.count);
    assert.equal(result.image.rows, 64);
    assert.equal(result.image.rgba.length, 64 * 64 * 4);
    assert.equal(result.views.distances.value.views.length, 4);
    assert.equal(result.views.angles.value.pairs, 32);
    assert.equal(result.views.decay.value.length, result.views.maxDistance + 1);
    const row = engine.row(10);
    assert.equal(row.probs.length, 11);
    assert.ok(Math.abs(row.probs.reduce((a, b) => a + b) - 1) < 1e-5);
    // 33,000 tokens: the map covers the first 32,768 (head dim 8 keeps the run short).
    const big = await engine.run({
      code: 'x = 1\n'.repeat(11000),
      state: normalizeState({ headDim: 8 }),
      side: 'a',
      views: false,
      view: { size: 32 },
    });
    assert.equal(big.n, MAX_ATTENTION_TOKENS);
    assert.match(big.notes[0], /^The heatmaps show the first 32,768 of 33,000 tokens\.$/);
    await assert.rejects(
      engine.run({ code: 'x = 1\n', state: normalizeState({ source: 'file' }), side: 'a' }),
      /load a q\/k JSON file first/,
    );
    assert.throws(() => new SideEngine(hr).row(0), /nothing has been computed yet/);
    // reuse: a run that would send the same as the last one says so; any change sends it all.
    const again = new SideEngine(hr);
    const request = {
      code: SAMPLES.c,
      state: normalizeState({ language: 'c' }),
      side: 'a',
      reuse: true,
      view: { size: 32 },
    };
    assert.equal((await again.run(request)).unchanged, undefined);
    assert.equal((await again.run(request)).unchanged, true);
    const other = normalizeState({ language: 'c', b: { type: 'alibi' } }); // only the other side's scheme
    assert.equal((await again.run({ ...request, state: other })).unchanged, true);
    assert.equal(
      (await again.run({ ...request, state: other, distances: true })).unchanged,
      undefined,
    );
    const hirope = normalizeState({ language: 'c', b: { ratio: 0.25 } }); // changes the distance views
    assert.equal(
      (await again.run({ ...request, state: hirope, distances: true })).unchanged,
      undefined,
    );
    assert.equal(
      (await again.run({ ...request, state: other, view: { size: 16 } })).image.rows,
      16,
    );
    assert.deepEqual(Array.from(sampleIndices(10, 4)), [0, 3, 6, 9]);
  });
});
