// llama.cpp's forward of a GGUF file, native, one thread (node-llama-cpp's prebuilt CPU binary),
// for bench/checkpoint.mjs: a child process so that its memory is its own. Prints one line of
// JSON: the load time, the medians of a forward with every position's logits and of one with the
// last position's only (as a prompt is evaluated), and the process's max RSS, in bytes and ms.
//   node bench/llama-cpp-forward.mjs FILE.gguf TOKENS REPEATS VOCAB
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';

const [file, tokens, repeats, vocab] = process.argv.slice(2);
const n = Number(tokens);
const ids = Array.from({ length: n }, (_, i) => (i * 7919 + 13) % Number(vocab));
const median = (times) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)];

// build: 'never': the registry package's prebuilt binary, never a compile.
const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
let t0 = performance.now();
const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
const load = performance.now() - t0;
const context = await model.createContext({ contextSize: n + 16, batchSize: n, threads: 1 });
const sequence = context.getSequence();
// One logit read back per position (the filter): llama.cpp still computes every row of logits.
const output = { generateNext: { logits: { filter: { tokens: [0] } } } };
const every = ids.map((id) => [id, output]);
const last = [...ids.slice(0, -1), [ids[n - 1], output]];
const times = { every: [], last: [] };
for (let r = 0; r < Number(repeats); r++) {
  for (const [what, input] of [
    ['every', every],
    ['last', last],
  ]) {
    await sequence.clearHistory();
    t0 = performance.now();
    const out = await sequence.controlledEvaluate(input);
    times[what].push(performance.now() - t0);
    if (out.filter(Boolean).length !== (what === 'every' ? n : 1))
      throw new Error(`llama.cpp gave ${out.filter(Boolean).length} outputs for ${what}`);
  }
}
await context.dispose();
await model.dispose();
await llama.dispose();
console.log(
  JSON.stringify({
    load,
    every: median(times.every),
    last: median(times.last),
    rss: process.resourceUsage().maxRSS * 1024,
  }),
);
