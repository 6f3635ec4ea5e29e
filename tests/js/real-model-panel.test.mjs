// The playground's real-model panel and <hirope-attention model=…>, without a browser: what the
// config says that the maps do not compute is shown beside the layer (modelNotes); the decay
// chart draws each side to its own range with its own training length (decayPlan); two models keep
// their own head dims and lengths (SideEngine's facts); a NoPE layer under the HiRoPE switch is
// titled as NoPE; a layer the model does not have is refused; the hover card says where a key is
// masked; the presets' captions count what their positions reach.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import {
  GALLERY,
  setupSummary,
  modelNotes,
  layerProblem,
} from '../../web/src/shared/model-gallery.js';
import { normalizeState, describeScheme } from '../../web/src/shared/playground-state.js';
import { SideEngine } from '../../web/src/worker/attention-engine.js';
import { decayPlan } from '../../web/src/page/charts/decay.js';
import { cardRows } from '../../web/src/page/playground/hover-card.js';
import { sameHint, readAttributes } from '../../web/src/element/attributes.js';
import { layerSentence } from '../../web/src/page/playground/model-picker.js';
import { MODEL_PRESETS, presetState } from '../../web/src/shared/presets.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configText = (id) => fs.readFileSync(path.join(root, 'models/configs', `${id}.json`), 'utf8');
const loadConfig = async (id) => configText(id);
const INDEX = JSON.parse(configText('index')).entries;
const code = SAMPLES.python;

let hr;
const summaries = {};
before(async () => {
  hr = await init();
  for (const id of GALLERY) summaries[id] = setupSummary(hr.fromConfig(configText(id)), hr);
});

/** Both sides of a state run as the page runs them (one engine per side), with a viewLength. */
async function runBoth(state, viewLength) {
  const out = {};
  for (const side of ['a', 'b']) {
    const engine = new SideEngine(hr, { loadConfig });
    out[side] = await engine.run({ code, state, side, viewLength });
    out[side].engine = engine;
  }
  return out;
}

describe("what a model's config says that the maps do not compute", () => {
  it("names every warning the gallery's index expects, beside the layer", () => {
    for (const entry of INDEX) {
      const notes = modelNotes(summaries[entry.id]);
      for (const w of entry.warnings)
        assert.ok(
          notes.some((n) => n.startsWith(`${w.key}: `)),
          `${entry.id}: ${w.key} in ${JSON.stringify(notes)}`,
        );
    }
    // One note per warning (and none besides DCA's): nothing the reader says is left out.
    for (const id of GALLERY) {
      const dca = summaries[id].dualChunk ? 1 : 0;
      assert.equal(modelNotes(summaries[id]).length, summaries[id].warnings.length + dca, id);
    }
    assert.ok(INDEX.filter((e) => e.warnings.length).length >= 5);
    // A model without warnings or DCA has no notes.
    assert.deepEqual(modelNotes(summaries['llama-3.1-8b']), []);
  });

  it('says where Dual Chunk Attention is in the config and that it is not computed', () => {
    for (const id of GALLERY) {
      const dca = JSON.parse(configText(id)).dual_chunk_attention_config;
      const note = modelNotes(summaries[id]).find((n) => n.startsWith('Dual Chunk Attention'));
      assert.equal(Boolean(note), Boolean(dca), id);
      if (!dca) continue;
      // vLLM's c' = chunk_size - local_size, from the config's own numbers.
      const fmt = (x) => x.toLocaleString('en');
      assert.ok(note.includes(`chunks of ${fmt(dca.chunk_size)} positions`), note);
      assert.ok(note.includes(`${fmt(dca.local_size)} local`), note);
      assert.ok(note.includes(`p mod ${fmt(dca.chunk_size - dca.local_size)}`), note);
      assert.match(note, /hirope does not compute it/);
    }
  });
});

