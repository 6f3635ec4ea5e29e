import type {
  Analysis,
  AnalyzeOptions,
  AttentionOptions,
  EncodeOptions,
  Language,
  ModelSetup,
  Scheme,
  TokenizerName,
  TokenizerSource,
} from './index.js';

export interface WorkerOptions {
  simd?: boolean;
  analysis?: boolean;
  dataURL?: string;
  tokenizers?: Array<Exclude<TokenizerName, 'lexical'>>;
  languages?: Language[];
}

/** An AbortSignal cancels a call: it rejects with the signal's reason, and a busy worker is replaced. */
export interface CancelOptions {
  signal?: AbortSignal;
}

export interface HiRoPEWorker {
  analyze(code: string, options: AnalyzeOptions & CancelOptions): Promise<Analysis>;
  attention(options: AttentionOptions, cancel?: CancelOptions): Promise<Float32Array>;
  loadTokenizer<N extends TokenizerName>(name: N): Promise<N>;
  loadTokenizer(source: TokenizerSource): Promise<`json-${string}`>;
  /** Loads a language's grammar in the worker ahead of its first analysis. */
  loadLanguage<L extends Language>(name: L): Promise<L>;
  /** The API's tokenizer methods in the worker; each loads the vocabulary it names first. */
  encode(text: string, options?: EncodeOptions): Promise<Int32Array>;
  decode(
    ids: Int32Array | number[],
    options?: { tokenizer?: Exclude<TokenizerName, 'lexical'> },
  ): Promise<string>;
  tokenBytes(
    ids: Int32Array | number[],
    options?: { tokenizer?: Exclude<TokenizerName, 'lexical'> },
  ): Promise<Uint8Array[]>;
  countTokens(text: string, options?: EncodeOptions): Promise<number>;
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): Promise<number | false>;
  encodeBatch(texts: readonly string[], options?: EncodeOptions): Promise<Int32Array[]>;
  /** hr.fromConfig in the worker: a config.json (its text or parsed object) as a model setup. */
  fromConfig(config: string | Record<string, unknown>): Promise<ModelSetup>;
  inverseFrequencies(
    scheme: Scheme,
    headDim: number,
    options?: { seqLen?: number },
  ): Promise<Float64Array>;
  attentionFactor(scheme: Scheme, headDim: number, options?: { seqLen?: number }): Promise<number>;
  call<T = unknown>(method: string, args?: unknown[], cancel?: CancelOptions): Promise<T>;
  /** Stops the worker: the calls waiting and every later call reject with a HiRoPEError. */
  terminate(): void;
}

/**
 * A worker with its own hirope instance: a module Web Worker in browsers, a node:worker_threads
 * thread in Node (which holds the process open only while a call waits). Throws a HiRoPEError for
 * bad options or where neither exists; a worker that fails rejects its calls with a HiRoPEError.
 */
export declare function createWorker(options?: WorkerOptions): HiRoPEWorker;
export declare function analyzeInWorker(
  code: string,
  options: AnalyzeOptions & CancelOptions,
): Promise<Analysis>;
