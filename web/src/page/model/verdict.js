// Model mode's held-out verdict panel: built from the same models/<name>-eval.json files that
// training/eval/report.mjs turns into docs/model-eval.md, read with the same statistics
// (the package's hirope/eval-stats), so no number is typed twice. verdictData is pure (Node tests call it
// on the files); renderVerdict draws it.
import {
  FAR,
  beyondByFile,
  classByFile,
  overFiles,
  pairedByFile,
  verdictOf,
} from 'hirope/eval-stats';
// An element with attributes and children (strings or nodes).
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/**
 * The eval files of each model, the shipped seed first, each with the training record whose seed
 * labels it (site: data/eval/, copied from models/ by scripts/build-site.mjs).
 */
export const EVAL_FILES = Object.freeze({
  'pyjs-llama2': Object.freeze([
    ['pyjs-llama2-eval.json', 'pyjs-llama2-training.json'],
    ['pyjs-llama2-seed2-eval.json', 'pyjs-llama2-seed2-training.json'],
  ]),
  pybyte: Object.freeze([['pybyte-eval.json', 'pybyte-training.json']]),
});

// The schemes the panel lists (those an eval file has), baselines first, with their names.
const ROWS = [
  ['truncate', 'Truncate*'],
  ['sliding-window (tuned)', 'Sliding window*'],
  ['rope', 'RoPE'],
  ['yarn (tuned)', 'YaRN'],
  ['rerope (tuned)', 'ReRoPE'],
  ['self-extend (tuned)', 'Self-Extend'],
  ['hirope-units (tuned)', 'HiRoPE units'],
  ['hirope-segments (tuned)', 'HiRoPE segments'],
];
export const SCHEME_LABEL = Object.fromEntries(ROWS);
const MULTIPLES = [4, 8];

/**
 * The panel's numbers from parsed eval files (the shipped seed first; options: seeds, their
 * labels, and config, the model's config where a file has none): { unit, L, multiples,
 * rows: [{ name, label, cells: { [multiple]: { beyond, far } } }] (means over files with standard
 * errors, shipped seed), pairs: [{ a, b, what ('beyond' | 'far'), multiple, seeds: [{ diff, se,
 * files, verdict }] }], seeds: the seed labels, sentence }.
 */
export function verdictData(
  evals,
  { seeds: seedLabels = evals.map((_, i) => (i ? `seed ${i + 1}` : 'shipped seed')), config } = {},
) {
  const [first] = evals;
  // The model's config: the file's own (newer files keep it), else the loaded model's.
  const c = first.config ?? config;
  const L = c.trainingContext;
  const unit = c.tokenizer ? 'token' : 'byte';
  const rows = ROWS.filter(([name]) => MULTIPLES.every((m) => first.runs[m]?.schemes[name])).map(
    ([name, label]) => ({
      name,
      label,
      cells: Object.fromEntries(
        MULTIPLES.map((m) => [
          m,
          {
            beyond: overFiles(beyondByFile(first.runs[m], name)),
            far: overFiles(classByFile(first.runs[m], name, FAR)),
          },
        ]),
      ),
    }),
  );
  const has = (name) => rows.some((r) => r.name === name);
  // The comparisons that decide the conclusion: HiRoPE on segments against ReRoPE, on every unit
  // past the training length and on far-recall units; ReRoPE against the better baseline on
  // far-recall units (the better one at each length, in the shipped seed).
  const pairs = [];
  const paired = (a, b, what, m) => ({
    a,
    b,
    what,
    multiple: m,
    seeds: evals.map((e) => {
      const run = e.runs[m];
      if (!run?.schemes[a] || !run?.schemes[b]) return null;
      const map = (n) => (what === 'beyond' ? beyondByFile(run, n) : classByFile(run, n, FAR));
      const d = pairedByFile(map(a), map(b));
      return { ...d, verdict: verdictOf(d) };
    }),
  });
  if (has('hirope-segments (tuned)') && has('rerope (tuned)')) {
    for (const what of ['beyond', 'far'])
      for (const m of MULTIPLES)
        pairs.push(paired('hirope-segments (tuned)', 'rerope (tuned)', what, m));
  }
  if (has('rerope (tuned)')) {
    for (const m of MULTIPLES) {
      const base = ['truncate', 'sliding-window (tuned)']
        .filter(has)
        .sort(
          (x, y) =>
            rows.find((r) => r.name === x).cells[m].far.mean -
            rows.find((r) => r.name === y).cells[m].far.mean,
        )[0];
      if (base) pairs.push(paired('rerope (tuned)', base, 'far', m));
    }
  }
  return {
    unit,
    L,
    multiples: MULTIPLES,
    rows,
    pairs,
    seeds: seedLabels.slice(0, evals.length),
    sentence: sentenceOf(pairs, unit, L),
  };
}

