// Model mode's loss by position: A and B on one chart with the training length dashed, smoothed
// over runs or as far-recall names only, with each scheme's mean in the key under it. It takes its
// box's full width at the screen's pixel ratio.
import { el } from '../dom.js';
import { $, dark } from '../shell.js';
import { drawAxes, fitCanvas, niceTicks } from './axes.js';
import { describeModelSide } from '../../shared/model-state.js';
import { lossCurve } from '../../shared/models.js';
import { plural } from '../../shared/wording.js';
import { RECALL_CLASSES } from 'hirope/recall';

/** drawLossChart() draws #loss-chart from mx.result (and mx.config's training length). */
export function createLossChart(mx) {
  // ----- loss chart: the full width of its box, crisp at the device pixel ratio
  const lossCanvas = el('canvas', { role: 'img' });
  const lossKey = el('p', { class: 'chart-key' });
  $('loss-chart').append(lossCanvas, lossKey);

  const meanLoss = (r, from, to) => {
    let s = 0;
    let c = 0;
    for (let t = from; t < Math.min(to, r.losses.length); t++) {
      s += r.losses[t];
      c++;
    }
    return c ? s / c : NaN;
  };

  // Beside the held-out verdict (a wide layout) the chart grows to the verdict's height, up to
  // MAX_HEIGHT, rather than leave a blank area under its key; stacked or narrow, it keeps its own.
  const MAX_HEIGHT = 560;
  const verdict = $('verdict');
  function chartHeight(width) {
    const own = width < 560 ? 230 : 290;
    if (!verdict) return own;
    const chartBox = $('loss-chart').getBoundingClientRect();
    const verdictBox = verdict.getBoundingClientRect();
    if (Math.abs(verdictBox.top - chartBox.top) > 1 || verdictBox.left < chartBox.right) return own;
    keyHeight = lossKey.getBoundingClientRect().height;
    return Math.round(Math.min(MAX_HEIGHT, Math.max(own, verdictBox.height - keyHeight - 16)));
  }
  let keyHeight = -1; // the key's height the last height was computed with (-1: none)
  let chartFrame = 0; // the redraw requested for the next frame

  function drawLossChart() {
    if (!mx.result || !mx.config) {
      // Nothing computed for the model shown yet (the first run, or a switch of model, whose
      // download and run take seconds): no chart rather than the previous model's, and its key
      // says what comes.
      lossCanvas.hidden = true;
      lossKey.textContent =
        'The loss by position appears here once the model has run over the code.';
      return;
    }
    lossCanvas.hidden = false;
    const { a } = mx.result;
    const width = Math.max(240, Math.floor($('loss-chart').clientWidth));
    const height = chartHeight(width);
    const ctx = fitCanvas(lossCanvas, width, height);
    ctx.clearRect(0, 0, width, height);
    const css = getComputedStyle(document.documentElement);
    const ink = css.getPropertyValue('--ink').trim() || '#222';
    const colour = { a: css.getPropertyValue('--a').trim(), b: css.getPropertyValue('--b').trim() };
    const n = a.n;
    const u = a.unit; // 'byte' or 'token': what the model reads, and what the chart counts
    const smooth = mx.state.smooth;
    const farOnly = mx.state.bytes === 'far';
    // Runs of `smooth` bytes, each drawn at its middle byte (losses[t] is the loss of byte t + 1);
    // or, far-recall bytes only, one dot per far-recall name at its mean loss.
    const curves = {};
    let yMax = 4;
    for (const side of ['a', 'b']) {
      if (farOnly) {
        curves[side] = farRecallPoints(mx.result[side].losses, a.recall);
      } else {
        const c = lossCurve(mx.result[side].losses, smooth);
        const x = new Float32Array(c.x.length);
        for (let p = 0; p < c.x.length; p++)
          x[p] = c.x[p] + (Math.min(smooth, mx.result[side].losses.length - p * smooth) - 1) / 2;
        curves[side] = { x, y: c.y };
      }
      for (const y of curves[side].y) yMax = Math.max(yMax, y);
    }
    // Up to 6 round y ticks (whole bits for the usual range), the top one at or above every point.
    const { ticks, step } = niceTicks(0, yMax, 6);
    const yTop = ticks.at(-1) < yMax ? ticks.at(-1) + step : ticks.at(-1);
    const box = { left: 50, top: 10, width: width - 50 - 14, height: height - 10 - 44 };
    const y = { lo: 0, hi: yTop, title: `bits per ${u}`, ticks: niceTicks(0, yTop, 6).ticks };
    const axes = drawAxes(ctx, {
      box,
      x: { lo: 0, hi: n, title: `${u} position` },
      y,
      ink,
      grid: true,
    });
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.left, box.top, box.width, box.height);
    ctx.clip();
    const L = mx.config.trainingContext;
    if (L < n) {
      ctx.strokeStyle = ink;
      ctx.fillStyle = ink;
      ctx.lineWidth = 1;
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(Math.round(axes.x(L)) + 0.5, box.top);
      ctx.lineTo(Math.round(axes.x(L)) + 0.5, box.top + box.height);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.font = '11px system-ui, sans-serif';
      const label = `training length ${L}`;
      const w = ctx.measureText(label).width;
      const right = axes.x(L) + 4 + w <= box.left + box.width - 2;
      ctx.textAlign = right ? 'left' : 'right';
      ctx.textBaseline = 'top';
      ctx.fillText(label, axes.x(L) + (right ? 4 : -4), box.top + 4);
    }
    ctx.lineWidth = smooth === 1 ? 1 : 1.75;
    ctx.lineJoin = 'round';
    for (const side of ['a', 'b']) {
      const { x, y } = curves[side];
      ctx.strokeStyle = colour[side];
      ctx.fillStyle = colour[side];
      ctx.beginPath();
      if (farOnly) {
        // A: filled dots; B: rings, so that equal values stay visible.
        for (let p = 0; p < x.length; p++) {
          ctx.moveTo(axes.x(x[p]) + 3.5, axes.y(y[p]));
          ctx.arc(axes.x(x[p]), axes.y(y[p]), 3.5, 0, 2 * Math.PI);
        }
        if (side === 'a') ctx.fill();
        else ctx.stroke();
      } else {
        for (let p = 0; p < x.length; p++)
          (p ? ctx.lineTo : ctx.moveTo).call(ctx, axes.x(x[p]), axes.y(y[p]));
        ctx.stroke();
      }
    }
    ctx.restore();
    const far = farRecallBytes(a.recall);
    const summary = ['a', 'b'].map((side) => {
      const r = mx.result[side];
      const head = `${side.toUpperCase()} ${describeModelSide(r.side, r.unit)}: `;
      if (farOnly)
        return (
          head +
          (far
            ? `${meanOver(r.losses, a.recall).toFixed(2)} bits/${u} on far-recall ${u}s`
            : `no far-recall ${u}s`)
        );
      return (
        head +
        `${meanLoss(r, 0, L - 1).toFixed(2)} bits/${u} within ${L}, ${n > L ? meanLoss(r, L - 1, n).toFixed(2) : '—'} beyond`
      );
    });
    const what = farOnly
      ? `far-recall ${u}s only: ${plural(far, u)} in ${plural(curves.a.x.length, 'name')}`
      : smooth === 1
        ? `every ${u}`
        : `runs of ${smooth} ${u}s`;
    lossCanvas.setAttribute('aria-label', `Loss by position (${what}). ${summary.join('; ')}.`);
    lossKey.replaceChildren();
    for (const [i, side] of ['a', 'b'].entries()) {
      lossKey.append(
        el('span', { class: `swatch swatch-${side}` }),
        ` ${summary[i]}`,
        i === 0 ? el('br') : '',
      );
    }
    if (farOnly) {
      lossKey.append(
        el('br'),
        far
          ? `${plural(far, `far-recall ${u}`)} in ${plural(curves.a.x.length, 'name')}: each dot is one name used again more than ${L} ${u}s after its previous use. Only on such ${u}s can context past the training length help; a truncated model cannot see the earlier use.`
          : `This code has no far-recall ${u}s: no name is used again more than ${L} ${u}s after its previous use.`,
      );
    }
    // The key is written after the chart is sized: once more if its new text changed its height
    // (the far-recall note), so that chart and key end with the verdict. Stable on the next draw.
    if (keyHeight >= 0 && Math.abs(lossKey.getBoundingClientRect().height - keyHeight) > 1) {
      keyHeight = -1;
      cancelAnimationFrame(chartFrame);
      chartFrame = requestAnimationFrame(drawLossChart);
    } else keyHeight = -1;
  }

  const FAR = RECALL_CLASSES.indexOf('far');
  const farRecallBytes = (recall) => recall.reduce((c, x) => c + (x === FAR), 0);
  // Mean loss over the far-recall bytes (losses[t - 1] is the loss of byte t).
  function meanOver(losses, recall) {
    let sum = 0;
    let count = 0;
    for (let t = 1; t <= losses.length; t++) {
      if (recall[t] !== FAR) continue;
      sum += losses[t - 1];
      count++;
    }
    return count ? sum / count : NaN;
  }
  // One point per run of far-recall bytes (a name): { x (its middle byte), y (its mean loss) }.
  function farRecallPoints(losses, recall) {
    const xs = [];
    const ys = [];
    for (let t = 1; t <= losses.length; t++) {
      if (recall[t] !== FAR) continue;
      let end = t;
      let sum = 0;
      while (end <= losses.length && recall[end] === FAR) sum += losses[end++ - 1];
      xs.push((t + end - 1) / 2);
      ys.push(sum / (end - t));
      t = end;
    }
    return { x: Float32Array.from(xs), y: Float32Array.from(ys) };
  }

  // Redrawn at its new width when the page's layout changes (once per frame at most).
  let chartSize = '';
  const resized = new ResizeObserver(() => {
    // Its own width, and the verdict's height beside it (the panel fills in once its files load).
    const size = `${Math.floor($('loss-chart').clientWidth)} ${Math.round(verdict?.offsetHeight ?? 0)}`;
    if (size === chartSize) return;
    chartSize = size;
    cancelAnimationFrame(chartFrame);
    chartFrame = requestAnimationFrame(drawLossChart);
  });
  resized.observe($('loss-chart'));
  if (verdict) resized.observe(verdict);
  // Drawn in the page's colours: a change of colour scheme draws it again.
  dark.addEventListener('change', () => {
    cancelAnimationFrame(chartFrame);
    chartFrame = requestAnimationFrame(drawLossChart);
  });
  return { drawLossChart };
}
