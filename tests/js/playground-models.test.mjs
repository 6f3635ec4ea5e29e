// Real models on the playground's sides (web/src/shared/model-gallery.js, web/src/worker/model-sides.js):
// the gallery the page offers is models/configs/index.json's; a side's model, layer, HiRoPE switch,
// sinks and position stride survive a link; a layer becomes the attention call that
// hr.fromConfig's setup stands for; a SideEngine run on a model computes what that call computes.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import {
  GALLERY,
  OWN_CONFIG,
  DEFAULT_SINK,
  modelSource,
  layerCall,
  layerKind,
  setupSummary,
} from '../../web/src/shared/model-gallery.js';
import {
  normalizeState,
  encodeState,
  decodeState,
  describeScheme,
} from '../../web/src/shared/playground-state.js';
import { SideEngine } from '../../web/src/worker/attention-engine.js';
import { trainingSentence } from '../../web/src/shared/wording.js';
import { MODEL_PRESETS, presetState, matchesPreset } from '../../web/src/shared/presets.js';
import { SAMPLES } from '../../web/src/shared/samples.js';
import { diffImage } from '../../web/src/shared/diff-image.js';
import { expectedScheme } from './support/page-schemes.mjs';
import { readAttributes, galleryId, ATTRIBUTES } from '../../web/src/element/attributes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configText = (id) => fs.readFileSync(path.join(root, 'models/configs', `${id}.json`), 'utf8');
const loadConfig = async (id) => configText(id);

let hr;
before(async () => {
  hr = await init();
});

describe('the model gallery of the playground', () => {
  it('offers exactly the gallery index, in its order', () => {
    const index = JSON.parse(configText('index'));
    assert.deepEqual(
      GALLERY,
      index.entries.map((e) => e.id),
    );
  });

  it('names a side model by gallery id, or by its own config text', () => {
    assert.deepEqual(modelSource({ model: 'gpt-oss-20b', config: null }), { id: 'gpt-oss-20b' });
    assert.deepEqual(modelSource({ model: OWN_CONFIG, config: '{}' }), { config: '{}' });
    assert.equal(modelSource({ model: OWN_CONFIG, config: null }), null);
    assert.equal(modelSource({ model: 'no-such-model', config: null }), null);
    assert.equal(modelSource({ model: '', config: null }), null);
  });

  it('keeps a side model, layer, switch, sinks and the stride through a link', async () => {
    const own = configText('llama-3.2-1b');
    const state = normalizeState({
      stride: 20,
      a: { model: 'gemma-3-27b-it', layer: 5, type: 'hirope' },
      b: { model: OWN_CONFIG, config: own, layer: 3, sinks: false, sink: 2.5, type: 'rope' },
    });
    const hash = await encodeState(state);
    assert.deepEqual(await decodeState(hash), state);
    // The pasted config travels deflated: the link is much shorter than the text.
    assert.ok(hash.length < own.length, `${hash.length} vs ${own.length}`);
    assert.equal(normalizeState({}).a.sink, DEFAULT_SINK);
    assert.equal(describeScheme(state.a), 'gemma-3-27b-it, layer 5, HiRoPE on its frequencies');
    assert.equal(describeScheme(state.b), 'your config.json, layer 3');
  });
});

