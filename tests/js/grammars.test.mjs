// The grammars as side modules (issue 33): one tree-sitter-<language>.wasm per language, linked into
// the module when a language is first needed (wasm/grammars.js). What each side module imports,
// loading on demand and ahead, the bundler-visible URL of every grammar, errors that name the
// language and the URL, and a fresh instance after a trap getting its grammars back.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import init, { HiRoPEError } from '../../dist/index.js';
import { grammarFile } from '../../dist/runtime.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
const SNIPPETS = {
  python: 'def f(x):\n    return x\n',
  javascript: 'function f(x) { return x; }\n',
  typescript: 'function f(x: number): number { return x; }\n',
  tsx: 'const A = () => <div>{1}</div>;\n',
  c: 'int f(int x) { return x; }\n',
  cpp: 'template <class T> T f(T x) { return x; }\n',
  java: 'class A { int f(int x) { return x; } }\n',
  go: 'package main\nfunc f(x int) int { return x }\n',
  rust: 'fn f(x: i32) -> i32 { x }\n',
};
// What a side module may import: the linker's own four, a stack of its own, and the C library
// functions the module hands over (wasm/bindings/analysis.cpp grammarImports).
const LINKER_IMPORTS = [
  'memory',
  '__indirect_function_table',
  '__memory_base',
  '__table_base',
  '__stack_pointer',
];

describe('grammars as side modules', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hirope-grammars-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ships one side module per language, importing only what the module provides', async () => {
    const hr = await init();
    const provided = Object.keys(hr._runtime.mod.grammarImports());
    assert.deepEqual(Object.keys(SNIPPETS), hr.languages);
    for (const language of hr.languages) {
      const module = new WebAssembly.Module(
        fs.readFileSync(path.join(dist, grammarFile(language))),
      );
      assert.equal(WebAssembly.Module.customSections(module, 'dylink.0').length, 1, language);
      for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
        assert.equal(from, 'env', `${language} imports ${from}.${name}`);
        if (kind === 'function') assert.ok(provided.includes(name), `${language} imports ${name}`);
        else assert.ok(LINKER_IMPORTS.includes(name), `${language} imports ${name}`);
      }
      const exported = WebAssembly.Module.exports(module).map((e) => e.name);
      assert.ok(exported.includes(`tree_sitter_${language}`), language);
    }
    // The module holds no grammar of its own: it is a fraction of the nine.
    const size = (file) => fs.statSync(path.join(dist, file)).size;
    const grammars = hr.languages.reduce((sum, l) => sum + size(grammarFile(l)), 0);
    assert.ok(size('hirope-simd.wasm') < grammars / 4);
  });

  it('every grammar has a URL literal in index.js, so that bundlers copy it', () => {
    const index = fs.readFileSync(path.join(dist, 'index.js'), 'utf8');
    for (const language of Object.keys(SNIPPETS)) {
      const file = grammarFile(language);
      assert.ok(index.includes(`new URL('./${file}', import.meta.url)`), file);
    }
  });

  it('analyze() loads the grammar it needs, and only that one', async () => {
    const hr = await init();
    assert.deepEqual(hr.loadedLanguages, []);
    const a = hr.analyze(SNIPPETS.python, { language: 'python' });
    assert.deepEqual(
      a.units.map((u) => u.kind),
      ['function'],
    );
    assert.deepEqual(hr.loadedLanguages, ['python']);
    assert.equal(hr.parse('fn main() {}', { language: 'rust' }).hasError, false);
    assert.deepEqual(hr.loadedLanguages, ['python', 'rust']);
  });

  it('loadLanguage() loads ahead, once, and init({ languages }) does it at start', async () => {
    const hr = await init({ languages: ['go'] });
    assert.deepEqual(hr.loadedLanguages, ['go']);
    for (const language of Object.keys(SNIPPETS)) {
      assert.equal(await hr.loadLanguage(language), language);
      assert.equal(await hr.loadLanguage(language), language); // again: nothing more
      const a = hr.analyze(SNIPPETS[language], { language });
      assert.equal(a.errors.length, 0, language);
      assert.ok(
        a.units.some((u) => u.kind === 'function' || u.kind === 'class'),
        language,
      );
    }
    assert.deepEqual(hr.loadedLanguages, hr.languages);
  });

  it('takes a grammar compiled elsewhere, or its bytes', async () => {
    const bytes = fs.readFileSync(path.join(dist, grammarFile('java')));
    const hr = await init();
    await hr.loadLanguage('java', { module: new WebAssembly.Module(bytes) });
    assert.equal(hr.analyze(SNIPPETS.java, { language: 'java' }).units[0].kind, 'class');
    const other = await init();
    await other.loadLanguage('java', { data: new Uint8Array(bytes) });
    assert.deepEqual(other.loadedLanguages, ['java']);
  });

  it('a grammar that cannot be loaded is a HiRoPEError naming the language and the URL', async () => {
    const missing = path.join(dir, 'none.wasm');
    const hr = await init({
      locateFile: (file, scriptDirectory) =>
        file.startsWith('tree-sitter-') ? missing : scriptDirectory + file,
    });
    const url = pathToFileURL(missing).href;
    const named = (language) => (e) =>
      e instanceof HiRoPEError &&
      e.message.startsWith(`the ${language} grammar could not be loaded from ${url}: `);
    await assert.rejects(hr.loadLanguage('python'), named('python'));
    assert.throws(() => hr.analyze('x = 1', { language: 'go' }), named('go'));
    assert.deepEqual(hr.loadedLanguages, []);
    // The wrong file, or no grammar at all.
    const python = fs.readFileSync(path.join(dist, grammarFile('python')));
    await assert.rejects(
      hr.loadLanguage('rust', { data: python }),
      (e) =>
        e instanceof HiRoPEError &&
        /it is not the rust grammar \(it exports no tree_sitter_rust\)/.test(e.message),
    );
    await assert.rejects(
      hr.loadLanguage('rust', { data: new Uint8Array([1, 2, 3]) }),
      (e) =>
        e instanceof HiRoPEError && e.message.startsWith('the rust grammar could not be loaded'),
    );
    await assert.rejects(
      hr.loadLanguage('rust', { module: 'rust.wasm' }),
      (e) =>
        e instanceof HiRoPEError &&
        e.message === "options.module must be a WebAssembly.Module, got 'rust.wasm'",
    );
    await assert.rejects(
      hr.loadLanguage('cobol'),
      (e) => e instanceof HiRoPEError && /^language must be one of 'python', /.test(e.message),
    );
    await assert.rejects(
      hr.loadLanguage('python', { url: 'x' }),
      (e) => e instanceof HiRoPEError && /unknown key 'url'/.test(e.message),
    );
  });

  it('a fresh instance after a trap gets the grammars loaded so far', async () => {
    const hr = await init();
    const before = hr.analyze(SNIPPETS.cpp, { language: 'cpp' });
    hr._runtime.reset();
    const again = hr.analyze(SNIPPETS.cpp, { language: 'cpp' });
    assert.deepEqual(Array.from(again.positions.unit), Array.from(before.positions.unit));
    assert.deepEqual(hr.loadedLanguages, ['cpp']);
  });

  it('the core entry has no grammars', async () => {
    const core = await import('../../dist/core.js');
    const hr = await core.default();
    assert.deepEqual(hr.loadedLanguages, []);
    await assert.rejects(hr.loadLanguage('python'), (e) => e instanceof HiRoPEError);
  });
});
