// The playground's other views: per-band effective relative-distance matrices,
// rotation angle per frequency pair against the training length and the Split% line, and the
// long-term decay curve per scheme. Everything is drawn on canvases from worker data, as wide as
// the container, at the screen's pixel density, with titled axes and round ticks (axes.js).
import { LUTS, cssGradient } from '../../shared/colormap.js';
import { el, legend } from '../dom.js';
import { AXIS_ROOM, drawAxes, fitCanvas, niceDomain } from './axes.js';
import { angleCaption } from '../../shared/wording.js';

const FONT = '11px system-ui, sans-serif';
/** Below this a chart gets a horizontal scrollbar rather than unreadable labels. */
const MIN_WIDTH = 260;

// Charts redraw when their container's width changes (a window resize, the layout switching to
// one column), since they are drawn at the width they had: the last arguments per container.
const lastRender = new WeakMap();
let resizeObserver = null;

function remember(parent, render, args, width) {
  lastRender.set(parent, { render, args, width });
  if (typeof ResizeObserver === 'undefined') return;
  resizeObserver ??= new ResizeObserver((entries) => {
    for (const entry of entries) {
      const last = lastRender.get(entry.target);
      if (!last || Math.abs(chartWidth(entry.target) - last.width) < 1) continue;
      last.render(entry.target, ...last.args);
    }
  });
  resizeObserver.observe(parent);
}

/** The width a chart in `parent` gets: all of it, but not less than MIN_WIDTH. */
function chartWidth(parent) {
  return Math.max(MIN_WIDTH, Math.floor(parent.clientWidth));
}

/**
 * Text and line colours from the page: ink is the container's computed text colour (so dark mode
 * is followed), a and b the scheme colours from the page's --a / --b custom properties.
 */
function colours(parent) {
  const root = getComputedStyle(document.documentElement);
  const prop = (name, fallback) => root.getPropertyValue(name).trim() || fallback;
  return {
    ink: getComputedStyle(parent).color || '#222',
    a: prop('--a', '#e69f00'),
    b: prop('--b', '#0072b2'),
  };
}

/** An RGBA image (the worker's { rgba, rows, cols }) as something drawImage scales. */
function imageSource(image) {
  const data = new ImageData(image.rgba, image.cols, image.rows);
  const off =
    typeof OffscreenCanvas === 'function'
      ? new OffscreenCanvas(image.cols, image.rows)
      : Object.assign(document.createElement('canvas'), { width: image.cols, height: image.rows });
  off.getContext('2d').putImageData(data, 0, 0);
  return off;
}

/** Draws an image into a box with hard cell edges (each cell is a token or a pair). */
function drawCells(ctx, image, box) {
  ctx.save();
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(imageSource(image), box.left, box.top, box.width, box.height);
  ctx.restore();
}

/** A line readable over any cell, black to white: dark core over a light halo. */
function haloLine(ctx, x0, y0, x1, y1, dash = []) {
  ctx.save();
  ctx.lineCap = 'butt';
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.setLineDash([]);
  ctx.strokeStyle = 'rgba(255, 255, 255, 0.85)';
  ctx.lineWidth = 4;
  ctx.stroke();
  ctx.setLineDash(dash);
  ctx.strokeStyle = '#000';
  ctx.lineWidth = 1.75;
  ctx.stroke();
  ctx.restore();
}

let measurer = null;
/** The width of a label in the charts' font, before there is a sized canvas to draw it on. */
function textWidth(text) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = FONT;
  return measurer.measureText(text).width;
}

/** A canvas with an accessible name. */
function chartCanvas(label) {
  return el('canvas', { role: 'img', 'aria-label': label });
}

/**
 * Position (0..1 across the columns, at cell centres) of a token index among sampled indices in
 * ascending order, interpolated between them: the x scale of the sampled views.
 */
function sampledScale(indices) {
  const count = indices.length;
  return (t) => {
    if (count === 0) return 0.5;
    if (count === 1 || t <= indices[0]) return 0.5 / count;
    if (t >= indices[count - 1]) return (count - 0.5) / count;
    let lo = 0;
    let hi = count - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (indices[mid] <= t) lo = mid;
      else hi = mid;
    }
    const f = lo + (t - indices[lo]) / (indices[hi] - indices[lo] || 1);
    return (f + 0.5) / count;
  };
}

/** Per-band relative-distance matrices, side by side, each with query and key axes. */
export function renderDistances(parent, data) {
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
        el('figcaption', {}, `${name} · ${bandName} · max ${Math.round(band.max)}`),
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
      String(Math.round(data.maxDistance)),
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
  remember(parent, renderDistances, [data], chartWidth(parent));
}

