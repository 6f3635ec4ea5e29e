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
        if (!layer.rope) {
          assert.equal(layer.scheme.type, 'nope', id);
          continue;
        }
        // Each layer's scheme is one every call takes.
        const f = hr.inverseFrequencies(layer.scheme, layer.headDim);
        assert.ok(f[0] > 0, id);
        if (layer.headDim === setup.headDim) assert.equal(2 * f.length, setup.rotaryDim, id);
        assert.ok(hr.attentionFactor(layer.scheme, layer.headDim, { seqLen: 1 }) > 0, id);
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
