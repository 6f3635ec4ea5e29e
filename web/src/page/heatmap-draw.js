// A heatmap's drawing, apart from its interactions: the unit colours (shared with the editor's
// unit classes through CSS custom properties), the pooled image with unit strips on both axes and
// the selected row (also <hirope-attention>'s), and where the guides' labels go.

/**
 * Unit colours (RGB), shared with the editor's unit classes through CSS custom properties. None is
 * orange or blue: those mean scheme A and scheme B everywhere on the page.
 */
export const UNIT_PALETTE = [
  [0, 158, 115],
  [204, 121, 167],
  [150, 150, 60],
  [140, 110, 200],
  [128, 128, 128],
  [60, 160, 160],
];

/** The line height of the guides' labels (17 px text). */
export const GUIDE_LINE = 20;
/** Space between a guide's label and its line, and between two labels. */
const LABEL_GAP = 6;

/**
 * Where the guides' labels go: each sits left of its line's lower end ({ label, end: that end's
 * x, y: the text's baseline }); labels whose boxes would meet (lines that end close together, as
 * W and L do on a long file, which printed "L 25664") are merged into one, "L 256, W 64", in the
 * order of their lines from left to right, left of the leftmost line. measure(text) is the text's
 * width; left the smallest x. Returns [{ label, x, y }]. Pure, for tests.
 */
export function placeLabels(labels, measure, left = -Infinity, lineHeight = GUIDE_LINE) {
  const sorted = [...labels].sort((a, b) => a.end - b.end);
  const groups = [];
  for (const l of sorted) {
    const g = groups[groups.length - 1];
    const own = l.end - measure(l.label) - LABEL_GAP; // its box's left edge when alone
    if (g && Math.abs(g.y - l.y) < lineHeight && own < g.end) {
      g.items.push(l.label);
      g.y = Math.min(g.y, l.y);
    } else groups.push({ items: [l.label], end: l.end, y: l.y });
  }
  return groups.map((g) => {
    const label = g.items.join(', ');
    return { label, x: Math.max(left, g.end - measure(label) - LABEL_GAP), y: g.y };
  });
}

export function installUnitColours(root = document.documentElement) {
  UNIT_PALETTE.forEach(([r, g, b], i) => {
    root.style.setProperty(`--hr-u${i}`, `${r} ${g} ${b}`);
  });
}

/**
 * Draws a pooled image into [margin, margin + plot) on both axes, with unit bands along the top
 * and left margins (a dark tick where a unit starts) and the selected row marked.
 */
export function drawHeatmap(
  ctx,
  image,
  region,
  units,
  { margin, plot, selected = -1, strip = margin - 3, stripAt = 0 },
) {
  const off = new OffscreenCanvas(image.cols, image.rows);
  off.getContext('2d').putImageData(new ImageData(image.rgba, image.cols, image.rows), 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(off, margin, margin, plot, plot);
  // The unit strips: one pixel per plot pixel, built as image rows and stretched to the margin.
  const axis = (from, to, horizontal) => {
    const span = to - from;
    const pixels = new Uint8ClampedArray(plot * 4);
    let previous = -1;
    for (let p = 0; p < plot; p++) {
      const u = units[from + Math.floor((p * span) / plot)];
      const colour =
        previous >= 0 && u !== previous ? [17, 17, 17] : UNIT_PALETTE[u % UNIT_PALETTE.length];
      pixels.set(colour, 4 * p);
      pixels[4 * p + 3] = 255;
      previous = u;
    }
    const line = new OffscreenCanvas(horizontal ? plot : 1, horizontal ? 1 : plot);
    line
      .getContext('2d')
      .putImageData(new ImageData(pixels, horizontal ? plot : 1, horizontal ? 1 : plot), 0, 0);
    if (horizontal) ctx.drawImage(line, margin, stripAt, plot, strip);
    else ctx.drawImage(line, stripAt, margin, strip, plot);
  };
  axis(region.c0, region.c1, true);
  axis(region.r0, region.r1, false);
  if (selected >= region.r0 && selected < region.r1) {
    const y = margin + ((selected - region.r0 + 0.5) * plot) / (region.r1 - region.r0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(stripAt, y - 2, strip, 4);
    ctx.fillStyle = '#000';
    ctx.fillRect(stripAt, y - 1, strip, 2);
  }
}
