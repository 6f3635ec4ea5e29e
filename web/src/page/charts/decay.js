// The playground's decay view: the long-term decay curve of each scheme on one chart, drawn on a
// canvas from worker data with titled axes and round ticks (axes.js).
import { el } from '../dom.js';
import { AXIS_ROOM, drawAxes, fitCanvas, niceDomain } from './axes.js';
import { FONT, remember, chartWidth, colours, chartCanvas } from './chart-kit.js';

// A side's curve as { distances, values }: the core's curve at every distance (a Float32Array,
// distance = index), or one sampled at log-spaced distances (attention-views.js decayView); null
// for { error }.
function curveOf(value) {
  if (ArrayBuffer.isView(value)) return { distances: null, values: value };
  return value && ArrayBuffer.isView(value.values) ? value : null;
}

/** Log-scale ticks for distances 0 .. max: 0 and the powers of ten up to max. */
export function logTicks(max) {
  const ticks = [0];
  for (let t = 1; t <= max; t *= 10) ticks.push(t);
  return ticks;
}

/** A distance's label: exact below 10,000, else 10k, 1.05M, 1G. */
export function distanceLabel(v) {
  if (v < 1e4) return String(v);
  const [size, unit] = v >= 1e9 ? [1e9, 'G'] : v >= 1e6 ? [1e6, 'M'] : [1e3, 'k'];
  return `${+(v / size).toPrecision(3)}${unit}`;
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
        curveOf(data[side]) ? names[side] : `${names[side]}: ${data[side].error}`,
      ),
    );
    caption.append(item);
  }
  const sampled = ['a', 'b'].map((side) => curveOf(data[side])).find((c) => c?.distances);
  caption.append(
    document.createTextNode(
      ` RoFormer's long-term-decay bound (1/(d/2))·Σⱼ|Sⱼ| against relative distance; dashed: training length ${data.train}.${
        sampled
          ? ` Up to ${Math.max(1, data.maxDistance).toLocaleString('en')} tokens on a log scale, computed at ${sampled.distances.length.toLocaleString('en')} log-spaced distances.`
          : ''
      }`,
    ),
  );
  figure.append(caption);
  parent.append(figure);

  const colour = colours(parent);
  const curves = [
    ['a', colour.a],
    ['b', colour.b],
  ]
    .map(([side, stroke]) => [curveOf(data[side]), stroke])
    .filter(([curve]) => curve);
  let lo = Infinity;
  let hi = -Infinity;
  for (const [curve] of curves)
    for (const v of curve.values)
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
    x: sampled
      ? {
          lo: 0,
          hi: maxDistance,
          map: (v) => Math.log1p(Math.max(0, v)) / Math.log1p(maxDistance),
          ticks: logTicks(maxDistance),
          format: distanceLabel,
          title: 'relative distance (tokens, log scale)',
        }
      : { lo: 0, hi: maxDistance, title: 'relative distance (tokens)' },
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
  for (const [{ distances, values }, stroke] of curves) {
    ctx.strokeStyle = stroke;
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) {
        pen = false;
        continue;
      }
      const x = scale.x(distances ? distances[i] : i);
      if (pen) ctx.lineTo(x, scale.y(values[i]));
      else ctx.moveTo(x, scale.y(values[i]));
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
