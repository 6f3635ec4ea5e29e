// Language detection for the playground's Detect button and pastes: grammars parse the code
// within a short budget, and the one that finds the fewest error bytes names the language. Each
// grammar is a download (tree-sitter-<language>.wasm), so the languages are tried in the order
// that the code's own words suggest, and detection stops at the first grammar that parses it
// without an error: Python code loads the Python grammar only.

/** Detection order where nothing in the code suggests another: earlier languages win ties. */
export const LANGUAGE_PREFERENCE = [
  'python',
  'javascript',
  'typescript',
  'tsx',
  'c',
  'cpp',
  'java',
  'go',
  'rust',
];

// Words and forms that mostly one language writes (at a line's start where marked ^). A hint
// only reorders the tries; the parses decide.
const HINTS = {
  python: [/^\s*def \w+\(.*\):/m, /^\s*(from [\w.]+ )?import [\w.]+/m, /^\s*class \w+.*:\s*$/m],
  javascript: [/\bconst \w+ = /, /=>/, /\bfunction\b/, /\bconsole\.\w+\(/, /\brequire\(/],
  typescript: [/\binterface \w+/, /:\s*(string|number|boolean|void)\b/, /^\s*type \w+ =/m],
  tsx: [/<\/\w+>|\/>/],
  c: [/^#include\s*[<"]/m, /\bprintf\(/, /\bmalloc\(/],
  cpp: [/\bstd::/, /\btemplate\s*</, /\bnamespace \w+/, /#include <\w+>$/m, /::/],
  java: [/\bpublic (final )?class \w+/, /\bSystem\.out\./, /^\s*package [\w.]+;/m],
  go: [/^package \w+\s*$/m, /\bfunc (\(\w+ \*?\w+\) )?\w+\(/, /:= /],
  rust: [/\bfn \w+/, /\blet mut\b/, /\bimpl\b/, /^use [\w:]+/m, /\w+!\(/],
};

// A language that extends another: where its own hints show, the other's count for it too
// (TypeScript code writes JavaScript's words as well).
const EXTENDS = { typescript: 'javascript', tsx: 'typescript', cpp: 'c' };

/** The languages in the order detection tries them: most hints first, ties by preference. */
export function detectionOrder(code) {
  const own = new Map(
    LANGUAGE_PREFERENCE.map((l) => [l, HINTS[l].filter((re) => re.test(code)).length]),
  );
  const hints = (l) => (own.get(l) && EXTENDS[l] ? own.get(l) + hints(EXTENDS[l]) : own.get(l));
  return [...LANGUAGE_PREFERENCE].sort((x, y) => hints(y) - hints(x));
}

/** Detection parses the code once per grammar: 250 ms plus 0.25 s per million characters each. */
const detectParseBudget = (code) => 250 + code.length / 4000;

/**
 * Detection's measure of a parse: the bytes its syntax errors cover (a MISSING node counts one
 * byte). The status's "the closest" sentence reports the same measure (wording.js parseSentence).
 * errors: the analysis's error regions, each with byteStart, byteEnd and missing.
 */
export function errorBytes(errors) {
  let bytes = 0;
  for (const e of errors) bytes += e.missing ? 1 : Math.max(1, e.byteEnd - e.byteStart);
  return bytes;
}

/**
 * The error bytes of the code parsed as `language` (errorBytes), or null
 * when the parse runs past detection's budget (that grammar fails on it anyway) or the grammar
 * cannot be loaded.
 */
export function errorScore(hr, code, language) {
  let errors;
  try {
    ({ errors } = hr.analyze(code, { language, timeoutMs: detectParseBudget(code) }));
  } catch (e) {
    if (e.name === 'HiRoPEError') return null; // past the budget, or the grammar would not load
    throw e;
  }
  return errorBytes(errors);
}

/**
 * Detection as a coroutine, so that the parses can run where the grammars are (this thread, or a
 * worker after the page has handed it the grammar): yields each language to try, takes its
 * errorScore back, and returns the language with the fewest error bytes (ties go to the earlier
 * try), or null.
 */
export function* detection(code) {
  if (typeof code !== 'string') throw new TypeError('code must be a string');
  let best = null;
  for (const language of detectionOrder(code)) {
    const score = yield language;
    if (score === null) continue;
    if (!best || score < best.score) best = { language, score };
    if (score === 0) break;
  }
  return best?.language ?? null;
}

/** The language of the code, parsed here with hr (each grammar loaded when first tried). */
export function detectLanguage(hr, code) {
  const run = detection(code);
  let step = run.next();
  while (!step.done) step = run.next(errorScore(hr, code, step.value));
  return step.value;
}