describe('a layer of a real model as the playground computes it', () => {
  const side = (over) => normalizeState({ b: { type: 'rope', ...over } }).b;

  it("takes Gemma 3's sliding and global layers with their own bases and mask", () => {
    const setup = hr.fromConfig(configText('gemma-3-27b-it'));
    // Gemma 3 scales its logits by query_pre_attn_scalar^-0.5 (168 for the 27B) on every layer.
    const local = layerCall(setup, side({ layer: 0 }));
    assert.deepEqual(local.extras, { mask: { type: 'sliding', window: 1024 }, scale: 168 ** -0.5 });
    assert.equal(local.scheme.base, 10000);
    const global = layerCall(setup, side({ layer: 5 }));
    assert.deepEqual(global.extras, { scale: 168 ** -0.5 });
    assert.equal(global.scheme.base, 1000000);
    assert.deepEqual(
      { type: global.scheme.scaling.type, factor: global.scheme.scaling.factor },
      { type: 'linear', factor: 8 },
    );
    assert.equal(layerKind(setupSummary(setup).layers[0]), 'sliding 1,024');
    assert.equal(layerKind(setupSummary(setup).layers[5]), 'full');
    // A layer past the model's last is refused by name, never shown as another one.
    assert.throws(
      () => layerCall(setup, side({ layer: 70 })),
      /^Error: the model has no layer 70 \(its 62 layers are 0 to 61\)$/,
    );
  });

  it("gives GPT-oss's sinks the side's logit, or none when they are off", () => {
    const setup = hr.fromConfig(configText('gpt-oss-20b'));
    const on = layerCall(setup, side({ layer: 1, sink: 3 }), 2);
    assert.deepEqual([...on.extras.sinks], [3, 3]);
    assert.ok(on.extras.sinks instanceof Float32Array);
    const off = layerCall(setup, side({ layer: 1, sinks: false }));
    assert.equal(off.extras.sinks, undefined);
    assert.equal(layerKind(setupSummary(setup).layers[0]), 'sliding 128, sinks');
  });

  it("applies HiRoPE to the layer's own frequencies", () => {
    const setup = hr.fromConfig(configText('llama-3.1-8b'));
    const call = layerCall(setup, side({ layer: 0, type: 'hirope', ratio: 0.25, window: 512 }));
    assert.equal(call.hirope, true);
    assert.equal(call.scheme.type, 'hirope');
    assert.equal(call.scheme.window, 512);
    assert.equal(call.scheme.trainingLength, 8192);
    // The same frequencies as the model's layer (base 500000, llama3 ×8): HiRoPE changes which
    // position each pair reads, not the pair's frequency.
    const own = hr.inverseFrequencies(setup.layers[0].scheme, 128);
    const hirope = hr.inverseFrequencies(call.scheme, 128);
    assert.deepEqual([...hirope], [...own]);
    // Against transformers' llama3 rule, transcribed: the fastest pair keeps θ^0 = 1, the slowest
    // (wavelength past 8192 / low = 8192) is divided by the factor 8.
    assert.equal(own[0], 1);
    assert.ok(Math.abs(own[63] - 500000 ** (-126 / 128) / 8) < 1e-12);
  });

  it('leaves a NoPE layer without frequencies under the HiRoPE switch', () => {
    const setup = hr.fromConfig(
      JSON.stringify({
        model_type: 'smollm3',
        hidden_size: 256,
        num_attention_heads: 4,
        num_hidden_layers: 4,
        max_position_embeddings: 4096,
        rope_theta: 10000,
        no_rope_layer_interval: 4,
      }),
    );
    const nope = setup.layers.findIndex((l) => !l.rope);
    assert.ok(nope >= 0);
    const call = layerCall(setup, side({ layer: nope, type: 'hirope' }));
    assert.equal(call.hirope, false);
    assert.equal(call.scheme.type, 'nope');
  });
});

