// The playground's distance view: per-band effective relative-distance matrices, side by side,
// drawn on canvases from worker data with titled axes and round ticks (axes.js).
import { LUTS, cssGradient } from 'hirope/colormap';
import { el, legend } from '../dom.js';
import { lengthUnit } from '../../shared/wording.js';
import { AXIS_ROOM, drawAxes, fitCanvas } from './axes.js';
import {
  FONT,
  remember,
  chartWidth,
  colours,
  drawCells,
  chartCanvas,
  sampledScale,
} from './chart-kit.js';

/**
 * Per-band relative-distance matrices, side by side, each with query and key axes. The distances
 * are positions: under a stride (token i at position i × stride) the captions say so.
 */
export function renderDistances(parent, data, stride = 1) {
  const unit = stride > 1 ? ` ${lengthUnit(stride)}s` : ''; // no unit where a token is a position
  parent.replaceChildren();
  const grid = el('div', { class: 'tiles' });
  const tiles = [];
  for (const view of data.views) {
    for (const band of view.bands) {
      const figure = el('figure', { class: 'tile' });
      const name = view.window ? `${view.name} (W ${view.window})` : view.name;
      const bandName =
        band.name === 'all'
          ? 'all pairs'
          : `${band.name} band, pairs ${band.pairs[0]}–${band.pairs[1] - 1}`;
      const canvas = chartCanvas(
        `${name}: ${bandName} relative distances, queries as rows, keys as columns`,
      );
      figure.append(
        canvas,
        el(
          'figcaption',
          {},
          `${name} · ${bandName} · max ${Math.round(band.max).toLocaleString('en')}${unit}`,
        ),
      );
      grid.append(figure);
      tiles.push({ canvas, band });
    }
  }
  // The grid's columns are sized from the tile count (style.css): one row when they fit.
  grid.style.setProperty('--tiles', String(Math.max(1, tiles.length)));
  parent.append(grid);
  const note = data.sampled ? `${data.size} of ${data.tokens} tokens, evenly sampled. ` : '';
  parent.append(
    legend(
      cssGradient(LUTS.viridis),
      '0',
      `${Math.round(data.maxDistance).toLocaleString('en')}${unit}`,
      `${note}Grey: masked (the key is after the query).`,
    ),
  );

  const { ink } = colours(parent);
  // Sampled rows and columns are the same evenly spaced token indices.
  const size = tiles[0]?.band.image.cols ?? 0;
  const indices = Array.from({ length: size }, (_, i) =>
    size > 1 ? Math.round((i * (data.tokens - 1)) / (size - 1)) : 0,
  );
  const scale = sampledScale(indices);
  const last = Math.max(0, data.tokens - 1);
  for (const { canvas, band } of tiles) {
    // Laid out by now: the tile's width is its grid column's.
    const width = Math.max(130, Math.floor(canvas.parentElement.clientWidth));
    const pad = { left: 34, right: 8, top: AXIS_ROOM.top, bottom: AXIS_ROOM.bottom };
    const side = width - pad.left - pad.right;
    const ctx = fitCanvas(canvas, width, pad.top + side + pad.bottom);
    ctx.font = FONT;
    const box = { left: pad.left, top: pad.top, width: side, height: side };
    drawCells(ctx, band.image, box);
    const axis = { lo: 0, hi: last, map: scale, maxTicks: side >= 180 ? 4 : 3 };
    drawAxes(ctx, {
      box,
      x: { ...axis, title: 'key →' },
      y: { ...axis, reverse: true, title: 'query ↓', titleAt: 'top' },
      ink,
    });
  }
  remember(parent, renderDistances, [data, stride], chartWidth(parent));
}
