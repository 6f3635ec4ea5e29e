// recallClasses: which bytes of a text could be copied from an earlier occurrence near or far
// back, and the evaluation's window rules, both the core's (src/model/evaluation.cpp) through
// dist/recall.js. Expected classes written out by hand; a property test against a brute-force
// scan; the wrappers' conversions (the values themselves are the native tests' [evaluation]).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import init, {
  identifiers,
  recallClasses,
  tokenRecallClasses,
  RECALL_CLASSES,
} from '../../dist/index.js';
import {
  coreRecallClasses,
  defaultBuckets,
  evaluationLanguage,
  presetSymbols,
  windowOffsets,
  windowSums,
} from '../../dist/recall.js';

await init(); // the functions run in the loaded module

const bytes = (s) => new TextEncoder().encode(s);
const classOf = (cls, _text, from, to) => [...cls.subarray(from, to)].map((c) => RECALL_CLASSES[c]);

describe('recallClasses', () => {
  it('marks first, near and far occurrences of identifiers', () => {
    //          0         1         2         3
    //          0123456789012345678901234567890123456789
    const text = 'alpha = beta(x)\nalpha += 1\nbeta()\n';
    const cls = recallClasses(bytes(text), 12);
    assert.deepEqual(classOf(cls, text, 0, 5), Array(5).fill('first')); // alpha
    assert.deepEqual(classOf(cls, text, 5, 8), Array(3).fill('other')); // ' = '
    assert.deepEqual(classOf(cls, text, 8, 12), Array(4).fill('first')); // beta
    assert.equal(RECALL_CLASSES[cls[13]], 'other'); // x: one letter
    assert.deepEqual(classOf(cls, text, 16, 21), Array(5).fill('far')); // alpha, 16 back > 12
    assert.deepEqual(classOf(cls, text, 27, 31), Array(4).fill('far')); // beta, 19 back
    const wide = recallClasses(bytes(text), 16);
    assert.deepEqual(classOf(wide, text, 16, 21), Array(5).fill('near')); // exactly 16 back
  });

  it('counts from the nearest previous occurrence and skips keywords and digits-first runs', () => {
    const text = `name ${'#'.repeat(30)} name name return return 9abc abc`;
    const cls = recallClasses(bytes(text), 20);
    const at = (i) => RECALL_CLASSES[cls[i]];
    const second = text.indexOf('name', 1);
    const third = text.indexOf('name', second + 1);
    assert.equal(at(second), 'far');
    assert.equal(at(third), 'near');
    assert.equal(at(text.indexOf('return')), 'other');
    // '9abc' is not an identifier start; 'abc' inside it is not one either.
    assert.equal(at(text.indexOf('9abc') + 1), 'other');
    assert.equal(at(text.lastIndexOf('abc')), 'first');
    assert.deepEqual(
      identifiers(bytes('a1 _b c')).map((x) => x.name),
      ['a1', '_b'],
    );
  });

  it('agrees with a brute-force scan on random texts', () => {
    const alphabet = ['ab', 'cd', 'ab_2', ' ', '\n', '(', 'x', 'def', '12'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        (parts, reach) => {
          const text = parts.join('');
          const cls = recallClasses(bytes(text), reach);
          const re = /[A-Za-z_][A-Za-z0-9_]*/g;
          const seen = new Map();
          const expected = new Array(text.length).fill('other');
          for (const m of text.matchAll(re)) {
            if (m.index > 0 && /[A-Za-z0-9_]/.test(text[m.index - 1])) continue;
            if (m[0].length < 2 || m[0] === 'def') continue;
            const prev = seen.get(m[0]);
            const c = prev === undefined ? 'first' : m.index - prev > reach ? 'far' : 'near';
            for (let i = m.index; i < m.index + m[0].length; i++) expected[i] = c;
            seen.set(m[0], m.index);
          }
          assert.deepEqual(
            [...cls].map((c) => RECALL_CLASSES[c]),
            expected,
          );
        },
      ),
    );
  });

  it('rejects what it cannot classify', () => {
    assert.throws(() => recallClasses('text', 4), TypeError);
    assert.throws(() => recallClasses(bytes('x'), 0), RangeError);
  });
});

