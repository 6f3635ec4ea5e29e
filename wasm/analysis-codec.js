// The analysis result's packed buffer, decoded. The C++ side writes it from one table
// (kAnalysisColumns in wasm/bindings/analysis.cpp) and exports that layout as analysisLayout(); the decoder
// below states the layout it reads, and checks at start-up that the two are the same, so that a
// change on one side cannot silently shift the columns read on the other.
import { HiRoPEError } from './errors.js';
import { iota } from './marshal.js';

/** The layout this decoder reads: header words, then columns (length = a header word), strings. */
export const ANALYSIS_LAYOUT = Object.freeze({
  header: ['tokens', 'units', 'errors', 'statements'],
  columns: [
    ['tokens.ids', 'tokens', 'int32'],
    ['tokens.start', 'tokens', 'uint32'],
    ['tokens.end', 'tokens', 'uint32'],
    ['tokens.byteStart', 'tokens', 'uint32'],
    ['tokens.byteEnd', 'tokens', 'uint32'],
    ['positions.unit', 'tokens', 'int32'],
    ['positions.statement', 'tokens', 'int32'],
    ['units.kind', 'units', 'uint32'],
    ['units.start', 'units', 'uint32'],
    ['units.end', 'units', 'uint32'],
    ['units.byteStart', 'units', 'uint32'],
    ['units.byteEnd', 'units', 'uint32'],
    ['units.tokenStart', 'units', 'uint32'],
    ['units.tokenEnd', 'units', 'uint32'],
    ['units.statementStart', 'units', 'uint32'],
    ['units.statementEnd', 'units', 'uint32'],
    ['errors.start', 'errors', 'uint32'],
    ['errors.end', 'errors', 'uint32'],
    ['errors.byteStart', 'errors', 'uint32'],
    ['errors.byteEnd', 'errors', 'uint32'],
    ['errors.missing', 'errors', 'uint32'],
  ].map(([name, count, type]) => Object.freeze({ name, count, type })),
  strings: ['units.name', 'units.nodeType', 'units.languageKind'],
});

const ARRAYS = { int32: Int32Array, uint32: Uint32Array };

const layoutText = (layout) =>
  `${layout.header.join(' ')} | ${layout.columns.map((c) => `${c.name}:${c.count}:${c.type}`).join(' ')} | ${layout.strings.join(' ')}`;

/** Throws a HiRoPEError unless `layout` (a build's analysisLayout()) is the decoder's. */
export function checkAnalysisLayout(layout) {
  const plain = {
    header: [...(layout?.header ?? [])],
    columns: (layout?.columns ?? []).map(({ name, count, type }) => ({ name, count, type })),
    strings: [...(layout?.strings ?? [])],
  };
  if (JSON.stringify(plain) !== JSON.stringify(ANALYSIS_LAYOUT)) {
    throw new HiRoPEError(
      `this WebAssembly build packs analyses in another layout than wasm/analysis-codec.js reads (build: ${layoutText(plain)}; decoder: ${layoutText(ANALYSIS_LAYOUT)}): the .wasm and the .js files come from different builds`,
    );
  }
}

/** Runs analyses into one reusable C++ buffer and decodes them (full build only). */
export class AnalysisCodec {
  constructor(runtime) {
    checkAnalysisLayout(runtime.mod.analysisLayout());
    this.runtime = runtime;
    this.unitKinds = [];
    for (const k of runtime.catalogue.data.unitKinds) this.unitKinds[k.value] = k.name;
    this.buffer = null;
  }

  /**
   * Analyses code (checked and encoded by the runtime) with options already mapped to the core's
   * numbers: { language, grammar (its address), vocab (a tokenizer address, 0 = lexical), gap,
   * descend, hierarchy, segmentSize }.
   */
  analyze(code, { language, grammar, vocab, gap, descend, hierarchy, segmentSize, timeoutMs }) {
    const runtime = this.runtime;
    this.buffer ||= new runtime.mod.AnalysisBuffer();
    const buffer = this.buffer;
    runtime.run((heap) => {
      const [ptr, size] = heap.text(code);
      runtime.check(
        buffer.run(
          ptr,
          size,
          language,
          grammar,
          vocab,
          gap,
          descend,
          hierarchy,
          segmentSize,
          timeoutMs,
        ),
      );
    });
    return this.decode(code, buffer);
  }

  /** The analysis held in buffer as the API returns it (one copy per column). */
  decode(code, buffer) {
    const heap32 = this.runtime.mod.HEAPU32;
    let at = buffer.data() >> 2;
    const count = {};
    for (const name of ANALYSIS_LAYOUT.header) count[name] = heap32[at++];
    const col = {};
    for (const { name, count: of, type } of ANALYSIS_LAYOUT.columns) {
      const length = count[of];
      col[name] = new ARRAYS[type](heap32.buffer.slice(at * 4, (at + length) * 4));
      at += length;
    }
    const strings = {};
    buffer.strings().forEach((joined, i) => {
      strings[ANALYSIS_LAYOUT.strings[i]] = joined.split('\0');
    });
    const n = count.tokens;
    const tokens = {
      count: n,
      ids: col['tokens.ids'],
      start: col['tokens.start'],
      end: col['tokens.end'],
      byteStart: col['tokens.byteStart'],
      byteEnd: col['tokens.byteEnd'],
    };
    const positions = {
      token: iota(n),
      unit: col['positions.unit'],
      statement: col['positions.statement'],
    };
    const units = Array.from(col['units.kind'], (kind, index) => ({
      index,
      kind: this.unitKinds[kind],
      name: strings['units.name'][index],
      nodeType: strings['units.nodeType'][index],
      languageKind: strings['units.languageKind'][index],
      start: col['units.start'][index],
      end: col['units.end'][index],
      byteStart: col['units.byteStart'][index],
      byteEnd: col['units.byteEnd'][index],
      // Half-open index ranges, as Python's Unit.tokens and Unit.statements ranges.
      tokens: { start: col['units.tokenStart'][index], end: col['units.tokenEnd'][index] },
      statements: {
        start: col['units.statementStart'][index],
        end: col['units.statementEnd'][index],
      },
    }));
    const errors = Array.from(col['errors.start'], (start, i) => ({
      start,
      end: col['errors.end'][i],
      byteStart: col['errors.byteStart'][i],
      byteEnd: col['errors.byteEnd'][i],
      missing: col['errors.missing'][i] === 1,
    }));
    withTexts(tokens, code);
    return {
      language: buffer.language(),
      tokenizer: buffer.tokenizer(),
      tokens,
      positions,
      units,
      errors,
      statements: count.statements,
    };
  }
}

/**
 * Gives an analysis's tokens their `texts` (each token's slice of code), made on first read: most
 * callers never ask. Also for an analysis that crossed from a worker, where getters do not travel.
 */
export function withTexts(tokens, code) {
  let texts = null;
  Object.defineProperty(tokens, 'texts', {
    enumerable: true,
    get() {
      if (!texts)
        texts = Array.from({ length: tokens.count }, (_, i) =>
          code.slice(tokens.start[i], tokens.end[i]),
        );
      return texts;
    },
  });
  return tokens;
}
