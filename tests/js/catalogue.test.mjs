// hr.catalogue, the core's table of schemes, scalings, parameters and value lists: its names and
// numbers are hirope.h's enums, every scheme name reaches the core as that scheme, the normaliser
// accepts exactly the keys it lists with its defaults, and core messages come back in JS names.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { HiRoPEError, normalizeScheme } from '../../dist/index.js';
import { checkAnalysisLayout, ANALYSIS_LAYOUT } from '../../dist/analysis-codec.js';
import { BUILDS, load, range } from './support/both-builds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** fn throws a HiRoPEError whose message matches re. */
function throwsMessage(fn, re) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof HiRoPEError, `expected HiRoPEError, got ${e?.name}: ${e?.message}`);
    assert.match(e.message, re);
    return true;
  });
}

/** The enumerators of `enum class name { ... }` in a header, in order. */
function enumerators(header, name) {
  const text = fs
    .readFileSync(path.join(root, 'include/hirope', header), 'utf8')
    .replace(/\/\/.*$/gm, '');
  const m = text.match(new RegExp(`enum class ${name}\\s*\\{([^}]*)\\}`));
  assert.ok(m, `enum class ${name} in ${header}`);
  return m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const ENUMS = [
  ['schemes', 'hirope.h', 'SchemeType'],
  ['scalings', 'hirope.h', 'ScalingType'],
  ['layouts', 'hirope.h', 'Layout'],
  ['sinusoidalVariants', 'hirope.h', 'SinusoidalVariant'],
  ['outputs', 'hirope.h', 'Output'],
  ['roles', 'hirope.h', 'Role'],
  ['branches', 'hirope.h', 'Branch'],
  ['kernels', 'hirope.h', 'Kernel'],
  ['gaps', 'analysis.h', 'GapPolicy'],
  ['hierarchies', 'analysis.h', 'Hierarchy'],
  ['byteHierarchies', 'model.h', 'ByteHierarchy'],
];

// A value of the parameter's kind that its range accepts.
function sample(p, catalogue) {
  switch (p.kind) {
    case 'boolean':
      return true;
    case 'enum':
      return catalogue[p.values].at(-1).name;
    case 'list':
      return [1, 1, 1, 1];
    case 'scaling':
      return { type: 'none' };
    default: {
      if (p.allowed.length) return p.allowed.at(-1);
      if (p.max !== null && !p.maxOpen) return p.max;
      const x = (p.min ?? 0) + 1;
      return p.kind === 'integer' ? Math.ceil(x) : x;
    }
  }
}

// The defaults and ranges as docs/schemes.md states them, written out here rather than read from
// the table under test (issue 35: a wrong default would otherwise agree with itself). Each row:
// [default, the range's wording in messages or null, a value just outside, a value at the edge
// that is accepted]. `layout` 'half' (§2.2), window 512 (§5.1), leakyFactor 16 (§5.3), group 8
// (§5.4), trainingLength 4096 (§5.5), ratio 0.5 (§6.3), gamma 0.4 and scaleBase 512 (§4.3),
// betaFast 32 and betaSlow 1 (§3.4), lowFreqFactor 1 and highFreqFactor 4 (§3.6), base 10000.
const DOC_PARAMETERS = {
  base: [10000, 'a number > 1', 1, 1.5],
  layout: ['half', null],
  rotaryFraction: [1, 'in (0, 1]', 0, 1],
  rotaryLast: [false, null], // §1.4: the first dims rotate unless given (MLA sets it)
  scaling: ['none', null],
  window: [512, 'an integer >= 1', 0, 1],
  leakyFactor: [16, 'a number >= 1', 0.5, 1],
  group: [8, 'an integer >= 1', 0, 1],
  logN: [false, null],
  trainingLength: [4096, 'a number >= 2', 1.5, 2],
  ratio: [0.5, 'in [0, 1]', 1.5, 1],
  levels: [2, '2 or 3', 4, 3],
  statementRatio: [0, 'in [0, 1]', -0.5, 0],
  tokenOnHigh: [false, null],
  gamma: [0.4, 'a positive number', 0, 0.01],
  scaleBase: [512, 'a positive number', 0, 0.01],
  variant: ['vaswani', null],
  segmentSize: [0, 'an integer >= 1', 0, 1], // 0: no segments unless given (hierarchy, not the core's)
};
const DOC_SCALING_PARAMETERS = {
  factor: [1, 'a positive number', 0, 1],
  originalLength: [0, 'a number >= 1', 0.5, 1],
  betaFast: [32, 'a positive number', 0, 0.5],
  betaSlow: [1, 'a positive number', 0, 0.5],
  truncate: [true, null],
  mscale: [0, 'a non-negative number', -1, 0],
  mscaleAllDim: [0, 'a non-negative number', -1, 0],
  attentionFactor: [-1, 'a finite number', Infinity, 1],
  lowFreqFactor: [1, 'a positive number', 0, 0.5],
  highFreqFactor: [4, 'a positive number', 0, 8],
  shortFactor: [[], null],
  longFactor: [[], null],
  // p-RoPE (docs/schemes.md): every pair rotates unless given, as transformers' default 1.
  partialRotaryFactor: [1, 'in [0, 1]', 1.5, 0],
};
// The enum values normalizeScheme gives for the named defaults (hirope.h's Layout::half = 1,
// SinusoidalVariant::vaswani = 0, ScalingType::none = 0).
const DOC_ENUM_VALUES = { layout: 1, variant: 0, scaling: 0 };

for (const build of BUILDS) {
  describe(`scheme catalogue (${build.name})`, () => {
    let hr, v;
    before(async () => {
      hr = await load(build.simd);
      v = hr.catalogue;
    });

    it('is also under its old name, hr.vocabulary (deprecated), as the same object', () => {
      assert.equal(hr.vocabulary, hr.catalogue);
    });

    it("lists hirope.h's enumerators, in order, with their numbers", () => {
      for (const [list, header, name] of ENUMS) {
        const cpp = enumerators(header, name);
        assert.deepEqual(
          v[list].map((e) => e.name.replaceAll('-', '_')),
          cpp,
          `${list} = ${name}`,
        );
        assert.deepEqual(
          v[list].map((e) => e.value),
          cpp.map((_, i) => i),
          `${list} numbers`,
        );
        for (const e of v[list])
          assert.ok(e.label && e.description, `${list}.${e.name} has a label and a description`);
      }
      assert.deepEqual(
        v.unitKinds.map((k) => k.name),
        ['code', 'function', 'class', 'segment'],
      );
    });

    it('is plain JSON, frozen, and the source of hr.schemes, hr.scalings and hr.languages', () => {
      assert.deepEqual(JSON.parse(JSON.stringify(v)), v);
      assert.ok(
        Object.isFrozen(v) &&
          Object.isFrozen(v.schemes[0]) &&
          Object.isFrozen(v.parameters[0].schemes),
      );
      assert.deepEqual(
        hr.schemes,
        v.schemes.map((s) => s.name),
      );
      assert.deepEqual(
        hr.scalings,
        v.scalings.flatMap((s) => [s.name, ...s.aliases]),
      );
      assert.deepEqual(hr.scalings, [
        'none',
        'linear',
        'ntk',
        'dynamic-ntk',
        'dynamic',
        'yarn',
        'longrope',
        'llama3',
        'proportional',
      ]);
      assert.deepEqual(
        hr.languages,
        v.languages.map((l) => l.name),
      );
      assert.equal(v.schemes.find((s) => s.name === 'leaky-rerope').label, 'Leaky ReRoPE');
      assert.deepEqual(v.languages.find((l) => l.name === 'python').extensions, [
        '.py',
        '.pyi',
        '.pyw',
      ]);
      for (const l of v.languages) {
        assert.ok(l.label);
        for (const ext of l.extensions)
          assert.equal(hr.detectLanguage(`dir/file${ext.toUpperCase()}`), l.name);
      }
    });

    it('sends every scheme name to the core as that scheme', () => {
      const n = 12,
        headDim = 8;
      const { q, k } = hr.qk({ n, headDim, seed: 4 });
      const positions = { token: range(n), unit: Int32Array.from(range(n), (t) => t >> 2) };
      for (const s of v.schemes) {
        const args = { q, k, n, headDim, positions, scheme: s.name };
        assert.deepEqual(
          hr.attention(args),
          hr.attention({ ...args, scheme: { type: s.name } }),
          s.name,
        );
        // The flags agree with what the core does with the number.
        if (s.rotary) {
          assert.equal(hr.inverseFrequencies(s.name, headDim).length, headDim / 2);
          const bands = hr.bands(s.name, headDim).map((b) => b.name);
          assert.deepEqual(bands, s.name === 'hirope' ? ['token', 'unit'] : ['all'], s.name);
          const d = hr.relativeDistances({
            n: 3,
            headDim,
            scheme: { type: s.name, ...(s.windowed ? { window: 1 } : {}) },
            positions: { token: range(3), unit: range(3) },
          });
          assert.equal(
            Number.isNaN(d[0].distances[1]),
            s.windowed,
            `${s.name}: NaN above the diagonal iff windowed`,
          );
        } else if (s.name === 'nope') {
          // A model's NoPE layer: no frequencies, and the attention factor 1.
          assert.equal(hr.inverseFrequencies(s.name, headDim).length, 0);
          assert.equal(hr.attentionFactor(s.name, headDim), 1);
        } else {
          assert.throws(() => hr.inverseFrequencies(s.name, headDim), /has no rotary frequencies/);
        }
        if (s.windowed) assert.throws(() => hr.attention({ ...args, causal: false }), /windowed/);
        else hr.attention({ ...args, causal: false });
        if (s.needsUnits)
          throwsMessage(
            () => hr.attention({ ...args, positions: range(n) }),
            /^positions\.unit is required/,
          );
        else hr.attention({ ...args, positions: range(n) });
      }
      // Each number reaches a different scheme: the transforms of q differ pairwise, or the
      // logits do (ALiBi and NoPE leave q alone).
      const seen = new Map();
      for (const s of v.schemes) {
        const scheme = { type: s.name, ...(s.windowed ? { window: 2 } : {}) };
        const rotated = Array.from(hr.rotate({ x: q, n, headDim, scheme, positions }));
        const logits = Array.from(
          hr.attention({ q, k, n, headDim, positions, scheme, output: 'logits' }),
        );
        const key = JSON.stringify([rotated, logits]);
        assert.ok(!seen.has(key), `${s.name} computes what ${seen.get(key)} computes`);
        seen.set(key, s.name);
      }
    });

    it('accepts exactly the keys the table lists, per scheme and scaling type', () => {
      const all = v.parameters.map((p) => p.name);
      for (const s of v.schemes) {
        assert.deepEqual(
          s.parameters,
          v.parameters.filter((p) => p.schemes.includes(s.name)).map((p) => p.name),
        );
        for (const p of v.parameters) {
          const scheme = { type: s.name, [p.name]: sample(p, v) };
          if (s.parameters.includes(p.name)) {
            const out = normalizeScheme(scheme);
            assert.deepEqual(Object.keys(out), ['name', 'type', ...all, 'rotary', 'windowed']);
          } else {
            throwsMessage(
              () => normalizeScheme(scheme),
              new RegExp(`^scheme \\(type '${s.name}'\\) has an unknown key '${p.name}'`),
            );
          }
        }
        assert.throws(() => normalizeScheme({ type: s.name, windw: 2 }), /unknown key 'windw'/);
      }
      for (const sc of v.scalings) {
        for (const name of [sc.name, ...sc.aliases]) {
          for (const p of v.scalingParameters) {
            const scheme = { type: 'rope', scaling: { type: name, [p.name]: sample(p, v) } };
            if (sc.parameters.includes(p.name)) {
              assert.equal(normalizeScheme(scheme).scaling.type, sc.value);
            } else {
              throwsMessage(
                () => normalizeScheme(scheme),
                new RegExp(`^scheme\\.scaling \\(type '${name}'\\) has an unknown key '${p.name}'`),
              );
            }
          }
        }
      }
    });

    it('fills in the defaults docs/schemes.md states, and its default rules', () => {
      // The table lists exactly the parameters written out above, with their defaults.
      assert.deepEqual(v.parameters.map((p) => p.name).sort(), Object.keys(DOC_PARAMETERS).sort());
      assert.deepEqual(
        v.scalingParameters.map((p) => p.name).sort(),
        Object.keys(DOC_SCALING_PARAMETERS).sort(),
      );
      for (const p of v.parameters)
        assert.deepEqual(p.default, DOC_PARAMETERS[p.name][0], `table default of ${p.name}`);
      for (const p of v.scalingParameters)
        assert.deepEqual(
          p.default,
          DOC_SCALING_PARAMETERS[p.name][0],
          `table default of scaling.${p.name}`,
        );
      let checked = 0;
      for (const s of v.schemes) {
        const out = normalizeScheme(s.name);
        assert.equal(out.type, s.value);
        assert.equal(out.rotary, s.rotary);
        assert.equal(out.windowed, s.windowed);
        for (const [name, [value]] of Object.entries(DOC_PARAMETERS)) {
          if (
            name === 'scaling' ||
            (name === 'logN' && ['rerope', 'leaky-rerope'].includes(s.name))
          )
            continue;
          assert.deepEqual(
            out[name],
            name in DOC_ENUM_VALUES ? DOC_ENUM_VALUES[name] : value,
            `${s.name}.${name}`,
          );
          checked++;
        }
        assert.equal(out.scaling.type, DOC_ENUM_VALUES.scaling);
        for (const [name, [value]] of Object.entries(DOC_SCALING_PARAMETERS))
          assert.deepEqual(out.scaling[name], value, `${s.name}.scaling.${name}`);
      }
      assert.ok(checked >= 9 * 15, `${checked} defaults checked`);
      assert.equal(normalizeScheme('rerope').logN, true);
      assert.equal(normalizeScheme('leaky-rerope').logN, true);
      assert.equal(normalizeScheme('hirope').logN, false);
      assert.equal(
        normalizeScheme({ type: 'hirope', levels: 3, ratio: 0.4 }).statementRatio,
        (1 - 0.4) / 2,
      );
      assert.equal(normalizeScheme({ type: 'hirope', ratio: 0.4 }).statementRatio, 0);
      // A required parameter left out reaches the core as NaN, and the core names it.
      assert.ok(
        Number.isNaN(normalizeScheme({ type: 'rope', scaling: { type: 'linear' } }).scaling.factor),
      );
      throwsMessage(
        () => hr.bands({ type: 'rope', scaling: { type: 'linear' } }, 8),
        /^scheme\.scaling\.factor is required \(a positive number\)$/,
      );
      // YaRN too (issue 43: it said "factor must be a positive number, got nan").
      throwsMessage(
        () => hr.bands({ type: 'rope', scaling: { type: 'yarn', originalLength: 4096 } }, 8),
        /^scheme\.scaling\.factor is required \(a positive number\)$/,
      );
    });

    it('maps the core messages to the JS names, for every range in the table', () => {
      assert.throws(
        () => hr.bands({ type: 'rope', scaling: { type: 'yarn', factor: 4 } }, 8),
        (e) =>
          e instanceof HiRoPEError &&
          e.message === 'scheme.scaling.originalLength must be a number >= 1, got 0',
      );
      throwsMessage(
        () => hr.bands({ type: 'xpos', gamma: -1 }, 8),
        /^scheme\.gamma must be a positive number, got -1$/,
      );
      throwsMessage(
        () => hr.bands({ type: 'sinusoidal', variant: 'fairseq' }, 2),
        /^the fairseq sinusoidal variant needs headDim >= 4$/,
      );
      throwsMessage(
        () =>
          hr.bands(
            { type: 'rope', scaling: { type: 'longrope', factor: 2, originalLength: 8 } },
            8,
          ),
        /^scheme\.scaling\.shortFactor and longFactor must each have rotaryDim\/2 = 4 entries, got 0 and 0$/,
      );
      const snake = new RegExp(
        `\\b(${[...v.parameters, ...v.scalingParameters]
          .filter((p) => p.field?.includes('_'))
          .map((p) => p.field.split('.').pop())
          .join('|')}|head_dim|rotary_dim)\\b`,
      );
      let checked = 0;
      // The range, the value outside it and the accepted edge are docs/schemes.md's (DOC_*), not
      // the table's.
      const check = (scheme, p, path) => {
        const [, range, bad, edge] = (
          path.startsWith('scheme.scaling.') ? DOC_SCALING_PARAMETERS : DOC_PARAMETERS
        )[p.name];
        if (range === null || p.field === null) return;
        assert.equal(p.range, range, `${path}'s range in the table`);
        assert.throws(
          () => hr.bands(scheme(bad), 8),
          (e) => {
            assert.ok(e instanceof HiRoPEError);
            assert.ok(e.message.startsWith(`${path} must be ${range}, got `), e.message);
            assert.doesNotMatch(e.message, snake);
            return true;
          },
        );
        hr.bands(scheme(edge), 8); // the edge of the range is accepted
        checked++;
      };
      for (const s of v.schemes) {
        for (const p of v.parameters) {
          if (!s.parameters.includes(p.name)) continue;
          const only = p.onlyIf ? { [p.onlyIf.parameter]: p.onlyIf.equals } : {};
          check((x) => ({ type: s.name, ...only, [p.name]: x }), p, `scheme.${p.name}`);
        }
      }
      const lists = {
        factor: 2,
        originalLength: 64,
        shortFactor: [1, 1, 1, 1],
        longFactor: [2, 2, 2, 2],
      };
      for (const sc of v.scalings) {
        for (const p of v.scalingParameters) {
          if (!sc.parameters.includes(p.name)) continue;
          const given = Object.fromEntries(
            Object.entries(lists).filter(([key]) => sc.parameters.includes(key)),
          );
          check(
            (x) => ({ type: 'rope', scaling: { type: sc.name, ...given, [p.name]: x } }),
            p,
            `scheme.scaling.${p.name}`,
          );
        }
      }
      assert.ok(checked > 20, `${checked} ranges checked`);
    });

    it('checks that the analysis decoder reads the layout the build writes', () => {
      const layout = hr._runtime.mod.analysisLayout();
      checkAnalysisLayout(layout);
      assert.deepEqual(
        layout.columns.map((c) => c.name),
        ANALYSIS_LAYOUT.columns.map((c) => c.name),
      );
      const swapped = {
        ...layout,
        columns: [layout.columns[1], layout.columns[0], ...layout.columns.slice(2)],
      };
      assert.throws(
        () => checkAnalysisLayout(swapped),
        (e) => e instanceof HiRoPEError && /packs analyses in another layout/.test(e.message),
      );
      assert.throws(() => checkAnalysisLayout({ ...layout, strings: ['units.name'] }), HiRoPEError);
    });
  });
}

describe('scheme catalogue of the core build', () => {
  it('has the same schemes and no languages', async () => {
    const full = await load(true);
    const core = await init({ analysis: false });
    for (const key of [
      'schemes',
      'scalings',
      'parameters',
      'scalingParameters',
      'layouts',
      'defaultRules',
    ]) {
      assert.deepEqual(core.catalogue[key], full.catalogue[key], key);
    }
    assert.deepEqual(core.catalogue.languages, []);
    assert.deepEqual(core.languages, []);
  });
});

// A scaling added in the core alone (its row in src/core/catalogue.cpp and its formula in
// schemes.cpp) reaches the JS API with no edit in wasm/: p-RoPE, transformers' "proportional"
// (Gemma 4). theta_j = 10000^(-2j/8) for j < floor(0.5 * 8 / 2) = 2, else 0: [1, 0.1, 0, 0].
describe('a scaling written only in the core', () => {
  it('proportional: its option, default, range and frequencies come through untouched', async () => {
    const hr = await load(true);
    const row = hr.catalogue.scalings.find((s) => s.name === 'proportional');
    assert.deepEqual(row.parameters, ['factor', 'partialRotaryFactor']);
    // factor is required elsewhere, optional here (transformers' get("factor", 1.0)).
    const factor = hr.catalogue.scalingParameters.find((p) => p.name === 'factor');
    assert.deepEqual([factor.required, factor.optionalFor], [true, ['proportional']]);
    const f = hr.inverseFrequencies(
      { type: 'rope', scaling: { type: 'proportional', partialRotaryFactor: 0.5 } },
      8,
    );
    assert.equal(f[0], 1);
    assert.ok(Math.abs(f[1] - 0.1) < 1e-15);
    assert.deepEqual(Array.from(f.slice(2)), [0, 0]);
    // Left out, p is 1: every pair rotates, as plain RoPE.
    assert.deepEqual(
      hr.inverseFrequencies({ type: 'rope', scaling: { type: 'proportional' } }, 8),
      hr.inverseFrequencies('rope', 8),
    );
    throwsMessage(
      () =>
        hr.inverseFrequencies(
          { type: 'rope', scaling: { type: 'proportional', partialRotaryFactor: 1.5 } },
          8,
        ),
      /^scheme\.scaling\.partialRotaryFactor must be in \[0, 1\], got 1\.5$/,
    );
    // inv_freq /= factor: [1, 0.1, 0, 0] / 2.
    const halved = hr.inverseFrequencies(
      { type: 'rope', scaling: { type: 'proportional', partialRotaryFactor: 0.5, factor: 2 } },
      8,
    );
    assert.equal(halved[0], 0.5);
    assert.ok(Math.abs(halved[1] - 0.05) < 1e-15);
    assert.deepEqual(Array.from(halved.slice(2)), [0, 0]);
    // Another scaling still requires it.
    throwsMessage(
      () => hr.inverseFrequencies({ type: 'rope', scaling: { type: 'linear' } }, 8),
      /^scheme\.scaling\.factor is required/,
    );
  });
});

describe('readers of the catalogue', () => {
  it('the page reads the catalogue of the built package, not a copy', async () => {
    const { CATALOGUE } = await import('../../web/src/shared/core-catalogue.js');
    const { SCHEME_TYPES, ROTARY, WINDOWED } = await import('../../web/src/shared/schemes.js');
    const hr = await load(true);
    assert.deepEqual(CATALOGUE, hr.catalogue);
    assert.deepEqual(
      SCHEME_TYPES.map(([name]) => name).sort(),
      hr.catalogue.schemes.map((s) => s.name).sort(),
    );
    assert.deepEqual(
      [...ROTARY].sort(),
      hr.catalogue.schemes
        .filter((s) => s.rotary)
        .map((s) => s.name)
        .sort(),
    );
    assert.deepEqual(
      [...WINDOWED].sort(),
      hr.catalogue.schemes
        .filter((s) => s.windowed)
        .map((s) => s.name)
        .sort(),
    );
  });

  it("docs/analysis.md's language table lists the core's languages and extensions", async () => {
    const hr = await load(true);
    const text = fs.readFileSync(path.join(root, 'docs/analysis.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z]+)` \| ([^|]+) \|/gm)].map(([, name, files]) => ({
      name,
      extensions: files.trim().split(/\s+/),
    }));
    assert.deepEqual(
      rows,
      hr.catalogue.languages.map(({ name, extensions }) => ({ name, extensions })),
    );
  });
});
