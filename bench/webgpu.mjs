// WebGPU vs WASM SIMD: attention probabilities, one head, d = 128, in Node on Dawn (`webgpu`).
//   node bench/webgpu.mjs [--n 1024,2048,4096,8192] [--repeats 3]
// Without a hardware GPU, Dawn runs on SwiftShader (a CPU rasteriser): those figures show that the
// path works, not how fast a GPU is; the script says which adapter it measured.
import os from 'node:os';
import init from '../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
process.env.VK_ICD_FILENAMES ||= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ||= '/tmp';
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gpu = create([]);
const hr = await init({ backend: 'auto', gpu, analysis: false });
const software = !hr.gpuAdapter || /swiftshader|llvmpipe/i.test(hr.gpuAdapter);
const NS = opt('n', software ? '256,512' : '1024,2048,4096,8192')
  .split(',')
  .map(Number);
const REPEATS = Number(opt('repeats', '3'));
const d = 128;

async function median(fn) {
  await fn();
  const times = [];
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

console.log(
  `hirope WebGPU benchmark — ${os.cpus()[0].model.trim()}, adapter: ${hr.gpuAdapter ?? 'none'}${software ? ' (software: correctness only, not GPU speed)' : ''}`,
);
console.log(
  `median of ${REPEATS} runs after a warm-up; probabilities, causal RoPE, one head, d = ${d}; times in ms`,
);
console.log('');
console.log('| n | WASM SIMD | WebGPU | WebGPU / WASM speed-up |');
console.log('|---|---|---|---|');
for (const n of NS) {
  const { q, k } = hr.qk({ n, headDim: d, seed: 1 });
  const a = { q, k, n, headDim: d, scheme: 'rope', out: new Float32Array(n * n) };
  const wasm = await median(async () => hr.attention(a));
  const webgpu = hr.attentionBackend === 'webgpu' ? await median(() => hr.attentionAsync(a)) : NaN;
  console.log(
    `| ${n} | ${wasm.toFixed(1)} | ${webgpu.toFixed(1)} | ${(wasm / webgpu).toFixed(2)}x |`,
  );
}
process.exit(0);