describe('a SideEngine run on a real model', () => {
  const code = 'def f(x):\n    return x + 1\n\n\ndef g(y):\n    return f(y) * 2\n';

  it('computes the layer scheme at the strided positions', async () => {
    const state = normalizeState({
      headDim: 128,
      train: 8192,
      stride: 100,
      source: 'seeded',
      b: { model: 'llama-3.1-8b', layer: 0, type: 'rope' },
    });
    const engine = new SideEngine(hr, { loadConfig });
    const result = await engine.run({ code, state, side: 'b' });
    const n = result.n;
    const got = engine.exportProbs().probs;
    const analysis = hr.analyze(code, { language: 'python' });
    const token = analysis.positions.token.slice(0, n).map((t) => t * 100);
    const { q, k } = hr.qk({
      source: 'seeded',
      n,
      headDim: 128,
      tokenIds: analysis.tokens.ids.subarray(0, n),
      seed: state.seed,
    });
    const setup = hr.fromConfig(configText('llama-3.1-8b'));
    const want = hr.attention({
      q,
      k,
      n,
      headDim: 128,
      positions: { token },
      scheme: setup.layers[0].scheme,
      causal: true,
      output: 'probs',
    });
    assert.equal(got.length, want.length);
    for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i] - want[i]) < 1e-6, `cell ${i}`);
    // The decay view reaches the last token's position.
    assert.ok(result.views.maxDistance >= token[n - 1] + 1);
  });

  it("stops a sliding or chunked layer's views at its window or chunk", async () => {
    const state = normalizeState({
      headDim: 128,
      stride: 64,
      a: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 0 },
      b: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 3 },
    });
    for (const [side, viewLength, farthest] of [
      ['a', 10485760, 8191], // chunked (8,192): no key further back, whatever the length asked
      ['b', 10485760, 10485759], // the NoPE layer is full attention
      ['a', undefined, 8191],
    ]) {
      const engine = new SideEngine(hr, { loadConfig });
      const result = await engine.run({ code, state, side, viewLength });
      assert.equal(result.views.maxDistance, farthest, `${side} ${viewLength}`);
    }
  });

  it('names a config the reader refuses', async () => {
    const state = normalizeState({ b: { model: OWN_CONFIG, config: '{"model_type": 5' } });
    const engine = new SideEngine(hr, { loadConfig });
    await assert.rejects(engine.run({ code, state, side: 'b' }), /config\.json could not be read/);
  });
});

describe('<hirope-attention> on a real model', () => {
  const attrs = (map) => (name) => (name in map ? map[name] : null);

  it('reads model (a gallery id, or the id without -it), config and layer', () => {
    const named = readAttributes(attrs({ model: 'gemma-3-27b', layer: '5' }));
    assert.deepEqual(named.problems, []);
    for (const side of ['a', 'b']) {
      assert.equal(named.state[side].model, 'gemma-3-27b-it');
      assert.equal(named.state[side].layer, 5);
    }
    // A: the layer as the model computes it; B: HiRoPE on its frequencies.
    assert.deepEqual([named.state.a.type, named.state.b.type], ['rope', 'hirope']);
    assert.equal(galleryId('gpt-oss-20b'), 'gpt-oss-20b');
    assert.equal(galleryId('gpt-oss'), null);
    const own = readAttributes(attrs({ config: '{"model_type": "llama"}', 'scheme-b': 'rope' }));
    assert.deepEqual(modelSource(own.state.b), { config: '{"model_type": "llama"}' });
    assert.equal(own.state.b.type, 'rope');
    assert.ok(ATTRIBUTES.includes('model') && ATTRIBUTES.includes('config'));
    assert.ok(ATTRIBUTES.includes('layer'));
  });

  it('names a model it does not have and a layer that is not an index', () => {
    const bad = readAttributes(attrs({ model: 'gpt-5', layer: '1.5' }));
    assert.equal(bad.problems.length, 2);
    assert.match(
      bad.problems[0],
      /^The model attribute must be one of the gallery's models \(llama-3\.1-8b, .*\), got "gpt-5"\.$/,
    );
    assert.equal(
      bad.problems[1],
      'The layer attribute must be a layer index (an integer >= 0), got "1.5".',
    );
  });
});

describe('the status line under a position stride', () => {
  it('counts the tokens past the training length by their positions', () => {
    assert.equal(
      trainingSentence({ n: 394, train: 8192, sides: [], stride: 332 }),
      'The last 369 tokens are beyond the training length of 8,192 positions (the tokens are 332 positions apart).',
    );
    assert.match(
      trainingSentence({ n: 394, train: 131072, sides: [], stride: 20 }),
      /^All 394 tokens are within the training length of 131,072 positions/,
    );
  });
});

