// Language detection for the playground's Detect button and pastes: every grammar parses the code
// within a short budget, and the one that finds the fewest error bytes names the language.
import { PlaygroundError } from './errors.js';

/** Detection order: a language that parses as cleanly as a later one wins. */
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

/** Detection parses the code once per grammar: 250 ms plus 0.25 s per million characters each. */
const detectParseBudget = (code) => 250 + code.length / 4000;

/**
 * The language whose grammar parses the code with the fewest error bytes (ties go to the earlier
 * language in LANGUAGE_PREFERENCE: JavaScript is also valid TypeScript, C is mostly valid C++).
 */
export function detectLanguage(hr, code) {
  if (typeof code !== 'string') throw new PlaygroundError('code must be a string');
  let best = null;
  for (const language of LANGUAGE_PREFERENCE) {
    if (!hr.languages.includes(language)) continue;
    let errors;
    try {
      ({ errors } = hr.analyze(code, { language, timeoutMs: detectParseBudget(code) }));
    } catch (e) {
      if (e.name === 'HiRoPEError') continue; // past the budget: this grammar fails on it anyway
      throw e;
    }
    let score = 0;
    for (const e of errors) score += e.missing ? 1 : Math.max(1, e.byteEnd - e.byteStart);
    if (!best || score < best.score) best = { language, score };
    if (score === 0) break;
  }
  return best?.language ?? null;
}
