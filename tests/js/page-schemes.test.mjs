// The playground asks the API for the schemes its controls say: every preset and every control
// against schemes written by hand (tests/js/support/page-schemes.mjs), not against the page's own mapping.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  normalizeState,
  schemeFor,
  analyzeOptionsFor,
  DEFAULTS,
} from '../../web/src/shared/playground-state.js';
import { positionsFor } from '../../web/src/worker/attention-views.js';
import { PRESETS, presetState } from '../../web/src/shared/presets.js';
import { MODEL_KEYS } from '../../web/src/shared/model-gallery.js';
import init, { normalizeScheme } from '../../dist/index.js';
import {
  PRESET_SCHEMES,
  CONTROL_SCHEMES,
  ANALYSIS_CONTROLS,
  expectedScheme,
  expectedPositions,
  expectedAnalyzeOptions,
} from './support/page-schemes.mjs';

describe('playground state to API', () => {
  before(() => init());

  it('gives each preset the schemes written out for it', () => {
    assert.deepEqual(PRESETS.map((p) => p.id).sort(), Object.keys(PRESET_SCHEMES).sort());
    for (const p of PRESETS) {
      const state = presetState(p.id, normalizeState({}));
      for (const side of ['a', 'b']) {
        assert.deepEqual(
          schemeFor(state[side], state),
          PRESET_SCHEMES[p.id][side],
          `${p.id} ${side}`,
        );
        assert.deepEqual(
          expectedScheme(state[side], state),
          PRESET_SCHEMES[p.id][side],
          `${p.id} ${side} (the tests' mapping)`,
        );
        normalizeScheme(PRESET_SCHEMES[p.id][side]); // a scheme the API takes
      }
    }
  });

  it('maps each control to its scheme field', () => {
    // Every side control appears in some case.
    const moved = new Set(CONTROL_SCHEMES.flatMap(([, partial]) => Object.keys(partial.b ?? {})));
    // A real model's keys choose a layer whose scheme the worker reads from its config
    // (tests/js/playground-models.test.mjs).
    const schemeKeys = Object.keys(DEFAULTS.b).filter((k) => !MODEL_KEYS.includes(k));
    assert.deepEqual([...moved].sort(), schemeKeys.sort());
    assert.ok(CONTROL_SCHEMES.some(([, partial]) => 'train' in partial));
    for (const [what, partial, want] of CONTROL_SCHEMES) {
      const state = normalizeState(partial);
      assert.deepEqual(schemeFor(state.b, state), want, what);
      assert.deepEqual(expectedScheme(state.b, state), want, `${what} (the tests' mapping)`);
      normalizeScheme(want);
      // Side A is untouched by B's controls.
      assert.deepEqual(
        schemeFor(state.a, state),
        { type: 'rope', base: 10000, layout: 'half' },
        `${what}: side A`,
      );
    }
  });

  it('passes unit positions except for fixed segments, and the analysis controls', () => {
    const positions = {
      token: new Int32Array(3),
      unit: new Int32Array(3),
      statement: new Int32Array(3),
    };
    const segments = PRESET_SCHEMES.segments.b;
    assert.deepEqual(Object.keys(positionsFor(segments, positions)), ['token', 'statement']);
    assert.deepEqual(expectedPositions(segments, positions), positionsFor(segments, positions));
    assert.equal(positionsFor(PRESET_SCHEMES.segments.a, positions), positions);
    assert.equal(expectedPositions(PRESET_SCHEMES.segments.a, positions), positions);
    for (const [partial, want] of ANALYSIS_CONTROLS) {
      assert.deepEqual(analyzeOptionsFor(normalizeState(partial)), want);
      assert.deepEqual(expectedAnalyzeOptions(normalizeState(partial)), want);
    }
  });
});
