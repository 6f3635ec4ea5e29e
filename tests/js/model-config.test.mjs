// hr.fromConfig: the config.json reader's JS door (issue 42), over the gallery (models/configs/),
// in both entry points, with hostile input. The reader's rules are tested in
// tests/native/test_model_config.cpp; the JS and Python setups are compared in
// tests/python/test_model_config.py.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { HiRoPEError } from '../../dist/index.js';
import initCore from '../../dist/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const gallery = path.join(root, 'models/configs');
const { entries } = JSON.parse(fs.readFileSync(path.join(gallery, 'index.json'), 'utf8'));
const textOf = (id) => fs.readFileSync(path.join(gallery, `${id}.json`), 'utf8');
const hr = await init();

describe('hr.fromConfig', () => {
  it('reads every gallery entry, from its text and its object alike', () => {
    for (const { id, warnings } of entries) {
      const setup = hr.fromConfig(textOf(id));
      assert.deepEqual(hr.fromConfig(JSON.parse(textOf(id))), setup, id);
      assert.equal(setup.layerCount, setup.layers.length, id);
      for (const w of warnings)
        assert.ok(
          setup.warnings.some((got) => got.includes(w.key)),
          `${id}: ${w.key}`,
        );
      for (const layer of setup.layers) {
        assert.ok(['full', 'sliding', 'chunked'].includes(layer.attention.type), id);
        // Each layer's scheme is one every call takes, NoPE included (no frequencies, factor 1).
        const f = hr.inverseFrequencies(layer.scheme, layer.headDim);
        const factor = hr.attentionFactor(layer.scheme, layer.headDim, { seqLen: 1 });
        if (!layer.rope) {
          assert.equal(layer.scheme.type, 'nope', id);
          assert.equal(f.length, 0, id);
          assert.equal(factor, 1, id);
          continue;
        }
        assert.ok(f[0] > 0, id);
        if (layer.headDim === setup.headDim) assert.equal(2 * f.length, setup.rotaryDim, id);
        assert.ok(factor > 0, id);
      }
    }
  });

  it('is in the full module only (the core entry keeps its download budget)', async () => {
    const core = await initCore();
    assert.throws(
      () => core.fromConfig(textOf('mistral-7b-v0.3')),
      (e) => e instanceof HiRoPEError && /not in the core module/.test(e.message),
    );
  });

  it('gives each layer its own frequencies (Gemma 3: local base 10,000, global 1,000,000 / 8)', () => {
    const setup = hr.fromConfig(textOf('gemma-3-27b-it'));
    const d = setup.headDim;
    assert.equal(d, 128);
    assert.deepEqual(
      setup.layers.map((l) => l.attention.type),
      setup.layers.map((_, i) => ((i + 1) % 6 === 0 ? 'full' : 'sliding')),
    );
    assert.deepEqual(setup.layers[0].attention, { type: 'sliding', window: 1024 });
    const local = hr.inverseFrequencies(setup.layers[0].scheme, d);
    const global = hr.inverseFrequencies(setup.layers[5].scheme, d);
    for (let j = 0; j < d / 2; j++) {
      assert.ok(Math.abs(local[j] / 10000 ** ((-2 * j) / d) - 1) < 1e-12, `local ${j}`);
      assert.ok(Math.abs(global[j] / (1e6 ** ((-2 * j) / d) / 8) - 1) < 1e-12, `global ${j}`);
    }
    // GPT-oss: sinks on every layer, YaRN's attention factor 0.1 ln 32 + 1.
    const gpt = hr.fromConfig(textOf('gpt-oss-20b'));
    assert.ok(gpt.layers.every((l) => l.sinks));
    const factor = hr.attentionFactor(gpt.layers[1].scheme, gpt.headDim, { seqLen: 131072 });
    assert.ok(Math.abs(factor - (0.1 * Math.log(32) + 1)) < 1e-12);
  });

  it("gives each layer transformers' softmax scale and logit soft-cap", () => {
    // Gemma 2 9B: query_pre_attn_scalar 256 (scale 256^-1/2), attn_logit_softcapping 50.
    const g2 = hr.fromConfig(textOf('gemma-2-9b'));
    for (const l of g2.layers) {
      assert.equal(l.scale, 256 ** -0.5);
      assert.equal(l.softcap, 50);
    }
    assert.ok(!g2.warnings.some((w) => /^(attn_logit_softcapping|query_pre_attn_scalar)/.test(w)));
    // Gemma 3 27B: 168^-1/2, no soft-cap; its q/k norm stays a warning.
    const g3 = hr.fromConfig(textOf('gemma-3-27b-it'));
    assert.ok(g3.layers.every((l) => l.scale === 168 ** -0.5 && l.softcap === undefined));
    assert.ok(
      g3.warnings.some((w) => w.startsWith('text_config.model_type: gemma3_text normalizes')),
    );
    // DeepSeek-V3: qk_head_dim 192, times yarn_get_mscale(40, 1)^2 = (0.1 ln 40 + 1)^2; the
    // RoPE dims are the last 64 of 192.
    const ds = hr.fromConfig(textOf('deepseek-v3'));
    const m = 0.1 * Math.log(40) + 1;
    for (const l of ds.layers) {
      assert.ok(Math.abs(l.scale / (192 ** -0.5 * m * m) - 1) < 1e-14);
      assert.equal(l.scheme.rotaryLast, true);
    }
    // Llama 3.1: neither key (head_dim^-1/2, no soft-cap).
    const llama = hr.fromConfig(textOf('llama-3.1-8b')).layers[0];
    assert.equal(llama.scale, undefined);
    assert.equal(llama.softcap, undefined);
  });

  it('reads every NoPE layer so that every call takes its scheme as it is', () => {
    // Llama 4 Scout and a SmolLM3-like file: every 4th layer NoPE.
    const smol = hr.fromConfig({
      model_type: 'smollm3',
      num_hidden_layers: 36,
      hidden_size: 2048,
      num_attention_heads: 16,
      rope_theta: 5000000,
      no_rope_layers: Array.from({ length: 36 }, (_, i) => ((i + 1) % 4 ? 1 : 0)),
    });
    for (const setup of [hr.fromConfig(textOf('llama-4-scout-17b-16e')), smol]) {
      let nope = 0;
      setup.layers.forEach((layer, i) => {
        assert.equal(layer.rope, (i + 1) % 4 !== 0, `${setup.modelType} ${i}`);
        const f = hr.inverseFrequencies(layer.scheme, layer.headDim, { seqLen: 100000 });
        const factor = hr.attentionFactor(layer.scheme, layer.headDim, { seqLen: 100000 });
        if (layer.rope) {
          assert.equal(2 * f.length, setup.rotaryDim);
        } else {
          assert.deepEqual([f.length, factor], [0, 1]);
          nope++;
        }
      });
      assert.equal(nope, setup.layerCount / 4);
    }
    // Other schemes without frequencies are still refused by name.
    assert.throws(
      () => hr.inverseFrequencies('alibi', 64),
      (e) => e instanceof HiRoPEError && /scheme 'alibi' has no rotary frequencies/.test(e.message),
    );
  });

  it("marks Qwen3-Next's linear-attention layers, which hr.attention refuses as a mask", () => {
    const setup = hr.fromConfig({
      model_type: 'qwen3_next',
      num_hidden_layers: 8,
      hidden_size: 2048,
      num_attention_heads: 16,
      head_dim: 256,
      partial_rotary_factor: 0.25,
      full_attention_interval: 4,
      rope_theta: 10000000,
      max_position_embeddings: 262144,
    });
    assert.equal(setup.rotaryDim, 64);
    setup.layers.forEach((layer, i) => {
      if ((i + 1) % 4) {
        assert.deepEqual(
          [layer.type, layer.attention, layer.rope, layer.scheme.type],
          ['linear_attention', { type: 'linear' }, false, 'nope'],
        );
      } else {
        assert.deepEqual(
          [layer.type, layer.attention, layer.rope],
          ['full_attention', { type: 'full' }, true],
        );
        const f = hr.inverseFrequencies(layer.scheme, layer.headDim);
        assert.equal(f.length, 32);
        for (let j = 0; j < 32; j++) assert.ok(Math.abs(f[j] / 1e7 ** ((-2 * j) / 64) - 1) < 1e-12);
      }
    });
    assert.ok(setup.warnings.some((w) => w.startsWith('layer_types: linear_attention layers')));
    const n = 4;
    const q = new Float32Array(n * 256).fill(0.1);
    assert.throws(
      () => hr.attention({ q, k: q, n, headDim: 256, mask: setup.layers[0].attention }),
      (e) =>
        e instanceof HiRoPEError &&
        /mask 'linear' is a linear-attention layer .*no softmax attention map/.test(e.message),
    );
  });

  it("divides proportional RoPE's frequencies by its factor (transformers' inv_freq /= factor)", () => {
    const setup = hr.fromConfig({
      model_type: 'gemma4_text',
      num_hidden_layers: 2,
      head_dim: 256,
      global_head_dim: 512,
      layer_types: ['sliding_attention', 'full_attention'],
      rope_parameters: {
        sliding_attention: { rope_type: 'default', rope_theta: 10000 },
        full_attention: {
          rope_type: 'proportional',
          partial_rotary_factor: 0.25,
          rope_theta: 1e6,
          factor: 8,
        },
      },
    });
    const full = setup.layers[1];
    assert.equal(full.scheme.scaling.factor, 8);
    assert.equal(full.scale, 1); // Gemma 4's scaling 1.0
    const f = hr.inverseFrequencies(full.scheme, full.headDim);
    assert.equal(f.length, 256);
    for (let j = 0; j < 256; j++) {
      const want = j < 64 ? 1e6 ** ((-2 * j) / 512) / 8 : 0;
      assert.ok(Math.abs(f[j] - want) <= 1e-12 * want, `pair ${j}`);
    }
  });

  it('refuses bad and hostile configs with a HiRoPEError, before they cost memory', () => {
    const bad = (config, pattern) =>
      assert.throws(
        () => hr.fromConfig(config),
        (e) => e instanceof HiRoPEError && pattern.test(e.message),
      );
    bad(
      {
        model_type: 'llama',
        hidden_size: 64,
        num_attention_heads: 1,
        num_hidden_layers: 2,
        rope_scaling: { rope_type: 'linear', factor: -2 },
      },
      /rope_scaling/,
    );
    bad('{not json', /config\.json/);
    for (const value of [null, 42, [1], new Uint8Array(4), undefined]) bad(value, /config must be/);
    const limit = 1 << 20;
    bad(`{${' '.repeat(limit)}}`, /over the limit/);
    // An object whose JSON outgrows the limit is refused while it is written.
    bad({ model_type: 'llama', x: new Array(1e7).fill(1) }, /over the limit/);
    const cyclic = { model_type: 'llama' };
    cyclic.self = cyclic;
    bad(cyclic, /could not be written as JSON/);
    bad({ x: 1n }, /could not be written as JSON/);
    let deep = {};
    for (let i = 0; i < 1e5; i++) deep = { a: deep };
    bad(deep, /config/);
    bad(`${'{"a":'.repeat(1e5)}1${'}'.repeat(1e5)}`, /config\.json/);
    bad(
      { model_type: 'llama', hidden_size: 64, num_attention_heads: 1, num_hidden_layers: 1e9 },
      /num_hidden_layers/,
    );
    // The module still works after each.
    assert.equal(hr.fromConfig(textOf('mistral-7b-v0.3')).layerCount, 32);
  });
});
