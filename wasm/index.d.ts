// Type declarations for the hirope package.

/** One layer of a model setup (hr.fromConfig). */
export interface LayerSetup {
  /** The layer type as transformers names it ('sliding_attention', 'full_attention', ...). */
  type: string;
  /**
   * Which keys a query sees (hr.attention's mask option); { type: 'linear' } for a linear-attention
   * layer (Qwen3-Next), which has no softmax map and which no mask option takes.
   */
  attention: AttentionMask | { type: 'linear' };
  /** false: NoPE (scheme.type is 'nope'). */
  rope: boolean;
  /** This layer's scheme, as every call takes it: hr.inverseFrequencies(scheme, headDim). */
  scheme: Scheme;
  /** The head dim to pass with the scheme (Gemma 4's global layers differ from the model's). */
  headDim: number;
  /** A learned sink logit per head (GPT-oss): one more softmax column, dropped after it. */
  sinks: boolean;
  /** Query temperature (hr.attention's temperature option). */
  temperature?: QueryTemperature;
  /** The softmax scale on q.k (hr.attention's scale option); absent: 1 / sqrt(headDim). */
  scale?: number;
  /** Logit soft-capping (hr.attention's softcap option, Gemma 2); absent: none. */
  softcap?: number;
}

/**
 * Which keys a query sees (transformers' masks, all causal), by the tokens' positions p (cache
 * positions, non-decreasing under a sliding or chunked mask): key k by query q when k <= q, and
 * p(q) - p(k) < window (sliding) or floor(p(q) / chunkSize) == floor(p(k) / chunkSize) (chunked).
 */
export type AttentionMask =
  | { type: 'full' }
  | { type: 'sliding'; window: number }
  | { type: 'chunked'; chunkSize: number };
/** The query at position p times 1 + scale * ln(floor((p + offset) / floorScale) + 1) (Llama 4). */
export interface QueryTemperature {
  floorScale: number;
  scale: number;
  offset: number;
}

/** What a config.json says about positions (hr.fromConfig, hirope.from_config in Python). */
export interface ModelSetup {
  modelType: string;
  headDim: number;
  /** Dims rotated on the RoPE layers. */
  rotaryDim: number;
  layout: 'interleaved' | 'half';
  layoutSource: string;
  /** original_max_position_embeddings where given, else maxLength. */
  trainedLength: number;
  /** max_position_embeddings (0 when the config has none). */
  maxLength: number;
  /**
   * The scaling was put on after training at trainedLength (the config names a length before its
   * extension); false where the model trained with it (Gemma 3's linear x8). hr.unseenPairs'
   * scaledAfterTraining.
   */
  scaledAfterTraining: boolean;
  layerCount: number;
  layers: LayerSetup[];
  /** Dual Chunk Attention (Qwen2.5-1M, as vLLM runs it). */
  dualChunk?: { chunkSize: number; localSize: number; originalLength: number };
  /** Keys read but not modelled, each with why it matters. */
  warnings: string[];
}

/** Thrown for every invalid argument or failed computation; the message names the argument. */
export declare class HiRoPEError extends Error {
  constructor(message: string);
  readonly name: 'HiRoPEError';
}

// The scheme types are generated from the core's catalogue (tools/write-scheme-types.mjs).
import type { ScalingName, ScalingType, Scheme, SchemeType } from './scheme-types.js';
export type { Scaling, ScalingName, ScalingType, Scheme, SchemeType } from './scheme-types.js';

/** Token positions, or hierarchical positions for hirope. */
export type Positions =
  | Int32Array
  | number[]
  | {
      token: Int32Array | number[];
      unit?: Int32Array | number[];
      statement?: Int32Array | number[];
    };

