// Chart axes for the playground's canvases: round tick values, their labels, and a frame with
// tick marks, labels, titles and an optional grid. Dependency-free so that any chart (the views
// below the maps in distances.js, angles.js and decay.js, Model mode's loss chart in loss.js, the
// summary's TV chart) and the Node tests can import it.

const MANTISSAS = [1, 2, 2.5, 5];

/**
 * A quotient moved by its possible rounding error in direction `dir`, so that a bound that is a
 * multiple of the step up to rounding (0.3 / 0.002 = 150.00000000000003) counts as one. The
 * error is relative, so a truly tiny quotient (-37 / 5e10) stays on its side of zero, and capped,
 * so a huge one (1e16 / 0.5) is not moved by whole steps.
 */
const unnoisy = (quotient, dir) => quotient + dir * Math.min(1e-9, 1e-14 * Math.abs(quotient));

/** m × 10^k as the double nearest to that decimal (parsing avoids the noise of m * 10 ** k). */
const decimal = (m, k) => Number(`${m}e${k}`);

/**
 * Round tick values inside [lo, hi]: multiples of a step of 1, 2, 2.5 or 5 × 10^k, the finest
 * such step that gives at most maxTicks of them. The bounds may come in either order; lo === hi
 * gives that one value; non-finite input gives no ticks.
 * @returns {{ ticks: number[], step: number }}
 */
export function niceTicks(lo, hi, maxTicks = 6) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { ticks: [], step: NaN };
  if (lo > hi) [lo, hi] = [hi, lo];
  const most = Math.max(1, Math.floor(Number.isFinite(maxTicks) ? maxTicks : 6));
  if (lo === hi) {
    // One tick; the step is the place of its last significant digit (of six at most), so that
    // formatTick writes 5 as "5" and 0.31 as "0.31".
    const [mantissa, exponent] = Number(lo.toPrecision(6)).toExponential().split('e');
    const places = (mantissa.split('.')[1] ?? '').length;
    return { ticks: [lo], step: decimal(1, Number(exponent) - places) };
  }
  return roundMultiples(lo, hi, most, false);
}

/**
 * The multiples of the finest round step (1, 2, 2.5, 5 × 10^k) that number at most `most`:
 * those inside [lo, hi], or (outward) those from the one at or below lo to the one at or above hi.
 */
function roundMultiples(lo, hi, most, outward) {
  // Divided before subtracting so that a range of ±1e308 does not overflow.
  let k = Math.floor(Math.log10(hi / most - lo / most)) - 1;
  for (;;) {
    for (const m of MANTISSAS) {
      const step = decimal(m, k);
      const first = outward ? Math.floor(unnoisy(lo / step, 1)) : Math.ceil(unnoisy(lo / step, -1));
      const last = outward ? Math.ceil(unnoisy(hi / step, -1)) : Math.floor(unnoisy(hi / step, 1));
      if (last - first + 1 > most) continue;
      // Counted rather than `i <= last`: beyond 2^53 (a range far below the values' precision)
      // i++ would not move.
      const ticks = [];
      for (let n = 0; n <= last - first; n++) {
        const t = decimal((first + n) * m, k) + 0; // + 0: no -0
        if (t !== ticks.at(-1)) ticks.push(t); // equal where the step is below the values' precision
      }
      return { ticks, step };
    }
    k++;
  }
}

/**
 * A range widened to round values, so that a chart's frame starts and ends on labelled ticks:
 * [2.7, 16.3] → { lo: 0, hi: 20, ticks: [0, 5, 10, 15, 20], step: 5 }, at most maxTicks ticks.
 * lo === hi widens to the round values around it; non-finite input gives [0, 1].
 * @returns {{ lo: number, hi: number, ticks: number[], step: number }}
 */
export function niceDomain(lo, hi, maxTicks = 6) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi))
    return { lo: 0, hi: 1, ...niceTicks(0, 1, maxTicks) };
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) / 10;
    [lo, hi] = [lo - pad, hi + pad];
  }
  // A range across zero has at least 3 round ticks (its ends and zero), whatever the step.
  const most = Math.max(
    lo < 0 && hi > 0 ? 3 : 2,
    Math.floor(Number.isFinite(maxTicks) ? maxTicks : 6),
  );
  const { ticks, step } = roundMultiples(lo, hi, most, true);
  return { lo: ticks[0], hi: ticks.at(-1), ticks, step };
}

/** The power of ten of a step's last significant digit: 0.25 → -2, 2.5 → -1, 500 → 2. */
function lastDigit(step) {
  let e = Math.floor(Math.log10(step));
  const scaled = (e0) => step / decimal(1, e0);
  while (e > -340 && Math.abs(Math.round(scaled(e)) - scaled(e)) > 1e-6 * scaled(e)) e--;
  return e;
}

