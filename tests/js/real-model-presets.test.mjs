// The page counts what the code reaches (issue 48 section 2): for every real-model preset, the
// worker's angle view and the status line count the pairs that meet angles unseen in training at
// the code's own span (its last token's position + 1), checked against arithmetic written here
// from transformers' modeling_rope_utils formulas and the rule as docs/real-models.md states it,
// never through hr.unseenPairs; Split% follows the layer's own trained frequencies; a pair counted
// is red in the view, at least minUnseenColumns wide; a code past a model's maximum is said so.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { SideEngine } from '../../web/src/worker/attention-engine.js';
import { minUnseenColumns } from '../../web/src/worker/attention-views.js';
import { MODEL_PRESETS, presetState } from '../../web/src/shared/presets.js';
import { normalizeState, describeScheme } from '../../web/src/shared/playground-state.js';
import { modelSource } from '../../web/src/shared/model-gallery.js';
import { trainingSentence, angleCaption } from '../../web/src/shared/wording.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const loadConfig = async (id) =>
  fs.readFileSync(path.join(root, 'models/configs', `${id}.json`), 'utf8');

// theta_j = base^(-2j/d) and the scalings of modeling_rope_utils.py.
const plain = (base, d) => Array.from({ length: d / 2 }, (_, j) => 1 / base ** ((2 * j) / d));
const linear = (base, d, factor) => plain(base, d).map((f) => f / factor);
function llama3(base, d, factor, low, high, original) {
  return plain(base, d).map((f) => {
    const wavelen = (2 * Math.PI) / f;
    const scaled = wavelen > original / low ? f / factor : f;
    const medium = !(wavelen < original / high) && !(wavelen > original / low);
    const smooth = (original / wavelen - low) / (high - low);
    return medium ? ((1 - smooth) * scaled) / factor + smooth * scaled : scaled;
  });
}
function yarn(base, d, factor, original, truncate = true) {
  const dim = (r) => (d * Math.log(original / (r * 2 * Math.PI))) / (2 * Math.log(base));
  let [low, high] = [dim(32), dim(1)];
  if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
  [low, high] = [Math.max(low, 0), Math.min(high, d - 1)];
  if (low === high) high += 0.001;
  return plain(base, d).map((f, j) => {
    const ramp = Math.min(1, Math.max(0, (j - low) / (high - low)));
    return (f / factor) * ramp + f * (1 - ramp);
  });
}

/**
 * Each preset side as the config and the preset state say it, written out here: the frequencies
 * training turned at L, those at N positions (static here: none of these scalings follows N), and
 * the window or chunk (0: none). null: a layer that does not rotate.
 */
const SIDES = {
  'gemma-3': {
    // Layer 0: sliding 1,024, base 10,000; layer 5: linear x8 over base 1e6, trained with at
    // 131,072 (the config names no length before it).
    a: { L: 131072, trained: plain(1e4, 128), now: plain(1e4, 128), reach: 1024, kind: 'sliding' },
    b: { L: 131072, trained: linear(1e6, 128, 8), now: linear(1e6, 128, 8), reach: 0 },
  },
  'gpt-oss-sinks': {
    // Layer 1: full, YaRN x32 over 4,096 (truncate false), base 150,000: trained unscaled.
    a: { L: 4096, trained: plain(150000, 64), now: yarn(150000, 64, 32, 4096, false), reach: 0 },
    b: { L: 4096, trained: plain(150000, 64), now: yarn(150000, 64, 32, 4096, false), reach: 0 },
  },
  'llama-4': {
    // Layer 0: chunked 8,192, llama3 x16 with low = high = 1 over 8,192: a step at wavelength
    // 8,192 (no band, so the medium branch never applies); layer 3: NoPE.
    a: {
      L: 8192,
      trained: plain(500000, 128),
      now: plain(500000, 128).map((f) => ((2 * Math.PI) / f > 8192 ? f / 16 : f)),
      reach: 8192,
      kind: 'chunked',
    },
    b: null,
  },
  'llama-3.1': {
    // A: plain RoPE at base 500,000; B: the model's llama3 x8 (low 1, high 4) over 8,192.
    a: { L: 8192, trained: plain(500000, 128), now: plain(500000, 128), reach: 0 },
    b: { L: 8192, trained: plain(500000, 128), now: llama3(500000, 128, 8, 1, 4, 8192), reach: 0 },
  },
  'yarn-llama3': {
    // A: the model's llama3 x8; B: YaRN x8 over the training length 8,192 (the page's scaling).
    a: { L: 8192, trained: plain(500000, 128), now: llama3(500000, 128, 8, 1, 4, 8192), reach: 0 },
    b: { L: 8192, trained: plain(500000, 128), now: yarn(500000, 128, 8, 8192), reach: 0 },
  },
};

