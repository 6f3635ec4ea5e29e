// hr.model.fromPretrained (issue 51): Hugging Face checkpoints of every architecture, written by
// tests/python/checkpoint_reference.py with its float64 transcription of transformers' forward
// (tests/js/support/checkpoint-fixtures.py), run through both WASM builds. Held to the issue's
// tolerances: logits within 2e-3 of their range, attention probabilities within 1e-4. The files
// arrive as a Node folder path, as bytes and as Blobs; hirope's own byte model exported as a llama
// checkpoint gives exactly hr.model.load's logits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tinyTokenizerFile } from '../fixtures/tiny-tokenizer.mjs';
import { BUILDS, load } from './support/both-builds.mjs';
import { writeCheckpointFixtures } from './support/checkpoint-fixtures.mjs';

const fixtures = writeCheckpointFixtures();
const CASES = JSON.parse(fs.readFileSync(path.join(fixtures, 'cases.json'), 'utf8'));
after(() => fs.rmSync(fixtures, { recursive: true, force: true }));

function expected(c) {
  const buf = fs.readFileSync(path.join(fixtures, c.name, 'expected.bin'));
  const all = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8);
  const n = c.ids.length;
  const logits = all.subarray(0, n * c.vocab);
  const attention = (layer, head) => {
    const at = n * c.vocab + (layer * c.heads + head) * n * n;
    return all.subarray(at, at + n * n);
  };
  return { logits, attention };
}

function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

// The folder's files as an object of bytes (or Blobs).
function filesOf(folder, asBlob = false) {
  const out = {};
  for (const name of fs.readdirSync(folder)) {
    if (name === 'expected.bin') continue;
    const bytes = new Uint8Array(fs.readFileSync(path.join(folder, name)));
    out[name] = asBlob ? new Blob([bytes]) : bytes;
  }
  return out;
}

