// The README's kernel list is the runtime's (issue 43: it listed 'eigen', which attention()
// refuses). The list the runtime accepts is read from its own error message, so the README, the
// .d.ts and the runtime are compared with no list written here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init, { HiRoPEError } from '../../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const names = (text) => [...text.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]);

describe('attention kernels', () => {
  it('are the same in the runtime, the README and index.d.ts, and each runs', async () => {
    const hr = await init({ analysis: false });
    const n = 4;
    const headDim = 4;
    const q = new Float32Array(n * headDim).fill(0.5);
    let message = '';
    try {
      hr.attention({ q, k: q, n, headDim, kernel: 'no-such-kernel' });
    } catch (e) {
      assert.ok(e instanceof HiRoPEError);
      message = e.message;
    }
    const accepted = names(message.match(/^kernel must be one of (.*), got/)[1]);
    assert.ok(accepted.includes('tiled') && accepted.includes('reference'), message);
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const listed = readme.match(/`kernel: ('[a-z-]+'(?: \| '[a-z-]+')*)`/);
    assert.ok(listed, "the README's kernel list");
    assert.deepEqual(names(listed[1]).sort(), [...accepted].sort());
    const types = fs.readFileSync(path.join(root, 'wasm/index.d.ts'), 'utf8');
    assert.deepEqual(names(types.match(/\n\s+kernel\?: ([^;]+);/)[1]).sort(), [...accepted].sort());
    for (const kernel of accepted)
      assert.equal(hr.attention({ q, k: q, n, headDim, kernel }).length, n * n, kernel);
  });
});
