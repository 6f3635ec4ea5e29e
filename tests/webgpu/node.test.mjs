// WebGPU against WASM in Node, on Dawn (the `webgpu` package) with the SwiftShader Vulkan driver
// that Debian's Chromium ships: every scheme and shape, lost devices, limits, backend choice.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import init, { HiRoPEError } from '../../dist/index.js';
import { crossCheck } from './cases.mjs';

process.env.VK_ICD_FILENAMES ||= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ||= '/tmp';
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);

describe('WebGPU backend (Node, Dawn on SwiftShader)', () => {
  let gpu;
  before(() => {
    gpu = create([]);
  });

  it('matches WASM on every scheme and shape within 1e-4', async () => {
    const hr = await init({ backend: 'webgpu', gpu });
    assert.equal(hr.attentionBackend, 'webgpu');
    const { compared, worst, failures } = await crossCheck(hr);
    console.log(`# webgpu (dawn, ${hr.gpuAdapter}): ${compared} comparisons, worst relative error ${worst.toExponential(2)}`);
    assert.deepEqual(failures, []);
  });

  it('checks buffer sizes against the device limits before dispatch', async () => {
    const hr = await init({ backend: 'webgpu', gpu, analysis: false });
    hr._gpu.limits.maxStorageBufferBindingSize = 4096;
    const { q, k } = hr.qk({ n: 64, headDim: 8 });
    await assert.rejects(hr.attentionAsync({ q, k, n: 64, headDim: 8 }), (e) => e instanceof HiRoPEError && /needs GPU buffers of 16384 bytes, over this device's limit of 4096 bytes/.test(e.message));
    const bad = q.slice();
    bad[3] = NaN;
    await assert.rejects(hr.attentionAsync({ q: bad, k, n: 64, headDim: 8 }), /q contains a non-finite value \(NaN\) at index 3/);
  });

  it('falls back to WASM when the device is lost, with the same result', async () => {
    const hr = await init({ backend: 'webgpu', gpu, analysis: false });
    const { q, k } = hr.qk({ n: 20, headDim: 8, seed: 2 });
    const args = { q, k, n: 20, headDim: 8, scheme: { type: 'hirope', window: 4, segmentSize: 5 } };
    const want = hr.attention(args);
    hr._gpu.device.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const got = await hr.attentionAsync(args);
    assert.equal(hr.attentionBackend, 'wasm');
    assert.deepEqual(got, want);
  });

  it("picks the backend: 'auto' falls back, 'webgpu' without an adapter is an error", async () => {
    const none = { requestAdapter: async () => null };
    const auto = await init({ backend: 'auto', gpu: none, analysis: false });
    assert.equal(auto.attentionBackend, 'wasm');
    const { q, k } = auto.qk({ n: 4, headDim: 2 });
    assert.equal((await auto.attentionAsync({ q, k, n: 4, headDim: 2 })).length, 16);
    await assert.rejects(init({ backend: 'webgpu', gpu: none, analysis: false }), /no WebGPU adapter is available/);
    await assert.rejects(init({ backend: 'gpu' }), /options.backend must be 'wasm', 'webgpu' or 'auto'/);
  });
});
