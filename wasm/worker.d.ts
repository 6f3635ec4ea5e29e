import type { Analysis, AnalyzeOptions, AttentionOptions, TokenizerName } from './index.js';

export interface WorkerOptions {
  simd?: boolean;
  analysis?: boolean;
  dataURL?: string;
  tokenizers?: Array<Exclude<TokenizerName, 'lexical'>>;
}

export interface HiRoPEWorker {
  analyze(code: string, options: AnalyzeOptions): Promise<Analysis>;
  attention(options: AttentionOptions): Promise<Float32Array>;
  loadTokenizer(name: TokenizerName): Promise<void>;
  call<T = unknown>(method: string, args?: unknown[]): Promise<T>;
  terminate(): void;
}

export declare function createWorker(options?: WorkerOptions): HiRoPEWorker;
export declare function analyzeInWorker(code: string, options: AnalyzeOptions): Promise<Analysis>;
