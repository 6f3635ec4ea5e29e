// The playground's sentences that depend on numbers: pure functions (no DOM), so that
// tests/js can check that each one says what is true for the numbers it is given.

/** "1 unit", "3 units"; `many` for irregular plurals. */
export function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

/**
 * The status's first sentence: what was read. tokenizer: its display name, as the Tokenizer
 * control lists it ("Gemma 3", "lexical (grammar tokens)"), never its internal id.
 */
export function codeSentence({ count, languageName, tokenizer, units, statements }) {
  return `${plural(count, 'token')} of ${languageName} in ${plural(units, 'unit')} and ${plural(statements, 'statement')}; tokenizer: ${tokenizer}.`;
}

/** "5×" (from 2 on, rounded), "1.3×" (below 2, one decimal): how many times `a` is `b`. */
export function times(a, b) {
  const r = a / b;
  return `${r >= 2 ? Math.round(r).toLocaleString('en') : r.toFixed(1)}×`;
}

/** What a real model's sliding or chunked layer sees: "sees only the last 1,024 positions". */
export function reachClause(reach, kind) {
  return kind === 'chunked'
    ? `sees only the keys in its ${reach.toLocaleString('en')}-position chunk`
    : `sees only the last ${reach.toLocaleString('en')} positions`;
}

/**
 * The status sentence about the training length L: how many tokens are beyond it, how far the
 * code's positions reach past a real model's maximum length, and for each side that rotates,
 * whether it meets angles it never saw in training there (its angle view's count of pairs, the
 * core's hr.unseenPairs at the code's own span).
 *
 * sides: [{ label: 'A', name: 'RoPE with NTK-aware scaling ×4', ood: { oodPairs, pairs, span?,
 * reach?, reachKind? } | null, model?: { name, maxLength }, train? }] (name: the side's display name,
 * playground-state.js describeScheme, as the map titles show it; ood null: the scheme does not
 * rotate, or its angles are not known yet; span: the positions the code reaches, reach and
 * reachKind: a sliding or chunked layer's window or chunk; model: a real model side's name and
 * maximum length; train: the side's own training length, a real model's, where it has one).
 */
export function trainingSentence({ n, total = n, train, sides, stride = 1 }) {
  // Counted over the whole file (total tokens), of which the maps show the first n (a note says so).
  // With a position stride, token i sits at position i × stride: the first ⌈train / stride⌉ are within.
  const rest =
    stride === 1
      ? `the training length of ${train.toLocaleString('en')}`
      : `the training length of ${train.toLocaleString('en')} positions (the tokens are ${stride} positions apart)`;
  const inside = Math.ceil(train / stride);
  if (total <= inside)
    return `${total === 1 ? 'The only token is' : `All ${plural(total, 'token')} are`} within ${rest}: no scheme is out of distribution here — raise the code's length or lower the training length.`;
  const beyond = total - inside;
  let first =
    total > n
      ? `The last ${beyond.toLocaleString('en')} of the file's ${plural(total, 'token')} ${beyond === 1 ? 'is' : 'are'} beyond ${rest}`
      : beyond === 1
        ? `The last token is beyond ${rest}`
        : `The last ${plural(beyond, 'token')} are beyond ${rest}`;
  // A model whose maximum length the code runs past, once per model.
  const past = new Map();
  for (const s of sides) {
    const span = s.ood?.span;
    if (s.model && span > s.model.maxLength) past.set(`${s.model.name}|${s.model.maxLength}`, s);
  }
  for (const s of past.values()) {
    // "5× gemma-3-27b-it's maximum", or just "past" it (under 1.1×, where 1.0× would read wrong).
    const how =
      s.ood.span >= 1.1 * s.model.maxLength ? times(s.ood.span, s.model.maxLength) : 'past';
    first += `; the code spans ${s.ood.span.toLocaleString('en')} positions, ${how} ${s.model.name}'s maximum of ${s.model.maxLength.toLocaleString('en')}`;
  }
  const known = sides.filter((s) => s.ood);
  if (!known.length) return `${first}.`;
  const who = (s) => {
    const sees = s.ood.reach > 0 && s.ood.reach < s.ood.span;
    // A real model judged at its own training length, where it is not the one above.
    const own = s.train && s.train !== train ? ` trained at ${s.train.toLocaleString('en')},` : '';
    return `${s.label}, ${s.name},${own}${sees ? ` which ${reachClause(s.ood.reach, s.ood.reachKind)},` : ''}`;
  };
  const out = known.filter((s) => s.ood.oodPairs > 0);
  const within = known.filter((s) => s.ood.oodPairs === 0);
  const clauses = [];
  if (out.length)
    clauses.push(
      `${out.map((s) => `${who(s)} meets angles it never saw in training on ${s.ood.oodPairs} of its ${s.ood.pairs} frequency pairs`).join(' and ')}`,
    );
  if (within.length)
    clauses.push(
      `${within.map(who).join(' and ')} ${within.length === 1 ? 'keeps' : 'keep'} every frequency pair within the angles seen in training`,
    );
  return `${first}: there ${clauses.join(', while ')}.`;
}

