// The playground's sentences that depend on numbers (web/src/shared/wording.js): each says what is true
// for the numbers it is given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  plural,
  trainingSentence,
  splitHint,
  parseSentence,
  unitKinds,
  unitPhrase,
  mapHint,
  linkSizeText,
  LONG_LINK,
  angleCaption,
  lengthWords,
  codeSentence,
  qkFileHint,
  formatProbability,
  powerOfTen,
  DIFF_LEGEND,
  redrawTimings,
  alibiHint,
  times,
  reachClause,
} from '../../web/src/shared/wording.js';
import { describeScheme, normalizeState } from '../../web/src/shared/playground-state.js';
import { scalingLabel, SCALINGS } from '../../web/src/shared/schemes.js';
import { sharedControls, tokenizerLabel } from '../../web/src/page/controls.js';

describe('wording', () => {
  it('counts with the right plural', () => {
    assert.equal(plural(1, 'unit'), '1 unit');
    assert.equal(plural(0, 'unit'), '0 units');
    assert.equal(plural(2600, 'line'), '2,600 lines');
  });

  describe('the training-length sentence names only the schemes that leave what they saw', () => {
    const rope = { label: 'A', name: 'RoPE', ood: { oodPairs: 9, pairs: 32 } };
    const hirope = { label: 'B', name: 'HiRoPE', ood: { oodPairs: 0, pairs: 32 } };
    it('RoPE against HiRoPE', () => {
      assert.equal(
        trainingSentence({ n: 394, train: 256, sides: [rope, hirope] }),
        'The last 138 tokens are beyond the training length of 256: there A, RoPE, meets angles it never saw in training on 9 of its 32 frequency pairs, while B, HiRoPE, keeps every frequency pair within the angles seen in training.',
      );
    });
    it('neither side RoPE, neither out of distribution: no word of plain RoPE', () => {
      const s = trainingSentence({
        n: 394,
        train: 128,
        sides: [
          { label: 'A', name: 'ReRoPE', ood: { oodPairs: 0, pairs: 32 } },
          { label: 'B', name: 'Self-Extend', ood: { oodPairs: 0, pairs: 32 } },
        ],
      });
      assert.equal(
        s,
        'The last 266 tokens are beyond the training length of 128: there A, ReRoPE, and B, Self-Extend, keep every frequency pair within the angles seen in training.',
      );
      assert.doesNotMatch(s, /RoPE meets|never saw/);
    });
    it('both out of distribution', () => {
      assert.match(
        trainingSentence({
          n: 300,
          train: 128,
          sides: [
            { ...rope, name: 'PI' },
            { ...hirope, name: 'NTK-aware', ood: { oodPairs: 3, pairs: 32 } },
          ],
        }),
        /A, PI, meets angles it never saw in training on 9 of its 32 frequency pairs and B, NTK-aware, meets angles it never saw in training on 3 of its 32/,
      );
    });
    it('a side that does not rotate is not described', () => {
      assert.equal(
        trainingSentence({
          n: 300,
          train: 256,
          sides: [
            { label: 'A', name: 'ALiBi', ood: null },
            { label: 'B', name: 'ALiBi', ood: null },
          ],
        }),
        'The last 44 tokens are beyond the training length of 256.',
      );
    });
    it('within the training length', () => {
      assert.match(
        trainingSentence({ n: 100, train: 256, sides: [rope, hirope] }),
        /^All 100 tokens are within the training length of 256: no scheme is out of distribution here/,
      );
      assert.match(
        trainingSentence({ n: 1, train: 256, sides: [rope, hirope] }),
        /^The only token is within the training length of 256/,
      );
      assert.match(
        trainingSentence({ n: 257, train: 256, sides: [] }),
        /^The last token is beyond the training length of 256\.$/,
      );
    });
  });

  describe('the Split% hint states the count and the bound as separate facts', () => {
    it('head dim 8 at L = 256: the bound is 40.3% of the pairs, and 2 of the 4 pairs turn', () => {
      const { text, over } = splitHint({
        splitPair: 0.403 * 4,
        pairs: 4,
        tokenPairs: 2,
        train: 256,
      });
      assert.equal(over, false);
      assert.equal(
        text,
        'Split% at L = 256: 40.3% of the pairs (2 of the 4 frequency pairs turn a full period within 256 tokens). HiRoPE keeps 2 pairs on token distance: within the bound.',
      );
      // The percentage is never next to the count as if it were the count's share.
      assert.doesNotMatch(text, /2 of 4 pairs \(40\.3%\)/);
    });
    it('the default (d = 64): 13 of 32', () => {
      const { text, over } = splitHint({
        splitPair: 0.403 * 32,
        pairs: 32,
        tokenPairs: 13,
        train: 256,
      });
      assert.equal(over, false);
      assert.match(
        text,
        /^Split% at L = 256: 40\.3% of the pairs \(13 of the 32 frequency pairs turn a full period within 256 tokens\)\. HiRoPE keeps 13 pairs on token distance: within the bound\.$/,
      );
    });
    it('over the bound says by how many', () => {
      const { text, over } = splitHint({
        splitPair: 0.403 * 32,
        pairs: 32,
        tokenPairs: 16,
        train: 256,
      });
      assert.equal(over, true);
      assert.match(
        text,
        /HiRoPE keeps 16 pairs on token distance: 3 more than that, so its slowest token pairs meet angles never seen in training\.$/,
      );
      assert.match(
        splitHint({ splitPair: 12.9, pairs: 32, tokenPairs: 14, train: 256 }).text,
        /1 more than that, so its slowest token pair meets/,
      );
    });
    it('one pair, none, all', () => {
      assert.match(
        splitHint({ splitPair: 0.5, pairs: 4, tokenPairs: 1, train: 4 }).text,
        /\(1 of the 4 frequency pairs turns a full period/,
      );
      assert.match(
        splitHint({ splitPair: 0, pairs: 4, tokenPairs: 0, train: 1 }).text,
        /\(no frequency pair turns a full period/,
      );
      assert.match(
        splitHint({ splitPair: 4, pairs: 4, tokenPairs: 4, train: 1e6 }).text,
        /100\.0% of the pairs \(all of the 4 frequency pairs turn/,
      );
    });
    // The bound log(L / 2π) / log(base) of the pairs falls outside them for a short L, a long L or
    // a small base: the share stays within 0–100%, the count within 0–pairs, and the words say why.
    const bound = (train, base, pairs = 32) =>
      (pairs * Math.log(train / (2 * Math.PI))) / Math.log(base);
    it('a training length of 2: 0%, the bound before the fastest pair (not -12.4%, -3 of 32)', () => {
      const { text, over } = splitHint({
        splitPair: bound(2, 10000),
        pairs: 32,
        tokenPairs: 13,
        train: 2,
      });
      assert.equal(over, true);
      assert.equal(
        text,
        'Split% at L = 2: 0% of the pairs. The bound falls before the fastest pair: even it needs 2π ≈ 6.3 tokens for a full period, so no frequency pair turns a full period within 2 tokens. HiRoPE keeps 13 pairs on token distance: 13 more than that, so its slowest token pairs meet angles never seen in training.',
      );
    });
    it('a training length of 100000 or a base of 2: 100%, the bound past the slowest pair', () => {
      for (const [train, base] of [
        [100000, 10000],
        [256, 2],
      ]) {
        const { text, over } = splitHint({
          splitPair: bound(train, base),
          pairs: 32,
          tokenPairs: 16,
          train,
        });
        assert.equal(over, false);
        assert.equal(
          text,
          `Split% at L = ${train.toLocaleString('en')}: 100% of the pairs. The bound falls past the slowest pair: all 32 frequency pairs turn a full period within ${train.toLocaleString('en')} tokens. HiRoPE keeps 16 pairs on token distance: within the bound.`,
        );
      }
    });
    it('never a share outside 0–100% nor a count outside 0–pairs', () => {
      for (const train of [1, 2, 6, 7, 100, 256, 4096, 100000, 1e9])
        for (const base of [1.5, 2, 10, 10000, 1e6])
          for (const pairs of [1, 4, 32]) {
            const { text } = splitHint({
              splitPair: bound(train, base, pairs),
              pairs,
              tokenPairs: 1,
              train,
            });
            for (const [, share] of text.matchAll(/(-?[\d.]+)% of the pairs/g))
              assert.ok(share >= 0 && share <= 100, text);
            for (const [, count] of text.matchAll(/(-?\d+) of the \d+ frequency pairs/g))
              assert.ok(count >= 0 && count <= pairs, text);
            assert.doesNotMatch(text, /-\d/, text);
          }
    });
  });

  describe('the Timings line adds up', () => {
    // A redraw of 309 ms whose listed parts summed to 44 ms: the rest was waiting, and says so.
    const sides = {
      a: { analysis: 8.2, qk: 0.4, attention: 12.5, views: 6.1, images: 2.3 },
      b: { analysis: 8.0, qk: 0.4, attention: 14.9, views: 5.8, images: 2.2 },
    };
    const text = redrawTimings({ total: 309, received: 265, paint: 44, sides });
    const number = (re) => Number(text.match(re)[1]);
    it('the total is the wait for the workers plus the painting', () => {
      assert.match(
        text,
        /^Last redraw 309\.0 ms = 265\.0 ms until both workers' results arrived \+ 44\.0 ms painting them\./,
      );
    });
    it("each worker's time is the sum of its stages, and the slower one plus the waiting is the wait", () => {
      const a = number(/A ([\d.]+) ms \(/);
      const b = number(/B ([\d.]+) ms \(/);
      assert.equal(a, 29.5);
      assert.equal(b, 31.3);
      assert.match(
        text,
        /A 29\.5 ms \(analysis 8\.2, q\/k 0\.4, attention 12\.5, views 6\.1, images 2\.3\)/,
      );
      const waiting = number(/the other ([\d.]+) ms of the 265\.0 ms was waiting/);
      assert.ok(Math.abs(Math.max(a, b) + waiting - 265) < 0.06, text);
      assert.match(
        text,
        /waiting — for an earlier run to finish, for a grammar or tokenizer to download/,
      );
    });
    it('a side with no stages (the code has no tokens yet) counts 0 ms', () => {
      const t = redrawTimings({ total: 5, received: 4, paint: 1, sides: { a: {}, b: {} } });
      assert.match(t, /A 0\.0 ms, B 0\.0 ms; the other 4\.0 ms of the 4\.0 ms was waiting/);
    });
  });

  it("the ALiBi hint names the slope used and the heads' slopes", () => {
    const text = alibiHint(1 / 256);
    assert.match(
      text,
      /^ALiBi's slope here is 1\/256: its bias lowers a logit by 1 for every 256 tokens of distance/,
    );
    assert.match(text, /2\^\(−8h\/n\), h = 1…n: one head gets 2\^\(−8\)/);
    assert.match(alibiHint(0.3), /slope here is 0\.300: .* every 3\.3 tokens/);
  });

  describe('the parse sentence', () => {
    it('is empty for a clean parse', () => {
      assert.equal(parseSentence({ languageName: 'Go', errors: 0, detected: true }), '');
    });
    it('after detection: no grammar parses it cleanly, with the count', () => {
      assert.equal(
        parseSentence({ languageName: 'Go', errors: 37, errorBytes: 412, detected: true }),
        'No grammar parses this code cleanly: Go is the closest, its syntax errors covering the fewest bytes (412 bytes in 37 regions), so its units may not be real functions and classes.',
      );
    });
    it('without detection: the chosen grammar finds errors', () => {
      assert.equal(
        parseSentence({ languageName: 'C++', errors: 1, errorBytes: 1, detected: false }),
        'The C++ grammar finds syntax errors in this code (1 byte in 1 region): is it C++? (Detect picks the grammar whose errors cover the fewest bytes.)',
      );
    });
  });

  describe('unit kinds', () => {
    it("shows the language's own kind where it says more than HiRoPE's", () => {
      assert.deepEqual(unitKinds({ kind: 'class', languageKind: 'struct', name: 'Interval' }), {
        kind: 'class',
        own: 'struct',
      });
      assert.deepEqual(unitKinds({ kind: 'class', languageKind: 'class', name: 'C' }), {
        kind: 'class',
        own: '',
      });
      assert.deepEqual(unitKinds({ kind: 'code', languageKind: '', name: '' }), {
        kind: 'code',
        own: '',
      });
      assert.deepEqual(unitKinds({ kind: 'class', name: 'Old' }), { kind: 'class', own: '' }); // an analysis without languageKind
      assert.equal(
        unitPhrase({ kind: 'class', languageKind: 'impl', name: 'Interval' }),
        'class Interval (impl)',
      );
      assert.equal(
        unitPhrase({ kind: 'function', languageKind: 'function', name: 'f' }),
        'function f',
      );
    });
  });

  it('the map hint says tap on a touch screen and hover with a mouse', () => {
    assert.match(mapHint(true), /Tap a cell/);
    assert.doesNotMatch(mapHint(true), /Hover/);
    assert.match(mapHint(false), /Hover a cell/);
  });

  it('a long link says its size', () => {
    assert.ok(LONG_LINK >= 1000 && LONG_LINK <= 8000);
    assert.match(linkSizeText(28123), /^This view's link is 28 KB long because the code is in it/);
    assert.match(linkSizeText(2500), /^This view's link is 2,500 characters long/);
  });
});

describe('the page counts what the code reaches (issue 48 section 2)', () => {
  it('says how far the code runs past a model, and what a window or chunk lets a layer see', () => {
    assert.equal(times(661813, 131072), '5×');
    assert.equal(times(170000, 131072), '1.3×');
    assert.equal(reachClause(1024, 'sliding'), 'sees only the last 1,024 positions');
    assert.equal(reachClause(8192, 'chunked'), 'sees only the keys in its 8,192-position chunk');
    const gemma = { name: 'gemma-3-27b-it', maxLength: 131072 };
    const span = 393 * 1684 + 1;
    const sentence = trainingSentence({
      n: 394,
      train: 131072,
      stride: 1684,
      sides: [
        {
          label: 'A',
          name: 'gemma-3-27b-it, layer 0',
          ood: { oodPairs: 0, pairs: 64, span, reach: 1024, reachKind: 'sliding' },
          model: gemma,
        },
        {
          label: 'B',
          name: 'gemma-3-27b-it, layer 5',
          ood: { oodPairs: 27, pairs: 64, span, reach: 0 },
          model: gemma,
        },
      ],
    });
    assert.equal(
      sentence,
      "The last 316 tokens are beyond the training length of 131,072 positions (the tokens are 1684 positions apart); the code spans 661,813 positions, 5× gemma-3-27b-it's maximum of 131,072: there B, gemma-3-27b-it, layer 5, meets angles it never saw in training on 27 of its 64 frequency pairs, while A, gemma-3-27b-it, layer 0, which sees only the last 1,024 positions, keeps every frequency pair within the angles seen in training.",
    );
    // Just past it: no "1.0×".
    assert.match(
      trainingSentence({
        n: 394,
        train: 16384,
        stride: 668,
        sides: [
          {
            label: 'B',
            name: 'ministral-3-3b, layer 0',
            ood: { oodPairs: 27, pairs: 64, span: 262525 },
            model: { name: 'ministral-3-3b', maxLength: 262144 },
          },
        ],
      }),
      /; the code spans 262,525 positions, past ministral-3-3b's maximum of 262,144: there/,
    );
    // Within the model's maximum, no word of it.
    assert.doesNotMatch(
      trainingSentence({
        n: 394,
        train: 8192,
        sides: [{ label: 'A', name: 'x', ood: { oodPairs: 0, pairs: 8, span: 394 }, model: gemma }],
      }),
      /maximum/,
    );
  });

  it('the angle caption names a window or chunk, not the text, where it keeps keys L back out of view', () => {
    const base = {
      title: 'A',
      oodPairs: 0,
      pairs: 64,
      train: 131072,
      hasTrain: false,
      splitPair: 69,
    };
    const sliding = angleCaption({ ...base, reach: 1024, reachKind: 'sliding', span: 7861 });
    assert.match(
      sliding,
      /[Nn]o key is 131,072 tokens back \(the layer sees only the last 1,024 positions\)/,
    );
    assert.doesNotMatch(sliding, /the text is shorter/);
    // A text shorter than its window: the text.
    assert.match(
      angleCaption({ ...base, reach: 262144, reachKind: 'sliding', span: 394 }),
      /the text is shorter/,
    );
  });
});

describe('wording found by the first-time-visitor review', () => {
  it('the angle caption puts the pairs that turn a full period above the Split% line (fast pairs are drawn at the top)', () => {
    const text = angleCaption({
      title: 'A: RoPE',
      oodPairs: 21,
      pairs: 32,
      train: 256,
      hasTrain: true,
    });
    assert.match(
      text,
      /Split% \(the faster pairs above it turn a full period within 256 tokens; only the slower pairs below it can be out of distribution\)/,
    );
    assert.doesNotMatch(text, /pairs below it turn/);
    assert.match(
      angleCaption({ title: 'B', oodPairs: 0, pairs: 32, train: 256, hasTrain: false }),
      /no key is 256 tokens back/,
    );
    // A bound outside the pairs draws no Split% line, and the caption says so instead.
    const below = angleCaption({
      title: 'A: RoPE',
      oodPairs: 32,
      pairs: 32,
      train: 2,
      hasTrain: true,
      splitPair: -4,
    });
    assert.match(
      below,
      /No Split% line: its bound falls before the fastest pair \(no pair turns a full period within 2 tokens\)\. Dashed: the key 2 tokens back\./,
    );
    assert.doesNotMatch(below, /Split% \(the faster pairs above it/);
    assert.match(
      angleCaption({
        title: 'B',
        oodPairs: 0,
        pairs: 32,
        train: 100000,
        hasTrain: false,
        splitPair: 33.6,
      }),
      /No Split% line: its bound falls past the slowest pair \(every pair turns a full period within 100,000 tokens\)\. No key is 100,000 tokens back/,
    );
  });

  it('under a position stride, lengths are positions and the key L back is counted in tokens too', () => {
    const text = angleCaption({
      title: 'A: RoPE',
      oodPairs: 19,
      pairs: 32,
      train: 256,
      hasTrain: true,
      splitPair: 13,
      stride: 8,
    });
    assert.match(
      text,
      /Split% \(the faster pairs above it turn a full period within 256 positions; .*\) and the key 256 positions \(32 tokens\) back\./,
    );
    assert.doesNotMatch(text, /256 tokens/);
    assert.match(
      angleCaption({ title: 'B', oodPairs: 0, pairs: 32, train: 4096, hasTrain: false, stride: 3 }),
      /no key is 4,096 positions \(1,366 tokens\) back \(the text is shorter\)/,
    );
    assert.equal(
      splitHint({ splitPair: 12.9, pairs: 32, tokenPairs: 13, train: 256, stride: 8 }).text,
      'Split% at L = 256: 40.3% of the pairs (13 of the 32 frequency pairs turn a full period within 256 positions). HiRoPE keeps 13 pairs on token distance: within the bound.',
    );
    assert.match(
      splitHint({ splitPair: -1, pairs: 4, tokenPairs: 0, train: 4, stride: 2 }).text,
      /needs 2π ≈ 6\.3 positions for a full period, so no frequency pair turns a full period within 4 positions\./,
    );
    // Stride 1: a token is a position, and the words stay tokens.
    assert.equal(lengthWords(256), '256 tokens');
    assert.equal(lengthWords(1, 4), '1 position');
  });

  it("the status names each side by its display name, scaling included (the map titles' describeScheme)", () => {
    const state = normalizeState({
      train: 128,
      a: { type: 'rope' },
      b: { type: 'rope', scaling: 'linear', factor: 4 },
    });
    const sides = [
      { label: 'A', name: describeScheme(state.a), ood: { oodPairs: 21, pairs: 32 } },
      { label: 'B', name: describeScheme(state.b), ood: { oodPairs: 0, pairs: 32 } },
    ];
    assert.equal(
      trainingSentence({ n: 394, train: 128, sides }),
      'The last 266 tokens are beyond the training length of 128: there A, RoPE, meets angles it never saw in training on 21 of its 32 frequency pairs, while B, RoPE with linear (PI) scaling ×4, keeps every frequency pair within the angles seen in training.',
    );
    // Scalings under the Scaling control's labels, never their ids.
    for (const [id, label] of [
      ['ntk', 'NTK-aware'],
      ['dynamic-ntk', 'dynamic NTK'],
      ['llama3', 'Llama 3'],
      ['yarn', 'YaRN'],
    ]) {
      const name = describeScheme(
        normalizeState({ a: { type: 'rope', scaling: id, factor: 4 } }).a,
      );
      assert.equal(name, `RoPE with ${label} scaling ×4`);
      assert.equal(scalingLabel(id), label);
      assert.equal(SCALINGS.find(([n]) => n === id)[1], label, 'the select lists the same label');
    }
    assert.equal(
      describeScheme(normalizeState({ a: { type: 'hirope', scaling: 'ntk' } }).a),
      'HiRoPE (ratio 0.4, W 64) with NTK-aware scaling ×4',
    );
  });

  it('the status names the tokenizer as the Tokenizer control does', () => {
    for (const [id, label] of [
      ['gemma3', 'Gemma 3'],
      ['deepseek-v3', 'DeepSeek-V3'],
      ['llama2', 'Llama 2 / Code Llama'],
    ]) {
      const control = sharedControls(['python'], [id]).find((c) => c.key === 'tokenizer');
      assert.equal(control.options[0][1], label);
      assert.equal(
        codeSentence({
          count: 10,
          languageName: 'Python',
          tokenizer: tokenizerLabel(id),
          units: 2,
          statements: 3,
        }),
        `10 tokens of Python in 2 units and 3 statements; tokenizer: ${label}.`,
      );
    }
  });

  it('the q/k file hint is plain words, without the internal value "file"', () => {
    const text = qkFileHint('content-free (all ones)');
    assert.match(text, /^Choose a q\/k JSON file/);
    assert.match(text, /the maps keep the content-free \(all ones\) q\/k\.$/);
    assert.doesNotMatch(text, /"file"|cannot|error/);
  });

  it('probabilities have one format: a percentage, tiny ones with a power of ten', () => {
    assert.equal(formatProbability(0.15), '15.0%');
    assert.equal(formatProbability(5.35e-4), '0.0535%');
    assert.equal(formatProbability(1), '100%');
    assert.equal(formatProbability(0), '0%');
    assert.equal(formatProbability(2.31e-9), '2.31 × 10⁻⁷%');
    for (const p of [0.5, 1e-3, 2e-5, 3e-8, 1e-12]) assert.match(formatProbability(p), /%$/);
    for (const p of [0.5, 1e-3, 2e-5, 3e-8, 1e-12]) assert.doesNotMatch(formatProbability(p), /e-/);
  });

  it('powers of ten are written with superscript exponents', () => {
    assert.equal(powerOfTen(-4), '10⁻⁴');
    assert.equal(powerOfTen(-12), '10⁻¹²');
    assert.equal(powerOfTen(3), '10³');
  });

  it('the A vs B legend is a complete line', () => {
    assert.equal(DIFF_LEGEND, 'blue: B more, orange: A more');
  });
});
