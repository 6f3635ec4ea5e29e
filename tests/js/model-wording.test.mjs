// Model mode's unit-dependent wording (web/src/shared/model-wording.js) and the engine's unit counts:
// every help text names the model's own unit, the ratio presets and hints agree on within/above
// (from the core's splitBound), the Factor help follows the scaling, generation says why a count
// differs from the one asked; and an attention-only run reports the same n (tokens) as a loss run.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import {
  modelHelp,
  factorHelp,
  ratioVerdict,
  ratioOutput,
  ratioPresets,
  ratioHint,
  generatedSentence,
} from '../../web/src/shared/model-wording.js';
import { ModelEngine } from '../../web/src/worker/model-engine.js';
import { LONG_PYTHON_SAMPLE } from '../../web/src/shared/model-samples.js';
import { TOKEN_MODEL_DEFAULTS } from '../../web/src/shared/model-state.js';

describe('Model mode wording', () => {
  let hr;
  const bounds = {};
  before(async () => {
    hr = await init();
    for (const name of ['pyjs-llama2', 'pybyte']) {
      const m = await hr.model.load({ name });
      const c = m.config;
      const at = (ratio) =>
        hr.splitBound(
          { type: 'hirope', ratio, base: c.ropeBase, trainingLength: c.trainingContext },
          c.headDim,
        );
      bounds[name] = { at, train: c.trainingContext, max: at(at(0).maxRatio), paper: at(0.5) };
      m.dispose();
    }
  });

  it("help texts name the model's unit, never the other", () => {
    for (const [unit, other] of [
      ['token', 'byte'],
      ['byte', 'token'],
    ]) {
      const help = modelHelp(unit);
      for (const key of [
        'ratio',
        'hierarchy',
        'segment',
        'window',
        'smooth',
        'temperature',
        'resetZoom',
      ]) {
        assert.match(help[key], new RegExp(unit, 'i'), `${unit} ${key}`);
        assert.doesNotMatch(help[key], new RegExp(`\\b${other}`, 'i'), `${unit} ${key}`);
      }
    }
    assert.match(
      modelHelp('token').window,
      /reaches W tokens back.*each token is predicted from the last W tokens only \(one pass per W\/8 tokens\)/,
    );
    // The generation budget is the core's, in bytes; the token model's help says it samples whole tokens.
    assert.match(modelHelp('token').maxBytes, /whole tokens/);
  });

  it("the Factor help describes the chosen scaling (the core's table)", () => {
    assert.equal(
      factorHelp('linear'),
      'Scaling factor s for linear (PI). Position interpolation: every frequency divided by the factor.',
    );
    assert.equal(
      factorHelp('ntk'),
      'Scaling factor s. NTK-aware: the base raised so that the slowest pair stretches by the factor.',
    );
    assert.doesNotMatch(factorHelp('ntk'), /PI|divides every frequency/);
    assert.match(factorHelp('yarn'), /^Scaling factor s for YaRN\. NTK-by-parts: /);
    assert.doesNotMatch(factorHelp('yarn'), /PI /);
  });

  it("the token model: its Split% bound is the paper's 0.5, one preset button, within the bound everywhere", () => {
    const { max, paper, at, train } = bounds['pyjs-llama2'];
    assert.equal(max.maxRatio, 0.5);
    const list = ratioPresets({ bound: max, paper, unit: 'token' });
    assert.equal(list.length, 1);
    assert.equal(list[0].ratio, 0.5);
    assert.match(list[0].label, /Split% bound = the paper's 0.5 \(8\/16\)/);
    assert.doesNotMatch(list[0].title, /above/);
    assert.equal(ratioVerdict(at(0.5)), 'within');
    assert.match(
      ratioHint({ bound: at(0.5), paper, ratio: 0.5, train, unit: 'token' }),
      /Within the bound\.$/,
    );
    // One pair more is above, and the paper's 0.5 is not blamed for it.
    const over = ratioHint({ bound: at(9 / 16), paper, ratio: 9 / 16, train, unit: 'token' });
    assert.match(over, /above the bound: .*token distance/);
    assert.doesNotMatch(over, /paper's 0.5 breaks/);
  });

  it("the byte model: two presets, the bound's from the core, the paper's above it — the same verdict as the hint", () => {
    const { max, paper, at, train } = bounds.pybyte;
    const list = ratioPresets({ bound: max, paper, unit: 'byte' });
    assert.deepEqual(
      list.map((p) => p.ratio),
      [max.maxRatio, 0.5],
    );
    assert.equal(max.maxRatio, 7 / 16);
    assert.match(list[0].label, /\(7\/16\)/);
    assert.match(list[0].title, /within this model's Split% bound/);
    assert.match(list[1].title, /above this model's Split% bound/);
    assert.match(
      ratioHint({ bound: at(0.5), paper, ratio: 0.5, train, unit: 'byte' }),
      /above the bound.*paper's 0.5 breaks this model/,
    );
  });

  it('the ratio label: the ratio and the pairs the core assigns, not a fraction that differs from it', () => {
    const b = bounds['pyjs-llama2'].at(1 / 3);
    assert.equal(b.tokenPairs, 5);
    assert.equal(
      ratioOutput({ ratio: 1 / 3, tokenPairs: b.tokenPairs, pairs: b.pairs }),
      '0.333 · 5 of 16 pairs',
    );
  });

  it('generation: the count asked, or why not', () => {
    assert.equal(
      generatedSentence({
        unit: 'byte',
        bytes: 256,
        asked: 256,
        promptBytes: 4096,
        bytesPerSecond: 900.4,
      }),
      '256 bytes after a 4,096-byte prompt, 900 bytes/s',
    );
    assert.equal(
      generatedSentence({
        unit: 'token',
        bytes: 259,
        asked: 256,
        promptBytes: 6842,
        bytesPerSecond: 80,
      }),
      '259 bytes in whole tokens (the last one ends past the 256 asked) after a 6,842-byte prompt, 80 bytes/s',
    );
    assert.match(
      generatedSentence({
        unit: 'token',
        bytes: 100,
        asked: 256,
        promptBytes: 10,
        bytesPerSecond: 80,
      }),
      /ended the text before the 256 asked/,
    );
  });

  it('the engine: an attention-only run reports the token count (not the bytes), as the loss run does', async () => {
    const engine = new ModelEngine(hr);
    const code = LONG_PYTHON_SAMPLE;
    const request = {
      code,
      side: TOKEN_MODEL_DEFAULTS.b,
      language: 'python',
      model: 'pyjs-llama2',
    };
    const full = await engine.run({ ...request, layer: 0, head: 0 });
    const only = await engine.run({
      ...request,
      layer: 1,
      head: 2,
      parts: { loss: false, attention: true },
    });
    assert.equal(full.unit, 'token');
    assert.equal(full.n, hr.encode(code, { tokenizer: 'llama2' }).length);
    assert.equal(only.n, full.n);
    assert.equal(only.bytes, full.bytes);
    assert.equal(full.bytes, new TextEncoder().encode(code).length);
    assert.equal(only.losses, undefined);
  });
});
