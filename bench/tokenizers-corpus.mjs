// The tokenizer.json built-ins and o200k id for id against their references on the whole real-code
// corpus (about 5.2 MB a vocabulary: Python, JavaScript, C/C++ headers, Go, Rust; the SIMD build),
// which tests/js/tokenizer-builtins.test.mjs checks on a tenth of it: llama3, qwen3, deepseek-v3
// and gemma3 against @huggingface/tokenizers, o200k against gpt-tokenizer and tiktoken, and a
// user's file (the community Claude tokenizer.json, NFKC). Prints per vocabulary the inputs,
// bytes and tokens compared, the mismatches (the first ten in full) and the round trips, and exits
// 1 on any mismatch. Run from the repository root after a build:
//   node bench/tokenizers-corpus.mjs [--scale 1] [--only llama3,o200k,claude]
import { get_encoding } from 'tiktoken';
import init from '../dist/index.js';
import {
  HF,
  O200K_SPECIALS,
  claudeReference,
  compare,
  edgeTexts,
  hfReference,
  o200kReferences,
  realCode,
  report,
} from '../tests/js/support/tokenizer-corpus.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const scale = Number(arg('scale', '1'));
const only = arg('only', '')?.split(',').filter(Boolean);
const wanted = (name) => only.length === 0 || only.includes(name);

const hr = await init({ simd: true });
const code = realCode(scale);
let failures = 0;
const check = (name, r) => {
  report(name, r);
  for (const m of r.mismatches.slice(0, 10)) console.log(`  ${m}`);
  failures += r.mismatches.length;
};

for (const [name, pkg] of HF) {
  if (!wanted(name)) continue;
  await hr.loadTokenizer(name);
  const { textRef, specials, options } = hfReference(pkg);
  check(
    name,
    compare(hr, name, [...code, ...edgeTexts(specials)], [['hf (text)', textRef]], options),
  );
}

if (wanted('o200k')) {
  await hr.loadTokenizer('o200k');
  const tk = get_encoding('o200k_base');
  try {
    const refs = o200kReferences(tk);
    const edge = edgeTexts(O200K_SPECIALS);
    check('o200k', compare(hr, 'o200k', [...code, ...edge], refs));
  } finally {
    tk.free();
  }
}

if (wanted('claude')) {
  const { bytes, textRef, whiteSpaceRef, normalize, edge } = claudeReference();
  const name = await hr.loadTokenizer({ json: bytes });
  check(
    'claude (NFKC)',
    compare(hr, name, [...code, ...edge], [['hf (text)', textRef]], { normalize, whiteSpaceRef }),
  );
}

console.log(failures ? `${failures} mismatches` : 'no mismatches');
process.exitCode = failures ? 1 : 0;