/**
 * A length of `count` positions in words: tokens where each token is one position, positions
 * under a stride (token i at position i × stride).
 */
export function lengthWords(count, stride = 1) {
  return plural(count, lengthUnit(stride));
}

/** The unit lengths are counted in: 'token', or 'position' under a stride (lengthWords). */
export const lengthUnit = (stride = 1) => (stride > 1 ? 'position' : 'token');

/**
 * The hint under a HiRoPE side: the Split% bound for the training length and the number of pairs
 * HiRoPE keeps on token distance, as two separate facts. splitPair is the bound in pairs (Split%
 * × pairs, fractional); a pair j turns a full period within L tokens when j < splitPair. The bound
 * can fall outside the pairs: below the fastest when L is shorter than its period (2π tokens),
 * past the slowest when L is long or the base small. Split% is then 0% or 100%, and the hint says
 * in words where the bound fell (never a share below 0% or above 100%).
 */
export function splitHint({ splitPair, pairs, tokenPairs, train, stride = 1 }) {
  const fit = Math.max(0, Math.min(pairs, Math.ceil(splitPair)));
  const over = tokenPairs > fit;
  const share = `${Math.max(0, Math.min(100, (100 * splitPair) / pairs)).toFixed(1)}%`;
  const within = `within ${lengthWords(train, stride)}`;
  let bound;
  if (splitPair < 0)
    bound = `Split% at L = ${train.toLocaleString('en')}: 0% of the pairs. The bound falls before the fastest pair: even it needs 2π ≈ 6.3 ${lengthUnit(stride)}s for a full period, so no frequency pair turns a full period ${within}.`;
  else if (splitPair > pairs)
    bound = `Split% at L = ${train.toLocaleString('en')}: 100% of the pairs. The bound falls past the slowest pair: all ${pairs} frequency pairs turn a full period ${within}.`;
  else {
    const turning =
      fit === 0
        ? 'no frequency pair turns'
        : `${fit === pairs ? 'all' : fit} of the ${pairs} frequency pairs ${fit === 1 ? 'turns' : 'turn'}`;
    bound = `Split% at L = ${train.toLocaleString('en')}: ${share} of the pairs (${turning} a full period ${within}).`;
  }
  const keeps = `HiRoPE keeps ${plural(tokenPairs, 'pair')} on token distance`;
  return {
    over,
    text: over
      ? `${bound} ${keeps}: ${tokenPairs - fit} more than that, so its slowest token ${tokenPairs - fit === 1 ? 'pair meets' : 'pairs meet'} angles never seen in training.`
      : `${bound} ${keeps}: within the bound.`,
  };
}

/**
 * The Timings line: a redraw's total as parts that add up to it. received: ms from the change
 * until both workers' results arrived; paint: ms painting them; sides: { a, b } each worker's own
 * stage times in ms (analysis, qk, attention, views, images; the two workers run side by side,
 * so the slower one is what the page waits for). The rest of `received` is named: waiting.
 */
