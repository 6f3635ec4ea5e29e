// The tokenizer conveniences users expect from gpt-tokenizer and tiktoken (issue 43): countTokens,
// isWithinTokenLimit, encodeBatch, tiktoken's names as aliases, tokenizerForModel, and encode's
// default tokenizer (cl100k) stated in the README and the .d.ts.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { HiRoPEError, BUILTIN_TOKENIZERS, tokenizerForModel } from '../../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CODE = 'def f(x):\n    return x  # <|endoftext|> ünïcödé\n';
const refuses = (f, pattern) =>
  assert.throws(f, (e) => e instanceof HiRoPEError && pattern.test(e.message), String(pattern));

describe('tokenizer conveniences', () => {
  let hr;
  before(async () => {
    hr = await init({ tokenizers: ['cl100k', 'o200k', 'llama3'] });
  });

  it('countTokens is encode().length, for each tokenizer and with specialTokens', () => {
    for (const tokenizer of ['cl100k', 'o200k', 'llama3'])
      for (const specialTokens of [false, true])
        assert.equal(
          hr.countTokens(CODE, { tokenizer, specialTokens }),
          hr.encode(CODE, { tokenizer, specialTokens }).length,
        );
    // The marker is one special token with specialTokens, several ordinary ones without.
    assert.equal(hr.countTokens('<|endoftext|>', { specialTokens: true }), 1);
    assert.ok(hr.countTokens('<|endoftext|>') > 1);
    assert.equal(hr.countTokens(''), 0);
  });

  it('isWithinTokenLimit gives the count within the limit and false past it', () => {
    const count = hr.countTokens(CODE, { tokenizer: 'o200k' });
    assert.equal(hr.isWithinTokenLimit(CODE, count, { tokenizer: 'o200k' }), count);
    assert.equal(hr.isWithinTokenLimit(CODE, count + 10, { tokenizer: 'o200k' }), count);
    assert.equal(hr.isWithinTokenLimit(CODE, count - 1, { tokenizer: 'o200k' }), false);
    assert.equal(hr.isWithinTokenLimit('', 0), 0);
    refuses(() => hr.isWithinTokenLimit(CODE, -1), /^limit must be at least 0, got -1$/);
    refuses(() => hr.isWithinTokenLimit(CODE, 1.5), /^limit must be an integer, got 1.5$/);
    refuses(() => hr.isWithinTokenLimit(CODE, '10'), /^limit must be an integer, got '10'$/);
  });

  it('isWithinTokenLimit stops at the limit and agrees with countTokens around it, on every built-in', async () => {
    // Real code with characters outside ASCII and a special-token marker, some 2,000 tokens.
    const source = fs
      .readFileSync(path.join(root, 'wasm/tokenizers-api.js'), 'utf8')
      .slice(0, 6000);
    const text = `${source}\n# 🙂 naïve 日本語 <|endoftext|>\n${source}`;
    for (const tokenizer of BUILTIN_TOKENIZERS) {
      await hr.loadTokenizer(tokenizer);
      for (const specialTokens of [false, true]) {
        const options = { tokenizer, specialTokens };
        const count = hr.countTokens(text, options);
        for (const limit of [0, 1, 100, count - 1, count, count + 1])
          assert.equal(
            hr.isWithinTokenLimit(text, limit, options),
            count <= limit ? count : false,
            `${tokenizer} ${specialTokens} limit ${limit} of ${count}`,
          );
      }
    }
  });

  it('isWithinTokenLimit decides from a prefix only what the whole text gives, wherever the prefix ends (property)', async () => {
    // Texts of pieces that sit on the pre-tokenizers' edges, long enough that a limit below 60
    // takes the prefix path (prefixes of 8 characters a token): whitespace runs that end in a
    // newline, contractions, upper-case runs, digits, markers, and surrogate pairs a cut could split.
    const pieces = [
      '    ',
      '\n',
      '\n\n   \n',
      "don't",
      "I'LL",
      'ABC',
      'def',
      '中中',
      '🙂',
      '12345',
    ];
    pieces.push('<|endoftext|>', '<s>', '\t', '!!//', ' x', 'naïve', '\r\n', ' ', 'y');
    await hr.loadTokenizer('llama2');
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 150, maxLength: 700 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('cl100k', 'o200k', 'llama2', 'llama3'),
        fc.boolean(),
        (parts, limit, tokenizer, specialTokens) => {
          const text = parts.join('');
          const options = { tokenizer, specialTokens };
          const count = hr.countTokens(text, options);
          assert.equal(hr.isWithinTokenLimit(text, limit, options), count <= limit ? count : false);
        },
      ),
      { numRuns: 300, seed: 50 },
    );
  });

  it("tokenBytes gives each token's bytes, and a decoder streams text without splitting a character", async () => {
    const text = 'def smile():\n    return "🙂 naïve 日本語"  # 🙂🙂\n';
    const utf8 = new TextEncoder().encode(text);
    for (const tokenizer of BUILTIN_TOKENIZERS) {
      await hr.loadTokenizer(tokenizer);
      const ids = hr.encode(text, { tokenizer });
      const pieces = hr.tokenBytes(ids, { tokenizer });
      assert.equal(pieces.length, ids.length);
      assert.ok(
        pieces.every((p) => p instanceof Uint8Array && p.length > 0),
        tokenizer,
      );
      // The bytes joined are the text's (llama2's SentencePiece adds its dummy-prefix space).
      const joined = Buffer.concat(pieces);
      const expected = tokenizer === 'llama2' ? Buffer.concat([Buffer.from(' '), utf8]) : utf8;
      assert.deepEqual(joined, Buffer.from(expected), tokenizer);
      // One id at a time: no piece has U+FFFD, and the pieces make the text.
      const decoder = hr.decoder({ tokenizer });
      const streamed = [...ids].map((id) => decoder.decode([id]));
      assert.ok(
        streamed.every((piece) => !piece.includes('\uFFFD')),
        `${tokenizer}: ${streamed}`,
      );
      assert.equal(streamed.join('') + decoder.flush(), text, tokenizer);
      assert.equal(hr.decode(ids, { tokenizer }), text);
    }
    // The character split across tokens: a lone token's bytes are part of it, and decode() of it
    // alone is U+FFFD, where the decoder holds it back.
    const smile = hr.encode('🙂', { tokenizer: 'cl100k' });
    assert.ok(smile.length > 1, String(smile));
    assert.ok(hr.tokenBytes([smile[0]]).every((b) => b.length < 4));
    assert.equal(hr.decode([smile[0]]), '\uFFFD');
    const d = hr.decoder();
    assert.equal(d.decode([smile[0]]), '');
    assert.equal(d.decode(smile.slice(1)), '🙂');
    // flush() gives an incomplete character as U+FFFD, and the next sequence starts afresh.
    assert.equal(d.decode([smile[0]]), '');
    assert.equal(d.flush(), '\uFFFD');
    refuses(() => hr.tokenBytes([-1]), /^ids\[0\] must be a token id/);
    refuses(
      () => hr.tokenBytes([100000000]),
      /^ids\[0\] = 100000000 is not a token of the 'cl100k' tokenizer/,
    );
    refuses(
      () => hr.decoder({ tokeniser: 'o200k' }),
      /^decoder options has an unknown key 'tokeniser' \(did you mean 'tokenizer'/,
    );
  });

  it('encodeBatch encodes each text with one options object', () => {
    const texts = [CODE, '', 'x = 1', '<|endoftext|>'];
    for (const options of [undefined, { tokenizer: 'llama3' }, { specialTokens: true }]) {
      const batch = hr.encodeBatch(texts, options);
      assert.equal(batch.length, texts.length);
      batch.forEach((ids, i) => {
        assert.ok(ids instanceof Int32Array);
        assert.deepEqual(ids, hr.encode(texts[i], options));
      });
    }
    assert.deepEqual(hr.encodeBatch([]), []);
    refuses(() => hr.encodeBatch('x = 1'), /^texts must be an array of strings, got 'x = 1'$/);
    refuses(() => hr.encodeBatch(['a', 2]), /^texts\[1\] must be a string, got 2$/);
  });

  it('encodeBatch is limited by bytes, not entries: 100,000 short texts pass, too many bytes do not', () => {
    const texts = Array.from({ length: 100000 }, (_, i) => `x${i} = ${i}`);
    const batch = hr.encodeBatch(texts, { tokenizer: 'o200k' });
    assert.equal(batch.length, texts.length);
    assert.deepEqual(batch[99999], hr.encode(texts[99999], { tokenizer: 'o200k' }));
    const { maxSourceBytes } = hr.limits;
    // Two texts of 60% of the limit each: over it together, refused before any is copied.
    const big = 'a'.repeat(Math.ceil(maxSourceBytes * 0.6));
    const before = hr.memory().peakBytes;
    refuses(
      () => hr.encodeBatch([big, big]),
      /^texts hold more than the limit of 15,728,640 bytes of UTF-8 in one batch \(each entry counts one byte at least\), at texts\[1\]$/,
    );
    assert.equal(hr.memory().peakBytes, before);
    // Entries count one byte at least: more empty strings than the limit has bytes.
    refuses(
      () => hr.encodeBatch(new Array(maxSourceBytes + 1).fill('')),
      /^texts hold more than the limit .*: 15,728,641 entries$/,
    );
  });

  it("accepts tiktoken's names cl100k_base and o200k_base as aliases", async () => {
    assert.deepEqual(hr.encode(CODE, { tokenizer: 'cl100k_base' }), hr.encode(CODE));
    assert.deepEqual(
      hr.encode(CODE, { tokenizer: 'o200k_base' }),
      hr.encode(CODE, { tokenizer: 'o200k' }),
    );
    const ids = hr.encode(CODE, { tokenizer: 'o200k_base' });
    assert.equal(hr.decode(ids, { tokenizer: 'o200k_base' }), CODE);
    assert.equal(hr.countTokens(CODE, { tokenizer: 'cl100k_base' }), hr.countTokens(CODE));
    const fresh = await init({ tokenizers: ['o200k_base'] });
    assert.equal(await fresh.loadTokenizer('o200k_base'), 'o200k');
    assert.deepEqual(fresh.encode(CODE, { tokenizer: 'o200k' }), ids);
    assert.equal(
      fresh.analyze(CODE, { language: 'python', tokenizer: 'o200k_base' }).tokens.count,
      ids.length,
    );
    // Aliases are not new tokenizers: only these two, and nothing from Object.prototype.
    refuses(() => hr.encode('x', { tokenizer: 'p50k_base' }), /^tokenizer must be one of/);
    refuses(() => hr.encode('x', { tokenizer: 'toString' }), /^tokenizer must be one of/);
  });

  it('tokenizerForModel maps model names to the tokenizers that ship', () => {
    const cases = {
      'gpt-4o': 'o200k',
      'gpt-4o-mini': 'o200k',
      'gpt-4o-2024-08-06': 'o200k',
      'gpt-4.1': 'o200k',
      o1: 'o200k',
      'gpt-4': 'cl100k',
      'gpt-4-turbo': 'cl100k',
      'gpt-3.5-turbo': 'cl100k',
      'text-embedding-3-small': 'cl100k',
      'llama-2': 'llama2',
      'llama-3.1': 'llama3',
      'Llama-3.1-8B-Instruct': 'llama3',
      qwen3: 'qwen3',
      'Qwen3-Coder-30B': 'qwen3',
      'deepseek-r1': 'deepseek-v3',
      'gemma-3': 'gemma3',
      // Hugging Face repository ids, as their config.json's _name_or_path holds them.
      'meta-llama/Llama-3.1-8B': 'llama3',
      'meta-llama/Llama-2-7b-hf': 'llama2',
      'Qwen/Qwen3-8B': 'qwen3',
      'codellama/CodeLlama-7b-Python-hf': 'llama2',
      'deepseek-ai/DeepSeek-V3': 'deepseek-v3',
      'google/gemma-3-27b-it': 'gemma3',
    };
    for (const [model, tokenizer] of Object.entries(cases))
      assert.equal(tokenizerForModel(model), tokenizer, model);
    refuses(
      () => tokenizerForModel('gpt4o'),
      /^no built-in tokenizer for the model 'gpt4o' \(did you mean 'gpt-4o'\?\)/,
    );
    refuses(
      () => tokenizerForModel('claude-sonnet'),
      /^no built-in tokenizer for the model 'claude-sonnet'; known models: /,
    );
    refuses(() => tokenizerForModel('gpt-4oo'), /^no built-in tokenizer/); // a prefix needs its '-'
    // Codex and GPT-3 read tiktoken's p50k_base and r50k_base: named, not "no tokenizer".
    for (const [model, encoding] of [
      ['code-davinci-002', 'p50k_base'],
      ['code-cushman-001', 'p50k_base'],
      ['davinci-codex', 'p50k_base'],
      ['text-davinci-003', 'p50k_base'],
      ['davinci', 'r50k_base'],
    ])
      refuses(
        () => tokenizerForModel(model),
        new RegExp(
          `^the model '${model}' reads tiktoken's ${encoding}, which hirope does not ship \\(its built-ins: cl100k, o200k, `,
        ),
      );
    refuses(() => tokenizerForModel(4), /^model must be a string, got 4$/);
  });

  it('maps only to built-in tokenizers, each of which loads', async () => {
    const runtime = await import('../../dist/runtime.js');
    for (const [model, tokenizer] of Object.entries(runtime.MODEL_TOKENIZERS)) {
      assert.ok(BUILTIN_TOKENIZERS.includes(tokenizer), `${model} -> ${tokenizer}`);
      assert.equal(tokenizerForModel(model), tokenizer);
    }
    for (const alias of Object.values(runtime.TOKENIZER_ALIASES))
      assert.ok(BUILTIN_TOKENIZERS.includes(alias));
  });

  it("encode's default tokenizer is cl100k, and the README and the .d.ts say so", () => {
    assert.deepEqual(hr.encode(CODE), hr.encode(CODE, { tokenizer: 'cl100k' }));
    assert.notDeepEqual(hr.encode(CODE), hr.encode(CODE, { tokenizer: 'o200k' }));
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    assert.match(
      readme,
      /Without `tokenizer`, `encode`, `decode`,\s+`countTokens` and `encodeBatch` use \*\*`'cl100k'`\*\*/,
    );
    const types = fs.readFileSync(path.join(root, 'wasm/index.d.ts'), 'utf8');
    const encodeOptions = types.slice(types.indexOf('export interface EncodeOptions'));
    assert.match(encodeOptions.slice(0, 400), /Default: 'cl100k'/);
  });

  it("the README's example gives the counts it states", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const tokenizer = 'o200k';
    const count = readme.match(
      /hr\.countTokens\('def f\(x\):\\n {4}return x', \{ tokenizer \}\);\s+\/\/ (\d+)/,
    );
    const within = readme.match(
      /hr\.isWithinTokenLimit\('def f\(x\):', 100, \{ tokenizer \}\);\s+\/\/ (\d+)/,
    );
    assert.ok(count && within, 'the example lines');
    assert.equal(hr.countTokens('def f(x):\n    return x', { tokenizer }), Number(count[1]));
    assert.equal(hr.isWithinTokenLimit('def f(x):', 100, { tokenizer }), Number(within[1]));
  });
});
