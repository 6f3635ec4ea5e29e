// Exporting a heatmap: PNG with its title, settings and legend; CSV of the visible region's numbers
// (masked cells empty), for the attention playground's three maps and Model mode's two.
import { download } from './dom.js';
import { theme } from './shell.js';
import { describeScheme } from '../shared/playground-state.js';
import { logRatio } from 'hirope/colormap';
import { LANGUAGE_NAMES } from '../shared/samples.js';
import { plural } from '../shared/wording.js';

/** A PNG of a heatmap (page/heatmap.js) with its title, settings and legend drawn around it. */
export async function heatmapPNG(map, { title, subtitle, theme = 'light' }) {
  const pad = 16;
  const width = map.canvas.width + 2 * pad;
  const height = map.canvas.height + 2 * pad + 86;
  const out = new OffscreenCanvas(width, height);
  const ctx = out.getContext('2d');
  const dark = theme === 'dark';
  ctx.fillStyle = dark ? '#1d2026' : '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const ink = dark ? '#e6e8ec' : '#1d1f24';
  const muted = dark ? '#a0a7b4' : '#5d6470';
  ctx.fillStyle = ink;
  ctx.font = '600 15px system-ui, sans-serif';
  ctx.fillText(title, pad, pad + 12);
  ctx.fillStyle = muted;
  ctx.font = '12px system-ui, sans-serif';
  ctx.fillText(subtitle, pad, pad + 30, width - 2 * pad);
  ctx.drawImage(map.canvas, pad, pad + 40);
  ctx.drawImage(map.overlay, pad, pad + 40);
  const y = pad + 48 + map.canvas.height;
  const l = map.legendSpec;
  if (l) {
    // The legend's gradient drawn from its CSS stops.
    const stops = [...l.gradient.matchAll(/rgb\(([^)]*)\) ([\d.]+)%/g)];
    const g = ctx.createLinearGradient(pad + 70, 0, pad + 250, 0);
    for (const [, rgb, at] of stops) g.addColorStop(Number(at) / 100, `rgb(${rgb})`);
    ctx.fillStyle = muted;
    ctx.textAlign = 'right';
    ctx.fillText(l.left, pad + 64, y + 10);
    ctx.textAlign = 'left';
    ctx.fillText(l.right, pad + 256, y + 10);
    ctx.fillStyle = g;
    ctx.fillRect(pad + 70, y + 2, 180, 10);
    ctx.fillStyle = muted;
    if (l.note) ctx.fillText(l.note, pad, y + 30, width - 2 * pad);
  }
  ctx.fillText('hirope playground', pad, height - 8);
  return out.convertToBlob({ type: 'image/png' });
}

/** A number in a CSV cell: empty where masked (NaN, a key after its query). */
const csvNumber = (v) => (Number.isNaN(v) ? '' : String(v));

export function exportHandler(pg, which) {
  return async (kind) => {
    const name = `hirope-${which}`;
    try {
      if (kind === 'png') {
        const facts = pg.result.facts ?? {};
        const a = describeScheme(pg.state.a, facts.a);
        const b = describeScheme(pg.state.b, facts.b);
        const names = { a: `A: ${a}`, b: `B: ${b}`, diff: `log2(pB / pA): B = ${b} vs A = ${a}` };
        const r = pg.heatmaps[which].region;
        // Each side's own head dim and training length (a real model's), both where they differ.
        const fact = (key, fallback) => {
          const [x, y] = [facts.a?.[key] ?? fallback, facts.b?.[key] ?? fallback];
          if (which !== 'diff') return String(which === 'a' ? x : y);
          return x === y ? String(x) : `${x} (A), ${y} (B)`;
        };
        const subtitle = `${LANGUAGE_NAMES[pg.state.language]}, ${plural(pg.result.n, 'token')} (${pg.tokenizersBox.label(pg.state.tokenizer)}), head dim ${fact('headDim', pg.result.headDim)}, training length ${fact('train', pg.state.train)}, q/k ${pg.sourceLabel(pg.state.source)}; queries ${r.r0}–${r.r1 - 1}, keys ${r.c0}–${r.c1 - 1}`;
        download(
          await heatmapPNG(pg.heatmaps[which], { title: names[which], subtitle, theme: theme() }),
          `${name}.png`,
        );
      } else {
        download(new Blob([await csvOf(pg, which)], { type: 'text/csv' }), `${name}.csv`);
      }
    } catch (e) {
      pg.showError(e);
    }
  };
}

const csvCell = (text) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The numbers of one heatmap over the visible region as CSV: two header rows (key index, key
 * token text), then per query its index, its text and the values (empty where masked). The
 * A vs B map exports log2(pB / pA) with the floor the map uses.
 */
async function csvOf(pg, which) {
  const [a, b] = await Promise.all(
    ['a', 'b']
      .filter((s) => which === 'diff' || which === s)
      .map((s) => pg.client.side(s).request('values', { region: pg.zoom })),
  );
  const { r0, r1, c0, c1 } = a.region;
  const width = c1 - c0;
  const keys = Array.from({ length: width }, (_, j) => c0 + j);
  const lines = [
    ['query', 'query token', ...keys].join(','),
    ['', '', ...keys.map((j) => csvCell(pg.tokenText(j)))].join(','),
  ];
  for (let i = r0; i < r1; i++) {
    const cells = [i, csvCell(pg.tokenText(i))];
    for (let j = 0; j < width; j++) {
      const c = (i - r0) * width + j;
      const v = b ? logRatio(a.values[c], b.values[c]) : a.values[c];
      cells.push(csvNumber(v));
    }
    lines.push(cells.join(','));
  }
  return lines.join('\n') + '\n';
}

/**
 * Model mode's CSV of one map's visible region: a header row of key indices, then per query its
 * index and its values (empty where masked).
 */
export function modelCSV({ region, values }) {
  const width = region.c1 - region.c0;
  const lines = [
    ['query\\key', ...Array.from({ length: width }, (_, j) => region.c0 + j)].join(','),
  ];
  for (let i = region.r0; i < region.r1; i++)
    lines.push(
      [
        i,
        ...Array.from(
          values.subarray((i - region.r0) * width, (i - region.r0 + 1) * width),
          csvNumber,
        ),
      ].join(','),
    );
  return lines.join('\n') + '\n';
}
