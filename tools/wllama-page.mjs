// A headless Chromium page with llama.cpp compiled to WebAssembly (@wllama/wllama) and a folder of
// GGUF files, for the test and the bench that set hirope beside it: a local server gives the page,
// wllama's ES module and .wasm from node_modules, and the folder's files under /models/. The page
// is not cross-origin isolated, so wllama runs its single-thread build.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ESM = path.join(ROOT, 'node_modules/@wllama/wllama/esm');
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };

/**
 * Serves `folder`, opens the page and returns fn(page)'s result; closes both after. The page has
 * loadWllama(file, nCtx): a Wllama with the folder's `file` loaded, one thread, a context of nCtx
 * tokens, quiet but for errors.
 */
export async function withWllamaPage(folder, fn) {
  const models = path.resolve(folder);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>wllama</title>');
      return;
    }
    let file = null;
    for (const [prefix, dir] of [
      ['/models/', models],
      ['/wllama/', ESM],
    ]) {
      if (!url.pathname.startsWith(prefix)) continue;
      const inside = path.join(
        dir,
        path.normalize(decodeURIComponent(url.pathname.slice(prefix.length))),
      );
      if (inside.startsWith(`${dir}${path.sep}`)) file = inside;
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-length': fs.statSync(file).size,
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.addScriptTag({ content: LOAD_WLLAMA });
    return await fn(page);
  } finally {
    await browser.close();
    server.close();
  }
}

const LOAD_WLLAMA = `async function loadWllama(file, nCtx) {
  const { Wllama } = await import('/wllama/index.js');
  const quiet = () => {};
  const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, {
    logger: { debug: quiet, log: quiet, info: quiet, warn: quiet, error: console.error },
  });
  await wllama.loadModelFromUrl(location.origin + '/models/' + file, {
    n_ctx: nCtx, n_batch: nCtx, n_ubatch: nCtx, n_threads: 1, useCache: false,
  });
  return wllama;
}`;
