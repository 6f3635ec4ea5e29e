// The WebGPU property in Chromium (tests/webgpu/chromium.test.mjs loads it through property.html):
// the same cases as on Dawn, then a device lost in the middle of a call (the call falls back to
// WASM with the same result) and a new instance that gets a device again. The query string sets
// the seed and the number of runs. Each case is logged before it runs.
import init from '../../dist/index.js';
import fc from './fast-check.bundle.mjs';
import { LOST_CASE, loseDeviceMidCall, property, runCases } from './property.mjs';

const params = new URLSearchParams(location.search);
const seed = Number(params.get('seed'));
const numRuns = Number(params.get('runs'));

async function lostAndRecovered() {
  const hr = await init({ backend: 'webgpu' });
  await loseDeviceMidCall(hr);
  const again = await init({ backend: 'webgpu' });
  const failure = await runCases(again, [
    LOST_CASE,
    { ...LOST_CASE, n: 131, headDim: 72, output: 'values' },
  ]);
  if (failure) throw new Error(`after recovery: ${failure}`);
  return again.attentionBackend;
}

try {
  const hr = await init({ backend: 'webgpu' });
  let runs = 0;
  await fc.assert(
    property(fc, hr, (c) => console.log(`case ${JSON.stringify(c)}`)).afterEach(() => runs++),
    { seed, numRuns, endOnFailure: true },
  );
  const recovered = await lostAndRecovered();
  document.body.dataset.result = JSON.stringify({
    runs,
    adapter: hr.gpuAdapter,
    backend: hr.attentionBackend,
    recovered,
  });
} catch (e) {
  document.body.dataset.result = JSON.stringify({ error: String(e?.stack || e) });
}
