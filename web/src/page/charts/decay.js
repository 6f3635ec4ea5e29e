// The playground's decay view: the long-term decay curve of each scheme on one chart, drawn on a
// canvas from worker data with titled axes and round ticks (axes.js).
import { el } from '../dom.js';
import { AXIS_ROOM, drawAxes, fitCanvas, niceDomain } from './axes.js';
import { FONT, remember, chartWidth, colours, chartCanvas } from './chart-kit.js';

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