export interface AttentionOptions {
  /** n x heads*headDim, row-major. */
  q: Float32Array;
  k: Float32Array;
  /** Needed for output 'values'. */
  v?: Float32Array;
  n: number;
  headDim: number;
  heads?: number;
  /** Defaults to tokens 0 .. n-1. */
  positions?: Positions;
  /** Defaults to 'rope'. */
  scheme?: Scheme;
  /** Causal mask (default true). */
  causal?: boolean;
  /** Default 'probs', or 'values' when v is given. */
  output?: 'logits' | 'probs' | 'values';
  /** Logit scale; default 1 / sqrt(headDim). */
  scale?: number;
  /** Logit soft-capping: each scaled logit x becomes softcap * tanh(x / softcap) (Gemma 2). */
  softcap?: number;
  /** Kernel family: 'tiled' (default) or the double-precision 'reference'. */
  kernel?: 'tiled' | 'reference';
  /** Write into this buffer (length heads*n*n, or n*heads*headDim for 'values') and return it. */
  out?: Float32Array;
  /** Also mean-pool the probabilities for display (output 'probs', one head), as pool() does. */
  pool?: PoolRegion & { ratio: Float32Array; raw: Float32Array; rowMax?: Float32Array };
  /** false (with pool, without out): only pool the matrix, strip by strip, keep none; returns null. */
  matrix?: boolean;
  /** Query rows [r0, r1) only: heads x (r1-r0) x n (r1-r0 rows of outputs); pool pools those rows. */
  rows?: [number, number];
  /** A layer's mask (default full; sliding and chunked need causal): a setup's layer.attention. */
  mask?: AttentionMask;
  /** One sink logit per head: a softmax column dropped after the softmax (rows sum to < 1). */
  sinks?: Float32Array | number[];
  /** The query at position p times the temperature's factor at p: a setup's layer.temperature. */
  temperature?: QueryTemperature;
}
/** attention()'s result by its matrix option: null for false, a Float32Array for true or none. */
export type AttentionResult<M extends boolean | undefined> = M extends false ? null : Float32Array;
export interface PoolRegion {
  /** Grid size: at most the region's row and column counts. */
  rows: number;
  cols: number;
  /** Matrix rows [r0, r1) and columns [c0, c1); default the whole matrix. */
  region?: { r0: number; r1: number; c0: number; c1: number };
}
/** hr.unseenPairs() options (docs/real-models.md, "Angles unseen in training"). */
export interface UnseenOptions {
  /** L: the length training ran at (an integer from 1 to 2^53). */
  trainedLength: number;
  /** N: the positions the code reaches, its last position + 1 (an integer from 1 to 2^53). */
  length: number;
  /** A sliding layer's window or a chunked layer's chunk, in positions; 0 (default): none. */
  reach?: number;
  /**
   * The largest distance each band of hr.bands(scheme, headDim) sees in the N positions (a
   * windowed scheme's clamped or grouped distances, HiRoPE's unit distances), in place of
   * min(N, reach) - 1.
   */
  bandDistances?: number[] | Float64Array;
  /**
   * Linear and NTK-aware scalings only: true when they were put on a model trained at L without
   * them (Position Interpolation: the unscaled frequencies are what training turned), false
   * (default) when the model trained with them at L (Gemma 3's linear ×8).
   */
  scaledAfterTraining?: boolean;
}
/** hr.unseenPairs(): which frequency pairs meet rotation angles unseen in training. */
export interface UnseenPairs {
  /** Pairs unseen: θⱼ(N)·Dⱼ(N) > θⱼᵗʳᵃⁱⁿ·(D(L) + 1) and θⱼᵗʳᵃⁱⁿ·D(L) < 2π. */
  count: number;
  /** rotaryDim / 2. */
  pairs: number;
  /** Pairs with θⱼ(N) > 0. */
  rotated: number;
  /** D(L) = min(L, reach) − 1: the largest distance training showed. */
  trainedDistance: number;
  /** D(N) = min(N, reach) − 1: the largest distance the layer sees in the N positions. */
  distance: number;
  /** Where θⱼᵗʳᵃⁱⁿ·L = 2π, as a fractional pair index: the pairs before it turn a full period within L. */
  splitPair: number;
  /** Per pair: 1 where it meets angles unseen in training. */
  unseen: Uint8Array;
  /** Per pair: θⱼᵗʳᵃⁱⁿ, what training turned at L. */
  trainedFrequencies: Float64Array;
  /** Per pair: θⱼ(N), the scheme's frequencies for N positions. */
  frequencies: Float64Array;
  /** Per pair: Dⱼ(N), the largest distance it sees. */
  distances: Float64Array;
  /** Per pair: θⱼ(N)·Dⱼ(N). */
  angles: Float64Array;
  /** Per pair: θⱼᵗʳᵃⁱⁿ·D(L), the largest angle training showed. */
  seenAngles: Float64Array;
  /** Per pair: θⱼᵗʳᵃⁱⁿ·(D(L) + 1), past which an angle is unseen; Infinity where the pair turned a full period in training or does not rotate. */
  limits: Float64Array;
}
/** hr.splitBound(): the Split% bound of a HiRoPE scheme (docs/schemes.md §6.5). */
export interface SplitBound {
  /** Split% = log_base(trainingLength / 2π). */
  split: number;
  /** Frequency pairs: rotaryDim / 2. */
  pairs: number;
  /** Pairs carrying the token index at the scheme's ratio. */
  tokenPairs: number;
  /** The largest token band within the bound. */
  maxTokenPairs: number;
  /** maxTokenPairs / pairs: a ratio that gives that band. */
  maxRatio: number;
  /** True when tokenPairs is above maxTokenPairs. */
  over: boolean;
}

export interface Pooled {
  /** rows x cols means of p / (its row's maximum). */
  ratio: Float32Array;
  /** rows x cols means of p (masked entries count as 0). */
  raw: Float32Array;
  /** The maximum of each matrix row (n). */
  rowMax: Float32Array;
}

export interface ShapeOptions {
  n: number;
  headDim: number;
  positions?: Positions;
  scheme?: Scheme;
}

export interface Band {
  name: 'all' | 'token' | 'statement' | 'unit';
  pairBegin: number;
  pairEnd: number;
}

export interface BandDistances extends Band {
  /** n x n; NaN above the diagonal for windowed schemes. */
  distances: Float32Array;
}

