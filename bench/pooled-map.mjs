// The playground's pooled map at long lengths (issue 42 section 6): one side's attention pooled to
// 512 x 512 cells as the worker computes it (web/src/worker/pooled-map.js: chunks of rows, a yield
// to the event loop between them, no n x n matrix), at 8,192 and 32,768 tokens, head dim 128, in
// both WASM builds, against the same map in one call of the core. Medians over repeats after a
// warm-up; the target, 8k/d128 <= 1.5 s in WASM on this machine, is printed against the figure.
//
//   node bench/pooled-map.mjs [--repeats 5] [--n 8192,32768] [--d 128] [--builds simd,scalar]
//                             [--json out.json]
//
// 32,768 tokens take seconds per map (tens in the scalar build): there only RoPE's chunked map
// runs, 3 times, with no warm-up of its own (the 8k runs before it warmed the module up).
import fs from 'node:fs';
import os from 'node:os';
import init from '../dist/index.js';
import { poolInChunks, poolChunks, CHUNK_CELLS } from '../web/src/worker/pooled-map.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const REPEATS = Number(opt('repeats', 5));
const NS = opt('n', '8192,32768').split(',').map(Number);
const DS = opt('d', '128').split(',').map(Number);
const JSON_OUT = opt('json', null);
const BUILDS = opt('builds', 'simd,scalar').split(',');
const TARGET = { n: 8192, d: 128, ms: 1500 };
const SIZE = 512;

async function median(fn, repeats, warm = true) {
  if (warm) await fn(); // warm-up: V8 tiers the WASM up on the first long run
  const times = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const SCHEMES = {
  rope: { type: 'rope' },
  hirope: { type: 'hirope', segmentSize: 64 },
};
const results = [];
for (const simd of [true, false]) {
  if (!BUILDS.includes(simd ? 'simd' : 'scalar')) continue;
  const hr = await init({ simd });
  const build = simd ? 'simd' : 'scalar';
  for (const d of DS)
    for (const n of NS) {
      const { q, k } = hr.qk({ n, headDim: d, seed: 1, source: 'seeded' });
      const token = Int32Array.from({ length: n }, (_, i) => i);
      const grid = {
        rows: Math.min(SIZE, n),
        cols: Math.min(SIZE, n),
        region: { r0: 0, r1: n, c0: 0, c1: n },
      };
      const pool = () => ({
        ...grid,
        ratio: new Float32Array(grid.rows * grid.cols),
        raw: new Float32Array(grid.rows * grid.cols),
        rowMax: new Float32Array(n),
      });
      const long = n > 8192;
      const repeats = long ? 3 : REPEATS;
      for (const [name, scheme] of Object.entries(SCHEMES)) {
        if (long && name !== 'rope') continue;
        const call = {
          q,
          k,
          n,
          headDim: d,
          positions: { token },
          scheme,
          causal: true,
          output: 'probs',
        };
        const chunked = await median(() => poolInChunks(hr, call, pool()), repeats, !long);
        const once = long
          ? NaN
          : await median(
              async () => hr.attention({ ...call, matrix: false, pool: pool() }),
              repeats,
            );
        const chunks = poolChunks(n, grid, Math.ceil(CHUNK_CELLS / n)).length;
        results.push({ build, scheme: name, n, d, chunks, chunkedMs: chunked, onceMs: once });
        process.stderr.write(
          `${build} ${name} n=${n} d=${d}: ${chunked.toFixed(0)} ms in ${chunks} chunks${long ? '' : `, ${once.toFixed(0)} ms in one call`}\n`,
        );
      }
    }
}

console.log(
  `\nMachine: ${os.cpus()[0]?.model ?? 'unknown CPU'} x ${os.cpus().length}, Node ${process.version}. Median of ${REPEATS} after a warm-up (32k: of 3, RoPE only).\n`,
);
console.log(
  '| build | scheme | n | d | chunks | pooled map, chunked (ms) | one call (ms) | chunked / one call |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.build} | ${r.scheme} | ${r.n} | ${r.d} | ${r.chunks} | ${r.chunkedMs.toFixed(0)} | ${Number.isNaN(r.onceMs) ? '–' : r.onceMs.toFixed(0)} | ${Number.isNaN(r.onceMs) ? '–' : `${(r.chunkedMs / r.onceMs).toFixed(2)}x`} |`,
  );
console.log(
  `\nTarget: a pooled map at ${TARGET.n} tokens, head dim ${TARGET.d}, <= ${TARGET.ms / 1000} s in WASM on this machine:`,
);
for (const r of results.filter((x) => x.n === TARGET.n && x.d === TARGET.d))
  console.log(
    `  ${r.build} ${r.scheme}: ${(r.chunkedMs / 1000).toFixed(2)} s (${r.chunkedMs <= TARGET.ms ? 'met' : `missed by ${((r.chunkedMs / TARGET.ms - 1) * 100).toFixed(0)}%`})`,
  );
if (JSON_OUT) fs.writeFileSync(JSON_OUT, `${JSON.stringify(results, null, 2)}\n`);
