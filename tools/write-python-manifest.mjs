// Writes the Python package's data manifest (hirope/data/manifest.json) from models/registry.json,
// the one list both packages read: the built-in tokenizers and their data files, the shipped models
// (name -> weights file) and the default one, the largest tokenizer.json accepted; and the version,
// package.json's (hirope.__version__ and the Python package's metadata read it here). Nothing of
// the JavaScript binding's source. Usage: node tools/write-python-manifest.mjs OUT.json
import { readFileSync, writeFileSync } from 'node:fs';

const read = (file) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const { version } = read('package.json');
const registry = read('models/registry.json');
const manifest = {
  comment:
    'Written by tools/write-python-manifest.mjs from models/registry.json and package.json: the data files by name, the version.',
  version,
  tokenizers: registry.tokenizers.files,
  models: Object.fromEntries(registry.models.map((m) => [m.name, m.weights])),
  defaultModel: registry.default,
  maxTokenizerJsonBytes: registry.tokenizers.max_json_bytes,
};
writeFileSync(process.argv[2], `${JSON.stringify(manifest, null, 2)}\n`);