/**
 * Angle map for one side: frequency pairs (rows, fast at the top) × sampled keys (columns, the
 * query being the last token), with the band boundaries, the Split% line and the key the training
 * length back, each labelled on the chart.
 */
export function renderAngles(parent, data, title, train) {
  parent.replaceChildren();
  const figure = el('figure', { class: 'angles' });
  if (!data) {
    figure.append(
      el('figcaption', {}, `${title}: no rotation (this scheme does not rotate q and k).`),
    );
    parent.append(figure);
    lastRender.delete(parent);
    return;
  }
  const width = chartWidth(parent);
  const canvas = chartCanvas(`${title}: rotation angle per frequency pair`);
  figure.append(canvas);
  const bands =
    data.bands.length > 1
      ? ` Bands: ${data.bands.map((b) => `${b.name} ${b.pairs[0]}–${b.pairs[1] - 1}`).join(', ')}.`
      : '';
  const hasTrain = data.trainColumn !== null && data.trainColumn !== undefined;
  // Pair 0 (fastest) is drawn at the top (pairY below): the pairs that turn a full period lie above Split%.
  figure.append(
    el(
      'figcaption',
      {},
      angleCaption({ title, oodPairs: data.oodPairs, pairs: data.pairs, train, hasTrain, bands }),
    ),
  );
  parent.append(figure);

  const { ink } = colours(parent);
  const splitLabel = 'Split%';
  const bandLabels = data.bands.length > 1 ? data.bands.map((b) => b.name) : [];
  const rightLabel = Math.max(...[splitLabel, ...bandLabels].map(textWidth));
  const pad = { left: 52, right: Math.ceil(rightLabel) + 12, top: 18, bottom: AXIS_ROOM.bottom };
  const plotHeight = Math.max(120, Math.min(300, data.pairs * 5));
  const box = {
    left: pad.left,
    top: pad.top,
    width: width - pad.left - pad.right,
    height: plotHeight,
  };
  const ctx = fitCanvas(canvas, width, pad.top + plotHeight + pad.bottom);
  ctx.font = FONT;
  drawCells(ctx, data.image, box);

  const cols = data.image.cols;
  const pairY = (p) => box.top + (p / data.pairs) * box.height;
  // Band boundaries (HiRoPE): solid lines between the pairs of different position levels.
  for (const band of data.bands.slice(1))
    haloLine(ctx, box.left, pairY(band.pairs[0]), box.left + box.width, pairY(band.pairs[0]));
  const dash = [6, 4];
  const splitIn = data.splitPair >= 0 && data.splitPair <= data.pairs;
  const splitY = pairY(data.splitPair);
  if (splitIn) haloLine(ctx, box.left, splitY, box.left + box.width, splitY, dash);
  let trainX = null;
  if (hasTrain) {
    trainX = box.left + (data.trainColumn / cols) * box.width;
    haloLine(ctx, trainX, box.top, trainX, box.top + box.height, dash);
  }

  drawAxes(ctx, {
    box,
    x: {
      lo: data.keys[0] ?? 0,
      hi: data.keys[cols - 1] ?? 0,
      map: sampledScale(data.keys),
      title: 'key token (the query is the last token)',
    },
    y: {
      lo: 0,
      hi: data.pairs - 1,
      map: (p) => (p + 0.5) / data.pairs,
      reverse: true,
      title: 'frequency pair j',
    },
    ink,
  });

  // Labels outside the cells, so they never hide one: Split% and the band names in the right
  // margin (a band name only where it does not collide with Split%), the training line on top.
  ctx.save();
  ctx.fillStyle = ink;
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  const labelX = box.left + box.width + 8;
  if (splitIn)
    ctx.fillText(
      splitLabel,
      labelX,
      Math.min(Math.max(splitY, box.top + 6), box.top + box.height - 6),
    );
  ctx.globalAlpha = 0.7;
  for (const band of bandLabels.length ? data.bands : []) {
    const top = pairY(band.pairs[0]);
    const bottom = pairY(band.pairs[1]);
    // The band's middle, or the middle of its part above or below Split% where that label is.
    const spots = [
      (top + bottom) / 2,
      ...(splitIn ? [(top + splitY) / 2, (splitY + bottom) / 2] : []),
    ];
    const y = spots.find(
      (v) => v >= top + 6 && v <= bottom - 6 && (!splitIn || Math.abs(v - splitY) >= 13),
    );
    if (y !== undefined) ctx.fillText(band.name, labelX, y);
  }
  ctx.globalAlpha = 1;
  if (trainX !== null) {
    const label = `L = ${train} back`;
    const w = ctx.measureText(label).width;
    ctx.textBaseline = 'bottom';
    // Centred on the line, kept inside the canvas.
    ctx.fillText(label, Math.min(Math.max(trainX - w / 2, 0), width - w), box.top - 3);
  }
  ctx.restore();
  remember(parent, renderAngles, [data, title, train], width);
}

