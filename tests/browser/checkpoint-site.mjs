// The site with checkpoints beside it, for the browser tests of the checkpoint source
// (model-checkpoint.test.mjs) and the element's checkpoint attribute (element-checkpoint.test.mjs):
// the small checkpoints the tests make (tests/js/support/checkpoint-fixtures.mjs), hirope's byte
// model among them with a byte-level tokenizer.json, served under /checkpoints/ on the site's own
// origin (its CSP allows no other), with Content-Length and HEAD as a static host answers.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createServer } from '../../web/serve.mjs';
import { writeCheckpointFixtures } from '../js/support/checkpoint-fixtures.mjs';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';

/**
 * { url, fixtures (the folder), requests ('GET /checkpoints/...' for each one served), close() }.
 * extra(pathname, searchParams, res, req): a page of the test's own; true when it answered.
 */
export async function checkpointSite(prefix, extra = () => false) {
  const fixtures = writeCheckpointFixtures(prefix);
  fs.writeFileSync(
    path.join(fixtures, 'pybyte-llama/tokenizer.json'),
    JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] })),
  );
  const requests = [];
  const site = createServer().listeners('request')[0];
  const server = http.createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url, 'http://x');
    if (extra(pathname, searchParams, res, req)) return;
    if (!pathname.startsWith('/checkpoints/')) return site(req, res);
    requests.push(`${req.method} ${pathname}`);
    const file = path.join(fixtures, pathname.slice('/checkpoints/'.length));
    if (!file.startsWith(fixtures) || !fs.existsSync(file) || fs.statSync(file).isDirectory())
      return res.writeHead(404).end();
    const bytes = fs.readFileSync(file);
    res.writeHead(200, { 'content-length': bytes.length });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    fixtures,
    requests,
    close() {
      server.close();
      fs.rmSync(fixtures, { recursive: true, force: true });
    },
  };
}

/**
 * The API's options for the page's two sides on a checkpoint: A its own positions, B HiRoPE on
 * the units with B's window and ratio (state.b).
 */
export const checkpointSideOptions = ({ window, ratio }) => ({
  a: { scheme: 'model', language: 'python' },
  b: { scheme: { type: 'hirope', window, ratio }, language: 'python', hierarchy: 'units' },
});