// What the paired differences mean, in one sentence: how HiRoPE on segments compares with ReRoPE
// past the training length and on far-recall units, and so where its gain comes from.
function sentenceOf(pairs, unit, L) {
  // 'beats' / 'is worse than' when every length and seed agrees, else null (mixed or level).
  const agreed = (what, a) => {
    const vs = pairs
      .filter((p) => p.what === what && p.a === a)
      .flatMap((p) => p.seeds.filter(Boolean).map((s) => s.verdict));
    return vs.length && vs.every((v) => v === vs[0]) && vs[0] !== 'is level with' ? vs[0] : null;
  };
  const seeds = Math.max(0, ...pairs.map((p) => p.seeds.filter(Boolean).length));
  const where = `at both lengths${seeds === 2 ? ' and in both seeds' : seeds > 2 ? ` and in all ${seeds} seeds` : ' (one seed measured)'}`;
  const say = (v) =>
    v === 'beats'
      ? 'beats'
      : v === 'is worse than'
        ? 'is worse than'
        : 'is not consistently ahead of or behind';
  const hi = 'hirope-segments (tuned)';
  const parts = [];
  if (pairs.some((p) => p.a === hi)) {
    const beyond = agreed('beyond', hi);
    const far = agreed('far', hi);
    const gain =
      beyond === 'beats' && far !== 'beats'
        ? `its gain comes from ordinary ${unit}s, not from recalling names beyond the training length`
        : far === 'beats' && beyond !== 'beats'
          ? `its gain comes from far-recall ${unit}s (names used again beyond the training length), not from ordinary ones`
          : beyond === 'beats' && far === 'beats'
            ? 'it gains on ordinary and far-recall units alike'
            : 'it shows no consistent gain';
    parts.push(
      `HiRoPE on segments ${say(beyond)} ReRoPE on every ${unit} past ${L} and ${say(far)} it on far-recall ${unit}s, ${where}: ${gain}`,
    );
  }
  if (agreed('far', 'rerope (tuned)') === 'beats')
    parts.push(
      `ReRoPE beats the better baseline on far-recall ${unit}s, so the model does read names from beyond its training length through a window`,
    );
  return parts.length ? `${parts.join('; ')}.` : '';
}

const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const signed = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : '—');

/** Draws the panel into `box` (an element): the table of schemes, the paired differences, the sentence. */
export function renderVerdict(box, data, { docHref = 'model-eval.md' } = {}) {
  const { unit, L, multiples, rows, pairs, seeds } = data;
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'scheme'),
    ...multiples.flatMap((m) => [
      el(
        'th',
        {
          scope: 'col',
          title: `Windows of ${m}× the training length: mean bits/${unit} over every ${unit} past ${L}`,
        },
        `${m}×: past ${L}`,
      ),
      el(
        'th',
        {
          scope: 'col',
          title: `Windows of ${m}× the training length: mean bits/${unit} on far-recall ${unit}s`,
        },
        `${m}×: far-recall`,
      ),
    ]),
  );
  const body = rows.map((r) =>
    el(
      'tr',
      { 'data-scheme': r.name },
      el('th', { scope: 'row' }, r.label),
      ...multiples.flatMap((m) =>
        ['beyond', 'far'].map((k) => {
          const c = r.cells[m][k];
          return el(
            'td',
            {
              'data-multiple': String(m),
              'data-what': k,
              'data-mean': String(c.mean),
              'data-se': String(c.se),
            },
            `${f3(c.mean)} ± ${f3(c.se)}`,
          );
        }),
      ),
    ),
  );
  const table = el(
    'table',
    { class: 'verdict-table', id: 'verdict-schemes' },
    el(
      'caption',
      {},
      `Held-out bits/${unit}, mean ± standard error over files (${seeds[0]}; * a baseline)`,
    ),
    el('thead', {}, head),
    el('tbody', {}, ...body),
  );
  const pairHead = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'paired difference'),
    ...seeds.map((s) => el('th', { scope: 'col' }, s)),
  );
  const pairRows = pairs.map((p) =>
    el(
      'tr',
      { 'data-a': p.a, 'data-b': p.b, 'data-what': p.what, 'data-multiple': String(p.multiple) },
      el(
        'th',
        { scope: 'row' },
        `${SCHEME_LABEL[p.a]} − ${SCHEME_LABEL[p.b]}, ${p.multiple}×, ${p.what === 'beyond' ? `past ${L}` : 'far-recall'}`,
      ),
      ...p.seeds.map((s) =>
        s
          ? el(
              'td',
              {
                'data-diff': String(s.diff),
                'data-se': String(s.se),
                class:
                  s.verdict === 'beats'
                    ? 'wins'
                    : s.verdict === 'is worse than'
                      ? 'loses'
                      : 'level',
              },
              `${signed(s.diff)} ± ${f3(s.se)}`,
            )
          : el('td', {}, '—'),
      ),
    ),
  );
  const pairTable = el(
    'table',
    { class: 'verdict-table', id: 'verdict-pairs' },
    el(
      'caption',
      {},
      `Paired by file (negative: the first is better; decided beyond two standard errors)`,
    ),
    el('thead', {}, pairHead),
    el('tbody', {}, ...pairRows),
  );
  const link = el(
    'a',
    { href: docHref, target: '_blank', rel: 'noopener' },
    'the full report (docs/model-eval.md)',
  );
  box.replaceChildren(
    el('p', { class: 'verdict-sentence', id: 'verdict-sentence' }, data.sentence),
    table,
    pairTable,
    el(
      'p',
      { class: 'legend-note' },
      `Windows of ${multiples.map((m) => m * L).join(' and ')} ${unit}s from held-out files that neither training nor tuning read; settings tuned beforehand on other files. See `,
      link,
      '.',
    ),
  );
}
