// Writes the JavaScript package's view of models/registry.json (the one list of the shipped models
// and the built-in tokenizers' data files), run by scripts/build.sh:
//   node tools/write-registry-data.mjs OUT_DIR
// OUT_DIR/registry-data.js: the registry as a module (wasm/registry.js reads it), so that browsers
// and bundlers load it without JSON modules; OUT_DIR/model-urls.js: each model's weights as a
// new URL() literal beside the package (wasm/index.js spreads them into its data files), so that a
// bundler copies them; only the full entry imports it, never hirope/lean or hirope/core;
// OUT_DIR/config-gallery.js: the real-model configs of models/configs/index.json, each its id and
// model id (the page and the element offer them; the files ship as data/configs/<id>.json).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node tools/write-registry-data.mjs OUT_DIR');
  process.exit(2);
}
const registry = JSON.parse(fs.readFileSync(path.join(root, 'models/registry.json'), 'utf8'));
for (const m of registry.models)
  if (!/^[a-z0-9][a-z0-9.-]*\.hrm$/.test(m.weights ?? ''))
    throw new Error(`models/registry.json: model ${m.name} has no weights file NAME.hrm`);

// The comments document the JSON file; the module leaves them out (every page bundles it).
const withoutComments = (value) =>
  Array.isArray(value)
    ? value.map(withoutComments)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => key !== 'comment')
            .map(([key, v]) => [key, withoutComments(v)]),
        )
      : value;

const header = (what) =>
  `// Written by tools/write-registry-data.mjs from models/registry.json (scripts/build.sh): ${what}\n`;
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(
  path.join(outDir, 'registry-data.js'),
  `${header('the registry without its comments, read through registry.js.')}export default ${JSON.stringify(withoutComments(registry))};\n`,
);
fs.writeFileSync(
  path.join(outDir, 'model-urls.js'),
  header("the shipped models' weights beside the package, as literals for bundlers (index.js).") +
    'export const MODEL_URLS = {\n' +
    registry.models
      .map(
        (m) =>
          `  ${JSON.stringify(`model:${m.name}`)}: () => new URL(${JSON.stringify(`./data/${m.weights}`)}, import.meta.url),\n`,
      )
      .join('') +
    '};\n',
);
const gallery = JSON.parse(fs.readFileSync(path.join(root, 'models/configs/index.json'), 'utf8'));
fs.writeFileSync(
  path.join(outDir, 'config-gallery.js'),
  `// Written by tools/write-registry-data.mjs from models/configs/index.json (scripts/build.sh): the gallery's configs, id and model id, read through registry.js.\nexport default ${JSON.stringify(gallery.entries.map(({ id, model }) => ({ id, model })))};\n`,
);
