// --extern-pre-js: lets Emscripten 3.1.6's -sMODULARIZE -sEXPORT_ES6 output run in Node >= 18 as
// well as in browsers. Its Node path uses require() and __dirname (absent in ES modules) and would
// fetch() a file:// URL, which Node's fetch cannot do.
const __em_isNode = typeof process == 'object' && !!(process.versions && process.versions.node);
const require = __em_isNode ? (await import('module')).createRequire(import.meta.url) : undefined;
const __dirname = __em_isNode ? require('path').dirname(require('url').fileURLToPath(import.meta.url)) : '';
const fetch = __em_isNode ? undefined : globalThis.fetch;
