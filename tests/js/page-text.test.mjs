// The playground's controls, the element's attributes and the page's counted wording, in Node:
// every control's range, step, default and help come from the core's scheme table (so that each
// scheme's default settings are accepted by the API, leaky ReRoPE's leakyFactor included), the
// element takes an attribute for each scheme parameter the page has a control for, plurals are
// right at 1, the training-length sentence counts over the whole file, the guides' labels never
// overlap, and the units outline's statement counts add up to the status's.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init from '../../dist/index.js';
import { numberSpec, numberProblem, parameter } from '../../web/src/shared/core-catalogue.js';
import { schemeControls, sharedControls, invalidNumber } from '../../web/src/page/controls.js';
import {
  normalizeState,
  schemeFor,
  DEFAULTS,
  describeScheme,
} from '../../web/src/shared/playground-state.js';
import { SCHEME_TYPES } from '../../web/src/shared/schemes.js';
import {
  readAttributes,
  ATTRIBUTES,
  LANGUAGES,
  NUMBER_PARAMETERS,
} from '../../web/src/element/attributes.js';
import { plural, codeSentence, trainingSentence } from '../../web/src/shared/wording.js';
import { placeLabels } from '../../web/src/page/heatmap-draw.js';
import { statementsPerUnit } from '../../web/src/shared/counts.js';
import { SAMPLES } from '../../web/src/shared/samples.js';

// The page's state keys of the scheme parameters, by the core's name.
const TABLE_NAME = { segment: 'segmentSize' };
const tableName = (key) => TABLE_NAME[key] ?? key;

describe("controls from the core's scheme table", () => {
  let hr;
  before(async () => {
    hr = await init();
  });

  it('every number control of a scheme takes its range, step and help from the table', () => {
    for (const side of ['a', 'b']) {
      for (const spec of schemeControls(side)) {
        const key = spec.key.split('.')[1];
        if (spec.type !== 'number' && spec.type !== 'range') continue;
        const table = numberSpec(tableName(key));
        for (const field of ['min', 'max', 'minOpen', 'maxOpen', 'step', 'integer', 'help'])
          assert.deepEqual(spec[field], table[field], `${spec.key}.${field}`);
        assert.ok(spec.help.length > 20, `${spec.key} has help text`);
      }
    }
    // The select parameters' help is the table's description.
    for (const spec of schemeControls('a').filter((s) =>
      ['a.scaling', 'a.levels', 'a.layout'].includes(s.key),
    )) {
      assert.equal(spec.help, `${parameter(spec.key.slice(2)).description}.`, spec.key);
    }
    assert.equal(
      sharedControls(['python'], ['lexical']).find((s) => s.key === 'train').min,
      numberSpec('trainingLength').min,
    );
  });

  it('the table gives steps: the ratio 0.05, integers 1, any value elsewhere', () => {
    assert.equal(numberSpec('ratio').step, 0.05);
    assert.equal(numberSpec('window').step, 1);
    assert.equal(numberSpec('window').integer, true);
    assert.equal(numberSpec('leakyFactor').step, 'any');
  });

  it("leaky ReRoPE's control is the core's leakyFactor (a divisor >= 1), with the core's default", () => {
    const leak = schemeControls('a').find((s) => s.key === 'a.leakyFactor');
    assert.equal(leak.min, 1);
    assert.equal(DEFAULTS.a.leakyFactor, parameter('leakyFactor').default);
    assert.equal(invalidNumber(leak, '0.0625'), 'The leak factor must be at least 1.');
    assert.equal(invalidNumber(leak, '16'), null);
    assert.match(describeScheme({ ...DEFAULTS.a, type: 'leaky-rerope' }), /slope 1\/16/);
  });

  it('open bounds and allowed lists are checked as the core checks them', () => {
    assert.equal(numberProblem(numberSpec('base'), '1', 'base'), 'The base must be more than 1.');
    assert.equal(numberProblem(numberSpec('base'), '1.5', 'base'), null);
    assert.equal(numberProblem(numberSpec('levels'), '4', 'levels'), 'The levels must be 2 or 3.');
    assert.equal(
      numberProblem(numberSpec('factor'), '0', 'factor'),
      'The factor must be more than 0.',
    );
  });

  it("every scheme type with the page's default settings is accepted by the API, on each side", () => {
    const code = SAMPLES.python.slice(0, 400);
    const a = hr.analyze(code, { language: 'python' });
    const n = Math.min(a.tokens.count, 300);
    const positions = {
      token: a.positions.token.subarray(0, n),
      unit: a.positions.unit.subarray(0, n),
      statement: a.positions.statement.subarray(0, n),
    };
    const q = new Float32Array(n * 64).fill(1);
    for (const side of ['a', 'b']) {
      for (const [type] of SCHEME_TYPES) {
        const state = normalizeState({ [side]: { type } });
        const scheme = schemeFor(state[side], state);
        assert.doesNotThrow(
          () => hr.attention({ n, headDim: 64, scheme, positions, q, k: q, output: 'probs' }),
          `${side}: ${type} ${JSON.stringify(scheme)}`,
        );
      }
    }
  });
});

