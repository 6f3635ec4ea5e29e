// Model mode's two heatmaps (the model's real attention for a layer and head under A and B): zoom,
// the query row that shades the code, and PNG and CSV export.
import { Heatmap } from '../heatmap.js';
import { $, dark } from '../shell.js';
import { heatLevel } from '../editor.js';
import { download } from '../dom.js';
import { modelCSV } from '../export.js';
import { describeModelSide } from '../../shared/model-state.js';
import { modelMapHint } from '../../shared/model-wording.js';
import { unitOf } from './model-mode.js';
import { LUTS, cssGradient, DECADES } from 'hirope/colormap';

/** The maps in #maps, drawn from mx.result. */
export function createModelMaps(mx) {
  // ----- heatmaps
  const heatmaps = {};
  for (const side of ['a', 'b']) {
    heatmaps[side] = new Heatmap($('maps'), {
      id: `map-${side}`,
      title: side.toUpperCase(),
      onRow: (index) => selectRow(side, index),
      onZoom: (region) => setZoom(region),
      onExport: (kind) => exportMap(side, kind),
    });
  }
  $('reset-zoom').addEventListener('click', () => setZoom(null));
  // The maps take the page's colours when drawn (the labels' ink): a change of colour scheme
  // draws them again.
  dark.addEventListener('change', () => {
    for (const heatmap of Object.values(heatmaps)) heatmap.render();
  });
  // The hint over the maps names what a pointer does: click with a mouse, tap on a touch screen.
  const touchScreen = matchMedia('(hover: none)');
  function syncMapHint() {
    $('maps-how').textContent = modelMapHint({
      touch: touchScreen.matches,
      unit: unitOf(mx.state),
    });
  }
  syncMapHint();
  touchScreen.addEventListener('change', syncMapHint);

  function drawMaps() {
    for (const side of ['a', 'b']) {
      const r = mx.result[side];
      const img = r.image;
      heatmaps[side].setTitle(
        side.toUpperCase(),
        `${describeModelSide(r.side, r.unit)} · layer ${r.layer}, head ${r.head}`,
      );
      // A token model's maps label their axes with the tokens' text when zoomed in far enough.
      const labels = r.unit === 'token' && mx.chars?.tokens ? mx.chars.label : null;
      heatmaps[side].draw(
        { rgba: img.rgba, rows: img.rows, cols: img.cols },
        img.region,
        r.units,
        r.attentionBytes,
        labels,
      );
      heatmaps[side].setLegend(
        cssGradient(LUTS.magma),
        `10⁻${DECADES}× row max`,
        'row max',
        img.rows < img.region.r1 - img.region.r0
          ? `Downsampled: each cell is the mean over the ${r.unit}s it covers.`
          : '',
      );
    }
    const r = mx.result.a.image.region;
    $('zoom-info').textContent = mx.zoom
      ? `Zoomed: queries ${r.r0}–${r.r1 - 1}, keys ${r.c0}–${r.c1 - 1}`
      : '';
    $('reset-zoom').disabled = !mx.zoom;
  }

  async function setZoom(region) {
    mx.zoom = region;
    if (!mx.result) return;
    try {
      const [a, b] = await Promise.all(
        ['a', 'b'].map((s) => mx.client.side(s).request('images', { view: { size: 512, region } })),
      );
      // The images belong to the results now (a side that a later run does not recompute keeps them).
      mx.result.a.image = a;
      mx.result.b.image = b;
      drawMaps();
    } catch (e) {
      mx.showError(e);
    }
  }

  // No query row selected: the maps unmarked and the line under the code empty (its words
  // belong to the result, model and scheme that the row was picked under).
  function clearRow() {
    mx.selected = null;
    for (const h of Object.values(heatmaps)) if (h.selected >= 0) h.select(-1);
    $('query-info').textContent = '';
  }

  async function selectRow(side, index) {
    if (!mx.result || !mx.chars || index < 0 || index >= mx.result[side].attentionBytes) return;
    const selected = { side, index };
    mx.selected = selected;
    for (const h of Object.values(heatmaps)) h.select(index);
    try {
      const row = await mx.client.side(side).request('row', { index });
      if (mx.selected !== selected) return; // a newer row, or none, since
      const levels = new Uint8Array(mx.chars.count);
      for (let j = 0; j <= index; j++) {
        const c = mx.chars.byteChar[j];
        levels[c] = Math.max(levels[c], heatLevel(row.max > 0 ? row.probs[j] / row.max : 0));
      }
      mx.editor.setHeat({ levels, query: mx.chars.byteChar[index] });
      const text = (j) =>
        JSON.stringify(
          mx.editor.text.slice(
            mx.chars.start[mx.chars.byteChar[j]],
            mx.chars.end[mx.chars.byteChar[j]],
          ),
        );
      const top = Array.from(row.probs.keys())
        .sort((x, y) => row.probs[y] - row.probs[x])
        .slice(0, 3)
        .map((j) => `${text(j)}@${j} ${(100 * row.probs[j]).toFixed(1)}%`)
        .join(', ');
      $('query-info').textContent =
        `${mx.result[side].unit === 'token' ? 'Token' : 'Byte'} ${index} ${text(index)} under ${side.toUpperCase()}, layer ${mx.result[side].layer}, head ${mx.result[side].head} — top keys: ${top}. Change the code or a scheme to shade by loss again.`;
    } catch (e) {
      mx.showError(e);
    }
  }

  async function exportMap(side, kind) {
    if (kind === 'png') {
      const blob = await new Promise((resolve) =>
        heatmaps[side].canvas.toBlob(resolve, 'image/png'),
      );
      return download(blob, `hirope-model-${side}.png`);
    }
    try {
      const csv = modelCSV(await mx.client.side(side).request('values', { region: mx.zoom }));
      download(new Blob([csv], { type: 'text/csv' }), `hirope-model-${side}.csv`);
    } catch (e) {
      mx.showError(e);
    }
  }

  return { heatmaps, drawMaps, setZoom, selectRow, clearRow, syncMapHint };
}