export interface Limits {
  maxTokens: number;
  maxHeadDim: number;
  maxHeads: number;
  maxOutputElements: number;
  /** Bytes of UTF-8 source one analyze(), parse() or encode() takes (0 without analysis). */
  maxSourceBytes: number;
  /** Bytes of a model weights file hr.model.load() takes (0 without analysis). */
  maxModelFileBytes: number;
  /** Bytes of a config.json hr.fromConfig() takes (0 in the core build). */
  maxConfigBytes: number;
}

/** One value of an enumeration in the scheme catalogue. */
export interface CatalogueValue<Name extends string = string> {
  /** As users write it: 'half', 'own'. */
  name: Name;
  /** The core's enumerator. */
  value: number;
  /** Display name: 'half-split (HF)'. */
  label: string;
  description: string;
}

export interface CatalogueScheme extends CatalogueValue<SchemeType> {
  /** Rotates q and k. */
  rotary: boolean;
  /** Merges a near and a far branch by the window rule (causal attention only). */
  windowed: boolean;
  /** Reads positions.unit. */
  needsUnits: boolean;
  /** The option names it takes, in order. */
  parameters: string[];
}

export interface CatalogueScaling extends CatalogueValue<ScalingName> {
  /** Other accepted names ('dynamic' for 'dynamic-ntk'). */
  aliases: string[];
  parameters: string[];
}

export interface CatalogueParameter {
  /** The option name: 'rotaryFraction'. */
  name: string;
  /** The core's field: 'rotary_fraction', 'scaling.original_length'; null for an option of the JS layer only. */
  field: string | null;
  kind: 'number' | 'integer' | 'boolean' | 'enum' | 'list' | 'scaling';
  /** The value when left out (enum: its name; 'scaling': 'none'), before defaultRules. */
  default: number | boolean | string | number[];
  /** Must be given where it is taken (the scaling factor). */
  required: boolean;
  /** The types that take a required parameter without requiring it (proportional's factor). */
  optionalFor: string[];
  /** The range the core checks: min <= x <= max (strict where minOpen / maxOpen); null: unbounded. */
  min: number | null;
  max: number | null;
  minOpen: boolean;
  maxOpen: boolean;
  /** When not empty: the only values. */
  allowed: number[];
  /** An implementation bound beyond the range, or null. */
  limit: number | null;
  /** The step a form control moves by (integers: 1); null: any value. */
  step: number | null;
  /** The range as messages state it: 'an integer >= 1', 'in (0, 1]' (number and integer kinds). */
  range: string | null;
  /** kind 'enum': the catalogue's value list ('layouts', 'sinusoidalVariants'). */
  values: string | null;
  /** Checked only when another parameter has this value. */
  onlyIf: { parameter: string; equals: number | boolean } | null;
  description: string;
}

/** A default that depends on the scheme type or another parameter. */
export interface CatalogueDefaultRule {
  parameter: string;
  schemes: SchemeType[];
  /** Applies only when this parameter has this value. */
  when: { parameter: string; equals: number | boolean } | null;
  /** A constant default... */
  value?: number | boolean;
  /** ...or (offset + scale * from) / divisor. */
  from?: string;
  offset?: number;
  scale?: number;
  divisor?: number;
  description: string;
}

/**
 * The core's scheme catalogue (hr.catalogue): every scheme, scaling, parameter and option value with
 * display names and descriptions, as plain JSON. The option checks of every function come from it.
 */
export interface SchemeCatalogue {
  schemes: CatalogueScheme[];
  scalings: CatalogueScaling[];
  parameters: Array<CatalogueParameter & { schemes: SchemeType[] }>;
  scalingParameters: Array<CatalogueParameter & { scalings: ScalingType[] }>;
  layouts: CatalogueValue<'interleaved' | 'half'>[];
  sinusoidalVariants: CatalogueValue<'vaswani' | 'fairseq'>[];
  outputs: CatalogueValue<'logits' | 'probs'>[];
  roles: CatalogueValue<'query' | 'key'>[];
  branches: CatalogueValue<'near' | 'far'>[];
  kernels: CatalogueValue<'reference' | 'fast'>[];
  defaultRules: CatalogueDefaultRule[];
  /** Names of arguments in the core's messages and the API's: { field: 'head_dim', name: 'headDim' }. */
  arguments: Array<{ field: string; name: string }>;
  /** Empty in hirope/core. */
  languages: Array<{ name: Language; label: string; extensions: string[] }>;
  gaps: CatalogueValue<'own' | 'next' | 'previous'>[];
  hierarchies: CatalogueValue<'units' | 'segments'>[];
  /** CodeUnit.kind values. */
  unitKinds: CatalogueValue<'code' | 'function' | 'class' | 'segment'>[];
  /** The code model's hierarchies (ModelOptions.hierarchy). */
  byteHierarchies: CatalogueValue<'units' | 'statements' | 'segments'>[];
}

/** @deprecated The scheme catalogue's old name: use `SchemeCatalogue`. */
export type Vocabulary = SchemeCatalogue;

