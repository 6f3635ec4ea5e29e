// hirope/element: importing it defines <hirope-attention> (see docs/playground.md).

/**
 * The <hirope-attention> element's class (customElements.get('hirope-attention')). Its attributes
 * are in docs/playground.md; a real model is `model="<gallery id>"` (e.g. "gemma-3-27b-it", or
 * "gemma-3-27b") or `config="<config.json text>"`, with `layer="<index>"`: A shows that layer as
 * the model computes it, B with HiRoPE on its frequencies (scheme-a, scheme-b change that).
 */
export declare class HiRoPEAttention extends HTMLElement {
  /** The code shown: the code attribute, a <template> child, or the element's text. */
  code: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'hirope-attention': HiRoPEAttention;
  }
}

/**
 * Says where a file the element loads is served, by its name in the package: 'hirope-simd.wasm',
 * 'hirope-scalar.wasm', 'tree-sitter-<language>.wasm', 'data/<vocabulary file>'. The modules
 * hirope/assets/language/<name> and hirope/assets/tokenizer/<name> do this for a bundler (and
 * hirope/assets/config/<id> carries a gallery config's text).
 */
export declare function registerAsset(name: string, url: string | URL): void;