describe('<hirope-attention> attributes', () => {
  it('take every scheme parameter the page has a control for, named as the table names it', () => {
    const attributeOf = new Map(NUMBER_PARAMETERS.map((p) => [p.key, p.attribute]));
    for (const spec of schemeControls('a')) {
      const key = spec.key.split('.')[1];
      if (key === 'type' || key === 'units') continue; // scheme-a / scheme-b; segment-size sets units
      const attribute = attributeOf.get(key) ?? key;
      assert.ok(ATTRIBUTES.includes(attribute), `an attribute for ${key} (${attribute})`);
    }
    assert.ok(ATTRIBUTES.includes('leaky-factor'));
  });

  it("read into the state, with the table's defaults; unusable values are named", () => {
    const attrs = (map) => (name) => (name in map ? map[name] : null);
    const ok = readAttributes(
      attrs({
        'scheme-a': 'leaky-rerope',
        'leaky-factor': '8',
        'segment-size': '16',
        scaling: 'yarn',
        factor: '2',
      }),
    );
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.state.a.type, 'leaky-rerope');
    assert.equal(ok.state.a.leakyFactor, 8);
    assert.equal(ok.state.b.units, 'segments');
    assert.equal(ok.state.b.segment, 16);
    assert.equal(ok.state.a.scaling, 'yarn');
    assert.equal(
      readAttributes(attrs({ 'scheme-a': 'leaky-rerope' })).state.a.leakyFactor,
      parameter('leakyFactor').default,
    );
    const bad = readAttributes(attrs({ 'leaky-factor': '0.0625', scaling: 'warp' }));
    assert.equal(bad.problems.length, 2);
    assert.match(
      bad.problems[0],
      /^The leaky-factor attribute must be at least 1 \(a number >= 1\), got "0\.0625"\.$/,
    );
    assert.match(bad.problems[1], /scaling attribute must be one of none, linear/);
  });

  it('refuse an attribute the element does not take, and a misspelt value, with "did you mean"', () => {
    const read = (map) =>
      readAttributes((name) => (name in map ? map[name] : null), Object.keys(map));
    const typos = read({ 'sheme-b': 'alibi', windw: '8', langauge: 'rust' });
    assert.deepEqual(
      typos.problems.map((p) =>
        /^<hirope-attention> has no attribute "([\w-]+)" \(did you mean "([\w-]+)"\?\); its attributes: code, language, /
          .exec(p)
          ?.slice(1),
      ),
      [
        ['sheme-b', 'scheme-b'],
        ['windw', 'window'],
        ['langauge', 'language'],
      ],
    );
    // Any element's attributes are the page's: not typos.
    for (const name of [
      'id',
      'class',
      'style',
      'hidden',
      'lang',
      'data-note',
      'aria-label',
      'slot',
    ])
      assert.deepEqual(read({ [name]: 'x' }).problems, [], name);
    assert.equal(
      read({ language: 'pyton' }).problems[0],
      `The language attribute must be one of ${LANGUAGES.join(', ')}, got "pyton" (did you mean "python"?).`,
    );
    assert.match(
      read({ 'scheme-a': 'hirop' }).problems[0],
      /scheme-a attribute must be one of .*, got "hirop" \(did you mean "hirope"\?\)\.$/,
    );
    assert.match(read({ scaling: 'yarnn' }).problems[0], /\(did you mean "yarn"\?\)\.$/);
    assert.match(
      read({ model: 'llama-3.2-1' }).problems[0],
      /\(did you mean "llama-3\.2-1b"\?\)\.$/,
    );
    // A tokenizer by its tiktoken name, as the API takes it.
    const tiktoken = read({ tokenizer: 'cl100k_base' });
    assert.deepEqual(tiktoken.problems, []);
    assert.equal(tiktoken.state.tokenizer, 'cl100k');
    assert.match(
      read({ tokenizer: 'o200k_bas' }).problems[0],
      /got "o200k_bas" \(did you mean "o200k"\?\)/,
    );
  });

  it("on a real model's side, refuse the schemes the model's side does not compute", () => {
    const read = (map) =>
      readAttributes((name) => (name in map ? map[name] : null), Object.keys(map));
    assert.deepEqual(
      read({ model: 'llama-3.2-1b', 'scheme-a': 'hirope', 'scheme-b': 'rope' }).problems,
      [],
    );
    assert.equal(
      read({ model: 'llama-3.2-1b', 'scheme-b': 'self-extend' }).problems[0],
      'On a real model (the model or config attribute), the scheme-b attribute must be rope (the layer as the model computes it) or hirope (HiRoPE on its frequencies), got "self-extend".',
    );
    assert.match(
      read({ config: '{"model_type": "llama"}', 'scheme-a': 'alibi' }).problems[0],
      /^On a real model .* scheme-a attribute must be rope .* got "alibi"\.$/,
    );
    assert.match(
      read({ model: 'llama-3.2-1b', 'scheme-b': 'hirop' }).problems[0],
      /must be one of rope, hirope, got "hirop" \(did you mean "hirope"\?\)/,
    );
  });
});

