// In-page WebGPU cross-check (tests/webgpu/chromium.test.mjs loads it).
import init from '../../dist/index.js';
import { crossCheck } from './cases.mjs';

try {
  const hr = await init({ backend: 'webgpu' });
  const r = await crossCheck(hr);
  document.body.dataset.result = JSON.stringify({
    ...r,
    adapter: hr.gpuAdapter,
    backend: hr.attentionBackend,
  });
} catch (e) {
  document.body.dataset.result = JSON.stringify({ error: String(e?.stack || e) });
}