describe('masks and temperature under a position stride', () => {
  // transformers' rules on positions (docs/real-models.md), transcribed: key at position k is
  // seen from position q when k <= q and q - k < W (sliding), floor(q / C) = floor(k / C) (chunked);
  // Llama 4's NoPE layers scale the query at position p by 1 + scale * ln(floor((p + offset) /
  // floor) + 1) (Llama4TextAttention). Token i sits at position i × stride.
  const seesSliding = (W, q, k) => k <= q && q - k < W;
  const seesChunked = (C, q, k) => k <= q && Math.floor(q / C) === Math.floor(k / C);
  const code = SAMPLES.python;

  async function probabilities(state, side) {
    const engine = new SideEngine(hr, { loadConfig });
    const result = await engine.run({ code, state, side, views: false });
    return { n: result.n, probs: engine.exportProbs().probs, mask: result.mask };
  }

  it("hands hr.attention the layer's own window, chunk and temperature, in positions", () => {
    const side = (over) => normalizeState({ b: { type: 'rope', ...over } }).b;
    const gemma = hr.fromConfig(configText('gemma-3-27b-it'));
    assert.deepEqual(layerCall(gemma, side({ layer: 0 })).extras.mask, {
      type: 'sliding',
      window: 1024,
    });
    const llama4 = hr.fromConfig(configText('llama-4-scout-17b-16e'));
    assert.deepEqual(layerCall(llama4, side({ layer: 0 })).extras.mask, {
      type: 'chunked',
      chunkSize: 8192,
    });
    assert.deepEqual(
      layerCall(llama4, side({ layer: 3 })).extras.temperature,
      llama4.layers[3].temperature,
    );
  });

  it('sees the keys transformers sees at the strided positions, at any stride', async () => {
    // Strides that divide neither GPT-oss's 128-position window nor Llama 4's 8,192-position
    // chunk (the page once refused them).
    for (const [model, layer, stride, sees] of [
      ['gpt-oss-20b', 0, 3, (q, k) => seesSliding(128, q, k)],
      ['gpt-oss-20b', 0, 1, (q, k) => seesSliding(128, q, k)],
      ['llama-4-scout-17b-16e', 0, 40, (q, k) => seesChunked(8192, q, k)],
      ['llama-4-scout-17b-16e', 0, 64, (q, k) => seesChunked(8192, q, k)],
    ]) {
      const state = normalizeState({
        stride,
        source: 'seeded',
        headDim: 64,
        b: { type: 'rope', model, layer, sinks: false },
      });
      const { n, probs } = await probabilities(state, 'b');
      let seen = 0;
      for (let i = 0; i < n; i++)
        for (let j = 0; j <= i; j++) {
          const want = sees(i * stride, j * stride);
          seen += want;
          assert.equal(probs[i * n + j] > 0, want, `${model} stride ${stride}: ${i} -> ${j}`);
        }
      assert.ok(seen < (n * (n + 1)) / 2, `${model} stride ${stride} masks some keys`);
    }
  });

  it("scales Llama 4's NoPE queries by the temperature of their positions", async () => {
    // Layer 3 is NoPE with full attention: its logits are τ(p_i) q_i·k_j / √d, no rotation, so
    // the expected rows are written here from q and k alone.
    const stride = 100;
    const state = normalizeState({
      stride,
      source: 'seeded',
      headDim: 128,
      b: { type: 'rope', model: 'llama-4-scout-17b-16e', layer: 3 },
    });
    const { n, probs } = await probabilities(state, 'b');
    const t = hr.fromConfig(configText('llama-4-scout-17b-16e')).layers[3].temperature;
    assert.deepEqual(t, { floorScale: 8192, scale: 0.1, offset: 1 });
    const analysis = hr.analyze(code, { language: 'python' });
    const { q, k } = hr.qk({
      source: 'seeded',
      n,
      headDim: 128,
      tokenIds: analysis.tokens.ids.subarray(0, n),
      seed: state.seed,
    });
    let worst = 0;
    for (const i of [0, 81, 82, 200, n - 1]) {
      const p = i * stride;
      const tau = 1 + 0.1 * Math.log(Math.floor((p + 1) / 8192) + 1);
      const logits = [];
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let d = 0; d < 128; d++) dot += q[i * 128 + d] * k[j * 128 + d];
        logits.push((tau * dot) / Math.sqrt(128));
      }
      const top = Math.max(...logits);
      const e = logits.map((x) => Math.exp(x - top));
      const sum = e.reduce((x, y) => x + y, 0);
      for (let j = 0; j <= i; j++) worst = Math.max(worst, Math.abs(probs[i * n + j] - e[j] / sum));
    }
    assert.ok(worst < 1e-5, String(worst));
  });
});

