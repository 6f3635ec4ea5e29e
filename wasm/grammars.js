// Tree-sitter grammars, one WebAssembly side module per language (tree-sitter-<language>.wasm),
// loaded into the module the first time a language is needed: a page that shows Python downloads
// and compiles the Python grammar only. A compiled grammar is kept per URL for every instance in
// this thread (and a page can post it to its workers: loadLanguage(name, { module })), so that it
// is downloaded and compiled once; each instance (a fresh one after a trap too) instantiates it.
import { fail, describe } from './marshal.js';
import { readData, isNode, grammarFile } from './runtime.js';

// URL -> Promise of its compiled WebAssembly.Module, and URL -> the module once compiled, for every
// instance in this thread.
const compiled = new Map();
const compiledNow = new Map();

function compileURL(url) {
  if (!compiled.has(url.href)) {
    const compiling = (async () => {
      if (url.protocol !== 'file:' && typeof WebAssembly.compileStreaming === 'function') {
        try {
          return await WebAssembly.compileStreaming(fetch(url));
        } catch {
          // a server without the application/wasm type, or a network error: read the bytes
          // (which says which, in the error)
        }
      }
      return WebAssembly.compile(await readData(url));
    })();
    compiling.then(
      (module) => compiledNow.set(url.href, module),
      () => compiled.delete(url.href), // a later call tries again
    );
    compiled.set(url.href, compiling);
  }
  return compiled.get(url.href);
}

// node:fs, imported ahead by init() (an ES module cannot import synchronously), so that analyze()
// can read a grammar's file when it first needs it.
let nodeFs = null;
export async function prepareSyncReads() {
  if (!isNode() || nodeFs) return;
  const name = 'node:fs'; // a variable, so bundlers leave Node's fs alone
  nodeFs = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}

// The bytes at a URL, synchronously: Node's fs (file: URLs), else a synchronous request (allowed
// in workers; on a page's main thread browsers warn, which is why pages call loadLanguage first).
function readSync(url) {
  if (url.protocol === 'file:') {
    if (!nodeFs) throw new Error('file: URLs are read in Node only');
    return new Uint8Array(nodeFs.readFileSync(url));
  }
  if (typeof XMLHttpRequest !== 'function') throw new Error('no XMLHttpRequest to fetch it with');
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url.href, false);
  // A synchronous request on a page cannot ask for an ArrayBuffer: bytes as characters instead.
  xhr.overrideMimeType('text/plain; charset=x-user-defined');
  xhr.send();
  if (xhr.status !== 200 && !(xhr.status === 0 && xhr.responseText))
    throw new Error(`HTTP ${xhr.status}`);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

