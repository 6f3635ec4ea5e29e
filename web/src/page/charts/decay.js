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

const fmt = (x) => x.toLocaleString('en');

/**
 * What the decay chart draws, and its caption, from the worker's data: each side's curve to its
 * own farthest distance (data.maxDistance[side]: a model's length, or a sliding or chunked layer's
 * window or chunk, data.reach[side]), on a log distance axis when a curve is sampled (the worker
 * samples past 4,096); one dashed line per distinct training length (data.train[side]), each
 * named, and in the caption where it falls past the distances drawn.
 */
export function decayPlan(data, names) {
  const unit = (data.stride ?? 1) > 1 ? 'positions' : 'tokens';
  const sides = ['a', 'b'].map((side) => {
    const curve = curveOf(data[side]);
    return {
      side,
      curve,
      maxDistance: Math.max(1, data.maxDistance[side]),
      reach: data.reach?.[side] ?? 0,
      kind: data.masks?.[side] ?? null,
      train: data.train[side],
    };
  });
  const drawn = sides.filter((s) => s.curve);
  const hi = Math.max(1, ...drawn.map((s) => s.maxDistance));
  const log = drawn.some((s) => s.curve.distances); // a sampled curve: a model's long range
  // One line per distinct training length, labelled with the sides it belongs to.
  const lines = [];
  for (const s of sides) {
    const same = lines.find((l) => l.train === s.train);
    if (same) same.sides.push(s.side);
    else lines.push({ train: s.train, sides: [s.side], inside: s.train <= hi });
  }
  const label = (l) =>
    lines.length === 1
      ? `training length L = ${fmt(l.train)}`
      : `L of ${l.sides.map((x) => x.toUpperCase()).join(', ')} = ${fmt(l.train)}`;
  for (const l of lines) l.label = label(l);
  // The caption says what is drawn for each side.
  const what = (s) => {
    const S = s.side.toUpperCase();
    if (!s.curve)
      return data.nope?.[s.side]
        ? `${S}: no curve, since a NoPE layer does not rotate q and k.`
        : `${S}: no curve (${data[s.side]?.error ?? 'none'}).`;
    const where = s.curve.distances
      ? `${fmt(s.curve.distances.length - 1)} log-spaced distances up to ${fmt(s.maxDistance)} ${unit}`
      : `every distance up to ${fmt(s.maxDistance)} ${unit}`;
    const kind = s.kind === 'chunked' ? 'chunk' : 'window';
    const stop =
      s.reach && s.maxDistance === s.reach - 1
        ? `, where its ${fmt(s.reach)}-position ${kind} ends (it sees no key further back)`
        : '';
    return `${S}: ${where}${stop}.`;
  };
  const dashed = lines.map((l) => {
    const whose =
      lines.length === 1 ? '' : ` of ${l.sides.map((x) => x.toUpperCase()).join(' and ')}`;
    return `${fmt(l.train)}${whose}${l.inside ? '' : ' (past the distances drawn)'}`;
  });
  const caption = `RoFormer's long-term-decay bound (1/(d/2))·Σⱼ|Sⱼ| against relative distance${
    log ? ', on a log scale' : ''
  }. ${sides.map(what).join(' ')} Dashed: training length ${dashed.join('; ')}.`;
  return { unit, sides, hi, log, lines, caption, names };
}

/** Long-term decay curves of both sides on one chart. */
export function renderDecay(parent, data, names) {
  parent.replaceChildren();
  const plan = decayPlan(data, names);
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
    // The name only: the caption says what is drawn for each side, or why nothing is.
    item.append(el('span', { class: `swatch ${colour}` }), document.createTextNode(names[side]));
    caption.append(item);
  }
  caption.append(document.createTextNode(` ${plan.caption}`));
  figure.append(caption);
  parent.append(figure);

  const colour = colours(parent);
  const stroke = { a: colour.a, b: colour.b };
  const curves = plan.sides.filter((s) => s.curve);
  let lo = Infinity;
  let hi = -Infinity;
  for (const { curve } of curves)
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
  const maxDistance = plan.hi;
  const ctx = fitCanvas(canvas, width, height);
  ctx.font = FONT;
  const scale = drawAxes(ctx, {
    box: plot,
    x: plan.log
      ? {
          lo: 0,
          hi: maxDistance,
          map: (v) => Math.log1p(Math.max(0, v)) / Math.log1p(maxDistance),
          ticks: logTicks(maxDistance),
          format: distanceLabel,
          title: `relative distance (${plan.unit}, log scale)`,
        }
      : { lo: 0, hi: maxDistance, title: `relative distance (${plan.unit})` },
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
  for (const { side, curve } of curves) {
    const { distances, values } = curve;
    ctx.strokeStyle = stroke[side];
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

  // The training lengths: one dashed line each, in the ink where both sides share it, else in
  // its side's colour; labels stacked so that two never overlap.
  const inside = plan.lines.filter((l) => l.inside);
  inside.forEach((line, index) => {
    const x = Math.round(scale.x(line.train)) + 0.5;
    const ink = line.sides.length === 2 ? colour.ink : stroke[line.sides[0]];
    ctx.save();
    ctx.strokeStyle = ink;
    ctx.fillStyle = colour.ink;
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(x, plot.top);
    ctx.lineTo(x, plot.top + plot.height);
    ctx.stroke();
    ctx.font = FONT;
    ctx.textBaseline = 'bottom';
    const w = ctx.measureText(line.label).width;
    const y = index === 0 ? plot.top - 3 : plot.top + 14 * index;
    ctx.fillText(line.label, Math.min(Math.max(x - w / 2, 0), width - w), y);
    ctx.restore();
  });
  remember(parent, renderDecay, [data, names], width);
}
