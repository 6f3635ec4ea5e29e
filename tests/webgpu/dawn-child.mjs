// One WebGPU check on Dawn, in a process of its own so that a crash fails the test that spawned
// it (tests/webgpu/node.test.mjs) instead of killing the runner. Run with --expose-gc: the checks
// collect garbage between calls, which makes lifetime bugs show on the first try. Each case is
// written synchronously before it runs, so the last line before a crash names the case.
//   node --expose-gc dawn-child.mjs snippet            the plain call, nothing kept alive
//   node --expose-gc dawn-child.mjs property SEED RUNS [MAX_N]  the property of property.mjs
//   node --expose-gc dawn-child.mjs lost               the device destroyed in the middle of a call
//   node --expose-gc dawn-child.mjs cross              every scheme on fixed shapes (cases.mjs)
//   node --expose-gc dawn-child.mjs limits             sizes and values refused before dispatch
//   node --expose-gc dawn-child.mjs checkpoints DIR    checkpoints on the GPU (checkpoints.mjs)
import fs from 'node:fs';
import fc from 'fast-check';
import { property, loseDeviceMidCall } from './property.mjs';
import { crossCheck } from './cases.mjs';
import { checkpointsOnGPU } from './checkpoints.mjs';

// Dawn's Node binding polls for its events by queueing itself with the global setImmediate for as
// long as a map or any other promise of its is pending (dawn/node's AsyncRunner), a loop that keeps
// a core busy while SwiftShader's threads compute: on the 2-core test machine it took a third of
// this process's CPU (the cross check: 25.9 CPU-s, 17.6 with one poll per millisecond). A poll per
// millisecond changes when a result is seen, never what it is. Only this harness does it: hirope
// leaves a program's globals alone.
globalThis.setImmediate = (callback, ...args) => setTimeout(callback, 1, ...args);

process.env.VK_ICD_FILENAMES ||= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ||= '/tmp';
const webgpu = await import('webgpu');
Object.assign(globalThis, webgpu.globals);
const { default: init, HiRoPEError } = await import('../../dist/index.js');

const say = (line) => fs.writeSync(1, `${line}\n`);
const collect = () => globalThis.gc?.();
const [mode, ...rest] = process.argv.slice(2);

if (mode === 'snippet') {
  // As a user writes it: the object create() returns is not kept by the caller.
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]), analysis: false });
  const n = 131,
    d = 72;
  const arr = (seed) =>
    Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 12.9898 + seed));
  const args = { q: arr(21), k: arr(23), n, headDim: d };
  const want = hr.attention(args);
  collect();
  const copies = { q: args.q.map((x) => x), k: args.k.map((x) => x), n, headDim: d };
  const got = [await hr.attentionAsync(args), await hr.attentionAsync(copies)];
  collect();
  got.push(await hr.attentionAsync(args));
  for (const g of got) {
    let worst = 0;
    for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(g[i] - want[i]));
    if (!(worst <= 1e-5)) throw new Error(`WebGPU differs from WASM by ${worst}`);
  }
  say(`ok ${hr.attentionBackend}`);
} else if (mode === 'property') {
  const [seed, numRuns, maxN] = rest.map(Number);
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]), analysis: false });
  let runs = 0;
  await fc.assert(
    property(fc, hr, (c) => say(`case ${JSON.stringify(c)}`), maxN || undefined).afterEach(() => {
      runs++;
      collect();
    }),
    { seed, numRuns, endOnFailure: true },
  );
  say(`ok ${runs} runs`);
} else if (mode === 'lost') {
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]), analysis: false });
  const { args, want } = await loseDeviceMidCall(hr);
  // Later calls go to WASM too, and errors stay HiRoPEErrors.
  const again = await hr.attentionAsync(args);
  if (!again.every((x, i) => x === want[i])) throw new Error('the next call differs from WASM');
  const bad = await hr.attentionAsync({ ...args, n: 0 }).then(
    () => null,
    (e) => e,
  );
  if (!(bad instanceof HiRoPEError)) throw new Error(`a bad call after the loss gave ${bad}`);
  say('ok lost');
} else if (mode === 'cross') {
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]) });
  const { compared, worst, failures, realLayers } = await crossCheck(hr);
  if (failures.length) throw new Error(failures.join('\n'));
  say(
    `ok ${hr.attentionBackend} (dawn, ${hr.gpuAdapter}): ${compared} comparisons, worst relative error ${worst.toExponential(2)}; ${realLayers.cases} real layers against transformers, worst |error| ${realLayers.worst.toExponential(2)}`,
  );
} else if (mode === 'limits') {
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]), analysis: false });
  const { q, k } = hr.qk({ n: 64, headDim: 8 });
  const reason = async (args) =>
    hr.attentionAsync(args).then(
      () => 'resolved',
      (e) => (e instanceof HiRoPEError ? e.message : `not a HiRoPEError: ${e}`),
    );
  const bad = q.slice();
  bad[3] = NaN;
  const saved = hr._attention.gpu.limits.maxStorageBufferBindingSize;
  hr._attention.gpu.limits.maxStorageBufferBindingSize = 4096;
  say(`refused ${await reason({ q, k, n: 64, headDim: 8 })}`);
  hr._attention.gpu.limits.maxStorageBufferBindingSize = saved;
  say(`refused ${await reason({ q: bad, k, n: 64, headDim: 8 })}`);
  // The device still works after the refusals.
  const want = hr.attention({ q, k, n: 64, headDim: 8 });
  const got = await hr.attentionAsync({ q, k, n: 64, headDim: 8 });
  if (!got.every((x, i) => Math.abs(x - want[i]) <= 1e-5))
    throw new Error('the call after the refusals differs from WASM');
  say(`ok ${hr.attentionBackend}`);
} else if (mode === 'checkpoints') {
  const [folder] = rest;
  const cases = JSON.parse(fs.readFileSync(`${folder}/cases.json`, 'utf8'));
  const hr = await init({ backend: 'webgpu', gpu: webgpu.create([]) });
  const r = await checkpointsOnGPU(
    hr,
    folder,
    cases,
    async (name, count) => {
      const buf = fs.readFileSync(`${folder}/${name}/expected.bin`);
      return new Float64Array(buf.buffer, buf.byteOffset, count);
    },
    (line) => {
      say(line);
      collect();
    },
  );
  say(`ok ${r.checkpoints} checkpoints, worst ${r.worst.toExponential(2)} of the logits' range`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
