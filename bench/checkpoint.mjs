// A Hugging Face checkpoint's forward (issue 51): a llama checkpoint with SmolLM2-135M's shape
// (hidden 576, 30 layers, 9 heads, 3 key/value heads, MLP 1536, vocabulary 49,152; random weights
// in BF16, 270 MB, written once by tests/python/checkpoint_reference.py into
// build/bench-checkpoint/), loaded through hr.model.fromPretrained (WASM SIMD, one thread) and
// hirope.Model.from_pretrained (Python, native, one thread); per side: the load time, the memory
// it holds, and the median of --repeats 512-token forwards (loss over every token: all 512 rows of
// logits), with the GFLOP/s the shape implies. Beside them, llama.cpp on the same weights as GGUF
// (tests/python/gguf_reference.py writes them): native with one thread (node-llama-cpp's prebuilt
// binary, F16 as its fastest CPU path) and compiled to WebAssembly (@wllama/wllama's single-thread
// build in headless Chromium, F32 as its fastest path), and the ratios. Run from the repository
// root after a build:
//   node bench/checkpoint.mjs [--tokens 512] [--repeats 3]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import init from '../dist/index.js';
import { wllamaForward } from './wllama-forward.mjs';
import { benchCheckpoint } from './smollm-checkpoint.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const tokens = arg('tokens', 512);
const repeats = arg('repeats', 3);
const { folder, SHAPE } = benchCheckpoint();

// FLOPs of one forward with every row's logits: the linear layers, q.k and p.v (causal: half).
const {
  hidden: H,
  layers: L,
  heads: NH,
  kv: NKV,
  d: D,
  ffn: I,
  vocab: V,
} = {
  hidden: SHAPE.hidden_size,
  layers: SHAPE.num_hidden_layers,
  heads: SHAPE.num_attention_heads,
  kv: SHAPE.num_key_value_heads,
  d: SHAPE.head_dim,
  ffn: SHAPE.intermediate_size,
  vocab: SHAPE.vocab_size,
};
const n = tokens;
const linear = L * (H * (NH + 2 * NKV) * D + NH * D * H + 3 * H * I) + V * H;
const flops = 2 * n * linear + L * 2 * NH * D * n * n; // 2 products of n^2/2 x D per head
const ids = Int32Array.from({ length: n }, (_, i) => (i * 7919 + 13) % V);
const median = (times) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)];

const hr = await init({ simd: true });
let t0 = performance.now();
const model = await hr.model.fromPretrained(folder);
const wasmLoad = performance.now() - t0;
const wasmTimes = [];
for (let r = 0; r < repeats; r++) {
  t0 = performance.now();
  model.loss(ids);
  wasmTimes.push(performance.now() - t0);
}
const wasm = median(wasmTimes);
const heap = hr.heapBytes?.() ?? null;

const py = JSON.parse(
  execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      `import json, resource, sys, time, numpy as np, hirope
t = time.perf_counter(); m = hirope.Model.from_pretrained(sys.argv[1]); load = time.perf_counter() - t
ids = np.array(json.loads(sys.argv[2]), dtype=np.int32); times = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); m.loss(ids); times.append(time.perf_counter() - t)
print(json.dumps({"load": load, "forward": sorted(times)[len(times) // 2],
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))`,
      folder,
      JSON.stringify(Array.from(ids)),
      String(repeats),
    ],
    { env: { ...process.env, PYTHONPATH: 'build/python', OMP_NUM_THREADS: '1' }, encoding: 'utf8' },
  ),
);

const size = fs.statSync(path.join(folder, 'model.safetensors')).size;
const row = (what, loadMs, forwardMs, memory) =>
  `| ${what} | ${(loadMs / 1000).toFixed(2)} | ${(forwardMs / 1000).toFixed(2)} | ${(flops / forwardMs / 1e6).toFixed(1)} | ${(memory / 2 ** 20).toFixed(0)} |`;
console.log(
  `SmolLM2-135M shape, BF16 file of ${(size / 2 ** 20).toFixed(0)} MiB, ${n}-token forward (${(flops / 1e9).toFixed(1)} GFLOP), median of ${repeats}`,
);
console.log('| | load s | forward s | GFLOP/s | memory MiB |');
console.log('|---|---:|---:|---:|---:|');
console.log(row('WASM SIMD (Node, one thread; WASM heap)', wasmLoad, wasm, heap ?? Number.NaN));
console.log(row('native (Python, one thread; max RSS)', py.load * 1000, py.forward * 1000, py.rss));
model.dispose();

// llama.cpp on the same weights: the GGUF files written once beside the checkpoint.
const gguf = (dtype) => {
  const file = path.join(folder, `model-${dtype}.gguf`);
  if (!fs.existsSync(file)) {
    console.log(`writing ${file} ...`);
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        `import sys; sys.path.insert(0, 'tests/python'); import gguf_reference as g
g.write_gguf_from_checkpoint(sys.argv[1], sys.argv[2], sys.argv[3])`,
        folder,
        file,
        dtype,
      ],
      { stdio: 'inherit' },
    );
  }
  return file;
};
const native = JSON.parse(
  execFileSync(
    process.execPath,
    ['bench/llama-cpp-forward.mjs', gguf('F16'), String(n), String(repeats), String(V)],
    { encoding: 'utf8' },
  ),
);
const wllama = await wllamaForward(gguf('F32'), n, repeats);
if (wllama.multithread) throw new Error('wllama ran its multi-thread build');
if (wllama.promptTokens !== n)
  throw new Error(`wllama's prompt was ${wllama.promptTokens} tokens, not ${n}`);
const lastFlops = flops - 2 * (n - 1) * V * H; // the last position's logits only
const rate = (work, ms) => (work / ms / 1e6).toFixed(1);
console.log('');
console.log('llama.cpp on the same weights (GGUF), one thread:');
console.log(
  '| | load s | forward s (all logits) | GFLOP/s | forward s (last logits) | GFLOP/s | memory MiB |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
console.log(
  `| node-llama-cpp, native, F16 (max RSS) | ${(native.load / 1000).toFixed(2)} | ${(native.every / 1000).toFixed(2)} | ${rate(flops, native.every)} | ${(native.last / 1000).toFixed(2)} | ${rate(lastFlops, native.last)} | ${(native.rss / 2 ** 20).toFixed(0)} |`,
);
console.log(
  `| wllama, WASM in Chromium, F32 | ${(wllama.load / 1000).toFixed(2)} | - | - | ${(wllama.prompt / 1000).toFixed(2)} | ${rate(lastFlops, wllama.prompt)} | - |`,
);
console.log('');
console.log(
  `hirope WASM SIMD against wllama: ${(wllama.prompt / wasm).toFixed(2)}x (wllama computes the last position's logits only, hirope every position's)`,
);
console.log(
  `hirope native against node-llama-cpp, both with every position's logits: ${(native.every / (py.forward * 1000)).toFixed(2)}x (last logits only for llama.cpp: ${(native.last / (py.forward * 1000)).toFixed(2)}x)`,
);