for (const build of BUILDS) {
  describe(`hr.model.fromPretrained (${build.name})`, () => {
    let hr;
    before(async () => {
      hr = await load(build.simd);
    });

    test('every architecture equals transformers forward (float64 reference)', async () => {
      for (const c of CASES) {
        const model = await hr.model.fromPretrained(path.join(fixtures, c.name));
        try {
          assert.equal(model.checkpoint, true);
          assert.equal(model.config.modelType, c.arch);
          const ids = Int32Array.from(c.ids);
          const want = expected(c);
          const logits = model.logits(ids);
          let lo = Infinity;
          let hi = -Infinity;
          for (const x of want.logits) {
            lo = Math.min(lo, x);
            hi = Math.max(hi, x);
          }
          const error = maxDiff(logits, want.logits);
          assert.ok(
            error <= 2e-3 * (hi - lo),
            `${c.name}: logits off by ${error} (range ${hi - lo})`,
          );
          for (let layer = 0; layer < c.layers; layer++)
            for (let head = 0; head < c.heads; head++) {
              const { matrix } = model.attention(ids, { layer, head });
              const worst = maxDiff(matrix, want.attention(layer, head));
              assert.ok(worst <= 1e-4, `${c.name}: layer ${layer} head ${head} off by ${worst}`);
            }
          const loss = model.loss(ids);
          assert.equal(loss.losses.length, ids.length - 1);
          assert.ok(Number.isFinite(loss.bitsPerToken));
        } finally {
          model.dispose();
        }
      }
    });

    test('files as bytes or Blobs, with progress, equal the folder', async () => {
      const c = CASES.find((x) => x.shards > 1);
      const folder = path.join(fixtures, c.name);
      const ids = Int32Array.from(c.ids);
      const fromPath = await hr.model.fromPretrained(folder);
      const want = fromPath.logits(ids);
      fromPath.dispose();
      for (const asBlob of [false, true]) {
        const seen = [];
        const model = await hr.model.fromPretrained(filesOf(folder, asBlob), {
          onProgress: (p) => seen.push(p),
        });
        assert.deepEqual(model.logits(ids), want);
        assert.ok(seen.length > 0);
        assert.ok(seen.every((p) => p.stage === 'load'));
        const last = seen.at(-1);
        assert.equal(last.loaded, last.total);
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i].loaded > seen[i - 1].loaded);
        model.dispose();
      }
    });

    test('a folder served over HTTP loads as its files do; a missing file is named', async () => {
      // The fixtures folder, served as a static site (404 for what it lacks); under /chunked/
      // without Content-Length (chunked transfer), as a server that gives no sizes.
      const requests = [];
      const server = http.createServer((req, res) => {
        const url = new URL(req.url, 'http://x');
        const chunked = url.pathname.startsWith('/chunked/');
        const file = path.join(
          fixtures,
          decodeURIComponent(url.pathname.replace(/^\/chunked\//, '/')),
        );
        requests.push(`${req.method} ${path.basename(file)}`);
        if (!file.startsWith(fixtures) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
          res.writeHead(404).end();
          return;
        }
        const bytes = fs.readFileSync(file);
        if (!chunked) {
          res.writeHead(200, { 'content-length': bytes.length });
          res.end(req.method === 'HEAD' ? undefined : bytes);
          return;
        }
        res.writeHead(200);
        if (req.method === 'HEAD') return res.end();
        for (let at = 0; at < bytes.length; at += 4096) res.write(bytes.subarray(at, at + 4096));
        res.end();
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const base = `http://127.0.0.1:${server.address().port}`;
        const c = CASES.find((x) => x.shards > 1);
        const ids = Int32Array.from(c.ids);
        const local = await hr.model.fromPretrained(path.join(fixtures, c.name));
        for (const url of [`${base}/${c.name}/`, new URL(`${base}/${c.name}`)]) {
          const remote = await hr.model.fromPretrained(url);
          assert.deepEqual(remote.logits(ids), local.logits(ids));
          remote.dispose();
        }
        // Progress: the weights' bytes as they download, then the weights as they load.
        const folder = path.join(fixtures, c.name);
        const index = JSON.parse(
          fs.readFileSync(path.join(folder, 'model.safetensors.index.json'), 'utf8'),
        );
        const shards = [...new Set(Object.values(index.weight_map))];
        const weightBytes = shards.reduce(
          (sum, name) => sum + fs.statSync(path.join(folder, name)).size,
          0,
        );
        const total = fs
          .readdirSync(folder)
          .filter((f) =>
            ['config.json', 'tokenizer.json', 'model.safetensors.index.json', ...shards].includes(
              f,
            ),
          )
          .reduce((sum, name) => sum + fs.statSync(path.join(folder, name)).size, 0);
        for (const prefix of ['', '/chunked']) {
          const seen = [];
          const remote = await hr.model.fromPretrained(`${base}${prefix}/${c.name}/`, {
            onProgress: (p) => seen.push(p),
            maxBytes: total,
          });
          remote.dispose();
          const downloads = seen.filter((p) => p.stage === 'download');
          assert.ok(downloads.length > 0);
          assert.equal(downloads.at(-1).loaded, weightBytes);
          for (const p of downloads) assert.equal(p.total, prefix ? null : weightBytes);
          const first = seen.findIndex((p) => p.stage === 'load');
          assert.ok(first > 0 && seen.slice(first).every((p) => p.stage === 'load'));
        }
        // maxBytes: refused with both figures; where the server gives sizes, before any weight
        // downloads; where it does not, as soon as the bytes pass it.
        requests.length = 0;
        await assert.rejects(
          hr.model.fromPretrained(`${base}/${c.name}/`, { maxBytes: total - 1 }),
          {
            name: 'HiRoPEError',
            message: new RegExp(
              `take .* \\(${total} bytes\\), more than maxBytes .* \\(${total - 1} bytes\\)`,
            ),
          },
        );
        assert.deepEqual(
          requests.filter((r) => r.startsWith('GET') && r.endsWith('.safetensors')),
          [],
        );
        await assert.rejects(
          hr.model.fromPretrained(`${base}/chunked/${c.name}/`, { maxBytes: total - 1 }),
          { name: 'HiRoPEError', message: /more than maxBytes .*, and more was still arriving/ },
        );
        // downloadPretrained: the same files as a Map, which load as the folder does.
        const downloaded = await hr.model.downloadPretrained(`${base}/${c.name}`);
        assert.deepEqual(
          [...downloaded.keys()].sort(),
          ['config.json', 'model.safetensors.index.json', ...shards].sort(),
        );
        for (const [name, bytes] of downloaded)
          assert.deepEqual(Buffer.from(bytes), fs.readFileSync(path.join(folder, name)));
        const fromMap = await hr.model.fromPretrained(downloaded);
        assert.deepEqual(fromMap.logits(ids), local.logits(ids));
        fromMap.dispose();
        await assert.rejects(hr.model.downloadPretrained(folder), {
          name: 'HiRoPEError',
          message: /url must be an http\(s\) folder URL/,
        });
        // A folder path or its files: counted before a weight is read.
        for (const files of [folder, filesOf(folder)])
          await assert.rejects(hr.model.fromPretrained(files, { maxBytes: total - 1 }), {
            name: 'HiRoPEError',
            message: new RegExp(`\\(${total} bytes\\), more than maxBytes`),
          });
        (await hr.model.fromPretrained(folder, { maxBytes: total })).dispose();
        await assert.rejects(hr.model.fromPretrained(folder, { maxBytes: 0 }), {
          name: 'HiRoPEError',
          message: /maxBytes must be a positive number of bytes, got 0/,
        });
        local.dispose();
        await assert.rejects(hr.model.fromPretrained(`${base}/nothing-here/`), {
          name: 'HiRoPEError',
          message: /cannot fetch config.json from http:.*nothing-here\/: HTTP 404/,
        });
      } finally {
        server.close();
      }
    });

    test('inspectPretrained says what a load takes, from the headers alone', async () => {
      // The expected figures from the safetensors headers, read here: every tensor's elements
      // and stored bytes (the fixtures hold only the weights the forward reads).
      const headerOf = (file) => {
        const bytes = fs.readFileSync(file);
        const n = Number(bytes.readBigUInt64LE(0));
        return JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
      };
      for (const c of CASES) {
        const folder = path.join(fixtures, c.name);
        let parameters = 0;
        let weightBytes = 0;
        for (const f of fs.readdirSync(folder).filter((x) => x.endsWith('.safetensors')))
          for (const [name, t] of Object.entries(headerOf(path.join(folder, f)))) {
            if (name === '__metadata__') continue;
            parameters += t.shape.reduce((a, b) => a * b, 1);
            weightBytes += t.data_offsets[1] - t.data_offsets[0];
          }
        const r = await hr.model.inspectPretrained(filesOf(folder));
        assert.deepEqual(
          { ...r, workingBytes: r.workingBytes > 0 },
          {
            modelType: c.arch,
            layers: c.layers,
            heads: c.heads,
            kvHeads: r.kvHeads,
            parameters,
            weightBytes,
            workingBytes: true,
            budgetBytes: 2048 * 2 ** 20 - 64 * 2 ** 20,
            fits: true,
            memoryError: '',
          },
          c.name,
        );
        assert.ok(r.kvHeads >= 1 && r.heads % r.kvHeads === 0);
        // The loaded model agrees.
        const model = await hr.model.fromPretrained(folder);
        assert.equal(model.config.parameters, parameters);
        assert.equal(model.config.weightBytes, weightBytes);
        model.dispose();
      }
      // No weight is read: a file whose tensors' bytes are all 0xFF (NaN) inspects as the
      // whole one does, and fails to load (every weight is checked finite as it is read).
      const c = CASES.find((x) => x.dtype === 'F32' && x.shards === 1);
      const folder = path.join(fixtures, c.name);
      const files = filesOf(folder);
      const nan = Uint8Array.from(files['model.safetensors']);
      const start = 8 + Number(Buffer.from(nan).readBigUInt64LE(0));
      nan.fill(0xff, start);
      const poisoned = { ...files, 'model.safetensors': nan };
      assert.deepEqual(
        await hr.model.inspectPretrained(poisoned),
        await hr.model.inspectPretrained(files),
      );
      await assert.rejects(hr.model.fromPretrained(poisoned), {
        name: 'HiRoPEError',
        message: /finite/,
      });
      await assert.rejects(hr.model.inspectPretrained(path.join(fixtures, 'nope')), {
        name: 'HiRoPEError',
        message: /cannot open the checkpoint folder/,
      });
      const noConfig = filesOf(folder);
      delete noConfig['config.json'];
      await assert.rejects(hr.model.inspectPretrained(noConfig), {
        name: 'HiRoPEError',
        message: /the checkpoint folder has no config.json/,
      });
    });

    test("hirope's own model as a llama checkpoint gives hr.model.load's numbers", async () => {
      const own = await hr.model.load({ name: 'pybyte' });
      const model = await hr.model.fromPretrained(path.join(fixtures, 'pybyte-llama'));
      const code = 'def area(r):\n    return 3.14159 * r * r\n\nprint(area(2.0))\n';
      const bytes = new TextEncoder().encode(code);
      const ids = Int32Array.from(bytes);
      for (const scheme of ['rope', { type: 'hirope' }, { type: 'rerope', window: 16 }]) {
        const options = { scheme, hierarchy: 'segments', segmentSize: 8 };
        assert.deepEqual(model.logits(ids, options), own.logits(bytes, options));
      }
      assert.deepEqual(model.logits(ids), own.logits(bytes, { scheme: 'rope' }));
      // The baselines run on the checkpoint's own positions, as on hirope's model's RoPE.
      for (const scheme of [
        { type: 'sliding-window', window: 12 },
        { type: 'truncate', length: 16, stride: 4 },
      ]) {
        const a = model.loss(ids, { scheme }).losses;
        const b = own.loss(bytes, { scheme }).losses;
        let worst = 0;
        for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
        assert.ok(worst < 1e-4, `${scheme.type}: ${worst}`);
      }
      assert.deepEqual(
        model.attention(ids, { layer: 1, head: 2 }).matrix,
        own.attention(bytes, { scheme: 'rope', layer: 1, head: 2 }).matrix,
      );
      own.dispose();
      model.dispose();
    });

    test('a tokenizer.json in the folder tokenizes text input', async () => {
      const c = CASES.find((x) => x.arch === 'llama' && x.shards === 1);
      const files = filesOf(path.join(fixtures, c.name));
      files['tokenizer.json'] = JSON.stringify(
        tinyTokenizerFile({ tokens: ['ab'], merges: ['a b'] }),
      );
      // The tiny tokenizer has 257 ids; the checkpoint's vocabulary is c.vocab.
      const model = await hr.model.fromPretrained(files);
      assert.match(model.tokenizer, /^json-/);
      const text = '!"#$%&';
      const ids = Int32Array.from(new TextEncoder().encode(text)); // each byte its own id here
      assert.ok(ids.every((id) => id < c.vocab));
      assert.deepEqual(model.logits(text), model.logits(ids));
      const r = model.loss(text);
      assert.deepEqual(Array.from(r.tokens.ids), Array.from(ids));
      model.dispose();
    });

    test("greedy generation through the KV cache is the forward's argmax, step by step", async () => {
      const c = CASES.find((x) => x.arch === 'gemma2');
      const files = filesOf(path.join(fixtures, c.name));
      files['tokenizer.json'] = JSON.stringify(tinyTokenizerFile({ tokens: [], merges: [] }));
      const model = await hr.model.fromPretrained(files);
      const prompt = '!"#$%&';
      for (const scheme of [undefined, { type: 'rerope', window: 3 }]) {
        const { bytes } = model.generate(prompt, { scheme, maxBytes: 6, temperature: 0 });
        const ids = Array.from(new TextEncoder().encode(prompt));
        const expected = [];
        while (expected.length < 6) {
          const logits = model.logits(Int32Array.from(ids), { scheme });
          const row = logits.subarray((ids.length - 1) * c.vocab);
          let best = 0;
          for (let v = 1; v < c.vocab; v++) if (row[v] > row[best]) best = v;
          if (best >= 256) break; // no bytes: the end
          expected.push(best);
          ids.push(best);
        }
        assert.ok(expected.length >= 3, 'several steps through the cache');
        assert.deepEqual(Array.from(bytes), expected);
      }
      model.dispose();
    });

    test('bad input is a HiRoPEError saying what was wrong', async () => {
      const c = CASES[0];
      const folder = path.join(fixtures, c.name);
      await assert.rejects(hr.model.fromPretrained(path.join(fixtures, 'nope')), {
        name: 'HiRoPEError',
        message: /cannot open the checkpoint folder/,
      });
      await assert.rejects(hr.model.fromPretrained(42), {
        name: 'HiRoPEError',
        message: /files must be a folder path/,
      });
      const files = filesOf(folder);
      delete files['config.json'];
      await assert.rejects(hr.model.fromPretrained(files), {
        name: 'HiRoPEError',
        message: /the checkpoint folder has no config.json/,
      });
      const cut = filesOf(folder);
      cut['model.safetensors'] = cut['model.safetensors'].subarray(0, 100);
      await assert.rejects(hr.model.fromPretrained(cut), {
        name: 'HiRoPEError',
        message: /model\.safetensors/,
      });
      await assert.rejects(hr.model.fromPretrained(filesOf(folder), { onProgress: 1 }), {
        name: 'HiRoPEError',
        message: /onProgress must be a function/,
      });
      const model = await hr.model.fromPretrained(folder);
      assert.throws(() => model.logits('text'), {
        name: 'HiRoPEError',
        message: /no tokenizer.json: pass an Int32Array of token ids/,
      });
      assert.throws(() => model.logits(Int32Array.from([1, 2, c.vocab])), {
        name: 'HiRoPEError',
        message: /outside the model's vocabulary/,
      });
      assert.throws(() => model.generate('x'), {
        name: 'HiRoPEError',
        message: /generates with its tokenizer/,
      });
      model.dispose();
      // A callback that throws fails the load after it, and nothing stays loaded.
      await assert.rejects(
        hr.model.fromPretrained(folder, {
          onProgress: () => {
            throw new Error('stop');
          },
        }),
        /stop/,
      );
    });
  });
}