describe('tokenRecallClasses', () => {
  it('classes tokens by token distance, by hand', () => {
    //            0         1         2
    //            012345678901234567890123456
    const text = 'alpha = beta\nalpha beta';
    // Tokens: 'alpha' ' =' ' beta' '\n' 'alpha' ' beta' (byte spans by hand).
    const start = [0, 5, 7, 12, 13, 18];
    const end = [5, 7, 12, 13, 18, 23];
    const names = (cls) => [...cls].map((c) => RECALL_CLASSES[c]);
    // alpha: token 0 then token 4 (4 tokens later); beta: token 2 then token 5 (3 later).
    assert.deepEqual(names(tokenRecallClasses(bytes(text), start, end, 3)), [
      'first',
      'other',
      'first',
      'other',
      'far',
      'near',
    ]);
    assert.deepEqual(names(tokenRecallClasses(bytes(text), start, end, 4)), [
      'first',
      'other',
      'first',
      'other',
      'near',
      'near',
    ]);
    assert.deepEqual(names(tokenRecallClasses(bytes(text), start, end, 2)), [
      'first',
      'other',
      'first',
      'other',
      'far',
      'far',
    ]);
  });

  it('agrees with the byte classes when every byte is its own token and reach is the same', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('ab', 'cd', ' ', '\n', 'x', 'ab_2', '('), { maxLength: 50 }),
        fc.integer({ min: 1, max: 25 }),
        (parts, reach) => {
          const b = bytes(parts.join(''));
          const start = Uint32Array.from(b, (_, i) => i);
          const end = Uint32Array.from(b, (_, i) => i + 1);
          assert.deepEqual(
            [...tokenRecallClasses(b, start, end, reach)],
            [...recallClasses(b, reach)],
          );
        },
      ),
    );
  });

  it('a token takes the highest class of the identifiers it overlaps; bad spans are errors', () => {
    const text = 'ab ab' + ' '.repeat(20) + 'ab.cd cd';
    const b = bytes(text);
    // One token for 'ab.cd' (bytes 25..30): ab is far (token distance 2 > 1), cd first.
    const start = [0, 2, 5, 25, 30];
    const end = [2, 5, 25, 30, 33];
    const cls = tokenRecallClasses(b, start, end, 1);
    assert.equal(RECALL_CLASSES[cls[3]], 'far');
    assert.equal(RECALL_CLASSES[cls[4]], 'near');
    assert.throws(() => tokenRecallClasses(b, [0], [99], 1), RangeError);
    assert.throws(() => tokenRecallClasses(b, [0, 1], [1], 1), RangeError);
    assert.throws(() => tokenRecallClasses(b, start, end, 0), RangeError);
  });
});

describe('the evaluation rules through the module', () => {
  it('names the core classes in order', () => {
    assert.deepEqual([...coreRecallClasses()], [...RECALL_CLASSES]);
  });

  it('converts windows, buckets, sums and symbols', () => {
    assert.deepEqual(windowOffsets(1050, 100), [0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    assert.deepEqual(windowOffsets(1050, 100, 4), [0, 200, 500, 700]);
    assert.deepEqual(defaultBuckets(256, 1500), [0, 256, 512, 1024, 1500]);
    assert.equal(evaluationLanguage('a/b.mjs'), 'javascript');
    assert.equal(evaluationLanguage('a/b.py'), 'python');
    // Units 1..3 (losses 1, 2, 4) in buckets [0, 2) and [2, 4); classes of units 0..3.
    assert.deepEqual(windowSums(Float32Array.of(1, 2, 4), Uint8Array.of(0, 3, 3, 1), [0, 2, 4]), {
      sums: [1, 6],
      counts: [1, 2],
      classSums: [0, 4, 0, 3],
      classCounts: [0, 1, 0, 2],
    });
    assert.deepEqual(presetSymbols(256, 1024, 8), {
      L: 256,
      'L/2': 128,
      'length/L': 4,
      'self-extend group': 7,
      'truncate stride': 32,
    });
    assert.throws(() => windowSums([1, 2], [0, 0], [0, 4]), /windowSums: classes must have/);
    assert.throws(() => defaultBuckets(0, 8), /defaultBuckets: the training context must be >= 1/);
  });
});
