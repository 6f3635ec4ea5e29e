// llama.cpp compiled to WebAssembly (@wllama/wllama, its single-thread build) in headless Chromium,
// for bench/checkpoint.mjs: a GGUF file and a prompt of `tokens` tokens evaluated with the last
// position's logits (wllama's completion, one token generated). Returns the load time, the median
// prompt time llama.cpp reports (timings.prompt_ms), the prompt's token count as wllama counted it
// and whether it ran multi-threaded.
import path from 'node:path';
import { withWllamaPage } from '../tools/wllama-page.mjs';

export function wllamaForward(ggufFile, tokens, repeats) {
  return withWllamaPage(path.dirname(ggufFile), (page) =>
    page.evaluate(
      async ({ file, tokens, repeats }) => {
        const t0 = performance.now();
        const wllama = await window.loadWllama(file, tokens + 16);
        const load = performance.now() - t0;
        // One byte, one token: the GGUF's vocabulary has the bytes and no merges.
        const letters = 'abcdefghijklmnopqrstuvwxyz';
        const prompt = Array.from({ length: tokens }, (_, i) => letters[(i * 7) % 26]).join('');
        const times = [];
        let promptTokens = 0;
        for (let r = 0; r < repeats; r++) {
          const out = await wllama.createCompletion({
            prompt,
            max_tokens: 1,
            temperature: 0,
            cache_prompt: false,
          });
          times.push(out.timings.prompt_ms);
          promptTokens = out.timings.prompt_n;
        }
        times.sort((a, b) => a - b);
        const multithread = wllama.isMultithread();
        await wllama.exit();
        return { load, prompt: times[Math.floor(times.length / 2)], promptTokens, multithread };
      },
      { file: path.basename(ggufFile), tokens, repeats },
    ),
  );
}