export interface QK {
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
}

export type Language =
  | 'python'
  | 'javascript'
  | 'typescript'
  | 'tsx'
  | 'c'
  | 'cpp'
  | 'java'
  | 'go'
  | 'rust';
/** The built-in tokenizers (data files under data/, loaded with loadTokenizer). */
export type BuiltinTokenizerName =
  | 'cl100k'
  | 'o200k'
  | 'llama2'
  | 'llama3'
  | 'qwen3'
  | 'deepseek-v3'
  | 'gemma3';
/** The built-in tokenizers' names (each loads its data file with hr.loadTokenizer(name)). */
export declare const BUILTIN_TOKENIZERS: readonly BuiltinTokenizerName[];
/** tiktoken's names of two built-ins, accepted wherever a tokenizer is named. */
export type TokenizerAlias = 'cl100k_base' | 'o200k_base';
/** 'lexical', a built-in (or its alias), or the name loadTokenizer({ json }) returned ('json-' + 16 hex digits). */
export type TokenizerName = 'lexical' | BuiltinTokenizerName | TokenizerAlias | `json-${string}`;
/**
 * The built-in tokenizer a model reads: 'gpt-4o' -> 'o200k', 'gpt-4' -> 'cl100k', 'llama-3.1' ->
 * 'llama3', 'qwen3' -> 'qwen3'; a longer name takes its listed prefix ('llama-3.1-8b-instruct').
 * A HiRoPEError for a model whose tokenizer hirope does not ship.
 */
export declare function tokenizerForModel(model: string): BuiltinTokenizerName;
/** A Hugging Face tokenizer.json of your own, as text or bytes. */
export interface TokenizerSource {
  json: string | Uint8Array | ArrayBuffer;
}

export interface AnalyzeOptions {
  /** Required unless filename is given. */
  language?: Language;
  /** Detects the language from the extension. */
  filename?: string;
  /** Default 'lexical'; others must be loaded with loadTokenizer first. */
  tokenizer?: TokenizerName;
  /** Where code between definitions goes (default 'own'). */
  gap?: 'own' | 'next' | 'previous';
  /** Methods become their own units (default false). */
  descendClasses?: boolean;
  /** 'units' (syntax, default) or 'segments' (unit = floor(t / segmentSize)). */
  hierarchy?: 'units' | 'segments';
  segmentSize?: number;
  /**
   * The parse's time budget in milliseconds (default 10 s + 1 s per MB of input; 0: no limit).
   * Some inputs defeat tree-sitter's error recovery (tens of thousands of quotes); a parse past
   * its budget is a HiRoPEError.
   */
  timeoutMs?: number;
}

export interface CodeUnit {
  index: number;
  kind: 'function' | 'class' | 'code' | 'segment';
  name: string;
  nodeType: string;
  /**
   * The language's own word for the definition: 'struct', 'impl', 'trait', 'interface', 'type',
   * 'enum', 'typedef', 'method', 'function', 'class'... ('' for code and segments).
   */
  languageKind: string;
  /** UTF-16 code units; units partition the text. */
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
  /**
   * The unit's tokens, a half-open range of token indices (`tokens.ids.subarray(start, end)`;
   * `end - start` is its token count), as Python's `Unit.tokens`. `{ start: 0, end: 0 }` when
   * it has none.
   */
  tokens: IndexRange;
  /** The statement indices its tokens carry (`positions.statement`), half-open. */
  statements: IndexRange;
}

/** A half-open range of indices: start <= i < end. */
export interface IndexRange {
  start: number;
  end: number;
}

export interface ErrorRegion {
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
  /** A zero-width MISSING node rather than an ERROR node. */
  missing: boolean;
}

export interface Analysis {
  language: Language;
  tokenizer: TokenizerName;
  tokens: {
    count: number;
    ids: Int32Array;
    /** UTF-16 offsets into the code. */
    start: Uint32Array;
    end: Uint32Array;
    /** UTF-8 byte offsets. */
    byteStart: Uint32Array;
    byteEnd: Uint32Array;
    /** The token texts (computed on first access). */
    readonly texts: string[];
  };
  /** Ready for attention({ positions }). */
  positions: { token: Int32Array; unit: Int32Array; statement: Int32Array };
  units: CodeUnit[];
  errors: ErrorRegion[];
  statements: number;
}

/** The code model's header (hr.model.inspect, CodeModel.config). */
export interface ModelConfig {
  name: string;
  version: number;
  vocab: number;
  dModel: number;
  layers: number;
  heads: number;
  headDim: number;
  ffnHidden: number;
  trainingContext: number;
  ropeBase: number;
  normEps: number;
  parameters: number;
  /** The tokenizer whose ids the model reads; null for a byte model. */
  tokenizer: string | null;
  /** A checkpoint's (hr.model.fromPretrained): its config.json's model_type. */
  modelType?: string;
  /** A checkpoint's key/value heads (grouped-query attention). */
  kvHeads?: number;
  /** A checkpoint's weights at their stored width, in bytes. */
  weightBytes?: number;
  /** A checkpoint's per-layer setup (masks, schemes, scales), as JSON text (hr.fromConfig's shape). */
  setup?: string;
  /** What a checkpoint's config holds that the forward does not model, or skipped tensors. */
  warnings?: string[];
}

