// The runtime data list, models/registry.json, and its one JavaScript reader (wasm/registry.js,
// hirope/registry): the runtime's model and tokenizer tables, the bundlers' model URLs and the
// typings are the registry's, and the generated modules (tools/write-registry-data.mjs) say the same.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as registry from '../../dist/registry.js';
import * as runtime from '../../dist/runtime.js';
import init from '../../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const source = JSON.parse(fs.readFileSync(path.join(root, 'models/registry.json'), 'utf8'));
const names = source.models.map((m) => m.name);

describe('models/registry.json, read through hirope/registry', () => {
  it('is the data the reader serves, without its comments', () => {
    const strip = (v) =>
      Array.isArray(v)
        ? v.map(strip)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => k !== 'comment')
                .map(([k, x]) => [k, strip(x)]),
            )
          : v;
    assert.deepEqual(registry.REGISTRY, strip(source));
    assert.deepEqual(registry.MODEL_NAMES, names);
    assert.equal(registry.DEFAULT_MODEL, source.default);
    assert.deepEqual(registry.registryEntry(), source.models[0]);
    assert.throws(
      () => registry.registryEntry('nope'),
      /--model must be one of pybyte, pyjs-llama2, got nope/,
    );
    assert.equal(registry.truncateStride(256), 32);
    assert.equal(registry.truncateStride(7), 1);
  });

  it("is the runtime's model and tokenizer tables and the loader's model names", async () => {
    assert.equal(runtime.MODEL_FILES, registry.MODEL_FILES);
    assert.equal(runtime.TOKENIZER_FILES, registry.TOKENIZER_FILES);
    assert.equal(runtime.DEFAULT_MODEL, source.default);
    assert.equal(runtime.MAX_TOKENIZER_JSON_BYTES, 128 * 1024 * 1024);
    assert.deepEqual(
      runtime.MODEL_FILES,
      Object.fromEntries(source.models.map((m) => [m.name, m.weights])),
    );
    assert.deepEqual(runtime.TOKENIZER_FILES, source.tokenizers.files);
    const hr = await init();
    assert.deepEqual(hr.model.names, names);
    for (const m of source.models) {
      assert.ok(fs.existsSync(path.join(root, 'models', m.weights)), m.weights);
      assert.ok(fs.existsSync(path.join(root, 'dist/data', m.weights)), m.weights);
    }
  });

  it("gives bundlers one new URL() literal per model, which the full entry's data files spread", async () => {
    const text = fs.readFileSync(path.join(root, 'dist/model-urls.js'), 'utf8');
    for (const m of source.models)
      assert.ok(
        text.includes(`new URL("./data/${m.weights}", import.meta.url)`),
        `${m.name}: ${text}`,
      );
    const { MODEL_URLS } = await import('../../dist/model-urls.js');
    assert.deepEqual(
      Object.keys(MODEL_URLS),
      names.map((n) => `model:${n}`),
    );
    assert.equal(
      MODEL_URLS['model:pybyte']().href,
      pathToFileURL(path.join(root, 'dist/data/pybyte.hrm')).href,
    );
    assert.match(fs.readFileSync(path.join(root, 'wasm/index.js'), 'utf8'), /\.\.\.MODEL_URLS,/);
  });

  it("is the typings' model names", () => {
    const dts = fs.readFileSync(path.join(root, 'wasm/index.d.ts'), 'utf8');
    const union = names.map((n) => `'${n}'`).join(' | ');
    assert.ok(dts.includes(`readonly names: readonly (${union})[];`), union);
    assert.ok(dts.includes(`name?: ${union};`), union);
  });

  it('the generator writes the same modules again (dist/ is current)', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-registry-'));
    execFileSync(process.execPath, [path.join(root, 'tools/write-registry-data.mjs'), out]);
    for (const f of ['registry-data.js', 'model-urls.js', 'config-gallery.js'])
      assert.equal(
        fs.readFileSync(path.join(out, f), 'utf8'),
        fs.readFileSync(path.join(root, 'dist', f), 'utf8'),
        f,
      );
    fs.rmSync(out, { recursive: true });
  });

  it('refuses a model without a weights file name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-registry-'));
    fs.mkdirSync(path.join(dir, 'tools'));
    fs.mkdirSync(path.join(dir, 'models'));
    fs.copyFileSync(
      path.join(root, 'tools/write-registry-data.mjs'),
      path.join(dir, 'tools/write-registry-data.mjs'),
    );
    const broken = structuredClone(source);
    delete broken.models[1].weights;
    fs.writeFileSync(path.join(dir, 'models/registry.json'), JSON.stringify(broken));
    assert.throws(
      () =>
        execFileSync(process.execPath, [path.join(dir, 'tools/write-registry-data.mjs'), dir], {
          stdio: 'pipe',
        }),
      (e) => /model pyjs-llama2 has no weights file NAME\.hrm/.test(e.stderr.toString()),
    );
    fs.rmSync(dir, { recursive: true });
  });
});
