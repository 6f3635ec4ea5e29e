// The trainer's tokenizer: hirope's own (dist/, built by `npm run build`), whose ids are checked
// id-for-id against the reference implementations in npm test. training/train.py starts one of
// these and talks to it over stdin/stdout:
//
//   request:  u32 mode (0: ids, 1: ids and byte offsets), u32 byte length, the bytes (UTF-8 text)
//   response: u32 count, count i32 ids, and for mode 1 count u32 start and count u32 end offsets
//
// All little-endian. Usage: node training/tokenize.mjs TOKENIZER
import init from '../dist/index.js';

const name = process.argv[2];
if (!name) {
  process.stderr.write('usage: node training/tokenize.mjs TOKENIZER\n');
  process.exit(2);
}
const hr = await init();
await hr.loadTokenizer(name);
// Not fatal: an augmented training row is cut at arbitrary bytes (its edges become U+FFFD).
const decoder = new TextDecoder('utf-8');

let pending = Buffer.alloc(0);
let queue = Promise.resolve();

function respond(mode, bytes) {
  const text = decoder.decode(bytes);
  let ids;
  let starts = null;
  let ends = null;
  if (mode === 1) {
    // The analysis's token list carries each token's byte span; any language gives the same
    // tokens (they come from the vocabulary, not the parse).
    const tokens = hr.analyze(text, { language: 'python', tokenizer: name }).tokens;
    ids = Int32Array.from(tokens.ids);
    starts = Uint32Array.from(tokens.byteStart);
    ends = Uint32Array.from(tokens.byteEnd);
  } else {
    ids = hr.encode(text, { tokenizer: name });
  }
  const head = Buffer.alloc(4);
  head.writeUInt32LE(ids.length);
  const parts = [head, Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength)];
  if (starts) parts.push(Buffer.from(starts.buffer), Buffer.from(ends.buffer));
  process.stdout.write(Buffer.concat(parts));
}

process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 8) {
    const mode = pending.readUInt32LE(0);
    const length = pending.readUInt32LE(4);
    if (pending.length < 8 + length) break;
    const bytes = pending.subarray(8, 8 + length);
    pending = pending.subarray(8 + length);
    queue = queue.then(() => respond(mode, bytes));
  }
});