/** A Hugging Face checkpoint folder's files: names to bytes, text or Blobs. */
export type CheckpointFiles =
  | Record<string, Uint8Array | ArrayBuffer | string | Blob>
  | Map<string, Uint8Array | ArrayBuffer | string | Blob>;

/** Options of CodeModel.loss / logits / attention / generate. */
/**
 * The code model's baselines: attention limited to the last `window` bytes in every layer, or each
 * prediction made from only the last `length` bytes. Both default to the model's training context
 * and run its training RoPE. `stride` (default `length / 8`, at least 1) trades time for context:
 * the model re-runs on the last `length` bytes once every `stride` bytes, so a byte sees between
 * `length - stride + 1` and `length` bytes back; 1 is exact but one forward pass per byte (25-60x
 * slower, for a loss within about 0.001 bits/byte on real files).
 */
export type ModelBaseline =
  | 'sliding-window'
  | 'truncate'
  | { type: 'sliding-window'; window?: number }
  | { type: 'truncate'; length?: number; stride?: number };

export interface ModelOptions {
  /**
   * A rotary scheme (rope with any scaling, rerope, leaky-rerope, self-extend, hirope, xpos), nope,
   * a baseline, or 'model': the model's own positions (a checkpoint's default: each layer's, as its
   * config sets them; a scheme given goes on every RoPE layer).
   */
  scheme?: Scheme | ModelBaseline | 'model';
  /** Where HiRoPE's high-level index comes from (default 'units'). */
  hierarchy?: 'units' | 'statements' | 'segments';
  segmentSize?: number;
  language?: Language;
  gap?: 'own' | 'next' | 'previous';
  descendClasses?: boolean;
}

export interface BytePositions {
  token: Int32Array;
  unit: Int32Array;
  statement: Int32Array;
}

/** A token model's tokens of a text: ids and byte spans [start, end) in its UTF-8. */
export interface ModelTokens {
  ids: Int32Array;
  start: Uint32Array;
  end: Uint32Array;
}

/**
 * Input of a model call: text (a string or its UTF-8 bytes), or for a token model an Int32Array of
 * its tokenizer's ids (with options.positions, or hierarchy 'segments', for HiRoPE).
 */
export type ModelInput = string | Uint8Array | Int32Array;

export declare class CodeModel {
  readonly config: ModelConfig;
  /** Whether this is a Hugging Face checkpoint (hr.model.fromPretrained). */
  readonly checkpoint: boolean;
  /** The tokenizer whose ids a token model reads ('llama2'); null for the byte model. */
  readonly tokenizer: string | null;
  /** Bytes (a token model: tokens) one call accepts (input, or prompt plus maxBytes). */
  readonly maxInputBytes: number;
  /** Bytes of a checkpoint's weights held on the GPU by lossAsync and logitsAsync (0: none). */
  readonly gpuBytes: number;
  /**
   * losses[t]: bits to predict byte (token) t + 1 from bytes (tokens) 0..t; bitsPerByte: their
   * mean (a token model: bitsPerToken their mean, bitsPerByte their sum over the bytes of tokens
   * 1..n-1, and tokens). options.positions overrides the hierarchy.
   */
  loss(
    code: ModelInput,
    options?: ModelOptions & {
      positions?: { unit?: ArrayLike<number>; statement?: ArrayLike<number> };
    },
  ): {
    losses: Float32Array;
    bitsPerByte: number;
    bitsPerToken?: number;
    n: number;
    positions: BytePositions;
    tokens?: ModelTokens;
  };
  /** n x vocab next-byte (next-token) logits. options.positions overrides the hierarchy with explicit indices. */
  logits(
    code: ModelInput,
    options?: ModelOptions & {
      positions?: { unit?: ArrayLike<number>; statement?: ArrayLike<number> };
    },
  ): Float32Array;
  /**
   * loss() with a checkpoint's linear layers on the GPU where init() found a WebGPU device and
   * attention runs there (attentionBackend 'webgpu'); everything else, and hirope's own models,
   * as loss(). Equal to loss() to float rounding.
   */
  lossAsync(
    code: ModelInput,
    options?: ModelOptions & {
      positions?: { unit?: ArrayLike<number>; statement?: ArrayLike<number> };
    },
  ): Promise<ReturnType<CodeModel['loss']>>;
  /** logits() as lossAsync() runs loss(). */
  logitsAsync(
    code: ModelInput,
    options?: ModelOptions & {
      positions?: { unit?: ArrayLike<number>; statement?: ArrayLike<number> };
    },
  ): Promise<Float32Array>;
  /** The model's attention probabilities of one layer and head (n x n, causal). */
  attention(
    code: ModelInput,
    options?: ModelOptions & { layer?: number; head?: number },
  ): { matrix: Float32Array; n: number; positions: BytePositions; tokens?: ModelTokens };
  /**
   * Every layer's and head's attention probabilities from one forward: matrices holds layers x
   * heads x n x n values (layer l, head h at (l * heads + h) * n * n). No baseline scheme.
   */
  attentionAll(
    code: ModelInput,
    options?: ModelOptions & {
      positions?: { unit?: ArrayLike<number>; statement?: ArrayLike<number> };
    },
  ): {
    matrices: Float32Array;
    n: number;
    layers: number;
    heads: number;
    positions: BytePositions;
    tokens?: ModelTokens;
  };
  /** Continues the prompt with the KV cache. */
  generate(
    prompt: string | Uint8Array,
    options?: ModelOptions & { maxBytes?: number; temperature?: number; seed?: number },
  ): { text: string; bytes: Uint8Array };
  /** Byte (a token model: token) positions of a text up to the analysis's size limit (a whole file; cut windows from it). */
  positions(
    code: string | Uint8Array,
    options?: Omit<ModelOptions, 'scheme'>,
  ): BytePositions & { tokens?: ModelTokens };
  /** The scheme with the model's defaults filled in (base, layout, trainingLength, window). */
  scheme(scheme?: Scheme | ModelBaseline): Record<string, unknown>;
  dispose(): void;
}

