// Typos are refused (issue 43): every options object of every public function, and every nested
// object (scheme, scheme.scaling, positions, pool, pool.region, mask, temperature), rejects an unknown key with a
// HiRoPEError naming it and the closest known key ("did you mean 'causal'?"). The table is checked
// against the public API itself: a public function with no entry fails the first test.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as hirope from '../../dist/index.js';
import init, { HiRoPEError, normalizeScheme } from '../../dist/index.js';
import { lcg } from './support/both-builds.mjs';

const n = 6;
const headDim = 8;
const q = lcg(n * headDim, 1);
const k = lcg(n * headDim, 2);
const matrix = () => new Float32Array(n * n).fill(1 / n);

// A misspelt key and the key it should suggest.
const typo = (call, key, suggest) => ({ call, key, suggest });
// A function that takes no options object (and no scheme), with the reason.
const none = (why) => ({ none: why });

// Every public function: module exports, HiRoPE's methods, ModelLoader's and CodeModel's.
const TABLE = {
  // The module's exports.
  init: typo(() => init({ simdd: true }), 'simdd', 'simd'),
  default: typo(() => hirope.default({ analyss: false }), 'analyss', 'analysis'),
  makeInit: none("builds an entry point's init() from its module table (not for users)"),
  simdSupported: none('takes no arguments'),
  segmentPositions: none('takes two numbers'),
  normalizeScheme: typo(() => normalizeScheme({ type: 'hirope', ratoi: 0.5 }), 'ratoi', 'ratio'),
  tokenizerForModel: none('takes a model name'),
  identifiers: none('takes bytes'),
  recallClasses: none('takes bytes and a number'),
  tokenRecallClasses: none('takes bytes, arrays and a number'),
  // HiRoPE's methods.
  'hr.detectLanguage': none('takes a file name'),
  'hr.loadTokenizer': typo(
    ({ hr }) => hr.loadTokenizer('cl100k', { dta: new Uint8Array(1) }),
    'dta',
    'data',
  ),
  'hr.loadLanguage': typo(
    ({ hr }) => hr.loadLanguage('python', { modul: null }),
    'modul',
    'module',
  ),
  'hr.parse': typo(({ hr }) => hr.parse('x = 1', { languag: 'python' }), 'languag', 'language'),
  'hr.encode': typo(({ hr }) => hr.encode('x', { tokeniser: 'llama3' }), 'tokeniser', 'tokenizer'),
  'hr.countTokens': typo(
    ({ hr }) => hr.countTokens('x', { tokeniser: 'llama3' }),
    'tokeniser',
    'tokenizer',
  ),
  'hr.isWithinTokenLimit': typo(
    ({ hr }) => hr.isWithinTokenLimit('x', 4, { specialToken: true }),
    'specialToken',
    'specialTokens',
  ),
  'hr.encodeBatch': typo(
    ({ hr }) => hr.encodeBatch(['x'], { tokeniser: 'llama3' }),
    'tokeniser',
    'tokenizer',
  ),
  'hr.decode': typo(({ hr }) => hr.decode([1], { tokeniser: 'llama3' }), 'tokeniser', 'tokenizer'),
  'hr.tokenBytes': typo(
    ({ hr }) => hr.tokenBytes([1], { tokeniser: 'llama3' }),
    'tokeniser',
    'tokenizer',
  ),
  'hr.decoder': typo(({ hr }) => hr.decoder({ tokeniser: 'llama3' }), 'tokeniser', 'tokenizer'),
  'hr.analyze': typo(
    ({ hr }) => hr.analyze('x = 1', { language: 'python', tokeniser: 'lexical' }),
    'tokeniser',
    'tokenizer',
  ),
  'hr.attention': typo(
    ({ hr }) => hr.attention({ q, k, n, headDim, casual: false }),
    'casual',
    'causal',
  ),
  'hr.attentionAsync': typo(
    ({ hr }) => hr.attentionAsync({ q, k, n, headDim, sheme: 'alibi' }),
    'sheme',
    'scheme',
  ),
  'hr.inverseFrequencies': typo(
    ({ hr }) => hr.inverseFrequencies('rope', headDim, { seqLn: 4 }),
    'seqLn',
    'seqLen',
  ),
  'hr.attentionFactor': typo(
    ({ hr }) => hr.attentionFactor('rope', headDim, { seqLn: 4 }),
    'seqLn',
    'seqLen',
  ),
  'hr.bands': typo(({ hr }) => hr.bands({ type: 'hirope', ratoi: 0.5 }, headDim), 'ratoi', 'ratio'),
  'hr.relativeDistances': typo(
    ({ hr }) => hr.relativeDistances({ n, headDim, sheme: 'hirope' }),
    'sheme',
    'scheme',
  ),
  'hr.rotate': typo(({ hr }) => hr.rotate({ x: q, n, headDim, rol: 'key' }), 'rol', 'role'),
  'hr.longTermDecay': typo(
    ({ hr }) => hr.longTermDecay({ type: 'rope', bse: 500 }, headDim, 8),
    'bse',
    'base',
  ),
  'hr.pool': typo(
    ({ hr }) => hr.pool({ matrix: matrix(), n, rows: 2, cols: 2, casual: false }),
    'casual',
    'causal',
  ),
  'hr.alibiSlopes': none('takes a head count'),
  'hr.splitFraction': none('takes two numbers'),
  'hr.splitBound': typo(
    ({ hr }) => hr.splitBound({ type: 'hirope', trainingLenght: 512 }, headDim),
    'trainingLenght',
    'trainingLength',
  ),
  'hr.unseenPairs': typo(
    ({ hr }) => hr.unseenPairs('rope', headDim, { trainedLength: 8, length: 16, rech: 4 }),
    'rech',
    'reach',
  ),
  'hr.qk': typo(({ hr }) => hr.qk({ n, headDim, sed: 3 }), 'sed', 'seed'),
  'hr.fromConfig': none(
    "takes a model's config.json: keys it reads but does not model are warnings",
  ),
  'hr.heapBytes': none('takes no arguments'),
  'hr.memory': none('takes no arguments'),
  // The code models.
  'loader.load': typo(({ hr }) => hr.model.load({ nam: 'pybyte' }), 'nam', 'name'),
  'loader.inspect': none('takes bytes'),
  'loader.inspectPretrained': none('takes a folder or its files, no options'),
  'loader.downloadPretrained': typo(
    ({ hr }) => hr.model.downloadPretrained('http://127.0.0.1:9/m/', { maxByte: 5 }),
    'maxByte',
    'maxBytes',
  ),
  'loader.fromPretrained': typo(
    ({ hr }) => hr.model.fromPretrained({}, { onProgres: () => {} }),
    'onProgres',
    'onProgress',
  ),
  'model.loss': typo(({ model }) => model.loss('x = 1', { sheme: 'rope' }), 'sheme', 'scheme'),
  'model.logits': typo(
    ({ model }) => model.logits('x = 1', { hierarchi: 'units' }),
    'hierarchi',
    'hierarchy',
  ),
  'model.lossAsync': typo(
    ({ model }) => model.lossAsync('x = 1', { sheme: 'rope' }),
    'sheme',
    'scheme',
  ),
  'model.logitsAsync': typo(
    ({ model }) => model.logitsAsync('x = 1', { hierarchi: 'units' }),
    'hierarchi',
    'hierarchy',
  ),
  'model.attention': typo(({ model }) => model.attention('x = 1', { layr: 0 }), 'layr', 'layer'),
  'model.attentionAll': typo(
    ({ model }) => model.attentionAll('x = 1', { hierachy: 'units' }),
    'hierachy',
    'hierarchy',
  ),
  'model.generate': typo(
    ({ model }) => model.generate('x', { maxByte: 2, temperature: 0 }),
    'maxByte',
    'maxBytes',
  ),
  'model.positions': typo(
    ({ model }) => model.positions('x = 1', { segmentsize: 8, hierarchy: 'segments' }),
    'segmentsize',
    'segmentSize',
  ),
  'model.scheme': typo(
    ({ model }) => model.scheme({ type: 'hirope', ratoi: 0.5 }),
    'ratoi',
    'ratio',
  ),
  'model.dispose': none('takes no arguments'),
};

