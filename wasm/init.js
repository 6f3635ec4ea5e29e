// Loading the WebAssembly module for an entry point: the SIMD probe, the init() options, which
// build to load, the Emscripten module options (locateFile, wasmBinary, a precompiled
// wasmModule), where the data files are, and the WebGPU executor when a backend asks for one.
import { HiRoPEError } from './errors.js';
import { fail, describe, checkKnownKeys } from './marshal.js';
import { readData, TOKENIZER_FILES, MODEL_FILES, grammarLanguage } from './runtime.js';

// (module (func (result v128) (i32x4.splat (i32.const 0)))): valid only where SIMD is.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 17,
  11,
]);

/** True when this engine validates a WebAssembly SIMD module. */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export const INIT_KEYS = [
  'simd',
  'analysis',
  'locateFile',
  'wasmBinary',
  'wasmModule',
  'dataURL',
  'tokenizers',
  'languages',
  'backend',
  'gpu',
];

/**
 * Checks init() options and instantiates the module they pick from an entry's `modules` (maps
 * 'full' and/or 'core' to { simd, scalar }, each a [.wasm file name, loader of the Emscripten
 * factory]), `wasm` (.wasm file names to their URLs) and `data` (data file names to their URLs),
 * each URL written as new URL('./literal', import.meta.url) in the entry so that bundlers copy
 * the files. Resolves to { mod, backend: 'wasm-simd' | 'wasm-scalar', analysis (whether it is
 * the full module), files, respawn, respawnAsync } (fresh instances of the same compiled module,
 * see Runtime.reset).
 */
export async function loadModule({ modules, wasm, data = {} }, options) {
  if (options === null || typeof options !== 'object')
    fail(`init options must be an object, got ${describe(options)}`);
  checkKnownKeys(options, INIT_KEYS, 'init options');
  const supported = simdSupported();
  const simd = options.simd === undefined ? supported : options.simd;
  if (typeof simd !== 'boolean') fail(`options.simd must be a boolean, got ${describe(simd)}`);
  if (simd && !supported)
    fail('options.simd is true but this engine does not support WebAssembly SIMD');
  const analysis = options.analysis === undefined ? 'full' in modules : options.analysis;
  if (typeof analysis !== 'boolean')
    fail(`options.analysis must be a boolean, got ${describe(analysis)}`);
  if (analysis && !('full' in modules))
    fail(
      "options.analysis: this entry point ('hirope/core') has no code analysis; import 'hirope'",
    );
  if (!analysis && options.tokenizers?.length)
    fail('options.tokenizers needs the analysis build (analysis: true)');
  const [file, load] = modules[analysis ? 'full' : 'core'][simd ? 'simd' : 'scalar'];
  const factory = (await load()).default;
  const compiled = await compileModule(file, wasm, options);
  // The import object the loader hands over names exactly what its own .wasm imports: another
  // build's module would instantiate and then fail deep inside the runtime's start-up.
  const checkImports = (imports) => {
    const wanted = new Set(Object.values(imports).flatMap((ns) => Object.keys(ns)));
    const given = WebAssembly.Module.imports(compiled);
    if (given.length !== wanted.size || given.some((i) => !wanted.has(i.name)))
      fail(`options.wasmModule could not be instantiated: it is not ${file} (its imports differ)`);
  };
  // One Emscripten start-up on an instance of `compiled`: instantiate(imports) gives the instance
  // or a promise of one. Handed over at once, Emscripten's start-up runs to its end inside the
  // factory call, so `module` is ready when start returns; `ready` resolves to it, or rejects.
  const start = (instantiate) => {
    let reject;
    const failed = new Promise((_, r) => (reject = r));
    const module = {
      instantiateWasm: (imports, receive) => {
        try {
          const instance = instantiate(imports);
          if (instance instanceof WebAssembly.Instance) receive(instance, compiled);
          else instance.then((i) => receive(i, compiled), reject);
        } catch (e) {
          reject(e);
        }
        return {};
      },
    };
    return { module, ready: Promise.race([factory(module), failed]) };
  };
  const mod = await start((imports) => {
    checkImports(imports);
    return WebAssembly.instantiate(compiled, imports).catch((e) =>
      fail(`${file} could not be instantiated: ${e.message}`),
    );
  }).ready;
  // Fresh instances of the same compiled module, for the runtime to replace a module that trapped
  // or aborted. Engines that refuse synchronous instantiation of a large module (a browser's main
  // thread may) make respawn throw; the runtime then waits for respawnAsync.
  const respawn = () => {
    const { module, ready } = start((imports) => new WebAssembly.Instance(compiled, imports));
    ready.catch(() => {});
    if (typeof module.limits !== 'function')
      throw new HiRoPEError(`${file} did not start synchronously`);
    return module;
  };
  const respawnAsync = () => start((imports) => WebAssembly.instantiate(compiled, imports)).ready;
  const files = {};
  if (options.dataURL !== undefined) {
    const base = new URL(
      String(options.dataURL).replace(/\/?$/, '/'),
      globalThis.location?.href ?? import.meta.url,
    );
    for (const [name, file] of Object.entries(TOKENIZER_FILES)) files[name] = new URL(file, base);
    for (const [name, file] of Object.entries(MODEL_FILES))
      files[`model:${name}`] = new URL(file, base);
  } else {
    for (const [name, url] of Object.entries(data)) files[name] = url();
  }
  // The grammars' side modules (tree-sitter-<language>.wasm), where locateFile puts .wasm files:
  // asked when a grammar is first needed (a function, so that locateFile is asked only then).
  if (analysis) {
    for (const file of Object.keys(wasm)) {
      const language = grammarLanguage(file);
      if (language) files[`grammar:${language}`] = () => wasmURL(file, wasm, options);
    }
  }
  return {
    mod,
    backend: simd ? 'wasm-simd' : 'wasm-scalar',
    analysis,
    files,
    respawn,
    respawnAsync,
  };
}