export declare class ModelLoader {
  /** The shipped models' names; the first ('pybyte') is the default. */
  readonly names: readonly ('pybyte' | 'pyjs-llama2')[];
  /** Loads a weights file: options.data, options.url, or a shipped model by name (default data/pybyte.hrm); a token model loads its tokenizer too. */
  load(options?: {
    data?: Uint8Array | ArrayBuffer;
    url?: string | URL;
    name?: 'pybyte' | 'pyjs-llama2';
  }): Promise<CodeModel>;
  /** The header of a weights file without loading it. */
  inspect(data: Uint8Array | ArrayBuffer): ModelConfig;
  /**
   * The files of a checkpoint folder served over HTTP(S), downloaded as fromPretrained(url) does:
   * file names to bytes, for fromPretrained or inspectPretrained, or to hand to several workers.
   */
  downloadPretrained(
    url: string | URL,
    options?: {
      onProgress?: (progress: { stage: 'download'; loaded: number; total: number | null }) => void;
      maxBytes?: number;
    },
  ): Promise<Map<string, Uint8Array>>;
  /**
   * What loading a checkpoint would take, from its config.json and safetensors headers alone (no
   * weight read): its size, and whether it and a forward at the input limit fit the WASM heap.
   */
  inspectPretrained(files: string | URL | CheckpointFiles): Promise<{
    modelType: string;
    layers: number;
    heads: number;
    kvHeads: number;
    parameters: number;
    /** The weights at their stored width: what the loaded model keeps. */
    weightBytes: number;
    /** A forward at the input limit, beside the weights. */
    workingBytes: number;
    /** The WASM heap's budget. */
    budgetBytes: number;
    fits: boolean;
    /** The figures when it does not fit, else ''. */
    memoryError: string;
  }>;
  /**
   * A Hugging Face checkpoint: a folder path (Node), a folder's http(s) URL (its files fetched
   * whole), or its files (config.json, model.safetensors or shards with
   * model.safetensors.index.json, tokenizer.json for text input). Architectures llama,
   * mistral, qwen2, qwen3, gemma2, gemma3_text, phi3, starcoder2; F32, F16, BF16.
   */
  fromPretrained(
    files: string | URL | CheckpointFiles,
    options?: {
      /**
       * 'download': a URL's weights arriving, in bytes (total null when the server gives no
       * size); 'load': weights read into the model, after each one.
       */
      onProgress?: (progress: {
        stage: 'download' | 'load';
        loaded: number;
        total: number | null;
      }) => void;
      /** Refuse a checkpoint whose files take more bytes, before its weights are read. */
      maxBytes?: number;
    },
  ): Promise<CodeModel>;
}

