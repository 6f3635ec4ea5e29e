// The pre-tokenizer regex engine and NFC against JavaScript's, in npm test: runs the differential
// script (tests/js/support/pretokenize-regex-diff.mjs: every Split pattern of the real tokenizer.json
// files, GPT-2's, cl100k's, o200k's and two syntax mixes, on 3,005 random Unicode strings each;
// NFC on every code point) against the native helper that build.sh builds.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/tokjson_cli');

it('splits as JavaScript RegExp (u) and normalizes as String.prototype.normalize', () => {
  assert.ok(fs.existsSync(cli), `${cli} is missing: npm run build`);
  // A mismatch exits 1 (execFileSync throws with the script's output).
  const out = execFileSync(
    process.execPath,
    [path.join(root, 'tests/js/support/pretokenize-regex-diff.mjs'), '--cli', cli],
    { encoding: 'utf8' },
  );
  const lines = out
    .trim()
    .split('\n')
    .filter((l) => /mismatches$/.test(l));
  assert.ok(lines.length >= 10, out);
  for (const line of lines) assert.match(line, /: \d+ strings.*, 0 mismatches$/, line);
});