// The rule (docs/real-models.md, "Angles unseen in training") at N positions.
function expectedUnseen({ L, trained, now, reach }, N) {
  const D = (x) => (reach > 0 ? Math.min(x, reach) : x) - 1;
  return trained
    .map((t, j) => now[j] * D(N) > t * (D(L) + 1) * (1 + 1e-12) && t * D(L) < 2 * Math.PI)
    .map((u) => (u ? 1 : 0));
}

// Where theta_j^train * L crosses 2 pi, log-linear between the pairs (geometric frequencies here:
// exactly Split% x pairs of those frequencies).
function expectedSplit({ L, trained }) {
  const g = trained.map((t) => Math.log((t * L) / (2 * Math.PI)));
  return -g[0] / (g[1] - g[0]);
}

// The red pixels of an angle view image: per pair, the columns tinted (red channel high, green
// and blue low).
function redColumns(view) {
  const { rgba, rows, cols } = view.image;
  return Array.from({ length: rows }, (_, j) => {
    let count = 0;
    for (let c = 0; c < cols; c++) {
      const o = 4 * (j * cols + c);
      if (rgba[o] > rgba[o + 1] + 20) count++;
    }
    return count;
  });
}

const escapeRe = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let hr;
before(async () => {
  hr = await init();
});

/** Both sides of a state as the page runs them, and the status sentence it builds from them. */
async function runPage(state, code = SAMPLES.python) {
  const results = {};
  for (const side of ['a', 'b'])
    results[side] = await new SideEngine(hr, { loadConfig }).run({ code, state, side });
  // As playground-status.js plainStatus builds the training sentence.
  const sides = ['a', 'b'].map((s) => {
    const facts = results[s].facts;
    const source = modelSource(state[s]);
    return {
      label: s.toUpperCase(),
      name: describeScheme(state[s], facts),
      ood: results[s].views.angles?.value ?? null,
      train: facts?.train,
      model:
        source && facts?.maxLength
          ? { name: source.id ?? 'your config.json', maxLength: facts.maxLength }
          : null,
    };
  });
  const total = hr.analyze(code, { language: state.language }).tokens.count;
  const sentence = trainingSentence({
    n: results.a.n,
    total,
    train: state.train,
    sides,
    stride: state.stride,
  });
  return { results, sentence, sides };
}

describe('the real-model presets count at the code’s own span', { timeout: 600000 }, () => {
  for (const preset of MODEL_PRESETS)
    it(preset.id, async () => {
      const state = presetState(preset.id, normalizeState({ language: 'python' }));
      const { results, sentence, sides } = await runPage(state);
      const n = results.a.n;
      const span = (n - 1) * state.stride + 1;
      const expected = SIDES[preset.id];
      assert.ok(expected, `no arithmetic written for the preset ${preset.id}`);
      for (const side of ['a', 'b']) {
        const view = results[side].views.angles?.value ?? null;
        const want = expected[side];
        if (!want) {
          assert.equal(view, null, side);
          continue;
        }
        const verdicts = expectedUnseen(want, span);
        const count = verdicts.reduce((a, b) => a + b, 0);
        assert.equal(view.span, span, side);
        assert.equal(view.oodPairs, count, `${preset.id} ${side}`);
        assert.ok(Math.abs(view.splitPair - expectedSplit(want)) < 1e-6, `${side} Split%`);
        // Red exactly on the pairs counted, at least minUnseenColumns wide.
        const red = redColumns(view);
        red.forEach((columns, j) => {
          if (verdicts[j]) assert.ok(columns >= minUnseenColumns(view.image.cols), `${side} ${j}`);
          else assert.equal(columns, 0, `${preset.id} ${side} pair ${j}`);
        });
        // The status line says the same count for the side, where any token is past L.
        const who = sides.find((s) => s.label === side.toUpperCase());
        // A window or chunk shorter than the span is named with the side.
        const R = want.reach?.toLocaleString('en');
        const sees = !(want.reach && want.reach < span)
          ? ''
          : want.kind === 'chunked'
            ? ` which sees only the keys in its ${R}-position chunk,`
            : ` which sees only the last ${R} positions,`;
        const said = new RegExp(
          `${who.label}, ${escapeRe(who.name)},${escapeRe(sees)} ${count > 0 ? `meets angles it never saw in training on ${count} of its ${want.trained.length} frequency pairs` : '(and [^:]* )?keeps? every frequency pair'}`,
        );
        if (span > state.train) assert.match(sentence, said);
        else
          assert.match(
            sentence,
            /are within the training length .*: no scheme is out of distribution here/,
          );
        // A window or chunk the view stops at, not the text, is why no key is L back.
        const caption = angleCaption({
          title: side,
          oodPairs: view.oodPairs,
          pairs: view.pairs,
          train: want.L,
          hasTrain: view.trainColumn !== null,
          splitPair: view.splitPair,
          reach: view.reach,
          reachKind: view.reachKind,
          span: view.span,
        });
        if (want.reach && want.reach < span && want.reach <= want.L)
          assert.doesNotMatch(caption, /the text is shorter/, side);
      }
      const counts = ['a', 'b']
        .filter((s) => expected[s])
        .map((s) => expectedUnseen(expected[s], span).reduce((a, b) => a + b, 0));
      if (counts.every((c) => c === 0)) assert.doesNotMatch(sentence, /never saw in training/);
      assert.doesNotMatch(sentence, /maximum of/); // every preset's code stays within its models
    });

  it('before and after (issue 48): the counts of every preset at its span', async () => {
    const got = {};
    for (const preset of MODEL_PRESETS) {
      const state = presetState(preset.id, normalizeState({ language: 'python' }));
      const { results } = await runPage(state);
      got[preset.id] = ['a', 'b'].map((s) => results[s].views.angles?.value?.oodPairs ?? null);
    }
    // The YaRN-vs-Llama-3 preset said 29 of 64 on both sides, counted at 131,072.
    assert.deepEqual(got['yarn-llama3'], [0, 0]);
    assert.deepEqual(got['llama-3.1'], [29, 29]);
    assert.deepEqual(got['gemma-3'], [0, 0]);
    assert.deepEqual(got['gpt-oss-sinks'], [0, 0]);
    assert.deepEqual(got['llama-4'], [0, null]);
  });
});

