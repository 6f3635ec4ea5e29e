// --pre-js: in Node, resolve the .wasm next to the .mjs as a plain path (3.1.6 would pass a
// file:// URL string to fs).
if (typeof process == 'object' && process.versions && process.versions.node && !Module['locateFile']) {
  Module['locateFile'] = function (p, dir) { return dir + p; };
}
