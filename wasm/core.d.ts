// 'hirope/core': the same API as 'hirope' without code analysis (hasAnalysis is false, model null).
export * from './index.js';
import type { HiRoPE, InitOptions } from './index.js';

/** The API object of hirope/core: no grammars, tokenizers or code models. */
export interface CoreHiRoPE extends HiRoPE {
  readonly model: null;
  readonly hasAnalysis: false;
}
/** Loads the core WebAssembly module (SIMD where supported; options as for 'hirope'). */
export declare function init(options?: InitOptions): Promise<CoreHiRoPE>;
export default init;
