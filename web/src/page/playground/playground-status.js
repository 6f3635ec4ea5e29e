// The playground's status: the status line in words, what a redraw read and what is out of
// distribution (plainStatus) or what went wrong when it failed (errorText), and the maps a failed
// redraw leaves retitled as not computed (retitleUncomputed).
import { $ } from '../shell.js';
import { describeScheme } from '../../shared/playground-state.js';
import { modelSource } from '../../shared/model-gallery.js';
import { codeSentence, trainingSentence, parseSentence } from '../../shared/wording.js';
import { LANGUAGE_NAMES } from '../../shared/samples.js';
import { errorBytes } from '../../shared/language-detection.js';

/** The status line in plain words: what was read, and what is out of distribution. */
export function plainStatus(pg, value, snapshot) {
  const a = value.analysis;
  if (!a.count) return 'The code has no tokens: paste or type some code.';
  // The tokenizer and the schemes under their display names: the Tokenizer control's and the map titles'.
  const parts = [
    codeSentence({
      count: a.count,
      languageName: LANGUAGE_NAMES[a.language],
      tokenizer: pg.tokenizersBox.label(a.tokenizer),
      units: a.units.length,
      statements: a.statements,
    }),
  ];
  // Which schemes meet angles they never saw in training: each side's own count of pairs.
  // Counted at the code's own span (the angle view: hr.unseenPairs); a real model side names its
  // maximum length, which the code's positions may run past.
  const sides = ['a', 'b'].map((s) => {
    const facts = value.facts?.[s];
    const source = modelSource(snapshot[s]);
    return {
      label: s.toUpperCase(),
      name: describeScheme(snapshot[s], facts),
      ood: value.views?.angles?.[s]?.value ?? null,
      train: facts?.train,
      model:
        source && facts?.maxLength
          ? { name: source.id ?? 'your config.json', maxLength: facts.maxLength }
          : null,
    };
  });
  parts.push(
    trainingSentence({
      n: value.n,
      total: a.count,
      train: snapshot.train,
      sides,
      stride: snapshot.stride,
    }),
  );
  const parse = parseSentence({
    languageName: LANGUAGE_NAMES[a.language] ?? a.language,
    errors: a.errors?.length ?? 0,
    errorBytes: errorBytes(a.errors ?? []),
    detected: pg.detected?.code === value.code && pg.detected.language === a.language,
  });
  if (parse) parts.push(parse);
  if (value.notes.length) parts.push(value.notes.join(' '));
  return parts.join(' ');
}

/** The status line for an error: the code's own problems in the page's words, else the API's. */
export function errorText(pg, e) {
  const api = e.name === 'HiRoPEError' || e.name === 'PlaygroundError';
  const kept = pg.result?.n ? ' The maps still show the last code that could be read.' : '';
  if (e.name === 'NetworkError') return e.message; // a data file that could not be downloaded (worker-requests.js)
  // The parse budget (web/src/worker/attention-engine.js pageParseBudget) and the heap: the code, not the settings.
  const slow =
    api &&
    /^parsing stopped after (\d+) ms at byte (\d+) of (\d+): the input is pathological for the tree-sitter (\w+) grammar/.exec(
      e.message,
    );
  if (slow) {
    const [, ms, at, of, language] = slow;
    return `This code cannot be parsed in time: tree-sitter's ${LANGUAGE_NAMES[language] ?? language} grammar recovers from its syntax errors very slowly on it (stopped after ${(ms / 1000).toFixed(1)} s at byte ${Number(at).toLocaleString('en')} of ${Number(of).toLocaleString('en')}).${kept}`;
  }
  if (api && /^out of memory/.test(e.message))
    return `This code is too large for the browser's WebAssembly memory: ${e.message.replace(/^out of memory: /, '')}.${kept}`;
  return `${api ? 'These settings cannot be computed' : e.name}: ${e.message}`;
}

// The shared settings every side computes with: a refused change of one leaves both maps stale.
const SIDES_SETTINGS = [
  'tokenizer',
  'gap',
  'descend',
  'headDim',
  'source',
  'seed',
  'train',
  'stride',
];

/**
 * After a run that failed: a map whose scheme or shared settings (the stride, the head dim…) are
 * no longer the ones it shows is emptied and titled with the scheme that could not be computed,
 * and its side's Split% hint cleared, so that no map or hint keeps a result under settings it
 * does not belong to (the status line says why). `hints`: each side's hint element.
 */
export function retitleUncomputed(pg, snapshot, hints) {
  const shown = pg.result?.snapshot;
  const differs = (key) => JSON.stringify(shown[key]) !== JSON.stringify(snapshot[key]);
  const settings = !shown || SIDES_SETTINGS.some(differs);
  const stale = { a: settings || differs('a'), b: settings || differs('b') };
  if (!stale.a && !stale.b) return; // the code failed, not the settings: the maps keep the last code
  const names = { a: describeScheme(snapshot.a), b: describeScheme(snapshot.b) };
  for (const side of ['a', 'b'])
    if (stale[side]) {
      pg.heatmaps[side].setTitle(side.toUpperCase(), `${names[side]}: not computed`);
      hints[side].textContent = '';
      hints[side].classList.remove('warn');
    }
  pg.heatmaps.diff.setTitle('A vs B', 'not computed');
  for (const which of ['a', 'b', 'diff'])
    if (which === 'diff' || stale[which])
      pg.heatmaps[which].clear('Not computed:\nsee the status line above.');
  $('summary').replaceChildren(); // its numbers were the previous schemes'
}
