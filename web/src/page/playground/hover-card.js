// The hover card over the heatmaps: both tokens, both probabilities, B ÷ A and the distance each
// frequency band of each scheme sees for exactly that cell (asked of the workers).
import { el } from '../dom.js';
import { formatProbability } from '../../shared/wording.js';
import { RATIO_FLOOR } from 'hirope/colormap';

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
    const rows = [
      ['query', token(i)],
      ['key', token(j)],
    ];
    if (j > i) rows.push(['', 'masked: the key comes after the query']);
    else {
      rows.push(['token distance', String(i - j)]);
      rows.push(
        ['p under A', formatProbability(a.p)],
        ['p under B', formatProbability(b.p)],
        ['B ÷ A', (Math.max(b.p, RATIO_FLOOR) / Math.max(a.p, RATIO_FLOOR)).toPrecision(3)],
      );
      const bands = (s) =>
        s.bands
          .map(
            (band) =>
              `${band.name === 'all' ? 'all pairs' : `${band.name} (pairs ${band.pairs[0]}–${band.pairs[1] - 1})`}: ${band.distance}`,
          )
          .join('; ');
      rows.push(['distance A sees', bands(a)], ['distance B sees', bands(b)]);
    }
    const dl = el('dl', { class: 'hr-card' });
    for (const [k, v] of rows) dl.append(el('dt', {}, k), el('dd', {}, v));
    tip.replaceChildren(dl);
    tip.hidden = false;
    tip.dataset.cell = `${i},${j}`;
  }

  return hover;
}