// A side module's needs, from its dylink.0 section: bytes of data (aligned to 2^memoryAlign) and
// function table slots.
function dylinkInfo(module) {
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
const SIDE_STACK_BYTES = 64 * 1024;

/**
 * Links a grammar's side module into an Emscripten module instance, as a dynamic linker would:
 * its data in a block of the instance's heap (from malloc, never freed: the grammar lives as long
 * as the instance), its functions appended to the function table, its imports (the C library
 * functions a scanner calls) taken from that table (the module's grammarImports() says where),
 * then its constructors run.
 * Returns the side module's exports. The module stays a plain Emscripten module, not a
 * position-independent "main module", so the rest of it is as fast as before.
 */
function linkSideModule(mod, module) {
  const { memorySize, memoryAlign, tableSize } = dylinkInfo(module);
  // The instance's memory and table: its only ones (Emscripten minifies the export names).
  const exported = Object.values(mod.asm);
  const memory = exported.find((x) => x instanceof WebAssembly.Memory);
  const table = exported.find((x) => x instanceof WebAssembly.Table);
  const functions = mod.grammarImports();
  const align = Math.max(2 ** memoryAlign, 16);
  let memoryBase = 0;
  if (memorySize) {
    const block = mod._malloc(memorySize + align);
    if (!block) throw new Error(`out of WebAssembly memory allocating ${memorySize} bytes`);
    memoryBase = Math.ceil(block / align) * align;
    mod.HEAPU8.fill(0, memoryBase, memoryBase + memorySize); // its zero-initialised data
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
      // A grammar with stack frames of its own (C's, C++'s and JavaScript's lexers): a stack of
      // its own in the heap (it only ever runs inside a parse, never re-entered).
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

/** The grammars of one HiRoPE instance: which are loaded, and each one's address in the module. */
export class Grammars {
  /**
   * runtime: the module's Runtime; languages: hr.languages (callers check a language against the
   * catalogue first); urlOf(language): the URL of its side module (null: none).
   */
  constructor(runtime, languages, urlOf) {
    this._runtime = runtime;
    this._languages = languages;
    this._urlOf = urlOf;
    this._urls = new Map(); // language -> its URL, asked once
    this._modules = new Map(); // language -> compiled WebAssembly.Module
    this._handles = new Map(); // language -> GrammarHandle in the current instance
    runtime.onReset(() => {
      this._handles = new Map(); // the next use instantiates the kept module again
    });
  }

  /** Languages whose grammar this instance has (loaded, or ready to instantiate). */
  get loaded() {
    return this._languages.filter((l) => this._modules.has(l));
  }

  _url(language) {
    if (!this._urls.has(language)) this._urls.set(language, this._urlOf(language));
    return this._urls.get(language);
  }

  _where(language) {
    const url = this._url(language);
    return url ? url.href : `${grammarFile(language)} (no URL: pass loadLanguage's module)`;
  }

  _failLoad(language, reason) {
    fail(`the ${language} grammar could not be loaded from ${this._where(language)}: ${reason}`);
  }

  /**
   * Loads a language's grammar (once): `module` (a WebAssembly.Module compiled elsewhere, e.g.
   * by the page for its workers), `data` (its bytes), or the file at its URL.
   */
  async load(language, { module, data } = {}) {
    if (!this._modules.has(language)) {
      let m = module;
      if (m !== undefined && !(m instanceof WebAssembly.Module))
        fail(`options.module must be a WebAssembly.Module, got ${describe(m)}`);
      if (m === undefined) {
        const url = this._url(language);
        try {
          if (data !== undefined) m = await WebAssembly.compile(data);
          else if (url) m = await compileURL(url);
          else throw new Error('no URL for it: pass options.module or options.data');
        } catch (e) {
          this._failLoad(language, e.message);
        }
      }
      // Loaded by a call that finished during the await.
      if (!this._modules.has(language)) this._accept(language, m);
    }
    this.address(language);
    return language;
  }

  /** The Grammar's address in the module, loading its file synchronously the first time. */
  address(language) {
    const handle = this._handles.get(language);
    if (handle) return handle.address();
    if (!this._modules.has(language)) {
      const url = this._url(language);
      if (!url)
        fail(
          `the ${language} grammar is not loaded: call await hr.loadLanguage('${language}') first`,
        );
      let m = compiledNow.get(url.href);
      if (!m) {
        try {
          m = new WebAssembly.Module(readSync(url));
        } catch (e) {
          this._failLoad(language, e.message);
        }
        compiledNow.set(url.href, m);
      }
      this._accept(language, m);
    }
    return this._instantiate(language);
  }

  _accept(language, module) {
    const name = `tree_sitter_${language}`;
    if (!WebAssembly.Module.exports(module).some((e) => e.name === name))
      this._failLoad(language, `it is not the ${language} grammar (it exports no ${name})`);
    this._modules.set(language, module);
  }

  _instantiate(language) {
    const mod = this._runtime.mod;
    let ts;
    try {
      const exports = linkSideModule(mod, this._modules.get(language));
      ts = exports[`tree_sitter_${language}`]();
    } catch (e) {
      this._failLoad(language, `it could not be instantiated: ${e.message}`);
    }
    const handle = new mod.GrammarHandle(language, ts);
    const error = handle.error();
    if (error) {
      handle.delete();
      this._failLoad(language, error);
    }
    this._handles.set(language, handle);
    return handle.address();
  }
}