export function redrawTimings({ total, received, paint, sides }) {
  const ms = (v) => `${v.toFixed(1)} ms`;
  const STAGES = [
    ['analysis', 'analysis'],
    ['qk', 'q/k'],
    ['attention', 'attention'],
    ['views', 'views'],
    ['images', 'images'],
  ];
  const side = (label, t = {}) => {
    const parts = STAGES.filter(([k]) => Number.isFinite(t[k]));
    const sum = parts.reduce((s, [k]) => s + t[k], 0);
    return {
      sum,
      text: `${label} ${ms(sum)}${parts.length ? ` (${parts.map(([k, name]) => `${name} ${t[k].toFixed(1)}`).join(', ')})` : ''}`,
    };
  };
  const a = side('A', sides.a);
  const b = side('B', sides.b);
  const computing = Math.max(a.sum, b.sum);
  const waiting = Math.max(0, received - computing);
  return `Last redraw ${ms(total)} = ${ms(received)} until both workers' results arrived + ${ms(paint)} painting them. The two workers compute side by side: ${a.text}, ${b.text}; the other ${ms(waiting)} of the ${ms(received)} was waiting — for an earlier run to finish, for a grammar or tokenizer to download, and for the messages between the page and its workers.`;
}

/**
 * The hint under an ALiBi side: the slope it uses and why the map changes slowly with distance.
 * slope: the one head's slope (the core's alibiSlopes(1)[0]).
 */
export function alibiHint(slope) {
  const per = 1 / slope;
  const shown = Number.isInteger(per) ? `1/${per}` : slope.toPrecision(3);
  return `ALiBi's slope here is ${shown}: its bias lowers a logit by 1 for every ${Number.isInteger(per) ? per : per.toFixed(1)} tokens of distance, so this map changes slowly with distance. The page computes one head, and ALiBi gives n heads the slopes 2^(−8h/n), h = 1…n: one head gets 2^(−8), the gentlest slope of an 8-head model, whose steepest (1/2) looks at the last few tokens only.`;
}

/**
 * The status sentence about syntax errors: none when the grammar parses the code cleanly. After
 * language detection of this very code (detected: true) a tree with errors means that no grammar
 * parsed it cleanly, since detection stops at the first clean parse. "The closest" is by
 * detection's own measure, the bytes the errors cover (errorBytes, language-detection.js), which
 * the sentence gives with the count of error regions (a grammar with fewer error bytes may split
 * them into more regions).
 */
export function parseSentence({ languageName, errors, errorBytes, detected }) {
  if (!errors) return '';
  const regions = plural(errors, 'region');
  const covered = `${plural(errorBytes, 'byte')} in ${regions}`;
  if (detected)
    return `No grammar parses this code cleanly: ${languageName} is the closest, its syntax errors covering the fewest bytes (${covered}), so its units may not be real functions and classes.`;
  return `The ${languageName} grammar finds syntax errors in this code (${covered}): is it ${languageName}? (Detect picks the grammar whose errors cover the fewest bytes.)`;
}

/** A unit's kinds: HiRoPE's (function, class, code) and, when it says more, the language's own. */
export function unitKinds(unit) {
  const own = unit.languageKind && unit.languageKind !== unit.kind ? unit.languageKind : '';
  return { kind: unit.kind, own };
}

/** A unit as one short phrase: "class Interval (struct)". */
export function unitPhrase(unit) {
  const { kind, own } = unitKinds(unit);
  return `${kind}${unit.name ? ` ${unit.name}` : ''}${own ? ` (${own})` : ''}`;
}

/** The notice for a link whose state could not be read. */
export const LINK_UNREADABLE =
  'This link could not be read (it may have been cut off or changed when it was copied), so the page shows the default view.';
/** The notice for a link shared without its code. */
export const linkWithoutCode = (languageName) =>
  `This link was shared without its code: the maps show the ${languageName} sample with the sender's settings. Paste the code to see their view.`;

/** Past this many characters a link may be cut by chat apps and mail (2,000: the common limit). */
export const LONG_LINK = 2000;

/** The line about a long link: its size, and why a shorter one may be wanted. */
export function linkSizeText(chars) {
  const size =
    chars >= 10000 ? `${Math.round(chars / 1000)} KB` : `${chars.toLocaleString('en')} characters`;
  return `This view's link is ${size} long because the code is in it; chat apps and mail often cut links past ${LONG_LINK.toLocaleString('en')} characters.`;
}

/** The hint above the maps: what a pointer does, for a mouse or a touch screen. */
export function mapHint(touch) {
  return touch
    ? 'Rows: queries, columns: keys, edge strips: units, dashed: window W and training length L. Tap a cell for its numbers and its row; drag sideways across a map to zoom.'
    : 'Rows: queries, columns: keys, edge strips: units, dashed: window W and training length L. Hover a cell, click a row, drag to zoom.';
}

