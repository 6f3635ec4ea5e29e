// The A vs B heatmap, made on the page's thread (and the element's) from the two workers' pooled
// raw means, so that a theme change recolours it without asking the workers. Pure (no DOM).
import { packLut, ratioIndexOf, tableLogRatios, divergingLut, maskUpper } from 'hirope/colormap';

/** A cell counts as visibly coloured when B attends at least this factor more or less than A. */
export const VISIBLE_RATIO = 1.25;

/**
 * The A vs B heatmap from the two sides' pooled raw means: log2(pB / pA) per cell on the theme's
 * diverging ramp (see hirope/colormap), and the share of lower-triangle cells whose ratio is at least
 * VISIBLE_RATIO (the cells a reader sees coloured).
 */
export function diffImage(rawA, rawB, rows, cols, region, theme = 'light') {
  const rgba = new Uint8ClampedArray(rawA.length * 4);
  const words = new Uint32Array(rgba.buffer);
  const lut = packedDiverging(theme);
  const f32 = (x) => (x instanceof Float32Array ? x : Float32Array.from(x));
  const ratios = tableLogRatios(f32(rawA), f32(rawB), new Float32Array(rawA.length));
  for (let c = 0; c < rawA.length; c++) words[c] = lut[ratioIndexOf(ratios[c])];
  maskUpper(rgba, rows, cols, region);
  const visibleAt = Math.log2(VISIBLE_RATIO);
  let shown = 0;
  let cells = 0;
  for (let c = 0; c < rawA.length; c++) {
    if (words[c] === 0) continue; // masked
    cells++;
    if (Math.abs(ratios[c]) >= visibleAt) shown++;
  }
  return { rgba, visibleShare: cells ? shown / cells : 0 };
}

const packedRamps = {};
function packedDiverging(theme) {
  packedRamps[theme] ??= packLut(divergingLut(theme));
  return packedRamps[theme];
}