describe('the presets on real models', () => {
  // Each side's attention call written out by hand from the setup (not the page's layerCall): the
  // layer's scheme; its own mask and temperature, which hr.attention applies at the positions
  // (token i at i × stride: checked against transformers' rules above); the sink logit for every
  // head.
  function expectedCall(state, sideName, setups) {
    const side = state[sideName];
    if (!side.model) return { scheme: expectedScheme(side, state) };
    const layer = setups[side.model].layers[side.layer];
    const call = { scheme: layer.scheme };
    if (layer.attention.type !== 'full') call.mask = layer.attention;
    if (layer.sinks && side.sinks) call.sinks = [side.sink];
    if (layer.temperature) call.temperature = layer.temperature;
    // The layer's softmax scale (query_pre_attn_scalar) and logit soft-cap, where it has them.
    if (layer.scale) call.scale = layer.scale;
    if (layer.softcap) call.softcap = layer.softcap;
    return call;
  }

  it('keep the code, match until a control moves, and show a visible difference on every sample', async () => {
    const setups = {};
    for (const preset of MODEL_PRESETS) {
      const state = presetState(preset.id, normalizeState({ language: 'go', code: 'package x\n' }));
      assert.equal(state.code, 'package x\n');
      assert.equal(matchesPreset(state), true, preset.id);
      assert.equal(matchesPreset({ ...state, stride: state.stride + 1 }), false);
      assert.equal(matchesPreset({ ...state, b: { ...state.b, layer: state.b.layer + 1 } }), false);
      for (const side of ['a', 'b']) {
        const id = state[side].model;
        if (id) {
          assert.ok(GALLERY.includes(id), id);
          setups[id] ??= hr.fromConfig(configText(id));
        }
      }
      for (const [language, code] of Object.entries(SAMPLES)) {
        const s = presetState(preset.id, normalizeState({ language }));
        const analysis = hr.analyze(code, { language });
        const n = Math.min(analysis.tokens.count, 4096);
        const { q, k } = hr.qk({
          source: s.source,
          n,
          headDim: s.headDim,
          tokenIds: analysis.tokens.ids.subarray(0, n),
          seed: s.seed,
        });
        const token = Int32Array.from({ length: n }, (_, i) => i * s.stride);
        const probs = {};
        for (const side of ['a', 'b'])
          probs[side] = hr.attention({
            q,
            k,
            n,
            headDim: s.headDim,
            positions: { token },
            causal: true,
            ...expectedCall(s, side, setups),
          });
        if (language === 'python')
          // The page's worker computes the same matrices (its own mapping, layerCall).
          for (const side of ['a', 'b']) {
            const engine = new SideEngine(hr, { loadConfig });
            await engine.run({ code, state: s, side, views: false });
            const got = engine.exportProbs().probs;
            let worst = 0;
            for (let c = 0; c < got.length; c++)
              worst = Math.max(worst, Math.abs(got[c] - probs[side][c]));
            assert.ok(worst < 1e-6, `${preset.id} ${side}: ${worst}`);
          }
        const region = { r0: 0, r1: n, c0: 0, c1: n };
        const { visibleShare } = diffImage(probs.a, probs.b, n, n, region);
        assert.ok(
          visibleShare >= 0.1,
          `${preset.id} on ${language}: ${(100 * visibleShare).toFixed(1)}%`,
        );
      }
    }
  });

  it('say how far apart the tokens are wherever a stride spreads them', () => {
    for (const preset of MODEL_PRESETS) {
      const stride = presetState(preset.id).stride;
      if (stride > 1)
        assert.match(
          preset.caption,
          new RegExp(`${stride} positions apart|tokens ${stride} apart`),
          preset.id,
        );
    }
  });
});
