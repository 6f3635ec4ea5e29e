// Attention benchmark: hirope WASM SIMD, WASM scalar (both in this process), the native build
// (g++ -O3 -march=native, a child process) and @tensorflow/tfjs-backend-wasm single-threaded,
// on the same shapes. Medians over repeats after a warm-up.
//
//   node bench/attention.mjs [--repeats 5] [--n 512,1024,2048,4096] [--d 64,128] [--json out.json]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const REPEATS = Number(opt('repeats', 5));
const NS = opt('n', '512,1024,2048,4096').split(',').map(Number);
const DS = opt('d', '64,128').split(',').map(Number);
const JSON_OUT = opt('json', null);

function median(fn, repeats = REPEATS) {
  // Warm-up: at least 3 runs and 400 ms, so V8 has tiered the WASM up to optimised code.
  const warmStart = performance.now();
  for (let i = 0; i < 3 || performance.now() - warmStart < 400; i++) fn();
  const times = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

// --- our WASM builds --------------------------------------------------------------------------
const CASES = [
  { name: 'rope-probs', scheme: 'rope', causal: true, output: 'probs' },
  {
    name: 'hirope-probs',
    scheme: { type: 'hirope', segmentSize: 64 },
    causal: true,
    output: 'probs',
  },
  { name: 'rope-full-probs', scheme: 'rope', causal: false, output: 'probs' },
  { name: 'rope-full-logits', scheme: 'rope', causal: false, output: 'logits' },
];
const results = [];
const record = (impl, kase, n, d, ms) => results.push({ impl, case: kase, n, d, ms });

for (const simd of [true, false]) {
  const hr = await init({ simd });
  for (const d of DS) {
    for (const n of NS) {
      const { q, k } = hr.qk({ n, headDim: d, seed: 1 });
      const out = new Float32Array(n * n);
      for (const c of CASES) {
        const ms = median(() =>
          hr.attention({
            q,
            k,
            n,
            headDim: d,
            scheme: c.scheme,
            causal: c.causal,
            output: c.output,
            out,
          }),
        );
        record(hr.backend, c.name, n, d, ms);
      }
      // A fresh output array per call costs page faults on first touch; measured once, plainly.
      record(
        'wasm-simd-fresh',
        'rope-full-probs',
        n,
        d,
        median(() => hr.attention({ q, k, n, headDim: d, causal: false })),
      );
      if (simd) process.stderr.write(`wasm n=${n} d=${d} done\n`);
    }
  }
  if (simd) record('wasm-simd', 'heap-bytes', 0, 0, hr.heapBytes());
}

// --- native (same core, g++ -O3 -march=native) -------------------------------------------------
const nativeDir = path.join(root, 'build/native-bench');
try {
  if (!fs.existsSync(path.join(nativeDir, 'CMakeCache.txt'))) {
    execFileSync(
      'cmake',
      [
        '-S',
        root,
        '-B',
        nativeDir,
        '-DCMAKE_BUILD_TYPE=Release',
        '-DHIROPE_NATIVE_ARCH=ON',
        '-DHIROPE_TESTS=OFF',
      ],
      { stdio: 'ignore' },
    );
  }
  execFileSync('cmake', ['--build', nativeDir, '-j2', '--target', 'hirope_bench'], {
    stdio: 'ignore',
  });
  const out = execFileSync(
    path.join(nativeDir, 'hirope_bench'),
    [String(REPEATS), NS.join(','), DS.join(',')],
    { encoding: 'utf8' },
  );
  for (const line of out.trim().split('\n')) {
    const r = JSON.parse(line);
    record(r.impl === 'native-eigen' ? 'native-eigen' : 'native', r.case, r.n, r.d, r.ms);
  }
} catch (e) {
  console.error(`native benchmark skipped: ${e.message}`);
}

// --- tfjs-backend-wasm, single-threaded ----------------------------------------------------------
try {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  tf.env().set('WASM_HAS_SIMD_SUPPORT', true);
  wasm.setWasmPaths(path.join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/');
  await tf.setBackend('wasm');
  await tf.ready();
  const hr = await init({ simd: true });
  for (const d of DS) {
    for (const n of NS) {
      const { q, k } = hr.qk({ n, headDim: d, seed: 1 });
      const Q = tf.tensor2d(q, [n, d]);
      const K = tf.tensor2d(k, [n, d]);
      const scale = 1 / Math.sqrt(d);
      const ms = median(
        () => {
          const p = tf.tidy(() => tf.softmax(tf.mul(tf.matMul(Q, K, false, true), scale)));
          p.dataSync();
          p.dispose();
        },
        Math.min(REPEATS, n >= 4096 ? 3 : REPEATS),
      );
      record('tfjs-wasm', 'full-probs', n, d, ms);
      Q.dispose();
      K.dispose();
      process.stderr.write(`tfjs n=${n} d=${d} done\n`);
    }
  }
} catch (e) {
  console.error(`tfjs benchmark skipped: ${e.message}`);
}

// --- report ----------------------------------------------------------------------------------------
const get = (impl, kase, n, d) =>
  results.find((r) => r.impl === impl && r.case === kase && r.n === n && r.d === d)?.ms;
const f1 = (x) => (x === undefined ? '–' : x < 10 ? x.toFixed(2) : x.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined ? '–' : `${(a / b).toFixed(2)}x`);
const gflops = (n, d, ms) => (ms === undefined ? '–' : ((2 * n * n * d) / (ms * 1e6)).toFixed(1));

const lines = [];
lines.push(
  `hirope attention benchmark — ${os.cpus()[0].model.trim()}, ${os.cpus().length} cores, Node ${process.version}`,
);
lines.push(
  `median of ${REPEATS} runs after a warm-up; times in ms; one head; probs = row softmax output copied into a JS Float32Array`,
);
lines.push('');
lines.push(
  '| n | d | simd rope | simd hirope | scalar hirope | native hirope | simd full rope | simd full, fresh out | tfjs full | tfjs / simd full | tfjs / simd hirope | simd / native | qk GFLOP/s simd | eigen / tiled |',
);
lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const d of DS) {
  for (const n of NS) {
    const simdRope = get('wasm-simd', 'rope-probs', n, d);
    const simdHi = get('wasm-simd', 'hirope-probs', n, d);
    const scalarHi = get('wasm-scalar', 'hirope-probs', n, d);
    const nativeHi = get('native', 'hirope-probs', n, d);
    const simdFull = get('wasm-simd', 'rope-full-probs', n, d);
    const tfjs = get('tfjs-wasm', 'full-probs', n, d);
    const logits = get('wasm-simd', 'rope-full-logits', n, d);
    const eigen = get('native-eigen', 'hirope-probs', n, d);
    const fresh = get('wasm-simd-fresh', 'rope-full-probs', n, d);
    lines.push(
      `| ${n} | ${d} | ${f1(simdRope)} | ${f1(simdHi)} | ${f1(scalarHi)} | ${f1(nativeHi)} | ${f1(simdFull)} | ${f1(fresh)} | ${f1(tfjs)} | ${ratio(tfjs, simdFull)} | ${ratio(tfjs, simdHi)} | ${ratio(simdHi, nativeHi)} | ${gflops(n, d, logits)} | ${ratio(eigen, nativeHi)} |`,
    );
  }
}
lines.push('');
lines.push(
  'Our outputs are written into a reused Float32Array (`out`); "fresh out" allocates a new one per call, as tfjs\'s dataSync() does.',
);
lines.push(
  'Columns: "full" = no causal mask (the same n x n work tfjs does, plus our RoPE rotation); "hirope" = causal HiRoPE (window 512, segments of 64 tokens);',
);
lines.push(
  '"qk GFLOP/s" = 2 n^2 d / time of full RoPE logits (rotation and copy-out included); "eigen / tiled" = Eigen products instead of the tiled kernels, native (bench/native_bench.cpp).',
);
const heap = get('wasm-simd', 'heap-bytes', 0, 0);
if (heap)
  lines.push(
    `WASM heap after the run: ${(heap / 2 ** 20).toFixed(0)} MiB (outputs are streamed out in 4 MB strips, never held whole in the heap).`,
  );
console.log(lines.join('\n'));
if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(results, null, 2));