/** Long-term decay curves of both sides on one chart. */
export function renderDecay(parent, data, names) {
  parent.replaceChildren();
  const width = chartWidth(parent);
  const height = Math.round(Math.max(220, Math.min(320, width * 0.3)));
  const canvas = chartCanvas('Long-term decay per scheme');
  const figure = el('figure', { class: 'decay' });
  figure.append(canvas);
  const caption = el('figcaption');
  for (const [side, colour] of [
    ['a', 'swatch-a'],
    ['b', 'swatch-b'],
  ]) {
    const item = el('span', { class: 'key' });
    item.append(
      el('span', { class: `swatch ${colour}` }),
      document.createTextNode(
        ArrayBuffer.isView(data[side]) ? names[side] : `${names[side]}: ${data[side].error}`,
      ),
    );
    caption.append(item);
  }
  caption.append(
    document.createTextNode(
      ` RoFormer's long-term-decay bound (1/(d/2))·Σⱼ|Sⱼ| against relative distance; dashed: training length ${data.train}.`,
    ),
  );
  figure.append(caption);
  parent.append(figure);

  const colour = colours(parent);
  const curves = [
    ['a', colour.a],
    ['b', colour.b],
  ].filter(([side]) => ArrayBuffer.isView(data[side]));
  let lo = Infinity;
  let hi = -Infinity;
  for (const [side] of curves)
    for (const v of data[side])
      if (Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
  if (!(hi >= lo)) {
    // no curve: an empty frame
    lo = 0;
    hi = 1;
  }
  const pad = { left: 58, right: 16, top: 20, bottom: AXIS_ROOM.bottom };
  const plot = {
    left: pad.left,
    top: pad.top,
    width: width - pad.left - pad.right,
    height: height - pad.top - pad.bottom,
  };
  // The y range widened to round values, so the frame's top and bottom are labelled ticks.
  const yDomain = niceDomain(lo, hi, Math.max(2, Math.floor(plot.height / 30)));
  const maxDistance = Math.max(1, data.maxDistance);
  const ctx = fitCanvas(canvas, width, height);
  ctx.font = FONT;
  const scale = drawAxes(ctx, {
    box: plot,
    x: { lo: 0, hi: maxDistance, title: 'relative distance (tokens)' },
    y: { lo: yDomain.lo, hi: yDomain.hi, ticks: yDomain.ticks, title: 'decay bound' },
    ink: colour.ink,
    grid: true,
  });

  ctx.save();
  ctx.beginPath();
  ctx.rect(plot.left, plot.top, plot.width, plot.height);
  ctx.clip();
  ctx.lineWidth = 1.75;
  ctx.lineJoin = 'round';
  for (const [side, stroke] of curves) {
    const values = data[side];
    ctx.strokeStyle = stroke;
    ctx.beginPath();
    let pen = false;
    for (let d = 0; d < values.length; d++) {
      if (!Number.isFinite(values[d])) {
        pen = false;
        continue;
      }
      if (pen) ctx.lineTo(scale.x(d), scale.y(values[d]));
      else ctx.moveTo(scale.x(d), scale.y(values[d]));
      pen = true;
    }
    ctx.stroke();
  }
  ctx.restore();

  if (data.train >= 0 && data.train <= maxDistance) {
    const x = Math.round(scale.x(data.train)) + 0.5;
    ctx.save();
    ctx.strokeStyle = colour.ink;
    ctx.fillStyle = colour.ink;
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(x, plot.top);
    ctx.lineTo(x, plot.top + plot.height);
    ctx.stroke();
    ctx.font = FONT;
    ctx.textBaseline = 'bottom';
    const label = `training length L = ${data.train}`;
    const w = ctx.measureText(label).width;
    ctx.fillText(label, Math.min(Math.max(x - w / 2, 0), width - w), plot.top - 3);
    ctx.restore();
  }
  remember(parent, renderDecay, [data, names], width);
}
