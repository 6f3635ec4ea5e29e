// hirope/element: importing it defines <hirope-attention> (see docs/playground.md).

/**
 * The <hirope-attention> element's class (customElements.get('hirope-attention')). Its attributes
 * are in docs/playground.md; a real model is `model="<gallery id>"` (e.g. "gemma-3-27b-it", or
 * "gemma-3-27b") or `config="<config.json text>"`, with `layer="<index>"`: A shows that layer as
 * the model computes it, B with HiRoPE on its frequencies (scheme-a, scheme-b change that). A
 * Hugging Face checkpoint folder is `checkpoint="<folder URL>"`, with `layer`, `head` and
 * `max-bytes` (600 MiB by default): its own attention under its positions (A) and with scheme-b
 * on the same weights (B); `hirope:ready`'s detail then carries `checkpoint` (model type,
 * layers, heads, parameters, weight bytes, training context, the layer's kind).
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