/**
 * A tick label with no more decimals than the step needs: (0.75, 0.25) → "0.75", (1500, 500) →
 * "1500", (4096, 1) → "4096". Values or steps beyond what fixed notation writes well (≥ 1e15,
 * steps below 1e-6) are written as m.mmme±k with the digits the step needs.
 */
export function formatTick(value, step) {
  if (!Number.isFinite(value)) return String(value);
  // Without a usable step: the value to six significant digits, trailing zeros dropped.
  if (!(step > 0) || !Number.isFinite(step)) return String(Number(value.toPrecision(6)) + 0);
  const last = lastDigit(step);
  let text;
  if (Math.abs(value) < 1e15 && last >= -6) text = value.toFixed(Math.max(0, -last));
  else if (value === 0) text = '0';
  else {
    // Significant digits: from the value's leading digit down to the step's last one.
    const digits = Math.floor(Math.log10(Math.abs(value))) - last + 1;
    // Trailing zeros of the mantissa dropped: 1e+308 next to 5e+307, not 1.0e+308.
    text = value.toExponential(Math.min(20, Math.max(0, digits - 1))).replace(/\.?0+e/, 'e');
  }
  // -0.00 (a value that rounds to zero) reads as 0.
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** The device pixel ratio charts are drawn at: the screen's, capped at 2 (memory on 3× phones). */
export function pixelRatio() {
  const ratio = typeof globalThis.devicePixelRatio === 'number' ? globalThis.devicePixelRatio : 1;
  return Math.min(2, Math.max(1, ratio || 1));
}

/**
 * Sizes a canvas to cssWidth × cssHeight CSS pixels with a backing store of that size times the
 * pixel ratio, so it is crisp on high-density screens, and returns its 2D context scaled so that
 * drawing is in CSS pixels. The size goes in through the CSSOM, which the page's CSP allows.
 */
export function fitCanvas(canvas, cssWidth, cssHeight) {
  const ratio = pixelRatio();
  canvas.width = Math.max(1, Math.round(cssWidth * ratio));
  canvas.height = Math.max(1, Math.round(cssHeight * ratio));
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(canvas.width / cssWidth, 0, 0, canvas.height / cssHeight, 0, 0);
  return ctx;
}

/**
 * Room drawAxes needs outside the box: below it for the x labels and title, above it for a y
 * title placed at the top (titleAt: 'top'); at the left it depends on the y labels' width.
 */
export const AXIS_ROOM = Object.freeze({ bottom: 40, bottomWithoutTitle: 22, top: 22 });

/** The canvas size in the context's drawing units (CSS pixels after fitCanvas). */
function drawingSize(ctx) {
  const t = typeof ctx.getTransform === 'function' ? ctx.getTransform() : { a: 1, d: 1 };
  return { width: ctx.canvas.width / (t.a || 1), height: ctx.canvas.height / (Math.abs(t.d) || 1) };
}

/**
 * A linear scale from [lo, hi] onto [0, 1], or the axis's own `map` when it is not linear (the
 * angle view's sampled key columns). lo === hi maps everything to the middle.
 */
function unitScale(axis) {
  if (typeof axis.map === 'function') return axis.map;
  const span = axis.hi - axis.lo;
  return span === 0 || !Number.isFinite(span) ? () => 0.5 : (v) => (v - axis.lo) / span;
}

const FONT_SIZE = 11;

/**
 * Draws a chart's frame, tick marks, tick labels, axis titles and (grid: true or a colour) grid
 * lines around the plot area `box` (CSS pixels). Each axis is { lo, hi, title?, ticks?, format?,
 * maxTicks?, reverse?, map? } (y also titleAt: 'top' for an upright title above the axis): ticks
 * default to niceTicks over [lo, hi] (as many as fit), format to formatTick, `reverse` puts lo at
 * the right / top, `map(v)` replaces the linear position (0..1 across the box). Labels are kept inside the canvas: the first and last are shifted in
 * rather than clipped, and x labels that would overlap a neighbour are left out.
 * Returns { x, y }: functions from data values to canvas coordinates, for the caller's marks.
 */
export function drawAxes(
  ctx,
  { box, x, y, ink = '#222', grid = false, font = `${FONT_SIZE}px system-ui, sans-serif` },
) {
  const { left, top, width, height } = box;
  const canvas = drawingSize(ctx);
  const ux = unitScale(x);
  const uy = unitScale(y);
  const X = (v) => left + (x.reverse ? 1 - ux(v) : ux(v)) * width;
  // Canvas y grows downwards: lo sits at the bottom unless the axis is reversed.
  const Y = (v) => top + (y.reverse ? uy(v) : 1 - uy(v)) * height;
  // As many ticks as leave room for their labels: ~64 px apart across, ~30 px up.
  const xTicks = axisTicks(x, Math.max(2, Math.floor(width / 64)));
  const yTicks = axisTicks(y, Math.max(2, Math.floor(height / 30)));
  const inside = (p, a, b) => p >= a - 0.5 && p <= b + 0.5;

  ctx.save();
  ctx.setLineDash([]);
  ctx.font = font;
  ctx.lineWidth = 1;
  if (grid) {
    ctx.strokeStyle = grid === true ? ink : grid;
    ctx.globalAlpha = grid === true ? 0.14 : 1;
    ctx.beginPath();
    for (const t of xTicks.values) {
      const px = crisp(X(t));
      if (inside(px, left, left + width)) {
        ctx.moveTo(px, top);
        ctx.lineTo(px, top + height);
      }
    }
    for (const t of yTicks.values) {
      const py = crisp(Y(t));
      if (inside(py, top, top + height)) {
        ctx.moveTo(left, py);
        ctx.lineTo(left + width, py);
      }
    }
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.strokeRect(crisp(left), crisp(top), Math.round(width), Math.round(height));

  // x: tick marks below the frame, labels under them, none overlapping the one before.
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  let lastRight = -Infinity;
  ctx.beginPath();
  for (const t of xTicks.values) {
    const px = X(t);
    if (!inside(px, left, left + width)) continue;
    ctx.moveTo(crisp(px), top + height);
    ctx.lineTo(crisp(px), top + height + 4);
    const label = xTicks.format(t);
    const w = ctx.measureText(label).width;
    const at = Math.min(Math.max(px - w / 2, 0), canvas.width - w);
    if (at < lastRight + 6) continue;
    ctx.fillText(label, at, top + height + 6);
    lastRight = at + w;
  }
  ctx.stroke();

  // y: tick marks left of the frame, labels right-aligned against them.
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  let widest = 0;
  ctx.beginPath();
  for (const t of yTicks.values) {
    const py = Y(t);
    if (!inside(py, top, top + height)) continue;
    ctx.moveTo(left - 4, crisp(py));
    ctx.lineTo(left, crisp(py));
    const label = yTicks.format(t);
    widest = Math.max(widest, ctx.measureText(label).width);
    const half = FONT_SIZE / 2 + 1;
    ctx.fillText(label, left - 6, Math.min(Math.max(py, half), canvas.height - half));
  }
  ctx.stroke();

  // Titles: x centred below the labels, y rotated and centred left of the labels.
  if (x.title) {
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const w = ctx.measureText(x.title).width;
    const cx = Math.min(Math.max(left + width / 2, w / 2 + 1), canvas.width - w / 2 - 1);
    ctx.fillText(x.title, cx, top + height + 8 + FONT_SIZE + 4);
  }
  if (y.title && y.titleAt === 'top') {
    // Upright above the labels, for titles that carry an arrow (query ↓) or small charts.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    const w = ctx.measureText(y.title).width;
    // Clear of a tick label centred on the frame's top edge.
    ctx.fillText(
      y.title,
      Math.min(Math.max(left - 6 - widest, 0), canvas.width - w),
      top - FONT_SIZE / 2 - 3,
    );
  } else if (y.title) {
    ctx.save();
    const w = ctx.measureText(y.title).width;
    const cx = Math.max(left - 6 - widest - 6 - FONT_SIZE / 2, FONT_SIZE / 2 + 1);
    const cy = Math.min(Math.max(top + height / 2, w / 2 + 1), canvas.height - w / 2 - 1);
    ctx.translate(cx, cy);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(y.title, 0, 0);
    ctx.restore();
  }
  ctx.restore();
  return { x: X, y: Y };
}

/** An axis's tick values and their label function. */
function axisTicks(axis, fit) {
  let values = axis.ticks;
  let step;
  if (!values) ({ ticks: values, step } = niceTicks(axis.lo, axis.hi, axis.maxTicks ?? fit));
  else step = smallestGap(values);
  const format = axis.format ?? ((v) => formatTick(v, step));
  return { values, format };
}

function smallestGap(values) {
  let gap = Infinity;
  for (let i = 1; i < values.length; i++) gap = Math.min(gap, Math.abs(values[i] - values[i - 1]));
  return Number.isFinite(gap) && gap > 0 ? gap : undefined;
}

/** Half-pixel alignment, so 1-pixel lines land on one row of CSS pixels instead of two. */
const crisp = (v) => Math.round(v) + 0.5;