// Nested objects: each refuses a typo the same way.
const NESTED = [
  [
    'attention scheme',
    typo(
      ({ hr }) => hr.attention({ q, k, n, headDim, scheme: { type: 'hirope', ratoi: 0.5 } }),
      'ratoi',
      'ratio',
    ),
  ],
  [
    'scheme.scaling',
    typo(
      ({ hr }) =>
        hr.bands({ type: 'rope', scaling: { type: 'yarn', factr: 4, originalLength: 64 } }, 8),
      'factr',
      'factor',
    ),
  ],
  [
    'positions',
    typo(
      ({ hr }) => hr.attention({ q, k, n, headDim, positions: { tokn: [0, 1, 2, 3, 4, 5] } }),
      'tokn',
      'token',
    ),
  ],
  [
    'attention pool',
    typo(
      ({ hr }) =>
        hr.attention({
          q,
          k,
          n,
          headDim,
          pool: {
            rows: 2,
            cols: 2,
            ratio: new Float32Array(4),
            raw: new Float32Array(4),
            rowmx: 1,
          },
        }),
      'rowmx',
      'rowMax',
    ),
  ],
  [
    'pool.region',
    typo(
      ({ hr }) =>
        hr.pool({ matrix: matrix(), n, rows: 2, cols: 2, region: { r0: 0, r1: 6, c0: 0, c_1: 6 } }),
      'c_1',
      'c1',
    ),
  ],
  [
    'attention mask',
    typo(
      ({ hr }) => hr.attention({ q, k, n, headDim, mask: { type: 'sliding', widow: 4 } }),
      'widow',
      'window',
    ),
  ],
  [
    'attention temperature',
    typo(
      ({ hr }) =>
        hr.attention({ q, k, n, headDim, temperature: { floorScale: 4, scale: 0.1, ofset: 1 } }),
      'ofset',
      'offset',
    ),
  ],
  ['tokenizer source', typo(({ hr }) => hr.loadTokenizer({ jsn: '{}' }), 'jsn', 'json')],
  [
    'model positions',
    typo(
      ({ model }) => model.loss('x = 1', { positions: { unti: [0, 0, 0, 0, 0] } }),
      'unti',
      'unit',
    ),
  ],
];

