#!/usr/bin/env node
// The code model's speed, side by side with PyTorch on the same CPU and the same bytes:
// a forward pass (per-byte loss) over 1024 bytes in WASM SIMD and scalar and in PyTorch (Debian's
// python3-torch, 1 and 2 threads; the WASM build runs on one thread), and generation with the
// KV cache in WASM. Medians over repeats.
//
//   node bench/model.mjs [--repeats 7] [--bytes 1024] [--no-torch]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const repeats = arg('--repeats', 7);
const length = arg('--bytes', 1024);
const weights = path.join(root, 'models/pybyte.hrm');

// Real code: the first held-out file of the manifest that is long enough, else a repo file.
function inputBytes() {
  const manifest = fs.readFileSync(path.join(root, 'training/manifest.tsv'), 'utf8').split('\n');
  for (const line of manifest) {
    const [file, size, , split] = line.split('\t');
    if (split === 'held-out' && Number(size) >= length + 4096 && fs.existsSync(file)) return { name: file, bytes: new Uint8Array(fs.readFileSync(file)).subarray(4096, 4096 + length) };
  }
  const file = path.join(root, 'src/model/model.cpp');
  return { name: file, bytes: new Uint8Array(fs.readFileSync(file)).subarray(0, length) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
function time(fn) {
  fn(); // warm-up
  const times = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const input = inputBytes();
const rows = [];
const result = { machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, node: process.version, input: input.name, bytes: input.bytes.length, repeats };
for (const simd of [true, false]) {
  const hr = await init({ simd });
  const model = await hr.model.load({ data: new Uint8Array(fs.readFileSync(weights)) });
  const forward = time(() => model.loss(input.bytes));
  const hirope = time(() => model.loss(input.bytes, { scheme: { type: 'hirope', ratio: 1 / 3 }, hierarchy: 'segments' }));
  // Generation: 256 bytes after a 256-byte prompt; the prompt's prefill is timed apart.
  const prompt = input.bytes.subarray(0, 256);
  const genOptions = { maxBytes: 256, temperature: 0.8, seed: 1 };
  const prefill = time(() => model.generate(prompt, { ...genOptions, maxBytes: 0 }));
  const gen = time(() => model.generate(prompt, genOptions));
  const genLong = time(() => model.generate(input.bytes.subarray(0, 768), genOptions));
  rows.push({ build: hr.backend, forward, hirope, prefill, gen, genLong });
  result[hr.backend] = { forwardMs: forward, hiropeForwardMs: hirope, prefillMs: prefill, generate256Ms: gen, bytesPerSecond: (256 * 1000) / (gen - prefill), bytesPerSecondAfter768: (256 * 1000) / genLong };
}

const torch = [];
if (!args.includes('--no-torch')) {
  const tmp = path.join(os.tmpdir(), `hirope-bench-${process.pid}.bin`);
  fs.writeFileSync(tmp, input.bytes);
  for (const threads of [1, 2]) {
    try {
      const out = execFileSync('/usr/bin/python3', [path.join(root, 'bench/model_torch.py'), weights, tmp, '--repeats', String(repeats), '--threads', String(threads)], { encoding: 'utf8' });
      torch.push(JSON.parse(out));
    } catch (e) {
      console.error(`bench: PyTorch not run (${e.message.split('\n')[0]}); install python3-torch`);
      break;
    }
  }
  fs.rmSync(tmp, { force: true });
}
result.torch = torch;

console.log(`code model speed — ${result.machine}, Node ${process.version}; ${input.bytes.length} bytes of ${path.basename(input.name)}; medians of ${repeats}`);
console.log('');
console.log('| forward over 1024 bytes | ms | vs PyTorch 2 threads | vs PyTorch 1 thread |');
console.log('|---|---:|---:|---:|');
const t2 = torch.find((t) => t.threads === 2)?.median_ms;
const t1 = torch.find((t) => t.threads === 1)?.median_ms;
const ratio = (t, ms) => (t ? `${(t / ms).toFixed(2)}x` : '—');
for (const t of torch) console.log(`| PyTorch ${t.torch}, ${t.threads} thread${t.threads > 1 ? 's' : ''} | ${t.median_ms.toFixed(1)} | | |`);
for (const r of rows) {
  console.log(`| hirope ${r.build}, RoPE | ${r.forward.toFixed(1)} | ${ratio(t2, r.forward)} | ${ratio(t1, r.forward)} |`);
  console.log(`| hirope ${r.build}, HiRoPE | ${r.hirope.toFixed(1)} | ${ratio(t2, r.hirope)} | ${ratio(t1, r.hirope)} |`);
}
console.log('');
console.log('| generation (KV cache, RoPE) | prefill 256 bytes, ms | 256 new bytes, bytes/s | 256 bytes after a 768-byte prompt, bytes/s (prefill included) |');
console.log('|---|---:|---:|---:|');
for (const r of rows) console.log(`| hirope ${r.build} | ${r.prefill.toFixed(1)} | ${((256 * 1000) / (r.gen - r.prefill)).toFixed(0)} | ${((256 * 1000) / r.genLong).toFixed(0)} |`);
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench/results/model.json'), JSON.stringify(result, null, 2) + '\n');
