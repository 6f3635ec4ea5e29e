// The code-analysis library of the JS API: grammars (loaded when first needed), parse() and
// analyze(), whose packed result analysis-codec.js decodes. HiRoPE (api.js) delegates to it; the
// tokenizers come from tokenizers-api.js through the address function it is given.
import { fail, describe, checkCount, readOptions, checkBytes } from './marshal.js';
import { guardMethods } from './runtime.js';
import { AnalysisCodec } from './analysis-codec.js';

const ANALYZE_KEYS = [
  'language',
  'filename',
  'tokenizer',
  'gap',
  'descendClasses',
  'hierarchy',
  'segmentSize',
  'timeoutMs',
];

/** options.timeoutMs as the binding takes it: NaN when not given (the core's default budget). */
function timeoutOf(value) {
  if (value === undefined) return NaN;
  if (typeof value !== 'number' || Number.isNaN(value))
    fail(
      `options.timeoutMs must be a number of milliseconds >= 0 (0: no limit), got ${describe(value)}`,
    );
  return value;
}

/** Code analysis over one runtime (the full build; in the core build every call says it is not in). */
export class Analysis {
  /**
   * grammars: wasm/grammars.js (null in the core build); grammarURL(language): a grammar's URL or
   * null; tokenizer(name): a loaded tokenizer's address (Tokenizers.address).
   */
  constructor(runtime, catalogue, { grammars, grammarURL, tokenizer }) {
    this.runtime = runtime;
    this.catalogue = catalogue;
    /** Languages analyze() parses. */
    this.languages = [...catalogue.languageNames];
    this._tokenizer = tokenizer;
    this._codec = runtime.hasAnalysis ? new AnalysisCodec(runtime) : null;
    // Each language's grammar, loaded when first needed (or ahead: loadLanguage); wasm/grammars.js
    // comes with the full module only, so that the core entry stays small.
    this._grammars = runtime.hasAnalysis
      ? new grammars.Grammars(runtime, this.languages, grammarURL)
      : null;
    // The codec's buffer lived in the discarded instance.
    runtime.onReset(() => {
      if (this._codec) this._codec.buffer = null;
    });
  }

  /** The address of a language's grammar in the current instance, loading it when needed. */
  grammar(language) {
    return this._grammars.address(language);
  }

  /** hr.detectLanguage (see api.js). */
  detectLanguage(filename) {
    this.runtime.needAnalysis();
    if (typeof filename !== 'string') fail(`filename must be a string, got ${describe(filename)}`);
    return this.runtime.mod.detectLanguage(filename) || null;
  }

  /** hr.loadLanguage (see api.js). */
  async loadLanguage(name, options) {
    this.runtime.needAnalysis();
    const { module, data } = readOptions(options, ['module', 'data'], {
      name: 'loadLanguage options',
      unknown: 'loadLanguage options',
    });
    this.catalogue.checkLanguage(name);
    return this._grammars.load(name, {
      module,
      data: data === undefined ? undefined : checkBytes(data, 'options.data'),
    });
  }

  /** The languages whose grammar is loaded in this instance. */
  get loadedLanguages() {
    return this._grammars ? this._grammars.loaded : [];
  }

  /** hr.parse (see api.js). */
  parse(code, options) {
    const { language, timeoutMs } = readOptions(options, ['language', 'timeoutMs'], {
      unknown: 'parse options',
    });
    const runtime = this.runtime;
    runtime.needAnalysis();
    this.catalogue.checkLanguage(language);
    const timeout = timeoutOf(timeoutMs);
    const grammar = this._grammars.address(language);
    const r = runtime.run((heap) =>
      runtime.mod.parse(...heap.text(code), language, grammar, timeout),
    );
    runtime.check(r.error);
    return { hasError: r.hasError };
  }

  /** hr.analyze (see api.js). */
  analyze(code, options) {
    options = readOptions(options, ANALYZE_KEYS, { unknown: 'analyze options' });
    this.runtime.needAnalysis();
    const catalogue = this.catalogue;
    let language = options.language;
    if (language === undefined && options.filename !== undefined) {
      language = this.detectLanguage(options.filename);
      if (!language)
        fail(
          `cannot detect the language of '${options.filename}' (known: ${this.languages.join(', ')}); pass options.language`,
        );
    }
    if (language === undefined) fail('options.language (or options.filename) is required');
    catalogue.checkLanguage(language);
    const vocab = this._tokenizer(options.tokenizer === undefined ? 'lexical' : options.tokenizer);
    const gap = catalogue.value(
      'gaps',
      options.gap === undefined ? 'own' : options.gap,
      'options.gap',
    );
    const descend = options.descendClasses === undefined ? false : options.descendClasses;
    if (typeof descend !== 'boolean')
      fail(`options.descendClasses must be a boolean, got ${describe(descend)}`);
    const hierarchy = catalogue.value(
      'hierarchies',
      options.hierarchy === undefined ? 'units' : options.hierarchy,
      'options.hierarchy',
    );
    const segmentSize = options.segmentSize === undefined ? 128 : options.segmentSize;
    checkCount(segmentSize, 'options.segmentSize');
    const timeoutMs = timeoutOf(options.timeoutMs);
    return this._codec.analyze(code, {
      language,
      grammar: this._grammars.address(language),
      vocab,
      gap,
      descend,
      hierarchy,
      segmentSize,
      timeoutMs,
    });
  }
}
guardMethods(Analysis, function () {
  return this.runtime;
});
