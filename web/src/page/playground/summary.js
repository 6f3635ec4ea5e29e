// The comparison in numbers under the maps: own-unit attention and mean distance for A and B (over
// all queries and for the selected one), TV and KL, and the chart of TV along the rows.
import { el } from '../dom.js';
import { $, dark } from '../shell.js';
import { fitCanvas, drawAxes } from '../charts/axes.js';

/** renderSummary() draws #summary from pg.result and pg.comparison (which arrives after the maps). */
export function createSummary(pg) {
  // ----- the comparison in numbers
  function mean(values) {
    let s = 0;
    for (const v of values) s += v;
    return values.length ? s / values.length : NaN;
  }

  function renderSummary() {
    const box = $('summary');
    if (!pg.result?.n) {
      box.replaceChildren();
      return;
    }
    // The per-row numbers arrive with the comparison, after the maps.
    const { a, b } = pg.comparison?.stats ?? { a: {}, b: {} };
    const i = pg.selected.index;
    const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)}%` : '…');
    const tok = (v) => (Number.isFinite(v) ? `${v.toFixed(1)}` : '…');
    const table = el('table', { class: 'stats' });
    const head = el('tr');
    head.append(
      el('th', { scope: 'col' }, ''),
      el('th', { scope: 'col', class: 'col-a' }, 'A'),
      el('th', { scope: 'col', class: 'col-b' }, 'B'),
    );
    if (i >= 0)
      head.append(
        el('th', { scope: 'col', class: 'col-a' }, `A, query ${i}`),
        el('th', { scope: 'col', class: 'col-b' }, `B, query ${i}`),
      );
    table.append(head);
    const row = (label, help, fa, fb, fmt) => {
      const tr = el('tr', { title: help });
      tr.append(
        el('th', { scope: 'row' }, label),
        el('td', {}, fmt(fa ? mean(fa) : NaN)),
        el('td', {}, fmt(fb ? mean(fb) : NaN)),
      );
      if (i >= 0) tr.append(el('td', {}, fmt(fa?.[i])), el('td', {}, fmt(fb?.[i])));
      table.append(tr);
    };
    row(
      "attention on the query's own unit",
      "The share of each query's attention on keys in its own function, class or gap (mean over all queries).",
      a.own,
      b.own,
      pct,
    );
    // Under a position stride the distances are positions (token i at i × stride).
    const stride = pg.result?.snapshot?.stride ?? 1;
    row(
      stride > 1 ? 'mean distance attended (positions)' : 'mean distance attended (tokens)',
      stride > 1
        ? `Σⱼ p(i→j)·(pᵢ − pⱼ) over positions, ${stride} a token: how far back a query looks on average.`
        : 'Σⱼ p(i→j)·(i − j): how far back a query looks on average.',
      a.distance,
      b.distance,
      tok,
    );
    const cmp = el('p', { class: 'stats-compare' });
    if (pg.comparison) {
      const tv = mean(pg.comparison.tv);
      const kl = mean(pg.comparison.kl);
      cmp.textContent =
        `B differs from A by a total variation of ${tv.toFixed(3)} per query on average (0: the same attention, 1: disjoint) and KL(A‖B) = ${kl.toFixed(3)} bits` +
        (i >= 0
          ? `; query ${i}: ${pg.comparison.tv[i].toFixed(3)} and ${pg.comparison.kl[i].toFixed(3)} bits.`
          : '.');
    } else cmp.textContent = 'Comparing the two matrices…';
    box.replaceChildren(table, cmp, tvChart);
    drawTVChart(tvChart);
  }
  const tvChart = el('canvas', {
    class: 'tv-chart',
    role: 'img',
    'aria-label': 'Total variation between A and B for every query token',
  });
  // The chart's width comes from a ResizeObserver, so drawing it never forces a layout.
  let summaryWidth = 0;
  new ResizeObserver((entries) => {
    const width = Math.round(entries[0].contentRect.width);
    if (width === summaryWidth) return;
    summaryWidth = width;
    if (pg.result?.n) drawTVChart(tvChart);
  }).observe($('summary'));
  // Drawn in the page's colours: a change of colour scheme draws it again.
  dark.addEventListener('change', () => pg.result?.n && drawTVChart(tvChart));

  // Total variation between A's and B's attention, one value per query row, with the selected row.
  function drawTVChart(canvas) {
    const width = Math.max(240, summaryWidth);
    const height = 96;
    const ctx = fitCanvas(canvas, width, height);
    const ink = getComputedStyle($('summary')).color;
    const box = { left: 44, top: 6, width: width - 56, height: height - 42 };
    const n = pg.result.n;
    drawAxes(ctx, {
      box,
      x: { lo: 0, hi: n - 1, title: 'query token' },
      y: { lo: 0, hi: 1, title: 'TV(A, B)', ticks: [0, 0.5, 1] },
      ink,
      grid: true,
    });
    if (!pg.comparison) return;
    const X = (i) => box.left + (n > 1 ? (i / (n - 1)) * box.width : 0);
    const Y = (v) => box.top + (1 - v) * box.height;
    ctx.strokeStyle =
      getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#2455c3';
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    for (let i = 0; i < n; i++)
      (i ? ctx.lineTo : ctx.moveTo).call(ctx, X(i), Y(pg.comparison.tv[i]));
    ctx.stroke();
    if (pg.selected.index >= 0) {
      ctx.strokeStyle = ink;
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(X(pg.selected.index), box.top);
      ctx.lineTo(X(pg.selected.index), box.top + box.height);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    canvas.onclick = (e) => {
      const r = canvas.getBoundingClientRect();
      const i = Math.round(((e.clientX - r.left - box.left) / box.width) * (n - 1));
      if (i >= 0 && i < n) pg.selectRow(pg.selected.side, i);
    };
  }
  return { renderSummary };
}
