// Static server for the built site (build/site: the playground, the embeddable element and its
// demo article). Sends a strict Content Security Policy (WebAssembly needs only
// 'wasm-unsafe-eval'; no inline scripts or styles) and no COOP/COEP headers.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.bin': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'";

/** The built site; HIROPE_SITE points elsewhere (as for scripts/build-site.mjs). */
export const SITE = process.env.HIROPE_SITE
  ? path.resolve(process.env.HIROPE_SITE)
  : path.join(root, 'build/site');

/** name.<10 hex digits>.ext: a file named by its content (scripts/build-site.mjs). */
const HASHED = /\.[0-9a-f]{10}\.[a-z]+$/;

function resolve(urlPath, base) {
  const clean = decodeURIComponent(urlPath.split('?')[0]);
  const file = path.normalize(path.join(base, clean.endsWith('/') ? clean + 'index.html' : clean));
  return file.startsWith(base + path.sep) ? file : null;
}

export function createServer({ base = SITE } = {}) {
  return http.createServer((req, res) => {
    let file = null;
    try {
      file = resolve(req.url, base);
    } catch {
      file = null;
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    // Content-hashed files never change under their name; everything else is revalidated.
    const stat = fs.statSync(file);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers = {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': HASHED.test(path.basename(file))
        ? 'public, max-age=31536000, immutable'
        : 'no-cache',
      etag,
      'content-length': String(stat.size), // Model mode shows a model's size before downloading it (HEAD)
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file).pipe(res);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!fs.existsSync(path.join(SITE, 'index.html'))) {
    console.error('hirope: build/site is missing; run npm start (or npm run build) first');
    process.exit(1);
  }
  const port = Number(process.env.PORT || 8080);
  const host = process.env.HOST || '127.0.0.1';
  createServer().listen(port, host, () => {
    console.log(
      `hirope: serving the page at http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/`,
    );
  });
}