/** A power of ten with its exponent in superscript: powerOfTen(-4) -> "10⁻⁴". */
export function powerOfTen(exponent) {
  const SUP = {
    '-': '⁻',
    0: '⁰',
    1: '¹',
    2: '²',
    3: '³',
    4: '⁴',
    5: '⁵',
    6: '⁶',
    7: '⁷',
    8: '⁸',
    9: '⁹',
  };
  return `10${[...String(exponent)].map((c) => SUP[c]).join('')}`;
}

/**
 * An attention probability, always as a percentage with 3 significant digits ("15.0%",
 * "0.0535%"); below 0.001% with a power of ten ("2.31 × 10⁻⁷%"), never a bare e-notation.
 */
export function formatProbability(p) {
  if (!Number.isFinite(p)) return '–';
  const v = 100 * p;
  if (v === 0) return '0%';
  if (v >= 1e-3) return `${Number(v.toPrecision(3)) >= 100 ? '100' : v.toPrecision(3)}%`;
  const exponent = Math.floor(Math.log10(v));
  const mantissa = (v / 10 ** exponent).toFixed(2);
  if (mantissa === '10.00') return `1.00 × ${powerOfTen(exponent + 1)}%`;
  return `${mantissa} × ${powerOfTen(exponent)}%`;
}

/** The A vs B map's legend in one short line (the embed's caption: it must fit a third of 760 px). */
export const DIFF_LEGEND = 'blue: B more, orange: A more';

/**
 * The angle view's caption. Pairs are drawn fast at the top (pair 0) to slow at the bottom, so
 * the pairs that turn a full period within the training length (j < splitPair, on the layer's own
 * trained frequencies) lie ABOVE the dashed Split% line, and only the slower pairs below it can
 * be out of distribution (red). reach and reachKind: a real model's sliding or chunked layer,
 * whose view stops at its window or chunk (then no key L back is the layer's doing, not the
 * text's); span: the positions the code reaches.
 */
export function angleCaption({
  title,
  oodPairs,
  pairs,
  train,
  hasTrain,
  bands = '',
  splitPair = 0,
  reach = 0,
  reachKind = 'sliding',
  span = Infinity,
  stride = 1,
}) {
  const length = lengthWords(train, stride);
  // Split% is drawn only where its bound falls within the pairs (splitHint says the same).
  const outside =
    splitPair < 0
      ? ` No Split% line: its bound falls before the fastest pair (no pair turns a full period within ${length}).`
      : splitPair > pairs
        ? ` No Split% line: its bound falls past the slowest pair (every pair turns a full period within ${length}).`
        : '';
  const split = `Split% (the faster pairs above it turn a full period within ${length}; only the slower pairs below it can be out of distribution)`;
  // Under a stride the key L positions back is ⌈L / stride⌉ tokens back.
  const back =
    stride > 1
      ? `${length} (${plural(Math.ceil(train / stride), 'token')}) back`
      : `${length} back`;
  const key = `the key ${back}`;
  // Why no key is L back: the layer's window or chunk where it stops the view, else the text.
  const why =
    reach > 0 && reach < span && reach <= train
      ? `the layer ${reachClause(reach, reachKind)}`
      : 'the text is shorter';
  const dashed = outside
    ? hasTrain
      ? `${outside} Dashed: ${key}.`
      : `${outside} No key is ${back} (${why}).`
    : hasTrain
      ? ` Dashed: ${split} and ${key}.`
      : ` Dashed: ${split}; no key is ${back} (${why}).`;
  return `${title}. Cells: cos(θⱼ·Δ) from the last token to each key, black −1 to white +1; red: out of distribution — ${oodPairs} of ${pairs} pairs.${dashed}${bands}`;
}

/**
 * The hint while Q/K is set to come from a file that is not loaded yet: what to do, and what the
 * maps show meanwhile (kept: the display name of the source they still use).
 */
export function qkFileHint(kept) {
  return `Choose a q/k JSON file with "Load q/k…" (one row of numbers per token for q and for k). Until one is loaded, the maps keep the ${kept} q/k.`;
}
