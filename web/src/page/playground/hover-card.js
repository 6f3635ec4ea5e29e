// The hover card over the heatmaps: both tokens, both probabilities, B ÷ A and the distance each
// frequency band of each scheme sees for exactly that cell (asked of the workers).
import { el } from '../dom.js';
import { formatProbability } from '../../shared/wording.js';
import { RATIO_FLOOR } from 'hirope/colormap';

const MASKED_BY = {
  sliding: 'outside its sliding window',
  chunked: "in an earlier chunk than the query's",
};

/**
 * The hover card's rows ([label, text]) for query i and key j, from both workers' cells ({ p,
 * masked, bands }, attention-engine.js cell()): `token(t)` describes a token, `masks` is each
 * side's layer mask type (a real model's sliding window or chunk, or null) and `stride` the
 * position stride. A key a side masks is said to be masked, with why, and neither a ratio nor a
 * distance that side never sees is shown for it.
 */
export function cardRows({ i, j, a, b, token, masks = {}, stride = 1 }) {
  const rows = [
    ['query', token(i)],
    ['key', token(j)],
  ];
  if (j > i) {
    rows.push(['', 'masked: the key comes after the query']);
    return rows;
  }
  const distance = i - j;
  rows.push([
    'token distance',
    stride > 1
      ? `${distance} (${(distance * stride).toLocaleString('en')} positions)`
      : String(distance),
  ]);
  const why = (side) => {
    const reason = MASKED_BY[masks[side]];
    return `masked: the key is ${reason ?? 'hidden by its mask'}`;
  };
  const cells = { a, b };
  const probability = (side) =>
    cells[side].masked ? `0 (${why(side)})` : formatProbability(cells[side].p);
  rows.push(['p under A', probability('a')], ['p under B', probability('b')]);
  if (a.masked && b.masked) rows.push(['B ÷ A', 'none: neither side sees this key']);
  else if (a.masked || b.masked)
    rows.push(['B ÷ A', `none: only ${a.masked ? 'B' : 'A'} sees this key`]);
  else
    rows.push(['B ÷ A', (Math.max(b.p, RATIO_FLOOR) / Math.max(a.p, RATIO_FLOOR)).toPrecision(3)]);
  const bands = (s) =>
    s.masked
      ? 'none (masked)'
      : s.bands
          .map(
            (band) =>
              `${band.name === 'all' ? 'all pairs' : `${band.name} (pairs ${band.pairs[0]}–${band.pairs[1] - 1})`}: ${band.distance}`,
          )
          .join('; ');
  rows.push(['distance A sees', bands(a)], ['distance B sees', bands(b)]);
  return rows;
}

/** hover(cell, event): shows the card for a cell (null hides it); a tapped cell's card stays. */
export function createHoverCard(pg) {
  const tip = el('div', { class: 'hm-tip', role: 'tooltip', hidden: true });
  document.body.append(tip);
  // A tapped cell's card stays until a tap elsewhere (a finger has no hover to end).
  document.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'touch' && !tip.hidden && !e.target.closest?.('.hm canvas')) hover(null);
  });
  let hoverSeq = 0;
  let hoverFrame = 0;
  function hover(cell, event) {
    cancelAnimationFrame(hoverFrame);
    if (!cell || !pg.result?.n) {
      hoverSeq++;
      tip.hidden = true;
      return;
    }
    const { clientX, clientY } = event;
    hoverFrame = requestAnimationFrame(async () => {
      const seq = ++hoverSeq;
      const { row: i, col: j } = cell;
      let cells;
      try {
        cells = await pg.client.both('cell', { i, j });
      } catch {
        return;
      }
      if (seq !== hoverSeq) return;
      renderTip(i, j, cells[0], cells[1]);
      const x = Math.min(clientX + 14, innerWidth - tip.offsetWidth - 8);
      const y =
        clientY + 16 + tip.offsetHeight > innerHeight
          ? clientY - tip.offsetHeight - 12
          : clientY + 16;
      tip.style.left = `${Math.max(4, x)}px`;
      tip.style.top = `${Math.max(4, y)}px`;
    });
  }

  /** The hover card: both tokens, both probabilities, and the distance each band sees. */
  function renderTip(i, j, a, b) {
    const an = pg.result.analysis;
    const token = (t) =>
      `${t} ${JSON.stringify(pg.tokenText(t))} · unit ${pg.unitName(an.unit[t])} · statement ${an.statement[t]}`;
    const masks = { a: pg.result.masks?.a?.type ?? null, b: pg.result.masks?.b?.type ?? null };
    const stride = pg.result.snapshot?.stride ?? 1;
    const rows = cardRows({ i, j, a, b, token, masks, stride });
    const dl = el('dl', { class: 'hr-card' });
    for (const [k, v] of rows) dl.append(el('dt', {}, k), el('dd', {}, v));
    tip.replaceChildren(dl);
    tip.hidden = false;
    tip.dataset.cell = `${i},${j}`;
  }

  return hover;
}