describe('the decay chart of two sides with different ranges', () => {
  it("draws B to its own length, not A's window, and names what each curve is", async () => {
    // GPT-oss: layer 0 slides over 128 positions, layer 1 sees all of the 131,072.
    const state = normalizeState({
      train: 4096,
      headDim: 64,
      a: { type: 'rope', model: 'gpt-oss-20b', layer: 0 },
      b: { type: 'rope', model: 'gpt-oss-20b', layer: 1 },
    });
    const { a, b } = await runBoth(state, 131072);
    const data = {
      a: a.views.decay.value,
      b: b.views.decay.value,
      maxDistance: { a: a.views.maxDistance, b: b.views.maxDistance },
      reach: { a: a.views.reach, b: b.views.reach },
      masks: { a: a.mask?.type ?? null, b: b.mask?.type ?? null },
      train: { a: a.facts.train, b: b.facts.train },
      stride: 1,
    };
    const plan = decayPlan(data, { a: 'A', b: 'B' });
    assert.equal(plan.hi, 131071);
    assert.equal(plan.log, true);
    const [sa, sb] = plan.sides;
    assert.equal(sa.maxDistance, 127);
    assert.equal(sb.maxDistance, 131071);
    // B's curve itself reaches the end of the axis.
    assert.equal(sb.curve.distances.at(-1), 131071);
    assert.match(
      plan.caption,
      /A: every distance up to 127 tokens, where its 128-position window ends/,
    );
    assert.match(
      plan.caption,
      new RegExp(
        `B: ${(sb.curve.distances.length - 1).toLocaleString('en')} log-spaced distances up to 131,071 tokens\\.`,
      ),
    );
    // GPT-oss's training length (initial_context_length 4096), one line for both, on the chart.
    assert.deepEqual(
      plan.lines.map((l) => [l.train, l.sides, l.inside, l.label]),
      [[4096, ['a', 'b'], true, 'training length L = 4,096']],
    );
    assert.match(plan.caption, /Dashed: training length 4,096\.$/);
  });

  it('draws one dashed line per training length, and says which fall past the range', () => {
    const curve = (n) => Float32Array.from({ length: n + 1 }, (_, i) => 1 / (1 + i));
    const plan = decayPlan(
      {
        a: curve(511),
        b: curve(1023),
        maxDistance: { a: 511, b: 1023 },
        train: { a: 256, b: 131072 },
        stride: 20,
      },
      { a: 'A', b: 'B' },
    );
    assert.equal(plan.hi, 1023);
    assert.equal(plan.log, false);
    assert.deepEqual(
      plan.lines.map((l) => [l.label, l.inside]),
      [
        ['L of A = 256', true],
        ['L of B = 131,072', false],
      ],
    );
    assert.match(
      plan.caption,
      /A: every distance up to 511 positions\. B: every distance up to 1,023 positions\./,
    );
    assert.match(
      plan.caption,
      /Dashed: training length 256 of A; 131,072 of B \(past the distances drawn\)\.$/,
    );
    // A NoPE layer has no curve, and the caption says why.
    const nope = decayPlan(
      {
        a: curve(511),
        b: { error: 'longTermDecay needs a rotary scheme' },
        maxDistance: { a: 511, b: 511 },
        train: { a: 8192, b: 8192 },
        nope: { a: false, b: true },
      },
      { a: 'A', b: 'B' },
    );
    assert.deepEqual(nope.hi, 511);
    assert.match(nope.caption, /B: no curve, since a NoPE layer does not rotate q and k\./);
  });
});

