// The runtime data list (models/registry.json) for JavaScript, hirope/registry: the shipped code
// models, the built-in tokenizers' data files, the truncate baseline's stride and the evaluation's
// presets. The one reader: the runtime, bin/, lib/, training/ and the playground import it. Free
// of Node; the registry comes as a module (registry-data.js, written by
// tools/write-registry-data.mjs when dist/ is assembled), and so does the config gallery's list
// (config-gallery.js, from models/configs/index.json). python/hirope/_registry.py reads the
// same file for Python. Paths in it are the repository's.
import REGISTRY from './registry-data.js';
import CONFIGS from './config-gallery.js';

export { REGISTRY };

/**
 * The gallery of real config.json files (models/configs/index.json), in its order: { id, model },
 * each file shipped as data/configs/<id>.json (hr.fromConfig reads one).
 */
export const CONFIG_GALLERY = Object.freeze(CONFIGS.map((c) => Object.freeze({ ...c })));

/** The registry's model names, in its order. */
export const MODEL_NAMES = Object.freeze(REGISTRY.models.map((m) => m.name));
/** The model hr.model.load() loads without a name. */
export const DEFAULT_MODEL = REGISTRY.default;
/** The shipped code models' weights files (data/), by the name hr.model.load({ name }) takes. */
export const MODEL_FILES = Object.freeze(
  Object.fromEntries(REGISTRY.models.map((m) => [m.name, m.weights])),
);
/**
 * The built-in tokenizers, each a data file under data/ loaded on first use: name -> file, in the
 * registry's order. The one list of names: hr.tokenizers, the CLI's --tokenizer choices and
 * dataURL's files come from it; index.js's URL literals (for bundlers) and index.d.ts's
 * TokenizerName are checked against it (tests/js/tokenizer-builtins.test.mjs).
 */
export const TOKENIZER_FILES = Object.freeze({ ...REGISTRY.tokenizers.files });
/** The largest tokenizer.json accepted (the core's TokenizerJsonLimits), checked before copying. */
export const MAX_TOKENIZER_JSON_BYTES = REGISTRY.tokenizers.max_json_bytes;

/** A model's registry entry ({ name, weights, config, manifest }), the default one without a name. */
export function registryEntry(name = REGISTRY.default) {
  const m = REGISTRY.models.find((x) => x.name === name);
  if (!m) throw new Error(`--model must be one of ${MODEL_NAMES.join(', ')}, got ${name}`);
  return m;
}

/** The truncate baseline's stride at a training context (window) L: L / 8, at least 1. */
export const truncateStride = (L) => Math.max(1, Math.floor(L / REGISTRY.truncate.stride_divisor));
