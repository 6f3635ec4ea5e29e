// The model registry (models/registry.json) for the training scripts: the package's reader
// (wasm/registry.js, built into dist/), so that training/ reads the list the package ships.
export { REGISTRY, MODEL_NAMES, registryEntry, truncateStride } from '../dist/registry.js';
