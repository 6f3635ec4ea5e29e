// The package's scheme types (wasm/scheme-types.d.ts, re-exported by index.d.ts) are generated
// from the core's catalogue by tools/write-scheme-types.mjs: the checked-in file is what the
// generator writes for the built module's hr.catalogue (scripts/build.sh rewrites it), and the
// package's declarations type-check a scheme the core takes and refuse ones it refuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { schemeTypes } from '../../tools/write-scheme-types.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('scheme types', () => {
  it('wasm/scheme-types.d.ts is the generator’s output for the core’s catalogue', async () => {
    const hr = await init({ simd: false });
    const text = schemeTypes(hr.catalogue);
    const checkedIn = fs.readFileSync(path.join(root, 'wasm/scheme-types.d.ts'), 'utf8');
    assert.equal(
      checkedIn,
      text,
      'stale: run node tools/write-scheme-types.mjs wasm/scheme-types.d.ts',
    );
    // Every scheme and scaling name (aliases too) and every parameter is in it.
    for (const s of hr.catalogue.schemes) assert.match(text, new RegExp(`type: '${s.name}'`));
    for (const s of hr.catalogue.scalings)
      for (const name of [s.name, ...s.aliases]) assert.ok(text.includes(`'${name}'`), name);
    for (const p of [...hr.catalogue.parameters, ...hr.catalogue.scalingParameters])
      assert.match(text, new RegExp(`\\b${p.name}\\??: `), p.name);
  });

  it('type-checks the schemes the core takes and refuses the ones it refuses', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-types-'));
    try {
      for (const f of fs.readdirSync(path.join(root, 'dist')))
        if (f.endsWith('.d.ts')) fs.copyFileSync(path.join(root, 'dist', f), path.join(dir, f));
      fs.writeFileSync(
        path.join(dir, 'use.ts'),
        `import type { HiRoPE, Scaling, Scheme } from './index.js';
const a: Scheme = { type: 'hirope', ratio: 0.4, levels: 3, scaling: { type: 'yarn', factor: 4 } };
const b: Scheme = 'rope';
const c: Scaling = { type: 'dynamic', factor: 2, originalLength: 4096 };
const d: Scheme = { type: 'rope', scaling: { type: 'proportional', partialRotaryFactor: 0.25 } };
// @ts-expect-error levels is 2 or 3
const e: Scheme = { type: 'hirope', levels: 4 };
// @ts-expect-error rope takes no ratio
const f: Scheme = { type: 'rope', ratio: 0.5 };
// @ts-expect-error the factor is required
const g: Scaling = { type: 'linear' };
declare const hr: HiRoPE;
hr.bands(a, 64);
export { a, b, c, d, e, f, g };
`,
      );
      const r = spawnSync(
        path.join(root, 'node_modules/.bin/tsc'),
        ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', 'use.ts'],
        { cwd: dir, encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stdout + r.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