describe("the page's counted wording", () => {
  it('one plural helper: 1 token, 2 tokens, thousands separated', () => {
    assert.equal(plural(1, 'token'), '1 token');
    assert.equal(plural(0, 'token'), '0 tokens');
    assert.equal(plural(12172, 'token'), '12,172 tokens');
    assert.equal(
      codeSentence({
        count: 1,
        languageName: 'Python',
        tokenizer: 'lexical',
        units: 1,
        statements: 1,
      }),
      '1 token of Python in 1 unit and 1 statement; tokenizer: lexical.',
    );
    assert.equal(
      codeSentence({
        count: 394,
        languageName: 'Python',
        tokenizer: 'lexical',
        units: 7,
        statements: 40,
      }),
      '394 tokens of Python in 7 units and 40 statements; tokenizer: lexical.',
    );
  });

  it('the tokens beyond the training length are counted over the whole file, not the drawn part', () => {
    const text = trainingSentence({ n: 4096, total: 12172, train: 256, sides: [] });
    assert.match(
      text,
      /^The last 11,916 of the file's 12,172 tokens are beyond the training length of 256\.$/,
    );
    assert.match(
      trainingSentence({ n: 300, train: 256, sides: [] }),
      /^The last 44 tokens are beyond/,
    );
    assert.match(
      trainingSentence({ n: 100, total: 100, train: 256, sides: [] }),
      /^All 100 tokens are within/,
    );
  });
});

describe("the guides' labels", () => {
  const width = (text) => 9 * text.length;
  const overlaps = (placed) =>
    placed.some((p, i) =>
      placed.some(
        (q, j) =>
          i < j &&
          Math.abs(p.y - q.y) < 20 &&
          p.x < q.x + width(q.label) &&
          q.x < p.x + width(p.label),
      ),
    );

  it('merge, in the lines\' order from left to right, where the lines end close together (no "L 25664")', () => {
    // A 12,172-token file on a 512-pixel plot: W 64 and L 256 end 8 pixels apart.
    const placed = placeLabels(
      [
        { label: 'W 64', end: 523.3, y: 520 },
        { label: 'L 256', end: 515.2, y: 520 },
      ],
      width,
      16,
    );
    assert.deepEqual(
      placed.map((p) => p.label),
      ['L 256, W 64'],
    );
    assert.ok(placed[0].x + width(placed[0].label) <= 515.2, 'left of both lines');
  });

  it('stay apart and beside their own lines where there is room', () => {
    const placed = placeLabels(
      [
        { label: 'W 64', end: 460, y: 520 },
        { label: 'L 256', end: 270, y: 520 },
      ],
      width,
      16,
    );
    assert.deepEqual(
      placed.map((p) => p.label),
      ['L 256', 'W 64'],
    );
    assert.equal(overlaps(placed), false);
    assert.equal(placed[1].x, 460 - width('W 64') - 6);
  });
});

describe('statement counts', () => {
  let hr;
  before(async () => {
    hr = await init();
  });
  const summary = (a) => ({
    count: a.tokens.count,
    unit: a.positions.unit,
    statement: a.positions.statement,
    units: a.units,
    statements: a.statements,
  });

  it("the outline's per-unit counts add up to the status's count, on binary garbage and on every sample", () => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) & 255;
    };
    const inputs = [];
    for (let i = 0; i < 30; i++)
      inputs.push([
        'python',
        new TextDecoder('latin1').decode(new Uint8Array(200 + 37 * i).map(random)),
      ]);
    for (const [language, code] of Object.entries(SAMPLES)) inputs.push([language, code]);
    inputs.push(['javascript', new TextDecoder('latin1').decode(new Uint8Array(900).map(random))]);
    for (const tokenizer of ['lexical']) {
      for (const [language, code] of inputs) {
        const a = hr.analyze(code, { language, tokenizer });
        const counts = statementsPerUnit(summary(a));
        assert.equal(
          counts.reduce((x, y) => x + y, 0),
          a.statements,
          `${language}, ${code.length} chars`,
        );
        assert.ok(counts.every((c) => c >= 0));
      }
    }
  });

  it('binary garbage whose tokens come before any statement: index 0 is not counted as a statement', () => {
    const a = {
      count: 4,
      unit: Int32Array.from([0, 0, 0, 0]),
      statement: Int32Array.from([0, 0, 1, 1]),
      units: [{}],
      statements: 1,
    };
    assert.deepEqual(statementsPerUnit(a), [1]);
    const two = {
      count: 5,
      unit: Int32Array.from([0, 0, 1, 1, 1]),
      statement: Int32Array.from([1, 1, 1, 3, 3]),
      units: [{}, {}],
      statements: 3,
    };
    assert.deepEqual(statementsPerUnit(two), [1, 2]);
  });
});
