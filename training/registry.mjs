// The model registry (training/models/registry.json) for JavaScript: the shipped models, where
// their training config and data manifest are, and the truncate baseline's stride. Free of Node,
// so that the playground bundles it too; training/registry.py reads the same file for the
// trainer. Paths are the repository's.
import REGISTRY from './models/registry.json' with { type: 'json' };

export { REGISTRY };

/** The registry's model names, in its order. */
export const MODEL_NAMES = Object.freeze(REGISTRY.models.map((m) => m.name));

/** A model's registry entry ({ name, config, manifest }), the default one without a name. */
export function registryEntry(name = REGISTRY.default) {
  const m = REGISTRY.models.find((x) => x.name === name);
  if (!m) throw new Error(`--model must be one of ${MODEL_NAMES.join(', ')}, got ${name}`);
  return m;
}

/** The truncate baseline's stride at a training context (window) L: L / 8, at least 1. */
export const truncateStride = (L) => Math.max(1, Math.floor(L / REGISTRY.truncate.stride_divisor));
