// WebGPU against WASM in Node, on Dawn (the `webgpu` package) with the SwiftShader Vulkan driver
// that Debian's Chromium ships. Every check that touches the GPU runs in a child process of its own
// (dawn-child.mjs), so that a crash fails its test, with the case it was on, instead of killing
// the runner: every scheme and shape, the property of property.mjs, a plain call that keeps nothing
// alive, a device lost mid-call, limits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { propertySeed } from './seed.mjs';
import { writeCheckpointFixtures } from '../js/support/checkpoint-fixtures.mjs';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dawn-child.mjs');

// Runs a mode of dawn-child.mjs; returns its stdout lines, or fails with how it ended and the last
// case it wrote.
function child(...args) {
  const r = spawnSync(process.execPath, ['--expose-gc', CHILD, ...args.map(String)], {
    encoding: 'utf8',
    timeout: 540000,
    maxBuffer: 64 << 20,
  });
  const lines = r.stdout.split('\n').filter(Boolean);
  if (r.status !== 0) {
    const last = lines.filter((l) => l.startsWith('case ')).pop() || '(none)';
    const how = r.signal
      ? `was killed by ${r.signal}`
      : r.error
        ? `failed: ${r.error.message}`
        : `exited with ${r.status}`;
    assert.fail(
      `dawn-child.mjs ${args.join(' ')} ${how}\nlast case: ${last}\n${r.stderr.slice(-4000)}`,
    );
  }
  return lines;
}

describe('WebGPU backend (Node, Dawn on SwiftShader)', () => {
  it('matches WASM on every scheme and shape within 1e-4', () => {
    const line = child('cross').pop();
    console.log(`# webgpu ${line.slice(3)}`);
    assert.match(line, /^ok webgpu /);
  });

  it("runs a checkpoint's linear layers and attention on the GPU: WASM's logits and losses, transformers' logits", () => {
    // The checkpoints of every architecture that tests/js/checkpoint.test.mjs reads, with
    // transformers' float64 logits (tests/js/support/checkpoint-fixtures.py).
    const folder = writeCheckpointFixtures('hirope-gpu-checkpoints-');
    try {
      const line = child('checkpoints', folder).pop();
      console.log(`# webgpu ${line.slice(3)}`);
      assert.match(line, /^ok \d+ checkpoints, worst /);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('survives a plain call whose gpu object the caller does not keep (issue: the process died)', () => {
    assert.deepEqual(child('snippet'), ['ok webgpu']);
  });

  it('holds the property on random shapes, scales, schemes, outputs and calls in flight', () => {
    const { seed, runs } = propertySeed('dawn');
    const lines = child('property', seed, runs);
    assert.equal(lines.pop(), `ok ${runs} runs`);
    assert.ok(lines.length >= runs, `${lines.length} cases for ${runs} runs`);
  });

  it('falls back to WASM with the same result when the device is lost in the middle of a call', () => {
    assert.deepEqual(child('lost'), ['ok lost']);
  });

  it('checks buffer sizes against the device limits and values before dispatch', () => {
    assert.deepEqual(child('limits'), [
      "refused n = 64 needs GPU buffers of 16384 bytes, over this device's limit of 4096 bytes",
      'refused q contains a non-finite value (NaN) at index 3',
      'ok webgpu',
    ]);
  });

  it("picks the backend: 'auto' falls back, 'webgpu' without an adapter is an error", async () => {
    const none = { requestAdapter: async () => null };
    const auto = await init({ backend: 'auto', gpu: none, analysis: false });
    assert.equal(auto.attentionBackend, 'wasm');
    const { q, k } = auto.qk({ n: 4, headDim: 2 });
    assert.equal((await auto.attentionAsync({ q, k, n: 4, headDim: 2 })).length, 16);
    await assert.rejects(
      init({ backend: 'webgpu', gpu: none, analysis: false }),
      /no WebGPU adapter is available/,
    );
    await assert.rejects(
      init({ backend: 'gpu' }),
      /options.backend must be 'wasm', 'webgpu' or 'auto'/,
    );
  });
});
