// In-page checkpoints on the GPU (tests/webgpu/chromium.test.mjs serves the fixtures at
// /checkpoints/ and loads this page): checkpoints.mjs's check, the folders fetched by URL.
import init from '../../dist/index.js';
import { checkpointsOnGPU } from './checkpoints.mjs';

try {
  const base = new URL('/checkpoints', location.href).href;
  const cases = await (await fetch(`${base}/cases.json`)).json();
  const hr = await init({ backend: 'webgpu' });
  const expected = async (name, count) =>
    new Float64Array(await (await fetch(`${base}/${name}/expected.bin`)).arrayBuffer(), 0, count);
  const r = await checkpointsOnGPU(hr, base, cases, expected, (line) => console.log(line));
  document.body.dataset.result = JSON.stringify({ ...r, adapter: hr.gpuAdapter });
} catch (e) {
  document.body.dataset.result = JSON.stringify({ error: String(e?.stack || e) });
}