/** The URL of a .wasm file: beside the entry, or where options.locateFile says. */
function wasmURL(file, wasm, options) {
  const base = wasm[file]();
  return options.locateFile
    ? new URL(options.locateFile(file, new URL('.', base).href), base)
    : base;
}

/**
 * The compiled module of `file`: options.wasmModule, options.wasmBinary, or the file itself (read
 * in Node, streamed elsewhere) at the URL options.locateFile gives (called as Emscripten calls it,
 * with the directory of the loader), by default next to this module. Kept, so that the runtime can
 * instantiate it again.
 */
async function compileModule(file, wasm, options) {
  if (options.wasmModule !== undefined) {
    // A module compiled once (e.g. by a page) and posted to each worker: no fetch, no compile.
    if (!(options.wasmModule instanceof WebAssembly.Module))
      fail(`options.wasmModule must be a WebAssembly.Module, got ${describe(options.wasmModule)}`);
    return options.wasmModule;
  }
  const compile = async (bytes) => {
    try {
      return await WebAssembly.compile(bytes);
    } catch (e) {
      fail(`${file} could not be compiled: ${e.message}`);
    }
  };
  if (options.wasmBinary) return compile(options.wasmBinary);
  const url = wasmURL(file, wasm, options);
  if (url.protocol !== 'file:' && typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch {
      // a server without the application/wasm type: compile the bytes instead
    }
  }
  return compile(await readData(url));
}

/**
 * The attention executor that options.backend asks for: undefined for 'wasm' (the default), a
 * WebGPU executor, or null where 'auto' found no adapter. `webgpu` loads wasm/webgpu.js.
 */
export async function startGPU({ webgpu }, options) {
  const backend = options.backend === undefined ? 'wasm' : options.backend;
  if (!['wasm', 'webgpu', 'auto'].includes(backend))
    fail(`options.backend must be 'wasm', 'webgpu' or 'auto', got ${describe(backend)}`);
  if (backend === 'wasm') return undefined;
  const gpu = options.gpu ?? globalThis.navigator?.gpu;
  const { createGPUAttention } = await webgpu();
  let executor = null;
  try {
    executor = await createGPUAttention(gpu);
  } catch (e) {
    if (backend === 'webgpu') fail(`WebGPU is not usable here: ${e.message}`);
  }
  if (!executor && backend === 'webgpu')
    fail(
      "options.backend is 'webgpu' but no WebGPU adapter is available (use 'auto' to fall back to WASM)",
    );
  return executor;
}
