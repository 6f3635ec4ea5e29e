// --extern-pre-js: lets Emscripten 3.1.6's -sMODULARIZE -sEXPORT_ES6 output run in Node >= 18 as
// well as in browsers and bundlers, without top-level await. Its Node path wants __dirname and
// require() (absent in ES modules) and would fetch() a file:// URL. The JS API hands the module
// its bytes (wasmBinary) in Node, so require() is never needed; fetch is hidden in Node.
// biome-ignore lint/suspicious/noDoubleEquals: prepended verbatim to the Emscripten loader, kept as written
// biome-ignore lint/complexity/useOptionalChain: prepended verbatim to the Emscripten loader, kept as written
const __em_isNode = typeof process == 'object' && !!(process.versions && process.versions.node);
const __dirname = __em_isNode ? decodeURIComponent(new URL('.', import.meta.url).pathname) : '';
// biome-ignore lint/correctness/noUnusedVariables: read by the Emscripten loader this file is prepended to
const require = __em_isNode
  ? (id) => {
      throw new Error(
        'hirope: the Emscripten loader asked for ' + id + '; pass wasmBinary in Node',
      );
    }
  : undefined;
// biome-ignore lint/correctness/noUnusedVariables: read by the Emscripten loader this file is prepended to
const fetch = __em_isNode ? undefined : globalThis.fetch;
