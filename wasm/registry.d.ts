// hirope/registry: the runtime data list (models/registry.json) and the real-model config gallery.

/** One shipped code model: its name, weights file, config and manifest (the repository's paths). */
export interface RegistryModel {
  name: string;
  weights: string;
  config: string;
  manifest: string;
  [key: string]: unknown;
}

/** models/registry.json as a module: the models, tokenizers, truncate baseline and evaluation. */
export interface Registry {
  default: string;
  models: RegistryModel[];
  tokenizers: { files: Record<string, string>; max_json_bytes: number; [key: string]: unknown };
  truncate: { stride_divisor: number; [key: string]: unknown };
  [key: string]: unknown;
}
export declare const REGISTRY: Registry;

/** One entry of the config gallery (models/configs/index.json): shipped as data/configs/<id>.json. */
export interface GalleryConfig {
  readonly id: string;
  /** The Hugging Face model id. */
  readonly model: string;
  readonly source: string;
  readonly warnings: readonly { key: string; reason: string }[];
}
export declare const CONFIG_GALLERY: readonly GalleryConfig[];

/** The registry's model names, in its order. */
export declare const MODEL_NAMES: readonly string[];
/** The model hr.model.load() loads without a name. */
export declare const DEFAULT_MODEL: string;
/** The shipped models' weights files (under data/), by name. */
export declare const MODEL_FILES: Readonly<Record<string, string>>;
/** The built-in tokenizers' data files (under data/), by name, in the registry's order. */
export declare const TOKENIZER_FILES: Readonly<Record<string, string>>;
/** The largest tokenizer.json accepted, in bytes. */
export declare const MAX_TOKENIZER_JSON_BYTES: number;
/** A model's registry entry (the default one without a name); throws for an unknown name. */
export declare function registryEntry(name?: string): RegistryModel;
/** The truncate baseline's stride at a training context L: L / 8, at least 1. */
export declare function truncateStride(trainingContext: number): number;
