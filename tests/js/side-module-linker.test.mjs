// The side-module linker (wasm/side-module-linker.js) on a small fixture side module
// (tests/fixtures/side-module/fixture.c, built with -sSIDE_MODULE=2 by CMakeLists.txt) linked
// into a fresh instance of each build: the instance's memory and table through its runtime
// exports (wasmMemory, wasmTable), the fixture's data in the heap and zeroed, its function
// pointers in the table, its imports from the module, a stack of its own, and the errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { dylinkInfo, linkSideModule } from '../../dist/side-module-linker.js';
import { BUILDS } from './support/both-builds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(root, 'build/wasm-simd/side-module-fixture.wasm');
const fixture = () => new WebAssembly.Module(fs.readFileSync(FIXTURE));

// A C string at `address` in the instance's memory, read from the memory object itself.
function cString(memory, address) {
  const bytes = new Uint8Array(memory.buffer);
  let end = address;
  while (bytes[end]) end++;
  return new TextDecoder().decode(bytes.subarray(address, end));
}

for (const build of BUILDS) {
  describe(`side-module linker (${build.name})`, () => {
    const instance = async () => (await init({ simd: build.simd }))._runtime.mod;

    it("exports the instance's memory and function table as wasmMemory and wasmTable", async () => {
      const mod = await instance();
      assert.ok(mod.wasmMemory instanceof WebAssembly.Memory);
      assert.ok(mod.wasmTable instanceof WebAssembly.Table);
      assert.equal(mod.wasmMemory.buffer, mod.HEAPU8.buffer); // the memory the module uses
      // The table the module calls through: the entry of malloc that grammarImports names.
      const malloc = mod.wasmTable.get(mod.grammarImports().malloc);
      const block = malloc(16);
      assert.ok(block > 0);
      mod._free(block);
    });

    it('links the fixture: data, zeroed data, function pointers, imports and a stack', async () => {
      const mod = await instance();
      const module = fixture();
      const { memorySize, tableSize } = dylinkInfo(module);
      assert.ok(memorySize > 0 && tableSize >= 2, `${memorySize} bytes, ${tableSize} slots`);
      // A freed block of the size the linker asks for, full of ones: the next malloc may return it.
      const dirty = mod._malloc(memorySize + 16);
      new Uint8Array(mod.wasmMemory.buffer, dirty, memorySize + 16).fill(0xff);
      mod._free(dirty);
      const slots = mod.wasmTable.length;
      const side = linkSideModule(mod, module, mod.grammarImports());
      assert.equal(mod.wasmTable.length, slots + tableSize);

      assert.equal(side.fixture_apply(0, 6, 7), 13); // add, through its table slot
      assert.equal(side.fixture_apply(1, 6, 7), 42); // multiply
      assert.equal(side.fixture_count(), 41); // initialised data
      assert.equal(side.fixture_count(), 42);
      assert.equal(side.fixture_zeroed(), 0); // zero-initialised data, whatever the block held
      assert.equal(side.fixture_zeroed(), 1);
      const greeting = side.fixture_greeting();
      assert.equal(cString(mod.wasmMemory, greeting), 'side module');

      const text = mod._malloc(8);
      new Uint8Array(mod.wasmMemory.buffer).set([104, 105, 114, 111, 112, 101, 0], text);
      assert.equal(side.fixture_length(text), 6); // strlen, from the module's table
      mod._free(text);
      const copy = side.fixture_copy(4); // malloc and memcpy, from the module's table
      assert.equal(cString(mod.wasmMemory, copy), 'side');
      mod._free(copy); // the module's own allocator: the same heap
      assert.equal(side.fixture_stack_sum(3), 3 * ((255 * 256) / 2)); // its own stack

      // Linked again into the same instance: a second copy with data and slots of its own.
      const again = linkSideModule(mod, module, mod.grammarImports());
      assert.equal(again.fixture_count(), 41);
      assert.equal(side.fixture_count(), 43);
      assert.notEqual(again.fixture_greeting(), greeting);
      assert.equal(again.fixture_apply(1, 3, 5), 15);
      assert.equal(mod.wasmTable.length, slots + 2 * tableSize);
    });

    it('refuses what it cannot link, saying why', async () => {
      const mod = await instance();
      const plain = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
      assert.throws(
        () => linkSideModule(mod, plain, {}),
        /^Error: it is not a WebAssembly side module \(no dylink\.0 section\)$/,
      );
      const { malloc, memcpy } = mod.grammarImports();
      assert.throws(
        () => linkSideModule(mod, fixture(), { malloc, memcpy }),
        /^Error: it imports strlen, which the module does not provide$/,
      );
      assert.throws(
        () => linkSideModule({ _malloc: mod._malloc }, fixture(), mod.grammarImports()),
        /the module exports no wasmMemory and wasmTable/,
      );
    });
  });
}