export declare class HiRoPE {
  /**
   * The code models: a ModelLoader from the full entry's init() (FullHiRoPE), null in hirope/core
   * and after init({ analysis: false }).
   */
  readonly model: ModelLoader | null;
  /** Which build runs. */
  readonly backend: 'wasm-simd' | 'wasm-scalar';
  /** The kernel family compiled into it. */
  readonly kernel: 'wasm-simd128' | 'scalar';
  readonly limits: Readonly<Limits>;
  readonly schemes: SchemeType[];
  readonly scalings: ScalingType[];
  /** The core's table of schemes, scalings, their parameters and option values (plain JSON, frozen). */
  readonly catalogue: Readonly<SchemeCatalogue>;
  /** @deprecated The scheme catalogue's old name: use `catalogue` (the same object). */
  readonly vocabulary: Readonly<SchemeCatalogue>;
  /**
   * heads x n x n for 'logits' and 'probs'; n x heads*headDim for 'values'; null with matrix:
   * false. Only `matrix` is generic (the options are not a type parameter), so that a misspelt
   * key is a compile error.
   */
  attention<M extends boolean | undefined = undefined>(
    options: AttentionOptions & { matrix?: M },
  ): AttentionResult<M>;
  /**
   * A Hugging Face config.json (its text, or the parsed object) as a model setup: what each layer
   * sees (docs/real-models.md). In the full module only; the core one throws.
   */
  fromConfig(config: string | Record<string, unknown>): ModelSetup;
  inverseFrequencies(scheme: Scheme, headDim: number, options?: { seqLen?: number }): Float64Array;
  attentionFactor(scheme: Scheme, headDim: number, options?: { seqLen?: number }): number;
  bands(scheme: Scheme, headDim: number): Band[];
  relativeDistances(options: ShapeOptions): BandDistances[];
  rotate(
    options: ShapeOptions & {
      x: Float32Array;
      heads?: number;
      role?: 'query' | 'key';
      branch?: 'near' | 'far';
    },
  ): Float32Array;
  longTermDecay(scheme: Scheme, headDim: number, maxDistance: number): Float32Array;
  /** Mean-pools an n x n attention matrix into a grid of cells, for display. */
  pool(options: PoolRegion & { matrix: Float32Array; n: number; causal?: boolean }): Pooled;
  alibiSlopes(heads: number): Float64Array;
  splitFraction(trainingLength: number, base?: number): number;
  /** Whether a HiRoPE scheme's token band stays within Split% at its trainingLength and base. */
  splitBound(scheme: Scheme, headDim: number): SplitBound;
  /**
   * Which frequency pairs of a layer meet rotation angles that training at trainedLength never
   * showed, at the `length` positions a code reaches (docs/real-models.md).
   */
  unseenPairs(scheme: Scheme, headDim: number, options: UnseenOptions): UnseenPairs;
  qk(options: {
    source?: 'seeded' | 'ones';
    n: number;
    headDim: number;
    heads?: number;
    tokenIds?: Int32Array | number[];
    seed?: number;
  }): QK;
  /** The WebAssembly heap against its ceiling (the size limits are derived from the ceiling). */
  memory(): HeapMemory;
  heapBytes(): number;
  /**
   * Where attentionAsync() runs: 'webgpu' after init({ backend: 'webgpu' | 'auto' }) found an
   * adapter. Settable: 'wasm' sends attentionAsync() to WASM, 'webgpu' back to the GPU (a
   * HiRoPEError without an adapter).
   */
  attentionBackend: 'webgpu' | 'wasm';
  /** The GPU adapter's description, or null. */
  readonly gpuAdapter: string | null;
  /** attention() on the GPU when attentionBackend is 'webgpu' (WASM otherwise, and after a lost device). */
  attentionAsync<M extends boolean | undefined = undefined>(
    options: AttentionOptions & { matrix?: M },
  ): Promise<AttentionResult<M>>;
  /** True when the build has code analysis (grammars and tokenizers). */
  readonly hasAnalysis: boolean;
  readonly languages: Language[];
  /** 'lexical' and the built-ins (BuiltinTokenizerName). */
  readonly tokenizers: Array<'lexical' | BuiltinTokenizerName>;
  detectLanguage(filename: string): Language | null;
  /**
   * Loads a language's grammar (its side module tree-sitter-<language>.wasm) once; analyze() loads
   * the grammar it needs by itself, synchronously. options.module: the grammar compiled elsewhere;
   * options.data: its bytes. Rejects with a HiRoPEError naming the language and the URL.
   */
  loadLanguage<L extends Language>(
    name: L,
    options?: { module?: WebAssembly.Module; data?: Uint8Array | ArrayBuffer },
  ): Promise<L>;
  /** The languages whose grammar this instance has loaded. */
  readonly loadedLanguages: Language[];
  /** Loads a built-in (its data file, or options.data) or your own tokenizer.json; resolves to the name to pass as options.tokenizer. */
  loadTokenizer<N extends TokenizerName>(
    name: N,
    options?: { data?: Uint8Array | ArrayBuffer },
  ): Promise<N extends 'cl100k_base' ? 'cl100k' : N extends 'o200k_base' ? 'o200k' : N>;
  loadTokenizer(source: TokenizerSource): Promise<`json-${string}`>;
  /**
   * Token ids of text. Text is text: a special token's marker in it ('<|endoftext|>',
   * '<|eot_id|>', '<eos>') is encoded as ordinary text, as tiktoken's encode_ordinary; with
   * specialTokens: true each marker is its special token's id, as Hugging Face tokenizers encode.
   */
  encode(text: string, options?: EncodeOptions): Int32Array;
  /** The number of tokens of text: encode(text, options).length (tokenizer default 'cl100k'). */
  countTokens(text: string, options?: EncodeOptions): number;
  /**
   * The token count when text has at most limit tokens, else false (as gpt-tokenizer's). The
   * built-in tokenizers read only a prefix of a long text where it decides (README).
   */
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): number | false;
  /** encode() of each text with one options object (tokenizer default 'cl100k'); the texts' UTF-8 together at most limits.maxSourceBytes. */
  encodeBatch(texts: readonly string[], options?: EncodeOptions): Int32Array[];
  /** The text of token ids (their bytes as UTF-8); decode(encode(text)) === text. Tokenizer default 'cl100k'. */
  decode(
    ids: Int32Array | number[],
    options?: { tokenizer?: Exclude<TokenizerName, 'lexical'> },
  ): string;
  /** Each token's bytes, the text it stands for as UTF-8 (possibly part of a character). */
  tokenBytes(
    ids: Int32Array | number[],
    options?: { tokenizer?: Exclude<TokenizerName, 'lexical'> },
  ): Uint8Array[];
  /** A streaming decoder that never splits a character across two pieces of text. */
  decoder(options?: { tokenizer?: Exclude<TokenizerName, 'lexical'> }): TokenDecoder;
  parse(code: string, options: { language: Language; timeoutMs?: number }): { hasError: boolean };
  analyze(code: string, options: AnalyzeOptions): Analysis;
}

