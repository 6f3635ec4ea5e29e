// A checkpoint's products on the GPU, shared by the Node (Dawn) and the Chromium runs: the
// checkpoints of tests/js/support/checkpoint-fixtures.py (every architecture), their linear
// layers and attention through lossAsync and logitsAsync against the same calls in WASM, and
// against transformers' float64 logits; the model's own positions and HiRoPE swapped in. Then a
// linear layer over the device's buffer limit (the CPU computes it) and a device lost in the
// middle of a forward (the CPU computes the rest): the same numbers. `hr` comes from
// init({ backend: 'webgpu' }); `base` is where the folders are (a path, or a URL in the page);
// expected(name, count) gives a case's float64 logits; say(line) logs progress.

const diff = (a, b) => {
  if (a.length !== b.length) throw new Error(`lengths ${a.length} and ${b.length}`);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

export async function checkpointsOnGPU(hr, base, cases, expected, say) {
  let worst = 0;
  for (const c of cases) {
    say(`case ${c.name}`);
    const model = await hr.model.fromPretrained(`${base}/${c.name}`);
    const ids = Int32Array.from(c.ids);
    const want = await expected(c.name, ids.length * c.vocab);
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of want) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    for (const scheme of [undefined, { type: 'hirope', window: 6 }]) {
      const options = scheme ? { scheme, hierarchy: 'segments' } : undefined;
      const gpuLogits = await model.logitsAsync(ids, options);
      const cpuLogits = model.logits(ids, options);
      const error = diff(gpuLogits, cpuLogits) / (hi - lo);
      worst = Math.max(worst, error);
      if (!(error <= 1e-4))
        throw new Error(`${c.name}: GPU logits differ from WASM by ${error} of the range`);
      if (!scheme && !(diff(gpuLogits, want) <= 2e-3 * (hi - lo)))
        throw new Error(`${c.name}: GPU logits differ from transformers'`);
      const gpuLoss = await model.lossAsync(ids, options);
      const cpuLoss = model.loss(ids, options);
      const lossError = diff(gpuLoss.losses, cpuLoss.losses);
      if (!(lossError <= 1e-3))
        throw new Error(`${c.name}: GPU losses differ from WASM by ${lossError}`);
    }
    // Every linear layer ran on the GPU: its weights are held there, and go with dispose().
    if (!(model.gpuBytes > 0)) throw new Error(`${c.name}: no weights on the GPU`);
    model.dispose();
    if (model.gpuBytes !== 0) throw new Error(`${c.name}: dispose() left weights on the GPU`);
  }

  const c = cases.find((x) => x.shards > 1);
  say(`case ${c.name}: a layer over the limit`);
  const ids = Int32Array.from(c.ids);
  const model = await hr.model.fromPretrained(`${base}/${c.name}`);
  const want = model.logits(ids);
  const close = (a) => diff(a, want) <= 1e-5;
  const gpu = hr._attention.gpu;
  const saved = gpu.limits.maxStorageBufferBindingSize;
  // 18 rows of 64 floats (the output layer's) are over it; the attention's q/k/v are not.
  gpu.limits.maxStorageBufferBindingSize = 4000;
  const mixed = await model.logitsAsync(ids);
  const some = model.gpuBytes;
  gpu.limits.maxStorageBufferBindingSize = saved;
  await model.logitsAsync(ids);
  if (!close(mixed))
    throw new Error(`a layer over the limit changed the logits by ${diff(mixed, want)}`);
  if (!(some > 0 && some < model.gpuBytes))
    throw new Error(`over the limit: ${some} bytes on the GPU, ${model.gpuBytes} without it`);
  say(`case ${c.name}: the device lost`);
  let calls = 0;
  const run = gpu.runLinear.bind(gpu);
  gpu.runLinear = (...args) => {
    if (++calls === 3) gpu.device.destroy();
    return run(...args);
  };
  const lost = await model.logitsAsync(ids);
  if (!close(lost))
    throw new Error(`a device lost mid-forward changed the logits by ${diff(lost, want)}`);
  if (!(calls >= 3)) throw new Error(`${calls} products reached the GPU`);
  if (hr.attentionBackend !== 'wasm') throw new Error('the attention still names a lost GPU');
  model.dispose();
  return { checkpoints: cases.length, worst };
}
