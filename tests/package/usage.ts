// A typed usage example, type-checked with tsc --strict against the installed package.
import init, {
  HiRoPEError,
  BUILTIN_TOKENIZERS,
  segmentPositions,
  type BuiltinTokenizerName,
  type Analysis,
  type Scheme,
  type CodeModel,
  type ModelConfig,
  type SchemeCatalogue,
  type TokenizerName,
} from 'hirope';
import core from 'hirope/core';
import { createWorker, analyzeInWorker, type HiRoPEWorker } from 'hirope/worker';

const hr = await init({ simd: true, tokenizers: ['cl100k'] });
const backend: 'wasm-simd' | 'wasm-scalar' = hr.backend;
const catalogue: Readonly<SchemeCatalogue> = hr.catalogue;
const a: Analysis = hr.analyze('def f(x):\n    return x\n', {
  language: 'python',
  tokenizer: 'cl100k',
  gap: 'next',
});
const n = a.tokens.count;
const firstUnit: string = a.units[0].kind;
const schemes: Scheme[] = [
  'rope',
  { type: 'hirope', ratio: 0.5, window: 512, segmentSize: 64 },
  {
    type: 'rope',
    layout: 'interleaved',
    scaling: { type: 'yarn', factor: 4, originalLength: 4096 },
  },
  { type: 'self-extend', window: 1024, group: 8 },
];
const { q, k, v } = hr.qk({ source: 'seeded', n, headDim: 64, tokenIds: a.tokens.ids, seed: 1 });
for (const scheme of schemes) {
  const probs: Float32Array = hr.attention({
    q,
    k,
    n,
    headDim: 64,
    positions: a.positions,
    scheme,
    output: 'probs',
  });
  const out: Float32Array = hr.attention({
    q,
    k,
    v,
    n,
    headDim: 64,
    scheme,
    output: 'values',
    kernel: 'tiled',
  });
  console.log(probs.length, out.length);
}
const freqs: Float64Array = hr.inverseFrequencies({ type: 'rope', base: 500000 }, 128, {
  seqLen: 8192,
});
const bands = hr.relativeDistances({
  n: 16,
  headDim: 8,
  positions: segmentPositions(16, 4),
  scheme: { type: 'hirope', window: 3 },
});
const decay: Float32Array = hr.longTermDecay('rope', 64, 256);
const split: number = hr.splitFraction(4096);
const windowed: string[] = hr.catalogue.schemes.filter((s) => s.windowed).map((s) => s.label);
const extensions: string[] = hr.catalogue.languages.flatMap((l) => l.extensions);
const ranges: Array<string | null> = hr.catalogue.parameters.map((p) => p.range);
console.log(windowed, extensions, ranges);
try {
  hr.attention({ q, k, n, headDim: 63 });
} catch (e) {
  if (e instanceof HiRoPEError) console.log(e.message);
}
const light = await core({ simd: false, backend: 'auto' });
const onGpu: Float32Array = await light.attentionAsync({ q, k, n, headDim: 64 });
const where: 'webgpu' | 'wasm' = light.attentionBackend;
light.attentionBackend = 'wasm';
const adapter: string | null = light.gpuAdapter;
const builtins: readonly BuiltinTokenizerName[] = BUILTIN_TOKENIZERS;
console.log(onGpu.length, where, adapter, builtins.length);
const worker: HiRoPEWorker = createWorker({ tokenizers: ['llama2'] });
const qwen: 'qwen3' = await hr.loadTokenizer('qwen3');
const own: TokenizerName & `json-${string}` = await hr.loadTokenizer({ json: '{"model": {}}' });
const ownInWorker: TokenizerName = await worker.loadTokenizer({ json: new Uint8Array(2) });
const ids: Int32Array = hr.encode('x = 1', { tokenizer: own });
const back: string = hr.decode(ids, { tokenizer: qwen });
console.log(ownInWorker, back, hr.tokenizers.includes('deepseek-v3'));
const fromWorker: Analysis = await analyzeInWorker('int main() {}', {
  language: 'c',
  signal: new AbortController().signal,
});
const heap: number = hr.memory().ceilingBytes - hr.memory().inUseBytes;
console.log(
  catalogue.schemes.length,
  backend,
  firstUnit,
  freqs[0],
  bands[0].distances[0],
  decay[0],
  split,
  light.hasAnalysis,
  fromWorker.units.length,
  heap,
);
worker.terminate();
if (hr.model) {
  const model: CodeModel = await hr.model.load();
  const config: ModelConfig = model.config;
  const { losses, bitsPerByte } = model.loss('x = 1\n', {
    scheme: { type: 'hirope', ratio: 0.3 },
    hierarchy: 'segments',
  });
  const attention: Float32Array = model.attention('x = 1\n', { layer: 1, head: 0 }).matrix;
  const text: string = model.generate('def f', { maxBytes: 8, temperature: 0, seed: 2 }).text;
  console.log(config.trainingContext, losses.length, bitsPerByte, attention.length, text);
  // The async forms (a checkpoint's products on WebGPU; the sync ones' results otherwise).
  const gpuLoss: number = (await model.lossAsync('x = 1\n')).bitsPerByte;
  const gpuLogits: Float32Array = await model.logitsAsync('x = 1\n', { hierarchy: 'segments' });
  const held: number = model.gpuBytes;
  console.log(gpuLoss, gpuLogits.length, held);
  model.dispose();
}