/** Options of encode(), countTokens(), isWithinTokenLimit() and encodeBatch(). */
/** hr.decoder(): the text of ids as they come, each character whole. */
export interface TokenDecoder {
  /** The text of these ids, after those before; a character split across tokens is held back. */
  decode(ids: Int32Array | number[]): string;
  /** What is held back (U+FFFD for an incomplete character); the decoder then starts afresh. */
  flush(): string;
}

export interface EncodeOptions {
  /**
   * A loaded vocabulary tokenizer. Default: 'cl100k' (GPT-4's), whatever the text; name the one
   * your model reads (tokenizerForModel('gpt-4o') is 'o200k').
   */
  tokenizer?: Exclude<TokenizerName, 'lexical'>;
  /**
   * false (default): text is text, a special token's marker is encoded as ordinary text. true:
   * each marker is its special token's id (a tokenizer.json's added tokens with "special": true;
   * tiktoken's for cl100k and o200k; <unk>, <s>, </s> for llama2). A tokenizer.json's added
   * tokens that are not special (Qwen 3's <think>) are matched either way, as Hugging Face does.
   */
  specialTokens?: boolean;
}

export interface InitOptions {
  /** Force the SIMD (true) or scalar (false) build; default: detect. */
  simd?: boolean;
  /** false: load the core module only (encodings and attention; no analyze). Default true. */
  analysis?: boolean;
  /** Where the Emscripten loader finds the .wasm file. */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** The .wasm bytes, to skip fetching. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** The .wasm already compiled (the file this build would load), e.g. posted to a worker by a page that compiled it once. */
  wasmModule?: WebAssembly.Module;
  /** Folder (URL) holding the tokenizer data files; default: data/ next to the module. */
  dataURL?: string | URL;
  /** Vocabularies to load before init resolves. */
  tokenizers?: Array<Exclude<TokenizerName, 'lexical'>>;
  /** Grammars to load before init resolves (others load when analyze() first needs them). */
  languages?: Language[];
  /** 'wasm' (default), 'webgpu' (an error without an adapter) or 'auto' (WebGPU when available). */
  backend?: 'wasm' | 'webgpu' | 'auto';
  /** The WebGPU entry object; default navigator.gpu (in Node: the `webgpu` package's create()). */
  gpu?: { requestAdapter(options?: unknown): Promise<unknown> };
}

export declare function simdSupported(): boolean;
export declare function segmentPositions(
  n: number,
  size: number,
): { token: Int32Array; unit: Int32Array };
/** A scheme with every default filled in, names mapped to the core's numbers (after init()). */
export declare function normalizeScheme(scheme: Scheme): Record<string, unknown>;
/**
 * The API object of the full entry ('hirope'): code analysis and the code models, so that
 * `await hr.model.load()` needs no null check.
 */
export interface FullHiRoPE extends HiRoPE {
  readonly model: ModelLoader;
  readonly hasAnalysis: true;
}
/** init({ analysis: false }) loads the core module: no analysis, model is null. */
export declare function init(options: InitOptions & { analysis: false }): Promise<HiRoPE>;
export declare function init(options?: InitOptions & { analysis?: true }): Promise<FullHiRoPE>;
export declare function init(options?: InitOptions): Promise<HiRoPE>;
// The recall classes (hirope/recall's functions, declared there once): identifiers,
// recallClasses and tokenRecallClasses run in the full module, after init() has loaded it.
export {
  RECALL_CLASSES,
  identifiers,
  recallClasses,
  tokenRecallClasses,
} from './recall.js';
export default init;

export interface HeapMemory {
  /** Bytes malloc holds now. */
  inUseBytes: number;
  /** The most malloc has held (with the budget checks' probes). */
  peakBytes: number;
  /** The memory's size; WebAssembly memory never shrinks. */
  memoryBytes: number;
  /** The memory's maximum (2 GiB), which the size limits are derived from. */
  ceilingBytes: number;
  /** Kept free: work whose memory grows with its input stops with an out-of-memory HiRoPEError first. */
  reserveBytes: number;
}