describe('two models with different head dims and lengths', () => {
  // Llama 3.2 1B (head dim 64, trained 8,192) beside DeepSeek-V3 (192 dims of which 64 rotate,
  // trained 4,096), with the shared settings at a third model's (head dim 128, 16,384).
  const state = normalizeState({
    headDim: 128,
    train: 16384,
    a: { type: 'rope', model: 'llama-3.2-1b', layer: 0 },
    b: { type: 'rope', model: 'deepseek-v3', layer: 0 },
  });

  it('each side keeps its own head dim and trained length, whichever was chosen last', async () => {
    const { a, b } = await runBoth(state, undefined);
    assert.deepEqual(
      [a.facts.headDim, a.facts.train, b.facts.headDim, b.facts.train],
      [
        summaries['llama-3.2-1b'].headDim,
        summaries['llama-3.2-1b'].trainedLength,
        summaries['deepseek-v3'].headDim,
        summaries['deepseek-v3'].trainedLength,
      ],
    );
    assert.deepEqual([a.facts.headDim, a.facts.train], [64, 8192]);
    assert.deepEqual([b.facts.headDim, b.facts.train], [192, 4096]);
    // Llama 3.2 1B's angle view has its 32 pairs, not the shared head dim's 64; DeepSeek's has
    // the pairs of its qk_rope_head_dim (64 rotated dims of 192), not 128 / 3 of them.
    assert.equal(a.views.angles.value.pairs, 32);
    const rope = JSON.parse(configText('deepseek-v3')).qk_rope_head_dim;
    assert.equal(b.views.angles.value.pairs, rope / 2);
    // No note about a head dim the maps do not use: each side's q/k have its layer's.
    assert.equal(a.notes.join(' ').includes('head dim'), false, a.notes.join(' '));
  });

  it("computes each side's map at its layer's head dim, as hr.attention does", async () => {
    const { a } = await runBoth(state, undefined);
    const n = a.n;
    const analysis = hr.analyze(code, { language: 'python' });
    const { q, k } = hr.qk({
      source: 'ones',
      n,
      headDim: 64,
      tokenIds: analysis.tokens.ids.subarray(0, n),
      seed: 1,
    });
    const setup = hr.fromConfig(configText('llama-3.2-1b'));
    const want = hr.attention({
      q,
      k,
      n,
      headDim: 64,
      positions: { token: analysis.positions.token.slice(0, n) },
      scheme: setup.layers[0].scheme,
      causal: true,
      output: 'probs',
    });
    const got = a.engine.exportProbs().probs;
    let worst = 0;
    for (let c = 0; c < got.length; c++) worst = Math.max(worst, Math.abs(got[c] - want[c]));
    assert.ok(worst < 1e-6, String(worst));
    // The comparison recomputes both schemes in one worker, each with its own q/k.
    const cmp = a.engine.compare({ rows: [0, n] });
    const bEngine = new SideEngine(hr, { loadConfig });
    await bEngine.run({ code, state, side: 'b' });
    const wantB = bEngine.exportProbs().probs;
    let tv = 0;
    for (let j = 0; j < n; j++) tv += Math.abs(want[(n - 1) * n + j] - wantB[(n - 1) * n + j]);
    assert.ok(Math.abs(cmp.tv[n - 1] - tv / 2) < 1e-5, `${cmp.tv[n - 1]} vs ${tv / 2}`);
  });
});

describe('a NoPE layer under the HiRoPE switch', () => {
  const state = normalizeState({
    a: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 3 },
    b: { type: 'hirope', model: 'llama-4-scout-17b-16e', layer: 3 },
  });

  it('is titled as NoPE, and the element says why A and B are the same', async () => {
    const { b } = await runBoth(state, undefined);
    assert.equal(b.facts.nope, true);
    assert.equal(
      describeScheme(state.b, b.facts),
      'llama-4-scout-17b-16e, layer 3, NoPE (no frequencies for HiRoPE)',
    );
    // A RoPE layer under the switch keeps its title.
    assert.equal(
      describeScheme({ ...state.b, layer: 0 }, { nope: false }),
      'llama-4-scout-17b-16e, layer 0, HiRoPE on its frequencies',
    );
    const hint = sameHint(state, 20, summaries['llama-4-scout-17b-16e']);
    assert.equal(
      hint,
      'A and B are the same here: layer 3 of llama-4-scout-17b-16e is a NoPE layer, with no frequencies for HiRoPE to change, so B is that layer as it is. Set layer="0" (a RoPE layer) to see them differ.',
    );
    assert.doesNotMatch(hint, /RoPE inside the window|plain RoPE/);
    // A RoPE layer within HiRoPE's window: the layer's own RoPE, not "plain RoPE".
    const rope = { ...state, b: { ...state.b, layer: 0 }, a: { ...state.a, layer: 0 } };
    assert.match(sameHint(rope, 20, summaries['llama-4-scout-17b-16e']), /the layer's own RoPE/);
  });
});

