// Tokenizer agreement, id for id, with the reference JavaScript tokenizers on real code:
// cl100k against gpt-tokenizer, llama2 against llama-tokenizer-js (Meta's LLaMA ids).
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { encode as gptEncode } from 'gpt-tokenizer/encoding/cl100k_base';
import llama from 'llama-tokenizer-js';
import { HiRoPEError } from '../../dist/index.js';
import { load } from './support/both-builds.mjs';
import { pythonFiles, javascriptFiles, take } from './support/real-code.mjs';

const NO_SPECIAL = { disallowedSpecial: new Set() };

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function agree(hr, files, tokenizer, reference) {
  let tokens = 0;
  const mismatches = [];
  for (const { file, text } of files) {
    const ours = hr.encode(text, { tokenizer });
    const want = reference(text);
    tokens += want.length;
    if (ours.length !== want.length || firstDifference(ours, want) !== want.length) {
      mismatches.push(`${file} at token ${firstDifference(ours, want)}`);
    }
  }
  return { tokens, mismatches };
}

describe('tokenizers', () => {
  let hr;
  before(async () => {
    hr = await load(true);
    await hr.loadTokenizer('cl100k');
    await hr.loadTokenizer('llama2');
  });

  it('cl100k matches gpt-tokenizer on Python and JavaScript files', () => {
    const files = [...take(pythonFiles(), 6 << 20), ...take(javascriptFiles(), 3 << 20)];
    const { tokens, mismatches } = agree(hr, files, 'cl100k', (t) => gptEncode(t, NO_SPECIAL));
    const bytes = files.reduce((s, f) => s + Buffer.byteLength(f.text), 0);
    console.log(
      `# cl100k: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, ${tokens} tokens compared`,
    );
    assert.deepEqual(mismatches, []);
    assert.ok(tokens > 1e6);
  });

  it('llama2 matches llama-tokenizer-js on Python and JavaScript files', () => {
    const files = [
      ...take(pythonFiles().slice(40), 600 << 10),
      ...take(javascriptFiles().slice(200), 300 << 10),
    ];
    const { tokens, mismatches } = agree(hr, files, 'llama2', (t) => llama.encode(t, false, true));
    console.log(`# llama2: ${files.length} files, ${tokens} tokens compared`);
    assert.deepEqual(mismatches, []);
    assert.ok(tokens > 1e5);
    // Decoding gives the text back: pieces as the text they stand for (U+2581 a space, <0xNN>
    // its byte), the dummy prefix's space dropped; llama-tokenizer-js decodes the same ids alike.
    let roundTrips = 0;
    for (const { text } of files) {
      const ids = hr.encode(text, { tokenizer: 'llama2' });
      if (hr.decode(ids, { tokenizer: 'llama2' }) === text) roundTrips++;
    }
    assert.equal(roundTrips, files.length);
    const ids = [822, 285, 29898, 13, 29871, 29941];
    assert.equal(hr.decode(ids, { tokenizer: 'llama2' }), llama.decode(ids, false));
    assert.equal(hr.decode([822, 285, 29898, 13], { tokenizer: 'llama2' }), 'def f(\n');
    // Control tokens (<unk>, <s>, </s>) stand for no text.
    assert.throws(
      () => hr.decode([1, 822], { tokenizer: 'llama2' }),
      /ids\[0\] = 1 is not a token/,
    );
  });

  it('agrees on edge cases: contractions, numbers, unicode, whitespace runs', () => {
    const cases = [
      "it's I'LL we'Re don't",
      'x = 1234567 + 3.14159e-10',
      '  \n\n\t  \r\n  end   ',
      'naïve café 日本語 🙂🙂 العربية',
      'a\u00a0b\u2003c',
      '   ',
      '\n',
      "''''",
      'x' + ' '.repeat(5000) + 'y',
      '\u0000\u0001 nul',
      'ab\ud800cd',
    ];
    for (const c of cases) {
      // A lone surrogate is not text: hirope encodes it as U+FFFD (as TextEncoder does).
      const text = c.toWellFormed();
      assert.deepEqual(
        Array.from(hr.encode(c, { tokenizer: 'cl100k' })),
        gptEncode(text, NO_SPECIAL),
        JSON.stringify(c),
      );
      assert.deepEqual(
        Array.from(hr.encode(c, { tokenizer: 'llama2' })),
        llama.encode(text, false, true),
        JSON.stringify(c),
      );
    }
    // The ids the issue names: LLaMA 'def' = 822 (with its space marker), '(' = 29898.
    assert.deepEqual(Array.from(hr.encode('def f(', { tokenizer: 'llama2' })), [822, 285, 29898]);
  });

  it('reports analyze() offsets in UTF-16 code units', () => {
    const code = 'x = "héllo 🙂"  # ünïcode\n';
    const a = hr.analyze(code, { language: 'python', tokenizer: 'cl100k' });
    assert.equal(a.tokens.end.at(-1), code.length);
    assert.equal(a.tokens.byteEnd.at(-1), Buffer.byteLength(code));
    const text = Array.from({ length: a.tokens.count }, (_, i) =>
      code.slice(a.tokens.start[i], a.tokens.end[i]),
    );
    assert.equal(text.join(''), code); // byte-level pieces that split a character widen to it
  });

  it('rejects corrupted, truncated or foreign tokenizer data', async () => {
    const data = fs.readFileSync(new URL('../../dist/data/cl100k.bin', import.meta.url));
    const fresh = await load(false);
    const bad = async (bytes, re) =>
      assert.rejects(
        fresh.loadTokenizer('cl100k', { data: bytes }),
        (e) => e instanceof HiRoPEError && re.test(e.message),
      );
    await bad(data.subarray(0, data.length - 100), /corrupted|truncated/);
    const flipped = Uint8Array.from(data);
    flipped[5000] ^= 1;
    await bad(flipped, /checksum/);
    await bad(new Uint8Array([1, 2, 3]), /truncated/);
    await bad(new TextEncoder().encode('not a tokenizer file at all, just text'), /wrong format/);
    const future = Uint8Array.from(data);
    future[4] = 9;
    await bad(future, /checksum|version/);
    assert.throws(
      () => fresh.encode('x', { tokenizer: 'cl100k' }),
      /not loaded: call await hr.loadTokenizer\('cl100k'\) first/,
    );
    await assert.rejects(fresh.loadTokenizer('gpt2'), /tokenizer must be one of/);
  });
});
