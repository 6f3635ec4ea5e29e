// Tree-sitter grammars, one WebAssembly side module per language (tree-sitter-<language>.wasm),
// loaded into the module the first time a language is needed: a page that shows Python downloads
// and compiles the Python grammar only. A compiled grammar is kept per URL for every instance in
// this thread (and a page can post it to its workers: loadLanguage(name, { module })), so that it
// is downloaded and compiled once; each instance (a fresh one after a trap too) instantiates it.
import { fail, describe } from './marshal.js';
import { readData, isNode, grammarFile } from './runtime.js';
import { linkSideModule } from './side-module-linker.js';

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
      // Its imports, the C library functions a scanner calls, from the table entries that
      // wasm/bindings/analysis.cpp lists.
      const exports = linkSideModule(mod, this._modules.get(language), mod.grammarImports());
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
