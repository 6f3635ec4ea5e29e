// isWithinTokenLimit on a long text with a small limit (issue 50): hirope (the SIMD build, which
// stops tokenizing once past the limit: EncodeOptions::max_tokens) against gpt-tokenizer's
// isWithinTokenLimit, on the same text, and hirope tokenizing just the text up to the limit (the
// goal: within 2x of it), then isWithinTokenLimit with o200k, llama2 and llama3. The text: about
// 5 MB of real code (tests/js/support/tokenizer-corpus.mjs), joined. Medians of --repeats runs (default 15), milliseconds. Run from the repository root
// after a build:
//   node bench/token-limit.mjs [--limit 1000] [--repeats 15] [--scale 1]
import {
  isWithinTokenLimit as gptWithin,
  encode as gptEncode,
} from 'gpt-tokenizer/encoding/cl100k_base';
import init from '../dist/index.js';
import { realCode } from '../tests/js/support/tokenizer-corpus.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const limit = arg('limit', 1000);
const repeats = arg('repeats', 15);
const text = realCode(arg('scale', 1))
  .map((f) => f.text)
  .join('\n');
const hr = await init({ simd: true });
await hr.loadTokenizer('cl100k');

const median = (f) => {
  const times = [];
  let value;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    value = f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], value };
};

// The text up to the limit: the shortest prefix of whole lines holding `limit` tokens.
let prefix = '';
for (const line of text.split('\n')) {
  if (hr.countTokens(prefix) >= limit) break;
  prefix += `${line}\n`;
}
const rows = [
  [
    'hirope isWithinTokenLimit (5 MB)',
    () => hr.isWithinTokenLimit(text, limit, { tokenizer: 'cl100k' }),
  ],
  ['gpt-tokenizer isWithinTokenLimit (5 MB)', () => gptWithin(text, limit)],
  [
    'hirope countTokens of the text up to the limit',
    () => hr.countTokens(prefix, { tokenizer: 'cl100k' }),
  ],
  ['gpt-tokenizer encode of the text up to the limit', () => gptEncode(prefix).length],
  ['hirope countTokens (5 MB, all of it)', () => hr.countTokens(text, { tokenizer: 'cl100k' })],
];
// The other tokenizers: the built-ins decide from a prefix (Vocabulary::encode_prefix); a
// tokenizer.json pipeline (llama3) has no rule for prefixes and reads the whole text.
for (const tokenizer of ['o200k', 'llama2', 'llama3']) {
  await hr.loadTokenizer(tokenizer);
  rows.push([
    `hirope isWithinTokenLimit, ${tokenizer} (5 MB)`,
    () => hr.isWithinTokenLimit(text, limit, { tokenizer }),
  ]);
}
console.log(
  `${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB of real code, limit ${limit}, cl100k, median of ${repeats} (ms)`,
);
const results = rows.map(([name, f]) => [name, median(f)]);
for (const [name, { ms, value }] of results)
  console.log(`${name.padEnd(52)} ${ms.toFixed(2).padStart(9)}  -> ${value}`);
const ms = Object.fromEntries(results.map(([name, r]) => [name, r.ms]));
console.log(
  `hirope within / gpt-tokenizer within: ${(ms[rows[0][0]] / ms[rows[1][0]]).toFixed(2)}; hirope within / hirope up to the limit: ${(ms[rows[0][0]] / ms[rows[2][0]]).toFixed(2)}`,
);