describe('past a model’s maximum, and a scaled side beside a model', { timeout: 600000 }, () => {
  it('says how far the code runs past Gemma 3, and counts its global layer there', async () => {
    // Tokens 1,700 positions apart: the code spans (n - 1) x 1,700 + 1 positions, 5x 131,072.
    const state = presetState('gemma-3', normalizeState({ language: 'python' }));
    const far = { ...state, stride: 1700 };
    const { results, sentence } = await runPage(far);
    const span = (results.a.n - 1) * 1700 + 1;
    assert.ok(span > 4 * 131072);
    const global = SIDES['gemma-3'].b;
    const count = expectedUnseen(global, span).reduce((a, b) => a + b, 0);
    // theta_j / 8 * 131071 < 2 pi from j > 36.44: 27 of 64, where it said it kept every pair.
    assert.equal(count, 27);
    assert.equal(results.b.views.angles.value.oodPairs, 27);
    assert.equal(results.a.views.angles.value.oodPairs, 0);
    const times = Math.round(span / 131072);
    assert.ok(
      sentence.includes(
        `the code spans ${span.toLocaleString('en')} positions, ${times}× gemma-3-27b-it's maximum of 131,072`,
      ),
      sentence,
    );
    assert.match(
      sentence,
      /A, gemma-3-27b-it, layer 0, which sees only the last 1,024 positions, keeps every/,
    );
    assert.match(
      sentence,
      /B, gemma-3-27b-it, layer 5, meets angles it never saw in training on 27 of its 64/,
    );
  });

  it('a PI x4 side keeps its verdict when the other side picks a model', async () => {
    const pi = normalizeState({
      language: 'python',
      train: 128,
      a: { type: 'rope' },
      b: { type: 'rope', scaling: 'linear', factor: 4 },
    });
    const alone = await runPage(pi);
    const beside = await runPage({ ...pi, a: { ...pi.a, model: 'llama-3.1-8b', layer: 0 } });
    // PI x4 put on RoPE trained at 128: the unscaled frequencies are what training turned.
    const d = pi.headDim;
    const side = { L: 128, trained: plain(pi.b.base, d), now: linear(pi.b.base, d, 4), reach: 0 };
    const count = expectedUnseen(side, alone.results.b.n).reduce((a, b) => a + b, 0);
    assert.equal(count, 0); // the Python sample's 394 tokens are within 4 x 128 + 1
    assert.equal(alone.results.b.views.angles.value.oodPairs, count);
    assert.equal(beside.results.b.views.angles.value.oodPairs, count);
    assert.equal(
      beside.sentence,
      'The last 266 tokens are beyond the training length of 128: there A, llama-3.1-8b, layer 0, trained at 8,192, and B, RoPE with linear (PI) scaling ×4, keep every frequency pair within the angles seen in training.',
    );
  });
});
