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
  readCount,
  clipSentence,
  modelErrorText,
  languageNote,
  modelMapHint,
} from '../../web/src/shared/model-wording.js';
import { ModelEngine, MODEL_BYTES, MODEL_TOKENS } from '../../web/src/worker/model-engine.js';
import { PlaygroundError } from '../../web/src/worker/playground-error.js';
import { LONG_PYTHON_SAMPLE } from '../../web/src/shared/model-samples.js';
import {
  MODEL_DEFAULTS,
  TOKEN_MODEL_DEFAULTS,
  describeModelSide,
  ratioOnPairs,
} from '../../web/src/shared/model-state.js';
import { describeScheme, DEFAULTS } from '../../web/src/shared/playground-state.js';
import { formatRatio } from '../../web/src/shared/schemes.js';
import { TRAINED_ON } from '../../web/src/shared/models.js';
import { SAMPLES } from '../../web/src/shared/samples.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

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

  it('the ratio on the slider: whole pairs as the core counts them, shown exactly (0.3125, not 0.333)', () => {
    // The token model's default is the tuned 1/3 written as the pairs the core gives it: the
    // same scheme, on the slider's grid, and its label shows the value the slider holds.
    const at = bounds['pyjs-llama2'].at;
    assert.equal(TOKEN_MODEL_DEFAULTS.b.ratio, 5 / 16);
    assert.equal(at(TOKEN_MODEL_DEFAULTS.b.ratio).tokenPairs, at(1 / 3).tokenPairs);
    const b = at(TOKEN_MODEL_DEFAULTS.b.ratio);
    assert.equal(
      ratioOutput({
        ratio: TOKEN_MODEL_DEFAULTS.b.ratio,
        tokenPairs: b.tokenPairs,
        pairs: b.pairs,
      }),
      '0.3125 · 5 of 16 pairs',
    );
    assert.equal(formatRatio(7 / 16), '0.4375');
    assert.equal(formatRatio(1 / 3), '0.333');
    assert.equal(formatRatio(0.5), '0.5');
    // ratioOnPairs keeps the core's pair count for every ratio (the same scheme), on the grid.
    for (let k = 0; k <= 200; k++) {
      const ratio = k / 200;
      const snapped = ratioOnPairs(ratio, b.pairs);
      assert.ok(Number.isInteger(snapped * b.pairs), `${ratio}`);
      assert.equal(at(snapped).tokenPairs, at(ratio).tokenPairs, `${ratio}`);
    }
    for (const d of [MODEL_DEFAULTS, TOKEN_MODEL_DEFAULTS])
      for (const side of ['a', 'b']) assert.equal(ratioOnPairs(d[side].ratio, 16), d[side].ratio);
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

  it('a cut file: the status names the limit that cut it (8,192 bytes, 2,560 tokens or 4,096 bytes)', async () => {
    const engine = new ModelEngine(hr);
    const run = (code, side, model) =>
      engine.run({ code, side, language: 'python', model, parts: { attention: false } });
    // Long lines of Python: past one run's bytes with fewer tokens than the token limit.
    const bytesCut = 'value = compute(first_argument, second_argument)\n'.repeat(400);
    const model = await hr.model.load({ name: 'pyjs-llama2' });
    const maxInput = model.maxInputBytes;
    model.dispose();
    assert.ok(bytesCut.length > maxInput);
    let r = await run(bytesCut, TOKEN_MODEL_DEFAULTS.b, 'pyjs-llama2');
    assert.ok(r.n < MODEL_TOKENS, `${r.n} tokens`);
    assert.deepEqual(r.clippedAt, { limit: maxInput, unit: 'byte' });
    assert.equal(r.totalBytes, bytesCut.length);
    const sentence = clipSentence(r);
    assert.match(sentence, new RegExp(`at most ${maxInput.toLocaleString('en')} bytes`));
    assert.match(
      sentence,
      new RegExp(
        `first ${r.bytes.toLocaleString('en')} of the code's ${bytesCut.length.toLocaleString('en')} bytes`,
      ),
    );
    assert.doesNotMatch(sentence, /tokens/);
    // Dense code: the token limit cuts first.
    const dense = 'x=[1,2,3];'.repeat(700);
    r = await run(dense, TOKEN_MODEL_DEFAULTS.b, 'pyjs-llama2');
    assert.equal(r.n, MODEL_TOKENS);
    assert.deepEqual(r.clippedAt, { limit: MODEL_TOKENS, unit: 'token' });
    assert.match(clipSentence(r), /at most 2,560 tokens/);
    // The byte model reads MODEL_BYTES.
    r = await run(bytesCut, MODEL_DEFAULTS.b, 'pybyte');
    assert.deepEqual(r.clippedAt, { limit: MODEL_BYTES, unit: 'byte' });
    assert.match(
      clipSentence(r),
      /first 4,096 of the code's .* bytes were read, because the page runs the model on at most 4,096 bytes/,
    );
    assert.equal(readCount(r), '4,096 bytes');
    // Whole code: no sentence.
    r = await run(SAMPLES.python, MODEL_DEFAULTS.b, 'pybyte');
    assert.equal(r.clippedAt, null);
    assert.equal(clipSentence(r), '');
  });

  it('errors read as plain sentences, with no class names', async () => {
    const engine = new ModelEngine(hr);
    for (const code of ['', 'x']) {
      const e = await engine
        .run({ code, side: MODEL_DEFAULTS.b, language: 'python', model: 'pybyte' })
        .then(
          () => null,
          (err) => err,
        );
      assert.ok(e instanceof PlaygroundError);
      const text = modelErrorText(e);
      assert.doesNotMatch(text, /Error\b/);
      assert.match(text, /^[A-Z].*\.$/);
      assert.match(text, code ? /at least 2 bytes/ : /The editor is empty/);
    }
    const api = Object.assign(new Error('scheme.window must be at least 1, got 0'), {
      name: 'HiRoPEError',
    });
    assert.equal(
      modelErrorText(api),
      'These settings cannot be computed: scheme.window must be at least 1, got 0.',
    );
    const net = Object.assign(new Error("could not fetch the model's weights (x: HTTP 404)"), {
      name: 'NetworkError',
    });
    assert.doesNotMatch(modelErrorText(net), /NetworkError/);
    assert.doesNotMatch(modelErrorText(new TypeError('x is undefined')), /TypeError/);
  });

  it("scalings in the titles under the catalogue's names, as the attention mode writes them", () => {
    for (const [scaling, label] of [
      ['ntk', 'NTK-aware'],
      ['dynamic-ntk', 'dynamic NTK'],
      ['yarn', 'YaRN'],
      ['linear', 'linear (PI)'],
    ]) {
      const side = { ...MODEL_DEFAULTS.a, scaling, factor: 4 };
      const title = describeModelSide(side, 'byte');
      assert.equal(title, `RoPE with ${label} scaling ×4`);
      assert.equal(title, describeScheme({ ...DEFAULTS.a, type: 'rope', scaling, factor: 4 }));
      assert.doesNotMatch(title, new RegExp(`\\b${scaling} ×`));
    }
  });

  it('generation says when it cut the prompt, and where it continues from', () => {
    const text = generatedSentence({
      unit: 'token',
      bytes: 256,
      asked: 256,
      promptBytes: 7936,
      codeBytes: 20384,
      promptLimit: 7936,
      bytesPerSecond: 80,
    });
    assert.match(text, /after the first 7,936 of the code's 20,384 bytes/);
    assert.match(
      text,
      /\(a prompt holds at most 7,936 bytes here, so the model continues from there, not from the code's end\), 80 bytes\/s$/,
    );
  });

  it("the languages: each model's training data, and a plain note for the others", () => {
    // The training configs' file extensions (.py when none), through the core's own detection.
    for (const [name, languages] of Object.entries(TRAINED_ON)) {
      const config = JSON.parse(
        fs.readFileSync(path.join(root, 'training/models', name, 'config.json'), 'utf8'),
      );
      const found = new Set(
        (config.data.extensions ?? ['.py']).map((ext) => hr.detectLanguage(`file${ext}`)),
      );
      assert.deepEqual([...found].sort(), [...languages].sort(), name);
    }
    assert.equal(
      languageNote({ model: 'token model', language: 'Python', trained: ['Python', 'JavaScript'] }),
      '',
    );
    assert.equal(
      languageNote({
        model: 'token model',
        language: 'Go',
        trained: ['Python', 'JavaScript'],
        detected: true,
      }),
      'Detected: Go. The token model was trained on Python and JavaScript only, not Go: expect a high loss, and read the comparison of A and B with care.',
    );
  });

  it('the maps hint says tap on a touch screen, click with a mouse', () => {
    assert.match(modelMapHint({ touch: true, unit: 'token' }), /^Tap a row to shade the tokens/);
    assert.doesNotMatch(modelMapHint({ touch: true, unit: 'token' }), /click/i);
    assert.match(modelMapHint({ touch: false, unit: 'byte' }), /^Click a row to shade the bytes/);
  });
});
