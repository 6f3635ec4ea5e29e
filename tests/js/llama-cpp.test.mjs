// hr.model.fromPretrained against llama.cpp (issue 51, section 5): the same weights as a Hugging
// Face checkpoint and as the GGUF file llama.cpp's converter writes (q/k permuted for llama; written
// by tests/python/gguf_reference.py from the format's description, not from hirope's code), run by
// node-llama-cpp's prebuilt CPU binary on one thread. Its logits at every position, read through
// controlledEvaluate, equal hirope's within 2e-3 of their range (the tolerance; llama.cpp
// keeps its KV cache in F16), on both WASM builds: the model's own positions, a config's linear
// RoPE scaling, and a scheme swapped in on hirope's side (YaRN) against the same scaling in the GGUF.
// And llama.cpp compiled to WebAssembly (@wllama/wllama) in Chromium on the same files. Both
// packages are pinned devDependencies that download and compile nothing at install.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';
import { withWllamaPage } from '../../tools/wllama-page.mjs';
import { BUILDS, load } from './support/both-builds.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-llama-cpp-'));
execFileSync('/usr/bin/python3', [path.join(here, 'support/llama-cpp-fixtures.py'), fixtures]);
const CASES = JSON.parse(fs.readFileSync(path.join(fixtures, 'cases.json'), 'utf8'));
after(() => fs.rmSync(fixtures, { recursive: true, force: true }));

// llama.cpp's logits for every position of each case, n x vocab, computed once for both builds.
const llamaCpp = new Map();
before(async () => {
  // build: 'never': the prebuilt binary from the registry package or a failure, never a compile.
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  for (const c of CASES) {
    const model = await llama.loadModel({
      modelPath: path.join(fixtures, c.name, 'model.gguf'),
      gpuLayers: 0,
    });
    const context = await model.createContext({
      contextSize: 256,
      batchSize: 256,
      threads: 1,
    });
    try {
      const out = await context
        .getSequence()
        .controlledEvaluate(c.ids.map((id) => [id, { generateNext: { logits: true } }]));
      const rows = new Float64Array(c.ids.length * c.vocab);
      out.forEach((item, i) => {
        assert.equal(item.next.logits.size, c.vocab, `${c.name}: llama.cpp's vocabulary`);
        for (const [id, logit] of item.next.logits) rows[i * c.vocab + id] = logit;
      });
      llamaCpp.set(c.name, rows);
    } finally {
      await context.dispose();
      await model.dispose();
    }
  }
  await llama.dispose();
});

for (const build of BUILDS) {
  describe(`hr.model.fromPretrained against llama.cpp (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    test('gives the logits llama.cpp gives on the same weights (GGUF), at every position', async (t) => {
      for (const c of CASES) {
        const model = await hr.model.fromPretrained(path.join(fixtures, c.name));
        try {
          const ids = Int32Array.from(c.ids);
          const ours = model.logits(ids, c.scheme ? { scheme: c.scheme } : {});
          const theirs = llamaCpp.get(c.name);
          assert.equal(ours.length, theirs.length, c.name);
          let lo = Infinity;
          let hi = -Infinity;
          let worst = 0;
          for (let i = 0; i < theirs.length; i++) {
            lo = Math.min(lo, theirs[i]);
            hi = Math.max(hi, theirs[i]);
            worst = Math.max(worst, Math.abs(ours[i] - theirs[i]));
          }
          assert.ok(
            worst <= 2e-3 * (hi - lo),
            `${c.name}: logits differ from llama.cpp's by ${worst} (range ${hi - lo})`,
          );
          t.diagnostic(
            `${c.name}: worst |difference| ${worst.toExponential(2)} (range ${(hi - lo).toFixed(2)})`,
          );
        } finally {
          model.dispose();
        }
      }
    });
  });
}

// llama.cpp compiled to WebAssembly (@wllama/wllama, single-thread, in the shared Chromium) gives
// the next token's log-probabilities after a prompt: its top 5 (with their ids) equal hirope's
// log-softmax of the last row within 2e-3 of the logits' range. The prompt is text whose every byte
// is one token of the GGUF's vocabulary (bytes 33..63 are their own printable characters there).
describe('hr.model.fromPretrained against llama.cpp in WebAssembly (wllama, Chromium)', () => {
  test('gives the next-token log-probabilities wllama gives after a prompt', async (t) => {
    const hr = await load(true);
    const ids = Array.from({ length: 24 }, (_, i) => 33 + ((i * 7) % 31));
    // One page for every case: wllama's module compiles once.
    const fromWllama = await withWllamaPage(fixtures, (page) =>
      page.evaluate(
        async ({ files, prompt }) => {
          const out = [];
          for (const file of files) {
            const wllama = await window.loadWllama(file, 64);
            const r = await wllama.createCompletion({
              prompt,
              max_tokens: 1,
              temperature: 0,
              logprobs: 5,
              cache_prompt: false,
            });
            await wllama.exit();
            out.push({
              top: r.choices[0].logprobs.content[0].top_logprobs,
              promptTokens: r.timings.prompt_n,
            });
          }
          return out;
        },
        { files: CASES.map((c) => `${c.name}/model.gguf`), prompt: String.fromCharCode(...ids) },
      ),
    );
    for (const [k, c] of CASES.entries()) {
      const theirs = fromWllama[k];
      assert.equal(theirs.promptTokens, ids.length, `${c.name}: wllama's prompt tokens`);
      const model = await hr.model.fromPretrained(path.join(fixtures, c.name));
      try {
        const logits = model.logits(Int32Array.from(ids), c.scheme ? { scheme: c.scheme } : {});
        const last = logits.subarray((ids.length - 1) * c.vocab);
        const max = Math.max(...last);
        const logSum = max + Math.log(last.reduce((s, x) => s + Math.exp(x - max), 0));
        const range = max - Math.min(...last);
        assert.equal(theirs.top.length, 5, `${c.name}: wllama's top log-probabilities`);
        let worst = 0;
        for (const { id, logprob } of theirs.top)
          worst = Math.max(worst, Math.abs(last[id] - logSum - logprob));
        assert.ok(
          worst <= 2e-3 * range,
          `${c.name}: log-probabilities differ from wllama's by ${worst} (logits' range ${range})`,
        );
        t.diagnostic(`${c.name}: worst |difference| ${worst.toExponential(2)}`);
      } finally {
        model.dispose();
      }
    }
  });
});
