// The native suite's comparisons (tests/native): a running worst kept with std::max or `err >
// worst` drops a NaN error, so a kernel returning NaN everywhere would pass. Every running worst
// goes through hirope_test::worse (tests/native/test_compare.h), which keeps a NaN once seen.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../native/', import.meta.url));
const NAN_BLIND = [/\bworst\w*\s*=\s*std::max\(\s*worst/, /\(\s*\w*err\w*\s*>\s*worst\w*\s*\)/];

describe('native test hygiene', () => {
  it('keeps no running worst with std::max or a bare comparison', () => {
    const found = [];
    for (const name of readdirSync(dir).filter((n) => /\.(cpp|h)$/.test(n))) {
      readFileSync(dir + name, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.trim().startsWith('//') && NAN_BLIND.some((re) => re.test(line)))
            found.push(`${name}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, [], 'use hirope_test::worse (test_compare.h) instead');
  });
});
