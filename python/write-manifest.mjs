// Writes the Python package's data manifest (hirope/data/manifest.json) from the JS runtime's
// tables, so that both APIs read one list: the built-in tokenizers and their data files
// (TOKENIZER_FILES), the shipped models (MODEL_FILES, DEFAULT_MODEL) and the largest
// tokenizer.json accepted; and the version, package.json's (hirope.__version__ and the Python
// package's metadata read it here). Usage: node python/write-manifest.mjs OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import {
  TOKENIZER_FILES,
  MODEL_FILES,
  DEFAULT_MODEL,
  MAX_TOKENIZER_JSON_BYTES,
} from '../wasm/runtime.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const manifest = {
  comment:
    'Written by python/write-manifest.mjs from wasm/runtime.js and package.json: the data files by name, the version.',
  version,
  tokenizers: TOKENIZER_FILES,
  models: MODEL_FILES,
  defaultModel: DEFAULT_MODEL,
  maxTokenizerJsonBytes: MAX_TOKENIZER_JSON_BYTES,
};
writeFileSync(process.argv[2], `${JSON.stringify(manifest, null, 2)}\n`);