describe('a layer the model does not have', () => {
  it('is refused by the worker, the page and the element, never clamped', async () => {
    // Gemma 3 27B has 62 layers: 0 to 61.
    assert.equal(summaries['gemma-3-27b-it'].layers.length, 62);
    const state = normalizeState({ b: { type: 'rope', model: 'gemma-3-27b-it', layer: 70 } });
    const engine = new SideEngine(hr, { loadConfig });
    await assert.rejects(engine.run({ code, state, side: 'b' }), {
      name: 'PlaygroundError',
      message: 'B: the model has no layer 70 (its 62 layers are 0 to 61)',
    });
    assert.equal(
      layerProblem(70, 62, 'gemma-3-27b-it'),
      'gemma-3-27b-it has no layer 70 (its 62 layers are 0 to 61)',
    );
    assert.equal(layerProblem(61, 62), '');
    assert.equal(layerProblem(0, 62), '');
    // The element reads the attribute as an index; the model's reading then refuses it.
    const attrs = { model: 'gemma-3-27b', layer: '70' };
    const { state: s, problems } = readAttributes((n) => attrs[n] ?? null);
    assert.deepEqual(problems, []);
    assert.notEqual(layerProblem(s.a.layer, 62), '');
  });
});

describe('the hover card on a key the window masks', () => {
  it('says the key is masked, with neither a ratio nor a distance that side never sees', async () => {
    // GPT-oss's layer 0 slides over 128 positions: query 300 sees keys 173 .. 300
    // (transformers' sliding_window_overlay: q - k < 128).
    const state = normalizeState({
      headDim: 64,
      train: 4096,
      a: { type: 'rope', model: 'gpt-oss-20b', layer: 0 },
      b: { type: 'rope', model: 'gpt-oss-20b', layer: 1 },
    });
    const { a, b } = await runBoth(state, undefined);
    assert.ok(a.n > 300);
    for (const [j, masked] of [
      [172, true],
      [173, false],
      [0, true],
      [300, false],
    ]) {
      const ca = a.engine.cell(300, j);
      const cb = b.engine.cell(300, j);
      assert.equal(ca.masked, masked, `A 300 -> ${j}`);
      assert.equal(cb.masked, false, `B 300 -> ${j}`);
      const rows = Object.fromEntries(
        cardRows({
          i: 300,
          j,
          a: ca,
          b: cb,
          token: (t) => `token ${t}`,
          masks: { a: 'sliding', b: null },
        }),
      );
      if (masked) {
        assert.equal(ca.p, 0);
        assert.equal(rows['p under A'], '0 (masked: the key is outside its sliding window)');
        assert.equal(rows['B ÷ A'], 'none: only B sees this key');
        assert.equal(rows['distance A sees'], 'none (masked)');
        assert.match(rows['distance B sees'], /^all pairs: \d+$/);
      } else {
        assert.ok(ca.p > 0);
        assert.match(rows['B ÷ A'], /^\d/);
        assert.equal(rows['distance A sees'], `all pairs: ${300 - j}`);
      }
    }
  });

  it('says so for a chunk too, and gives the distance in positions under a stride', () => {
    const rows = Object.fromEntries(
      cardRows({
        i: 200,
        j: 10,
        a: { p: 0, masked: true, bands: [] },
        b: { p: 0, masked: true, bands: [] },
        token: String,
        masks: { a: 'chunked', b: 'sliding' },
        stride: 64,
      }),
    );
    assert.equal(rows['token distance'], '190 (12,160 positions)');
    assert.equal(rows['p under A'], "0 (masked: the key is in an earlier chunk than the query's)");
    assert.equal(rows['B ÷ A'], 'none: neither side sees this key');
  });
});

