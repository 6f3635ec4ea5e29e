// The hirope command-line tool, run as a user would.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import zlib from 'node:zlib';
import init from '../../dist/index.js';
import { LUTS, probIndex, rgb } from '../../web/src/colormap.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = (...args) => spawnSync(process.execPath, [path.join(root, 'bin/hirope.mjs'), ...args], { cwd: root, encoding: 'utf8' });

// A PNG (8-bit RGBA, no interlace) as { width, height, rgba }: the IDAT chunks inflated, each
// row's filter undone.
function decodePNG(png) {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let width = 0, height = 0;
  const idat = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.deepEqual([...data.subarray(8, 13)], [8, 6, 0, 0, 0], 'bit depth 8, RGBA, no interlace');
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  const rgba = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= 4 ? rgba[y * stride + x - 4] : 0;
      const b = y > 0 ? rgba[(y - 1) * stride + x] : 0;
      const c = x >= 4 && y > 0 ? rgba[(y - 1) * stride + x - 4] : 0;
      const paeth = () => {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      };
      const predictor = [0, a, b, (a + b) >> 1, filter === 4 ? paeth() : 0][filter];
      rgba[y * stride + x] = (v + predictor) & 0xff;
    }
  }
  return { width, height, rgba };
}

describe('hirope CLI', () => {
  it('analyze --json prints the analysis', () => {
    const r = run('analyze', 'tests/fixtures/analysis/sample.rs', '--tokenizer', 'cl100k', '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.language, 'rust');
    assert.equal(out.tokenizer, 'cl100k');
    assert.equal(out.tokens.ids.length, out.tokens.count);
    assert.equal(out.positions.unit.length, out.tokens.count);
    assert.deepEqual(out.units.map((u) => u.kind), ['code', 'class', 'class', 'class', 'function']);
    assert.equal(out.statements, 12);
  });

  it('takes --language, --gap, --descend-classes and --segments', () => {
    const r = run('analyze', 'tests/fixtures/analysis/sample.py', '--language', 'python', '--gap', 'next', '--descend-classes', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).units.map((u) => u.name), ['norm', 'helper', 'Vector', '__init__', 'length', '']);
    const s = run('analyze', 'tests/fixtures/analysis/sample.py', '--segments', '16', '--json');
    assert.equal(JSON.parse(s.stdout).positions.unit[16], 1);
    const summary = run('analyze', 'tests/fixtures/analysis/sample.py');
    assert.match(summary.stdout, /python, \d+ lexical tokens, 5 units, 19 statements/);
  });

  it('attention --png writes a heatmap image; bench times attention', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-cli-')), 'a.png');
    const r = run('attention', 'tests/fixtures/analysis/sample.go', '--png', out, '--scheme', 'hirope', '--window', '8', '--size', '64', '--source', 'ones');
    assert.equal(r.status, 0, r.stderr);
    const png = fs.readFileSync(out);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), 64); // IHDR width
    assert.equal(png.readUInt32BE(20), 64); // IHDR height
    const json = run('attention', 'tests/fixtures/analysis/sample.go', '--png', out, '--scheme', '{"type":"self-extend","window":8,"group":4}');
    assert.equal(json.status, 0, json.stderr);
    const b = run('bench', '--n', '64', '--repeats', '1');
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stdout, /n=64 +rope .* ms/);
  });

  it('attention --png draws what the page draws: hr.pool means in the page colour map', async () => {
    const file = 'tests/fixtures/analysis/sample.go';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-cli-'));
    // The same matrix, in this process: the file's tokens, seeded q/k, HiRoPE with a window of 8.
    const hr = await init();
    const a = hr.analyze(fs.readFileSync(path.join(root, file), 'utf8'), { filename: file });
    const n = a.tokens.count;
    const { q, k } = hr.qk({ source: 'seeded', n, headDim: 64, tokenIds: a.tokens.ids, seed: 1 });
    const probs = hr.attention({ q, k, n, headDim: 64, positions: a.positions, scheme: { type: 'hirope', window: 8 } });
    // Fewer pixels than tokens (every pixel a mean over a block of entries), and more.
    for (const size of [32, n + 21]) {
      const out = path.join(dir, `${size}.png`);
      const r = run('attention', file, '--png', out, '--scheme', 'hirope', '--window', '8', '--size', String(size));
      assert.equal(r.status, 0, r.stderr);
      const png = decodePNG(fs.readFileSync(out));
      assert.equal(png.width, size);
      assert.equal(png.height, size);
      const cells = Math.min(size, n);
      const { ratio } = hr.pool({ matrix: probs, n, rows: cells, cols: cells, causal: true });
      let masked = 0;
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          // Pixel (x, y) shows cell (floor(x * cells / size), ...), as the page stretches its image.
          const cy = Math.floor((y * cells) / size);
          const cx = Math.floor((x * cells) / size);
          // Cells wholly above the diagonal (first key after the last query) are transparent.
          const above = Math.ceil((cx * n) / cells) > Math.ceil(((cy + 1) * n) / cells) - 1;
          const expected = above ? [0, 0, 0, 0] : [...rgb(LUTS.magma, probIndex(ratio[cy * cells + cx])), 255];
          const o = 4 * (y * size + x);
          assert.deepEqual([...png.rgba.subarray(o, o + 4)], expected, `size ${size}, pixel (${x}, ${y})`);
          if (above) masked++;
        }
      }
      assert.ok(masked > 0 && masked < size * size);
    }
  });

  it('prints help and fails with one clear line', () => {
    assert.match(run('--help').stdout, /usage: hirope <command>/);
    assert.match(run('analyze', '--help').stdout, /--tokenizer T/);
    assert.match(run('attention', '--help').stdout, /--png OUT/);
    assert.match(run('bench', '--help').stdout, /usage: hirope bench/);
    for (const [args, status, re] of [
      [['analyze', 'missing.py'], 1, /^hirope: cannot read missing.py: no such file\n$/],
      [['analyze', 'tests/fixtures/analysis/expected.json'], 1, /^hirope: cannot detect the language of/],
      [['analyze', 'tests/fixtures/analysis/sample.py', '--tokenizer', 'gpt9'], 1, /^hirope: tokenizer must be one of/],
      [['analyze'], 2, /^hirope: analyze needs exactly one FILE/],
      [['frobnicate'], 2, /^hirope: unknown command 'frobnicate'/],
      [['analyze', 'x.py', '--bogus'], 2, /^hirope: unknown option --bogus/],
      [['attention', 'tests/fixtures/analysis/sample.py'], 2, /^hirope: attention needs --png OUT.png/],
      [['attention', 'tests/fixtures/analysis/sample.py', '--png', '/tmp/x.png', '--scheme', 'ropey'], 1, /^hirope: scheme.type must be one of/],
      [['attention', 'tests/fixtures/analysis/sample.py', '--png', '/tmp/x.png', '--head-dim', '7'], 1, /^hirope: headDim must be a positive even integer, got 7/],
      [['bench', '--n', 'abc'], 2, /^hirope: --n needs positive integers/],
    ]) {
      const r = run(...args);
      assert.equal(r.status, status, args.join(' '));
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});
