// A small dynamic linker for WebAssembly side modules (Emscripten -sSIDE_MODULE, the tree-sitter
// grammars of wasm/grammars.js): it links one into a running Emscripten module instance as
// Emscripten's own loader would, while the module stays a plain (not position-independent) one.
// It reaches the instance only through its runtime exports: wasmMemory and wasmTable (the link
// flags export them: CMakeLists.txt, wasm/export-memory-table.js) and _malloc.

/**
 * A side module's needs, from its dylink.0 section: bytes of data (aligned to 2^memoryAlign) and
 * function table slots.
 */
export function dylinkInfo(module) {
  const [section] = WebAssembly.Module.customSections(module, 'dylink.0');
  if (!section) throw new Error('it is not a WebAssembly side module (no dylink.0 section)');
  const bytes = new Uint8Array(section);
  let at = 0;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  while (at < bytes.length) {
    const type = bytes[at++];
    const size = leb();
    const end = at + size;
    if (type === 1) return { memorySize: leb(), memoryAlign: leb(), tableSize: leb() };
    at = end;
  }
  return { memorySize: 0, memoryAlign: 0, tableSize: 0 };
}

// Bytes of stack for a side module whose functions have stack frames.
export const SIDE_STACK_BYTES = 64 * 1024;

/**
 * Links the compiled side module `module` into the Emscripten module instance `mod`: its data in
 * a block of the instance's heap (from malloc, never freed: it lives as long as the instance),
 * its functions appended to the function table, its function imports taken from that table
 * (`functions`: import name -> table index, e.g. the module's grammarImports()), then its
 * constructors run. Returns the side module's exports.
 */
export function linkSideModule(mod, module, functions) {
  const memory = mod.wasmMemory;
  const table = mod.wasmTable;
  if (!(memory instanceof WebAssembly.Memory) || !(table instanceof WebAssembly.Table))
    throw new Error(
      'the module exports no wasmMemory and wasmTable (link it with -sEXPORTED_RUNTIME_METHODS=wasmMemory,wasmTable)',
    );
  const { memorySize, memoryAlign, tableSize } = dylinkInfo(module);
  const align = Math.max(2 ** memoryAlign, 16);
  let memoryBase = 0;
  if (memorySize) {
    const block = mod._malloc(memorySize + align);
    if (!block) throw new Error(`out of WebAssembly memory allocating ${memorySize} bytes`);
    memoryBase = Math.ceil(block / align) * align;
    // Its zero-initialised data (a view made after malloc, which may have grown the memory).
    new Uint8Array(memory.buffer, memoryBase, memorySize).fill(0);
  }
  const tableBase = table.length;
  if (tableSize) table.grow(tableSize);
  const env = {
    memory,
    __indirect_function_table: table,
    __memory_base: memoryBase,
    __table_base: tableBase,
  };
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (from !== 'env')
      throw new Error(`it imports ${from}.${name}, which no side module here may`);
    if (name in env) continue;
    if (name === '__stack_pointer') {
      // A side module with stack frames of its own (C's, C++'s and JavaScript's lexers): a stack
      // of its own in the heap (it only ever runs inside a parse, never re-entered).
      const stack = mod._malloc(SIDE_STACK_BYTES);
      if (!stack) throw new Error(`out of WebAssembly memory allocating its stack`);
      env[name] = new WebAssembly.Global({ value: 'i32', mutable: true }, stack + SIDE_STACK_BYTES);
    } else if (kind === 'function' && Object.hasOwn(functions, name))
      env[name] = table.get(functions[name]);
    else throw new Error(`it imports ${name}, which the module does not provide`);
  }
  const instance = new WebAssembly.Instance(module, { env });
  instance.exports.__wasm_call_ctors?.();
  return instance.exports;
}