describe("the model presets' captions", () => {
  it('count what the positions of the Python sample reach', () => {
    const n = hr.analyze(code, { language: 'python' }).tokens.count;
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];
    const preset = MODEL_PRESETS.find((p) => p.id === 'llama-4');
    const state = presetState('llama-4');
    const chunk = summaries[state.a.model].layers[state.a.layer].attention.chunkSize;
    const last = (n - 1) * state.stride; // token i at position i × stride
    const chunks = Math.floor(last / chunk) + 1;
    assert.equal(chunks, 4);
    assert.ok(
      preset.caption.includes(
        `${words[chunks]} of its ${chunk.toLocaleString('en')}-position chunks`,
      ),
      preset.caption,
    );
    // Gemma 3: a local layer's 1,024 positions are ⌈1024 / 20⌉ tokens at stride 20.
    const gemma = presetState('gemma-3');
    const window = summaries[gemma.a.model].layers[gemma.a.layer].attention.window;
    assert.ok(MODEL_PRESETS[0].caption.includes(`${Math.ceil(window / gemma.stride)} tokens here`));
  });

  it('the layer sentence names the layer, its head dim, softmax scale and soft-cap', () => {
    // DeepSeek-V3: the softmax scale is multiplied by YaRN's m(40, 1)² = (0.1 ln 40 + 1)²
    // (modeling_deepseek_v3), from the config's own factor and mscale_all_dim.
    const ds = JSON.parse(configText('deepseek-v3'));
    const m = 0.1 * ds.rope_scaling.mscale_all_dim * Math.log(ds.rope_scaling.factor) + 1;
    const dim = ds.qk_nope_head_dim + ds.qk_rope_head_dim;
    assert.equal(
      layerSentence(summaries['deepseek-v3'], 0),
      `Layer 0 of 61: full attention, RoPE base 10,000 on the last 64 of 192 dims, interleaved pairs, yarn scaling ×40, logits scaled by ${((m * m) / Math.sqrt(dim)).toPrecision(3)} (not 1/√192 = ${(1 / Math.sqrt(192)).toPrecision(3)}). Head dim 192, trained at 4,096 positions (max 163,840).`,
    );
    // Gemma 2: soft-capped logits; its query_pre_attn_scalar is its head dim, so 1/√d it is.
    const g2 = JSON.parse(configText('gemma-2-9b'));
    assert.equal(g2.query_pre_attn_scalar, g2.head_dim);
    assert.match(
      layerSentence(summaries['gemma-2-9b'], 0),
      new RegExp(
        `RoPE base 10,000, half-split pairs, logits soft-capped at ${g2.attn_logit_softcapping}\\. Head dim 256`,
      ),
    );
    // Phi-3.5: LongRoPE switches from its short factors to its long ones past the original
    // length, and scales cos and sin by sqrt(1 + ln(factor) / ln(original)) (transformers'
    // _compute_longrope_parameters), factor = max_position_embeddings / original.
    const phi = JSON.parse(configText('phi-3.5-mini'));
    const original = phi.original_max_position_embeddings;
    const longFactor = phi.max_position_embeddings / original;
    const af = Math.sqrt(1 + Math.log(longFactor) / Math.log(original));
    assert.match(
      layerSentence(summaries['phi-3.5-mini'], 0),
      new RegExp(
        `RoPE base 10,000, half-split pairs, LongRoPE ×${longFactor}: its short factors up to ${original.toLocaleString('en')} positions, its long factors beyond, cos and sin ×${af.toPrecision(3)} \\(logits ×${(af * af).toPrecision(3)}\\)\\.`,
      ),
    );
    // Qwen2.5 with YaRN ×4: cos and sin ×(0.1 ln 4 + 1) (transformers' get_mscale).
    const qf = 0.1 * Math.log(4) + 1;
    assert.match(
      layerSentence(summaries['qwen2.5-3b-yarn'], 0),
      new RegExp(
        `yarn scaling ×4, cos and sin ×${qf.toPrecision(3)} \\(logits ×${(qf * qf).toPrecision(3)}\\)`,
      ),
    );
    // Gemma 3 27B: query_pre_attn_scalar 168, not its head dim 128.
    assert.match(
      layerSentence(summaries['gemma-3-27b-it'], 5),
      new RegExp(`logits scaled by ${(168 ** -0.5).toPrecision(3)} \\(not 1/√128 = 0\\.0884\\)\\.`),
    );
  });
});
