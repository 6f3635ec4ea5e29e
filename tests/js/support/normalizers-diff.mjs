// Differential check of the tokenizer.json normalizers (src/tokenizers/tokenizer_json_bpe.cpp, with the
// tables of src/tokenizers/unicode_props.inc) against @huggingface/tokenizers' own normalizers,
// which are String.prototype.normalize, toLowerCase, trimStart/trimEnd, replaceAll and a \p{M}
// regex: NFC, NFD, NFKC, NFKD, Lowercase and StripAccents on every code point alone and in blocks
// of 512 neighbours, Σ between every code point and a letter (Final_Sigma's context), Strip,
// Replace (String and Regex), Prepend and Sequences (nested too) on random strings. The expected
// strings come from the reference, never from hirope. npm test runs it
// (tests/js/normalizers.test.mjs); by hand:
//   node tests/js/support/normalizers-diff.mjs [--cli build/native/tokjson_cli] [--n 3000]
import { Tokenizer } from '@huggingface/tokenizers';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { opt, cli } from './diff-args.mjs';

const N = Number(opt('n', '3000'));

// Every code point but surrogates (UTF-8 cannot hold them) and NUL (the separator).
const every = [];
for (let cp = 1; cp < 0x110000; cp++)
  if (cp < 0xd800 || cp > 0xdfff) every.push(String.fromCodePoint(cp));
const blocks = [];
for (let i = 0; i < every.length; i += 512) blocks.push(every.slice(i, i + 512).join(''));
// Σ after and before every code point, with a letter on the other side, spaces between groups
// (a space is neither cased nor case-ignorable).
const sigma = [];
for (let i = 0; i < every.length; i += 256) {
  sigma.push(
    every
      .slice(i, i + 256)
      .map((c) => `a${c}Σ Σ${c}b ${c}Σ aΣ${c} Σ${c}`)
      .join(' '),
  );
}

let seed = 24681357;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
};
const alphabet = [
  ...'abcXYZ019 \n\r\t.,;:\'"-_$&`',
  'é',
  'e\u0301',
  'ß',
  'ẞ',
  'ǅ',
  'ʰ',
  'İ',
  'ı',
  'Σ',
  'σ',
  'ς',
  'Ω',
  'Å',
  'Å',
  '\u0301',
  '\u0323',
  '\u0345',
  '\u0903',
  '\u20dd',
  '\u093c',
  '²',
  'Ⅻ',
  '①',
  'ﬁ',
  'ﷺ',
  '㌀',
  '\u1100',
  '\u1161',
  '\u11a8',
  '가',
  'ｶ',
  '\uff9e',
  '中',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u0085',
  '\ufeff',
  '\u2028',
  '\u200b',
  '\u180e',
  '😀',
  '🏽',
  '\u200d',
  'ſ',
  'K',
  '\u{1d15e}',
  '\u{1d400}',
  '\u{10400}',
  '\u{1e900}',
  '\u0130\u0307',
];
function randomString() {
  let s = '';
  const n = Math.floor(rnd() * 30);
  for (let i = 0; i < n; i++) {
    s +=
      rnd() < 0.1
        ? String.fromCodePoint(0xa0 + Math.floor(rnd() * 0x3000))
        : alphabet[Math.floor(rnd() * alphabet.length)];
  }
  return s;
}
const random = Array.from({ length: N }, randomString);
random.push(
  '',
  ' ',
  '\u3000\ufeff x \u2029\u0085',
  'ΑΣ',
  'ΑΣ\u0301',
  'Α\u0345Σ',
  '\u0301Σ',
  'ʰΣ',
  'ʰΣʰ',
  'Σa',
);

const nf = (type) => ({ type });
const configs = [
  ['NFC', nf('NFC'), [every, blocks, random]],
  ['NFD', nf('NFD'), [every, blocks, random]],
  ['NFKC', nf('NFKC'), [every, blocks, random]],
  ['NFKD', nf('NFKD'), [every, blocks, random]],
  ['Lowercase', nf('Lowercase'), [every, blocks, sigma, random]],
  ['StripAccents', nf('StripAccents'), [blocks, random]],
  ['Strip left', { type: 'Strip', strip_left: true, strip_right: false }, [every, random]],
  ['Strip right', { type: 'Strip', strip_left: false, strip_right: true }, [every, random]],
  ['Strip both', { type: 'Strip', strip_left: true, strip_right: true }, [every, random]],
  ['Replace String', { type: 'Replace', pattern: { String: 'e\u0301' }, content: '[É]' }, [random]],
  ['Replace Regex', { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, [random]],
  [
    'Replace Regex marks',
    { type: 'Replace', pattern: { Regex: '[\\p{Mn}\\p{Me}]+|\\d' }, content: '#' },
    [blocks, random],
  ],
  ['Prepend', { type: 'Prepend', prepend: '\u2581' }, [random]],
  [
    'Sequence NFD StripAccents Lowercase',
    { type: 'Sequence', normalizers: [nf('NFD'), nf('StripAccents'), nf('Lowercase')] },
    [blocks, random],
  ],
  [
    'Sequence NFKC Lowercase Strip',
    {
      type: 'Sequence',
      normalizers: [
        nf('NFKC'),
        nf('Lowercase'),
        { type: 'Strip', strip_left: true, strip_right: true },
      ],
    },
    [blocks, sigma, random],
  ],
  [
    'nested Sequence',
    {
      type: 'Sequence',
      normalizers: [
        { type: 'Sequence', normalizers: [nf('NFKD')] },
        {
          type: 'Sequence',
          normalizers: [{ type: 'Sequence', normalizers: [nf('StripAccents')] }, nf('NFC')],
        },
        { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
        { type: 'Prepend', prepend: '\u2581' },
      ],
    },
    [blocks, random],
  ],
];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'normalizers-diff-'));
let failures = 0;
for (const [label, normalizer, sets] of configs) {
  const json = {
    version: '1.0',
    added_tokens: [],
    normalizer,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    model: { type: 'BPE', vocab: { a: 0 }, merges: [] },
  };
  const file = path.join(tmp, 'tokenizer.json');
  fs.writeFileSync(file, JSON.stringify(json));
  const ref = new Tokenizer(json, {}).normalizer;
  // The tokenizer never normalizes an empty section, and where a step empties the text, Prepend
  // then adds nothing, as Rust's tokenizers (the JS reference would prepend to ""): no empty input
  // for the steps that hold a Prepend.
  const strings = sets
    .flat()
    .filter((s) => s !== '' || !JSON.stringify(normalizer).includes('Prepend'));
  const got = execFileSync(cli, ['normalize', file], {
    input: strings.join('\0'),
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  }).split('\0');
  let bad = 0;
  strings.forEach((s, i) => {
    const want = ref(s);
    if (got[i] !== want) {
      if (++bad <= 3)
        console.log(
          `  ${label}: ${JSON.stringify(s.slice(0, 80))}\n    hirope    ${JSON.stringify(got[i].slice(0, 80))}\n    reference ${JSON.stringify(want.slice(0, 80))}`,
        );
    }
  });
  failures += bad;
  console.log(`${label}: ${strings.length} strings, ${bad} mismatches`);
}
fs.rmSync(tmp, { recursive: true, force: true });
process.exitCode = failures ? 1 : 0;
