// The playground's angle view: rotation angle per frequency pair against the training length, with
// the band boundaries and the Split% line, drawn on a canvas from worker data (axes.js).
import { el } from '../dom.js';
import { AXIS_ROOM, drawAxes, fitCanvas } from './axes.js';
import { angleCaption } from '../../shared/wording.js';
import { logTicks, distanceLabel } from './decay.js';
import {
  FONT,
  remember,
  forget,
  chartWidth,
  colours,
  drawCells,
  haloLine,
  textWidth,
  chartCanvas,
  sampledScale,
} from './chart-kit.js';

/**
 * Angle map for one side: frequency pairs (rows, fast at the top) × sampled keys (columns, the
 * query being the last token), with the band boundaries, the Split% line and the key the training
 * length back, each labelled on the chart.
 */
export function renderAngles(parent, data, title, train, stride = 1) {
  parent.replaceChildren();
  const figure = el('figure', { class: 'angles' });
  if (!data) {
    figure.append(
      el('figcaption', {}, `${title}: no rotation (this scheme does not rotate q and k).`),
    );
    parent.append(figure);
    forget(parent);
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
      angleCaption({
        title,
        oodPairs: data.oodPairs,
        pairs: data.pairs,
        train,
        hasTrain,
        bands,
        splitPair: data.splitPair,
        reach: data.reach,
        reachKind: data.reachKind,
        span: data.span,
        stride,
      }),
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

  // Up to a model's length (data.distances): the columns are log-spaced distances, far to near.
  const far = data.distances
    ? {
        ticks: logTicks(data.distances[0])
          .filter((d) => d >= 1)
          .map((d) => data.length - 1 - d)
          .reverse(), // left to right (drawAxes skips a label that would overlap the last one)
        format: (key) => distanceLabel(data.length - 1 - key),
        title: `distance from the query, log scale (query at ${distanceLabel(data.length - 1)})`,
      }
    : {};
  drawAxes(ctx, {
    box,
    x: {
      lo: data.keys[0] ?? 0,
      hi: data.keys[cols - 1] ?? 0,
      map: sampledScale(data.keys),
      title: 'key token (the query is the last token)',
      ...far,
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
  remember(parent, renderAngles, [data, title, train, stride], width);
}
