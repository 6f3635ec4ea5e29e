// The tokenizer.json normalizers against @huggingface/tokenizers' own, in npm test: runs the
// differential script (tests/js/support/normalizers-diff.mjs: NFC, NFD, NFKC, NFKD, Lowercase and
// StripAccents on every code point alone and in blocks, Final_Sigma's context around every code
// point, Strip, Replace, Prepend and nested Sequences on random strings) against the native
// helper that build.sh builds.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/tokjson_cli');

it('normalizes as @huggingface/tokenizers (String.prototype.normalize, toLowerCase, trim, replaceAll)', () => {
  assert.ok(fs.existsSync(cli), `${cli} is missing: npm run build`);
  // A mismatch exits 1 (execFileSync throws with the script's output).
  const out = execFileSync(
    process.execPath,
    [path.join(root, 'tests/js/support/normalizers-diff.mjs'), '--cli', cli],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const lines = out
    .trim()
    .split('\n')
    .filter((l) => /mismatches$/.test(l));
  assert.ok(lines.length >= 16, out);
  for (const line of lines) assert.match(line, /: \d+ strings, 0 mismatches$/, line);
  // Every code point went through the four forms and Lowercase.
  for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD', 'Lowercase']) {
    const n = Number(new RegExp(`^${form}: (\\d+) strings`, 'm').exec(out)?.[1]);
    assert.ok(n > 0x110000 - 0x800, `${form}: ${n}`);
  }
});
