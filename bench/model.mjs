#!/usr/bin/env node
// The code model's speed, side by side with PyTorch on the same CPU and the same bytes:
// a forward pass (per-byte loss) over 1024 bytes in WASM SIMD and scalar and in PyTorch (Debian's
// python3-torch, 1 and 2 threads; the WASM build runs on one thread), and generation with the
// KV cache in WASM. Medians over repeats.
//
//   node bench/model.mjs [--repeats 7] [--bytes 1024] [--no-torch]
//   node bench/model.mjs --tokens [--repeats 7] [--no-torch]
//
// --tokens: the token model (models/pyjs-llama2.hrm) instead: loss() over 512, 1,024 and 2,048
// llama2 tokens of real held-out code in WASM SIMD (one thread), against PyTorch's forward and
// cross-entropy over the same ids (1 thread with OpenBLAS on 1 thread, and Debian's default).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';
import { manifestFiles, modelByName } from '../training/eval/data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const repeats = arg('--repeats', 21);
const length = arg('--bytes', 1024);
const weights = modelByName('pybyte').weights;

// Real code: the first held-out file of the manifest that is long enough, else a repo file.
function inputBytes() {
  for (const { path: file, bytes: size } of manifestFiles(modelByName('pybyte'), 'held-out')) {
    if (size >= length + 4096 && fs.existsSync(file))
      return {
        name: file,
        bytes: new Uint8Array(fs.readFileSync(file)).subarray(4096, 4096 + length),
      };
  }
  const file = path.join(root, 'src/model/model.cpp');
  return { name: file, bytes: new Uint8Array(fs.readFileSync(file)).subarray(0, length) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const fastest = {};
function time(fn, key) {
  fn(); // warm-up
  const times = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  if (key) fastest[key] = Math.min(...times);
  return median(times);
}

if (args.includes('--tokens')) {
  await tokenBench();
  process.exit(0);
}

async function tokenBench() {
  const tokenWeights = modelByName('pyjs-llama2').weights;
  const hr = await init({ simd: true });
  const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(tokenWeights)) });
  // Held-out files of the token model's manifest, joined until there are 2,048 tokens.
  const files = manifestFiles(modelByName('pyjs-llama2'), 'held-out')
    .map((f) => f.path)
    .filter((f) => fs.existsSync(f));
  let text = '';
  const used = [];
  for (const f of files) {
    if (hr.encode(text, { tokenizer: 'llama2' }).length >= 2048) break;
    text += fs.readFileSync(f, 'utf8');
    used.push(f);
  }
  const all = hr.encode(text, { tokenizer: 'llama2' });
  const out = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    node: process.version,
    files: used,
    repeats,
    rows: [],
  };
  console.log(
    `token model speed — ${out.machine}, Node ${process.version}; llama2 tokens of ${used.map((f) => path.basename(f)).join(', ')}; medians of ${repeats}`,
  );
  console.log('');
  console.log(
    '| tokens | hirope wasm-simd loss(), ms | PyTorch, 1 thread (OpenBLAS 1), ms | PyTorch, Debian default threads, ms |',
  );
  console.log('|---:|---:|---:|---:|');
  for (const n of [512, 1024, 2048]) {
    const ids = all.slice(0, n);
    const wasm = time(() => model.loss(ids));
    const torchMs = [];
    if (!args.includes('--no-torch')) {
      const tmp = path.join(os.tmpdir(), `hirope-bench-ids-${process.pid}.bin`);
      fs.writeFileSync(tmp, Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength));
      for (const blas of ['1', null]) {
        const env = { ...process.env };
        if (blas) env.OPENBLAS_NUM_THREADS = blas;
        else delete env.OPENBLAS_NUM_THREADS;
        try {
          const r = JSON.parse(
            execFileSync(
              '/usr/bin/python3',
              [
                '-m',
                'bench.model_torch',
                tokenWeights,
                tmp,
                '--ids',
                '--repeats',
                String(repeats),
                '--threads',
                blas ? '1' : String(os.cpus().length),
              ],
              { encoding: 'utf8', env, cwd: root },
            ),
          );
          torchMs.push(r.median_ms);
        } catch (e) {
          console.error(`bench: PyTorch not run (${e.message.split('\n')[0]})`);
          torchMs.push(NaN);
        }
      }
      fs.rmSync(tmp, { force: true });
    }
    out.rows.push({ tokens: n, wasmSimdMs: wasm, torchMs });
    console.log(
      `| ${n} | ${wasm.toFixed(0)} | ${torchMs[0]?.toFixed(0) ?? '—'} | ${torchMs[1]?.toFixed(0) ?? '—'} |`,
    );
  }
  fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'bench/results/model-tokens.json'),
    JSON.stringify(out, null, 2) + '\n',
  );
}