// The public functions by the table's names: the module's exported functions (classes aside),
// then the methods of the objects users get.
function publicFunctions(hr, model) {
  const methods = (object, prefix) => {
    const names = [];
    for (
      let p = Object.getPrototypeOf(object);
      p && p !== Object.prototype;
      p = Object.getPrototypeOf(p)
    )
      for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(p)))
        if (name !== 'constructor' && !name.startsWith('_') && typeof d.value === 'function')
          names.push(`${prefix}.${name}`);
    return names;
  };
  const exported = Object.entries(hirope)
    .filter(([name, value]) => typeof value === 'function' && !/^[A-Z]/.test(name))
    .map(([name]) => name);
  return [
    ...exported,
    ...methods(hr, 'hr'),
    ...methods(hr.model, 'loader'),
    ...methods(model, 'model'),
  ];
}

async function refuses(what, { call, key, suggest }, context) {
  let error = null;
  try {
    await call(context);
  } catch (e) {
    error = e;
  }
  assert.ok(error, `${what}: the misspelt key '${key}' was accepted`);
  assert.ok(error instanceof HiRoPEError, `${what}: ${error}`);
  assert.match(error.message, new RegExp(`unknown key '${key}'`), what);
  assert.ok(
    error.message.includes(`did you mean '${suggest}'?`),
    `${what}: no suggestion of '${suggest}' in: ${error.message}`,
  );
}

describe('every options object refuses unknown keys', () => {
  const context = {};
  before(async () => {
    context.hr = await init();
    await context.hr.loadTokenizer('cl100k');
    context.model = await context.hr.model.load();
  });

  it('has an entry for every public function', () => {
    const names = publicFunctions(context.hr, context.model);
    assert.deepEqual(
      names.filter((name) => !(name in TABLE)),
      [],
      'public functions without an entry in the table',
    );
    assert.deepEqual(
      Object.keys(TABLE).filter((name) => !names.includes(name)),
      [],
      'table entries that are no public function',
    );
  });

  for (const [name, entry] of Object.entries(TABLE)) {
    if (entry.none) continue;
    it(`${name} refuses '${entry.key}' and suggests '${entry.suggest}'`, () =>
      refuses(name, entry, context));
  }

  for (const [name, entry] of NESTED) {
    it(`${name} refuses '${entry.key}' and suggests '${entry.suggest}'`, () =>
      refuses(name, entry, context));
  }

  it('the same calls without the typo run (the table tests the key, not another error)', async () => {
    const { hr, model } = context;
    assert.equal(hr.attention({ q, k, n, headDim, causal: false }).length, n * n);
    assert.ok(hr.encode('x', { tokenizer: 'cl100k' }).length > 0);
    assert.equal(hr.pool({ matrix: matrix(), n, rows: 2, cols: 2, causal: false }).raw.length, 4);
    assert.equal(hr.bands({ type: 'hirope', ratio: 0.5 }, headDim).length, 2);
    assert.equal(hr.qk({ n, headDim, seed: 3 }).q.length, n * headDim);
    assert.ok(model.loss('x = 1', { scheme: 'rope' }).losses.length > 0);
  });

  it('suggests nothing for a key close to no known one', () => {
    // One letter is no typo of another one-letter key ('x' of 'n').
    assert.throws(
      () => context.hr.attention({ q, k, n, headDim, x: 1 }),
      (e) => e instanceof HiRoPEError && /unknown key 'x' \(known keys: /.test(e.message),
    );
    assert.throws(
      () => context.hr.encode('x', { zzzzzzzz: 1 }),
      (e) =>
        e instanceof HiRoPEError &&
        /^encode options has an unknown key 'zzzzzzzz' \(known keys: tokenizer, specialTokens\)$/.test(
          e.message,
        ),
    );
  });
});
