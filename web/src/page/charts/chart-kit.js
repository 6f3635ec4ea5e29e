// What the charts below the playground's maps share: their font and minimum width, redrawing a
// chart when its container's width changes, the page's colours, cell images drawn with hard edges,
// halo lines, text widths, accessible canvases and the sampled views' x scale.
import { el } from '../dom.js';

export const FONT = '11px system-ui, sans-serif';
/** Below this a chart gets a horizontal scrollbar rather than unreadable labels. */
const MIN_WIDTH = 260;

// Charts redraw when their container's width changes (a window resize, the layout switching to
// one column), since they are drawn at the width they had: the last arguments per container.
const lastRender = new Map();
let resizeObserver = null;

/**
 * Redraws every chart as last drawn, in the page's colours now: a chart takes them when drawn, so
 * the pages call this when the colour scheme changes.
 */
export function redrawCharts() {
  for (const [parent, last] of lastRender) last.render(parent, ...last.args);
}

export function remember(parent, render, args, width) {
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

/** Forgets a container's chart: it no longer redraws when its width changes. */
export function forget(parent) {
  lastRender.delete(parent);
}

/** The width a chart in `parent` gets: all of it, but not less than MIN_WIDTH. */
export function chartWidth(parent) {
  return Math.max(MIN_WIDTH, Math.floor(parent.clientWidth));
}

/**
 * Text and line colours from the page: ink is the container's computed text colour (so dark mode
 * is followed), a and b the scheme colours from the page's --a / --b custom properties.
 */
export function colours(parent) {
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
export function drawCells(ctx, image, box) {
  ctx.save();
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(imageSource(image), box.left, box.top, box.width, box.height);
  ctx.restore();
}

/** A line readable over any cell, black to white: dark core over a light halo. */
export function haloLine(ctx, x0, y0, x1, y1, dash = []) {
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
export function textWidth(text) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = FONT;
  return measurer.measureText(text).width;
}

/** A canvas with an accessible name. */
export function chartCanvas(label) {
  return el('canvas', { role: 'img', 'aria-label': label });
}

/**
 * Position (0..1 across the columns, at cell centres) of a token index among sampled indices in
 * ascending order, interpolated between them: the x scale of the sampled views.
 */
export function sampledScale(indices) {
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
