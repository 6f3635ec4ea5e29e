// The element's checkpoint attribute in Node: its attributes read (checkpoint, head, max-bytes,
// the schemes a checkpoint's side takes), each side's API scheme, the folder URL against the page,
// and the worker's CheckpointEngine over HTTP: one load per folder, max-bytes whichever element
// asks first, and each failure in one sentence. The drawn maps are tests/browser/
// element-checkpoint.test.mjs's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import init from '../../dist/index.js';
import { readAttributes } from '../../web/src/element/attributes.js';
import { checkpointURL, CHECKPOINT_MAX_BYTES } from '../../web/src/shared/checkpoint.js';
import { CheckpointEngine, checkpointSchemeOf } from '../../web/src/worker/checkpoint-engine.js';
import { writeCheckpointFixtures } from './support/checkpoint-fixtures.mjs';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';

const read = (map) => readAttributes((name) => (name in map ? map[name] : null), Object.keys(map));

describe('<hirope-attention checkpoint>: attributes', () => {
  it('reads the folder, layer, head, max-bytes and both sides, with only the attributes given', () => {
    const r = read({ checkpoint: 'm/', layer: '2', head: '3', 'max-bytes': '1000', window: '40' });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.checkpoint, {
      url: 'm/',
      layer: 2,
      head: 3,
      maxBytes: 1000,
      a: { layer: 2, window: 40, type: 'rope' },
      b: { layer: 2, window: 40, type: 'hirope' },
    });
    const plain = read({ checkpoint: ' https://x.org/m ' });
    assert.equal(plain.checkpoint.url, 'https://x.org/m');
    assert.equal(plain.checkpoint.maxBytes, CHECKPOINT_MAX_BYTES);
    assert.equal(plain.checkpoint.head, 0);
    assert.equal(read({ 'scheme-a': 'rope' }).checkpoint, null);
  });

  it('names what is wrong: head, max-bytes, a scheme a checkpoint cannot take, two models', () => {
    const problems = (map) => read(map).problems;
    assert.deepEqual(problems({ checkpoint: 'm/', head: '-1' }), [
      'The head attribute must be a head index (an integer >= 0), got "-1".',
    ]);
    assert.deepEqual(problems({ checkpoint: 'm/', 'max-bytes': '1e99' }), [
      'The max-bytes attribute must be a number of bytes (an integer > 0), got "1e99".',
    ]);
    assert.deepEqual(problems({ head: '1', 'max-bytes': '5' }), [
      'The head attribute needs the checkpoint attribute (a folder URL).',
      'The max-bytes attribute needs the checkpoint attribute (a folder URL).',
    ]);
    assert.match(
      problems({ checkpoint: 'm/', 'scheme-b': 'alibi' })[0],
      /^On a checkpoint, the scheme-b attribute must be rope .* \(hirope, rerope, leaky-rerope, self-extend\), got "alibi"\.$/,
    );
    assert.deepEqual(problems({ checkpoint: 'm/', model: 'llama-3.2-1b' }), [
      'An element shows one model: give it the checkpoint attribute, or the model or config attribute, not both.',
    ]);
  });

  it("gives each side's API scheme: its own positions, or a scheme with what it takes", () => {
    assert.equal(checkpointSchemeOf({ type: 'rope' }), 'model');
    assert.deepEqual(checkpointSchemeOf({ type: 'rope', scaling: 'yarn', factor: 4 }), {
      type: 'rope',
      scaling: { type: 'yarn', factor: 4 },
    });
    assert.deepEqual(checkpointSchemeOf({ type: 'hirope', window: 40, group: 8, ratio: 0.4 }), {
      type: 'hirope',
      window: 40,
      ratio: 0.4,
    });
    assert.deepEqual(checkpointSchemeOf({ type: 'self-extend', group: 8, ratio: 0.4 }), {
      type: 'self-extend',
      group: 8,
    });
  });

  it('resolves the folder against the page, and refuses what is not an http(s) folder', () => {
    assert.deepEqual(checkpointURL('models/m', 'https://blog.org/post/'), {
      url: 'https://blog.org/post/models/m/',
    });
    assert.deepEqual(checkpointURL('/m/', 'https://blog.org/post/'), {
      url: 'https://blog.org/m/',
    });
    assert.match(checkpointURL('ftp://x/m', 'https://blog.org/').problem, /http\(s\) folder URL/);
  });
});

describe('<hirope-attention checkpoint>: the worker', () => {
  let hr, fixtures, server, base;
  const requests = [];
  before(async () => {
    hr = await init();
    fixtures = writeCheckpointFixtures('hirope-element-engine-');
    fs.writeFileSync(
      path.join(fixtures, 'pybyte-llama/tokenizer.json'),
      JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] })),
    );
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      const file = path.join(fixtures, new URL(req.url, 'http://x').pathname);
      if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) return res.writeHead(404).end();
      const bytes = fs.readFileSync(file);
      res.writeHead(200, { 'content-length': bytes.length });
      res.end(req.method === 'HEAD' ? undefined : bytes);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}/`;
  });
  after(() => {
    server?.close();
    if (fixtures) fs.rmSync(fixtures, { recursive: true, force: true });
  });

  const request = (url, more = {}) => ({
    url,
    maxBytes: 1e9,
    code: 'def f(x):\n    return x + 1\n',
    language: 'python',
    layer: 0,
    head: 0,
    a: { type: 'rope' },
    b: { type: 'hirope' },
    ...more,
  });

  it('loads a folder once, and holds each request to its own max-bytes in either order', async () => {
    const url = `${base}pybyte-llama/`;
    const weights = fs.statSync(path.join(fixtures, 'pybyte-llama/model.safetensors')).size;
    for (const order of [
      [weights - 1, 1e9],
      [1e9, weights - 1],
    ]) {
      const engine = new CheckpointEngine(hr);
      requests.length = 0;
      const results = await Promise.allSettled(
        order.map((maxBytes) => engine.maps(request(url, { maxBytes }))),
      );
      const [small, large] = order[0] < order[1] ? results : [...results].reverse();
      assert.equal(large.status, 'fulfilled');
      assert.equal(large.value.n, 27);
      assert.equal(small.status, 'rejected');
      assert.match(
        small.reason.message,
        /^The checkpoint's (files|weights) take 1\.3 MB \(\d+ bytes\), more than this element's max-bytes of 1\.3 MB \(\d+ bytes\): raise max-bytes to show it\.$/,
      );
      assert.equal(
        requests.filter((r) => r === 'GET /pybyte-llama/model.safetensors').length,
        1,
        `one download (${order})`,
      );
      // Loaded: a later request reuses it.
      await engine.maps(request(url, { layer: 2, head: 3 }));
      assert.equal(requests.filter((r) => r === 'GET /pybyte-llama/model.safetensors').length, 1);
    }
  });

  it('says in one sentence that a server did not answer', async () => {
    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${closed.address().port}/m/`;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(new CheckpointEngine(hr).maps(request(url)), {
      name: 'PlaygroundError',
      message: `The checkpoint's config.json could not be fetched from ${url}: the server did not answer, or it does not allow this page's origin (CORS).`,
    });
  });
});