const input = inputBytes();
const rows = [];
const result = {
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
  node: process.version,
  input: input.name,
  bytes: input.bytes.length,
  repeats,
};
for (const simd of [true, false]) {
  const hr = await init({ simd });
  const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(weights)) });
  const forward = time(() => model.loss(input.bytes), `${hr.backend} RoPE`);
  const hirope = time(
    () =>
      model.loss(input.bytes, { scheme: { type: 'hirope', ratio: 1 / 3 }, hierarchy: 'segments' }),
    `${hr.backend} HiRoPE`,
  );
  // Generation: 256 bytes after a 256-byte prompt; the prompt's prefill is timed apart.
  const prompt = input.bytes.subarray(0, 256);
  const genOptions = { maxBytes: 256, temperature: 0.8, seed: 1 };
  const prefill = time(() => model.generate(prompt, { ...genOptions, maxBytes: 0 }));
  const gen = time(() => model.generate(prompt, genOptions));
  const genLong = time(() => model.generate(input.bytes.subarray(0, 768), genOptions));
  rows.push({ build: hr.backend, forward, hirope, prefill, gen, genLong });
  result[hr.backend] = {
    forwardMs: forward,
    hiropeForwardMs: hirope,
    prefillMs: prefill,
    generate256Ms: gen,
    bytesPerSecond: (256 * 1000) / (gen - prefill),
    bytesPerSecondAfter768: (256 * 1000) / genLong,
  };
}

const torch = [];
if (!args.includes('--no-torch')) {
  const tmp = path.join(os.tmpdir(), `hirope-bench-${process.pid}.bin`);
  fs.writeFileSync(tmp, input.bytes);
  // Three configurations: everything on one core (as the WASM build runs); Debian's default
  // (one torch thread, OpenBLAS on every core); two torch threads (each with OpenBLAS threads).
  const configs = [
    { threads: 1, blas: '1', label: '1 thread, OpenBLAS 1 thread' },
    { threads: 1, blas: null, label: '1 thread, OpenBLAS default threads (Debian default)' },
    { threads: 2, blas: null, label: '2 threads, OpenBLAS default threads' },
  ];
  for (const c of configs) {
    try {
      const env = { ...process.env };
      if (c.blas) env.OPENBLAS_NUM_THREADS = c.blas;
      else delete env.OPENBLAS_NUM_THREADS;
      const out = execFileSync(
        '/usr/bin/python3',
        [
          '-m',
          'bench.model_torch',
          weights,
          tmp,
          '--repeats',
          String(repeats),
          '--threads',
          String(c.threads),
        ],
        { encoding: 'utf8', env, cwd: root },
      );
      torch.push({ ...JSON.parse(out), label: c.label });
    } catch (e) {
      console.error(`bench: PyTorch not run (${e.message.split('\n')[0]}); install python3-torch`);
      break;
    }
  }
  fs.rmSync(tmp, { force: true });
}
result.torch = torch;

console.log(
  `code model speed — ${result.machine}, Node ${process.version}; ${input.bytes.length} bytes of ${path.basename(input.name)}; medians of ${repeats}`,
);
console.log('');
const ratio = (t, ms) => (t ? `${(t / ms).toFixed(2)}x` : '—');
// PyTorch's times on this VM spread widely (large temporaries, page faults), so both the
// median and the fastest run are shown; speed-ups are median over median.
console.log(
  `| forward over ${input.bytes.length} bytes | median ms | fastest ms | ${torch.map((_t, i) => `speed-up vs (${i + 1})`).join(' | ')} |`,
);
console.log(`|---|---:|---:|${torch.map(() => '---:|').join('')}`);
torch.forEach((t, i) => {
  console.log(
    `| (${i + 1}) PyTorch ${t.torch}, ${t.label} | ${t.median_ms.toFixed(1)} | ${Math.min(...t.times_ms).toFixed(1)} |${torch.map(() => ' |').join('')}`,
  );
});
for (const r of rows) {
  for (const [name, ms] of [
    ['RoPE', r.forward],
    ['HiRoPE', r.hirope],
  ]) {
    console.log(
      `| hirope ${r.build}, ${name} (1 thread) | ${ms.toFixed(1)} | ${fastest[`${r.build} ${name}`].toFixed(1)} | ${torch.map((t) => ratio(t.median_ms, ms)).join(' | ')} |`,
    );
  }
}
console.log('');
console.log(
  '| generation (KV cache, RoPE) | prefill 256 bytes, ms | 256 new bytes, bytes/s | 256 bytes after a 768-byte prompt, bytes/s (prefill included) |',
);
console.log('|---|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| hirope ${r.build} | ${r.prefill.toFixed(1)} | ${((256 * 1000) / (r.gen - r.prefill)).toFixed(0)} | ${((256 * 1000) / r.genLong).toFixed(0)} |`,
  );
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(
  path.join(root, 'bench/results/model.json'),
  JSON.stringify(result, null, 2) + '\n',
);
