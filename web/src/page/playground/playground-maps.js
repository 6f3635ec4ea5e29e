// The attention playground's three heatmaps (A, B, A vs B): their images, unit strips, guides,
// legends and zoom, the row a person selects, and the token texts their axes and cards show.
import { Heatmap } from '../heatmap.js';
import { $, dark, theme } from '../shell.js';
import { heatLevel } from '../editor.js';
import { exportHandler } from '../export.js';
import { diffImage, VISIBLE_RATIO } from '../../shared/diff-image.js';
import { LUTS, cssGradient, DECADES, RATIO_LIMIT, divergingLut } from 'hirope/colormap';
import { WINDOWED } from '../../shared/schemes.js';
import { modelSource } from '../../shared/model-gallery.js';
import { mapHint, powerOfTen, formatProbability, unitPhrase } from '../../shared/wording.js';

/** The maps in #maps, fed from pg.result; hover and export go to their own modules. */
export function createMaps(pg) {
  // ----- token texts and units
  function tokenText(j) {
    const a = pg.result?.analysis;
    return a ? pg.editor.text.slice(a.start[j], a.end[j]) : '';
  }
  function unitName(u) {
    const unit = pg.result?.analysis.units[u];
    return unit ? `${unit.index}: ${unitPhrase(unit)}` : String(u);
  }
  /** Short label of a token for the axes: its text with whitespace made visible. */
  const shortLabel = (j) =>
    tokenText(j).replace(/\n/g, '⏎').replace(/\t/g, '⇥').replace(/ /g, '·') || '∅';

  // ----- heatmaps
  const maps = $('maps');
  const heatmaps = {};
  for (const [which, title] of [
    ['a', 'A'],
    ['b', 'B'],
    ['diff', 'A vs B'],
  ]) {
    heatmaps[which] = new Heatmap(maps, {
      id: `map-${which}`,
      title,
      onRow: (index) => selectRow(which === 'a' ? 'a' : 'b', index),
      onZoom: (region) => setZoom(region),
      onExport: exportHandler(pg, which),
      onHover: (cell, event) => pg.hover(cell, event),
    });
  }
  $('reset-zoom').addEventListener('click', () => setZoom(null));
  // The hint over the maps names what a pointer can do: hover with a mouse, tap on a touch screen.
  const touchScreen = matchMedia('(hover: none)');
  const syncMapHint = () =>
    (document.querySelector('.section-head .how').textContent = mapHint(touchScreen.matches));
  syncMapHint();
  touchScreen.addEventListener('change', syncMapHint);

  function combineImages(a, b) {
    const diff = diffImage(a.raw, b.raw, a.rows, a.cols, a.region, theme());
    // A side whose image did not change keeps its canvas (Heatmap.draw skips identical images).
    return {
      region: a.region,
      rows: a.rows,
      cols: a.cols,
      a: a.rgba,
      b: b.rgba,
      diff: diff.rgba,
      visibleShare: diff.visibleShare,
      raw: { a: a.raw, b: b.raw },
    };
  }

  async function setZoom(region) {
    pg.zoom = region;
    if (!pg.result?.n) return;
    try {
      const [a, b] = await pg.client.both('images', { view: { size: 512, region } });
      pg.result.images = combineImages(a, b);
      drawHeatmaps(pg.result.images);
    } catch (e) {
      pg.showError(e);
    }
  }

  // The unit strips along a map's axes: the side's own units (fixed segments for a HiRoPE side on
  // segments; the parse tree's units otherwise, and on the A vs B map).
  const segmentStrips = new Map();
  function stripUnits(which) {
    const side = pg.result.snapshot?.[which];
    if (side?.type !== 'hirope' || side.units !== 'segments') return pg.result.analysis.unit;
    const key = `${pg.result.analysis.count}|${side.segment}`;
    if (!segmentStrips.has(key)) {
      if (segmentStrips.size >= 4) segmentStrips.clear(); // A and B may each have their own size
      segmentStrips.set(
        key,
        Int32Array.from({ length: pg.result.analysis.count }, (_, t) =>
          Math.floor(t / side.segment),
        ),
      );
    }
    return segmentStrips.get(key);
  }

  // Dashed diagonals at the windows (W) and the training length (L): where the far rules start and
  // where plain RoPE leaves what it saw in training.
  function guidesFor(which) {
    const snap = pg.result.snapshot;
    if (!snap) return [];
    const list = [];
    // The guides are drawn in tokens: under a position stride a length of W positions is
    // ⌈W / stride⌉ tokens. A real model's sliding layer draws its window (the worker's mask, in
    // positions, as hr.attention applies it).
    const stride = snap.stride ?? 1;
    const add = (distance, label) => {
      if (!list.some((g) => g.distance === distance)) list.push({ distance, label });
    };
    for (const side of which === 'diff' ? ['a', 'b'] : [which]) {
      const mask = pg.result.masks?.[side];
      if (mask?.type === 'sliding') add(Math.ceil(mask.window / stride), `W ${mask.window}`);
      if (
        WINDOWED.has(snap[side].type) &&
        (!modelSource(snap[side]) || snap[side].type === 'hirope')
      )
        add(Math.ceil(snap[side].window / stride), `W ${snap[side].window}`);
    }
    // Each side's own training length (a real model's trained length): one line per length.
    for (const side of which === 'diff' ? ['a', 'b'] : [which]) {
      const length = pg.result.facts?.[side]?.train ?? snap.train;
      const train = Math.ceil(length / stride);
      const label = `L ${length}`;
      if (train < pg.result.n && !list.some((g) => g.label === label))
        list.push({ distance: train, label });
    }
    return list;
  }

  function drawHeatmaps(images) {
    for (const which of ['a', 'b', 'diff']) heatmaps[which].setGuides(guidesFor(which));
    for (const which of ['a', 'b', 'diff'])
      heatmaps[which].draw(
        { rgba: images[which], rows: images.rows, cols: images.cols },
        images.region,
        stripUnits(which),
        pg.result.n,
        shortLabel,
      );
    const { r0, r1, c0, c1 } = images.region;
    const pooled = r1 - r0 > images.rows || c1 - c0 > images.cols;
    $('zoom-info').textContent = pg.zoom
      ? `Zoomed: queries ${r0}–${r1 - 1}, keys ${c0}–${c1 - 1}`
      : '';
    $('reset-zoom').hidden = !pg.zoom;
    const note = pooled ? 'Downsampled: each cell is the mean over the tokens it covers.' : '';
    for (const side of ['a', 'b'])
      heatmaps[side].setLegend(
        cssGradient(LUTS.magma),
        `${powerOfTen(-DECADES)}× row max`,
        'row max',
        `Brighter: more attention, relative to the row's largest. ${note}`,
      );
    const times = 2 ** RATIO_LIMIT;
    heatmaps.diff.setLegend(
      cssGradient(divergingLut(theme())),
      `A ${times}× more`,
      `B ${times}× more`,
      `Blue: B attends more to that key than A; orange: A does (log₂ p_B / p_A). ${(100 * images.visibleShare).toFixed(0)}% of cells differ by ${VISIBLE_RATIO}× or more. ${note}`,
    );
    maps.dataset.visibleShare = String(images.visibleShare);
  }
  // The maps take the page's colours when drawn (the A vs B ramp, the labels' and the empty
  // map's ink): a change of colour scheme draws them again.
  dark.addEventListener('change', () => {
    const images = pg.result?.images;
    if (images) {
      images.diff = diffImage(
        images.raw.a,
        images.raw.b,
        images.rows,
        images.cols,
        images.region,
        theme(),
      ).rgba;
      drawHeatmaps(images);
    }
    for (const heatmap of Object.values(heatmaps)) heatmap.render();
  });

  async function selectRow(side, index) {
    if (!pg.result?.n || index < 0 || index >= pg.result.n) return;
    pg.selected = { side, index };
    for (const h of Object.values(heatmaps)) h.select(index);
    pg.renderSummary();
    try {
      const [rowA, rowB] = await pg.client.both('row', { index });
      const row = side === 'a' ? rowA : rowB;
      const levels = new Uint8Array(pg.result.n);
      for (let j = 0; j <= index; j++)
        levels[j] = heatLevel(row.max > 0 ? row.probs[j] / row.max : 0);
      pg.editor.setHeat({ levels, query: index });
      const text = (j) => JSON.stringify(tokenText(j));
      const top = (r) =>
        Array.from(r.probs.keys())
          .sort((x, y) => r.probs[y] - r.probs[x])
          .slice(0, 3)
          .map((j) => `${text(j)}@${j} ${formatProbability(r.probs[j])}`)
          .join(', ');
      $('query-info').textContent =
        `Query ${index} ${text(index)}, shaded in the code by ${side.toUpperCase()} — top keys A: ${top(rowA)}; B: ${top(rowB)}.`;
    } catch (e) {
      pg.showError(e);
    }
  }

  return {
    heatmaps,
    tokenText,
    unitName,
    shortLabel,
    combineImages,
    setZoom,
    drawHeatmaps,
    selectRow,
  };
}
