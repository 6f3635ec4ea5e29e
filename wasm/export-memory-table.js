// --post-js of the full module (CMakeLists.txt): Module.wasmMemory and Module.wasmTable, the
// instance's memory and function table, through which wasm/side-module-linker.js links the
// grammars. The link flags ask for both in EXPORTED_RUNTIME_METHODS, which later Emscripten
// versions honour; 3.1.6 exports neither, so this file adds them: read when asked (they exist
// once the instance does), and replaced by the runtime's own export where a version makes one.
for (const [name, get] of [
  ['wasmMemory', () => wasmMemory],
  ['wasmTable', () => wasmTable],
])
  if (!(name in Module))
    Object.defineProperty(Module, name, {
      get,
      set(value) {
        Object.defineProperty(Module, name, { value, writable: true, enumerable: true });
      },
      configurable: true,
      enumerable: true,
    });
