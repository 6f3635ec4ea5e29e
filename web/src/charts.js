// The spec's other views (hirope-spec.md 3.3): per-band effective relative-distance matrices,
// rotation angle per frequency pair against the training length and the Split% line, and the
// long-term decay curve per scheme. Everything is drawn on canvases from worker data.
import { LUTS, cssGradient } from './colormap.js';
import { el, legend } from './dom.js';


function imageCanvas(image, width, height, label) {
  const canvas = el('canvas', { width: String(width), height: String(height), role: 'img', 'aria-label': label });
  const off = new OffscreenCanvas(image.cols, image.rows);
  off.getContext('2d').putImageData(new ImageData(image.rgba, image.cols, image.rows), 0, 0);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(off, 0, 0, width, height);
  return canvas;
}

/** Per-band relative-distance matrices, side by side. */
export function renderDistances(parent, data) {
  parent.replaceChildren();
  const grid = el('div', { class: 'tiles' });
  for (const view of data.views) {
    for (const band of view.bands) {
      const figure = el('figure', { class: 'tile' });
      const name = view.window ? `${view.name} (W ${view.window})` : view.name;
      const bandName = band.name === 'all' ? 'all pairs' : `${band.name} band, pairs ${band.pairs[0]}–${band.pairs[1] - 1}`;
      figure.append(imageCanvas(band.image, 176, 176, `${name}: ${bandName} relative distances`));
      figure.append(el('figcaption', {}, `${name} · ${bandName} · max ${Math.round(band.max)}`));
      grid.append(figure);
    }
  }
  parent.append(grid);
  const note = data.sampled ? `${data.size} of ${data.tokens} tokens, evenly sampled. ` : '';
  parent.append(legend(cssGradient(LUTS.viridis), '0', String(Math.round(data.maxDistance)), `${note}Grey: masked (the key is after the query).`));
}

/** Angle map for one side: pairs (rows) x keys (columns), with the training and Split% lines. */
export function renderAngles(parent, data, title, train) {
  parent.replaceChildren();
  const figure = el('figure', { class: 'angles' });
  if (!data) {
    figure.append(el('figcaption', {}, `${title}: no rotation (this scheme does not rotate q and k).`));
    parent.append(figure);
    return;
  }
  const width = 384;
  const height = Math.max(96, Math.min(256, data.pairs * 6));
  const canvas = imageCanvas(data.image, width, height, `${title}: rotation angle per frequency pair`);
  const ctx = canvas.getContext('2d');
  ctx.lineWidth = 2;
  // Band boundaries (HiRoPE): solid lines between the pairs of different position levels.
  ctx.strokeStyle = '#000';
  for (const band of data.bands.slice(1)) {
    const y = (band.pairs[0] * height) / data.pairs;
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(width, y);
    ctx.stroke();
  }
  ctx.setLineDash([6, 4]);
  ctx.strokeStyle = '#111';
  const splitY = (data.splitPair * height) / data.pairs;
  ctx.beginPath();
  ctx.moveTo(0, splitY);
  ctx.lineTo(width, splitY);
  ctx.stroke();
  if (data.trainColumn !== null) {
    const x = (data.trainColumn * width) / data.image.cols;
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, height);
    ctx.stroke();
  }
  figure.append(canvas);
  const bands = data.bands.length > 1 ? ` Bands: ${data.bands.map((b) => `${b.name} ${b.pairs[0]}–${b.pairs[1] - 1}`).join(', ')}.` : '';
  figure.append(el('figcaption', {}, `${title}: cos(θⱼ·Δ) from the last token to each key (left: first key). Dashed: Split% (pairs below it turn a full period within ${train} tokens) and the key ${train} tokens back. Red: out of distribution — ${data.oodPairs} of ${data.pairs} pairs.${bands}`));
  parent.append(figure);
}

/** Long-term decay curves of both sides on one chart. */
export function renderDecay(parent, data, names) {
  parent.replaceChildren();
  const width = 760;
  const height = 220;
  const pad = { left: 44, right: 12, top: 12, bottom: 28 };
  const canvas = el('canvas', { width: String(width), height: String(height), role: 'img', 'aria-label': 'Long-term decay per scheme' });
  const ctx = canvas.getContext('2d');
  const style = getComputedStyle(parent);
  const ink = style.color || '#222';
  const curves = [
    ['a', '#e69f00'],
    ['b', '#0072b2'],
  ].filter(([side]) => ArrayBuffer.isView(data[side]));
  let lo = Infinity;
  let hi = -Infinity;
  for (const [side] of curves) for (const v of data[side]) if (Number.isFinite(v)) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
  if (!(hi > lo)) (lo -= 1), (hi += 1);
  const X = (d) => pad.left + (d / data.maxDistance) * (width - pad.left - pad.right);
  const Y = (v) => pad.top + (1 - (v - lo) / (hi - lo)) * (height - pad.top - pad.bottom);
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.lineWidth = 1;
  ctx.font = '11px system-ui, sans-serif';
  ctx.strokeRect(pad.left, pad.top, width - pad.left - pad.right, height - pad.top - pad.bottom);
  for (let i = 0; i <= 4; i++) {
    const d = Math.round((i * data.maxDistance) / 4);
    ctx.textAlign = i === 0 ? 'left' : i === 4 ? 'right' : 'center';
    ctx.fillText(String(d), X(d), height - 10);
    ctx.textAlign = 'left';
    const v = lo + ((hi - lo) * i) / 4;
    ctx.fillText(v.toPrecision(3), 2, Y(v) + 4);
  }
  ctx.setLineDash([5, 4]);
  ctx.beginPath();
  ctx.moveTo(X(data.train), pad.top);
  ctx.lineTo(X(data.train), height - pad.bottom);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.lineWidth = 1.5;
  for (const [side, colour] of curves) {
    const values = data[side];
    ctx.strokeStyle = colour;
    ctx.beginPath();
    for (let d = 0; d < values.length; d++) {
      if (d === 0) ctx.moveTo(X(d), Y(values[d]));
      else ctx.lineTo(X(d), Y(values[d]));
    }
    ctx.stroke();
  }
  const figure = el('figure', { class: 'decay' });
  figure.append(canvas);
  const caption = el('figcaption');
  for (const [side, colour] of [
    ['a', 'swatch-a'],
    ['b', 'swatch-b'],
  ]) {
    const item = el('span', { class: 'key' });
    item.append(el('span', { class: `swatch ${colour}` }), document.createTextNode(ArrayBuffer.isView(data[side]) ? names[side] : `${names[side]}: ${data[side].error}`));
    caption.append(item);
  }
  caption.append(document.createTextNode(` RoFormer's long-term-decay bound (1/(d/2))·Σⱼ|Sⱼ| against relative distance; dashed: training length ${data.train}.`));
  figure.append(caption);
  parent.append(figure);
}
