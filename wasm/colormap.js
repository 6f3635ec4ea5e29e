// The heatmaps' colour maps, shared by the playground page (web/src/shared/colormap.js re-exports this
// module), its workers and embeddable element, the command line's --png (lib/png.mjs, from the
// package's dist/colormap.js) and the tests (which recompute expected pixels from API values with
// these same functions). Pure JS, no DOM.

// Magma-like sequential ramp: 5 stops, linear in between. Index 0 is the darkest colour.
const MAGMA = [
  [0, 0, 4],
  [81, 18, 124],
  [183, 55, 121],
  [252, 137, 97],
  [252, 253, 191],
];
// Diverging ramps for A vs B: A's orange where A attends more, B's blue where B attends more, a
// neutral middle that matches the theme (a white middle reads as an empty triangle in dark mode).
const DIVERGING = [
  [166, 84, 0],
  [236, 170, 80],
  [246, 246, 244],
  [110, 170, 220],
  [0, 78, 140],
];
const DIVERGING_DARK = [
  [255, 170, 60],
  [150, 96, 30],
  [34, 37, 43],
  [40, 100, 150],
  [110, 190, 255],
];
// Sequential ramp for distances: dark blue to yellow (viridis-like).
const VIRIDIS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

function ramp(stops, t) {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}
function table(stops) {
  const lut = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) lut.set(ramp(stops, i / 255), 3 * i);
  return lut;
}
export const LUTS = {
  magma: table(MAGMA),
  diverging: table(DIVERGING),
  divergingDark: table(DIVERGING_DARK),
  viridis: table(VIRIDIS),
};

/** The A vs B ramp for a theme ('light' or 'dark'). */
export const divergingLut = (theme) => (theme === 'dark' ? LUTS.divergingDark : LUTS.diverging);

/** Colour for masked cells (NaN distances, cells above the causal diagonal in distance views). */
export const MASKED = [128, 128, 128];

/** Decades of probability shown below each row's maximum. */
export const DECADES = 4;

// Probability ratio -> LUT index, on a log scale over DECADES decades. Math.log10 costs ~40 ns in
// V8, too slow for a million cells per redraw, so the index is looked up by the float's top 17 bits
// (sign, exponent, 8 mantissa bits): each bucket spans a factor of 1.004, and gets the index of
// its geometric midpoint.
const KEY_SHIFT = 15;
let probTable = null; // built on first use: the page itself never colours probabilities, its workers do
function buildProbTable() {
  const table = new Uint8Array(1 << (32 - KEY_SHIFT));
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let key = 0; key < table.length; key++) {
    u[0] = (key << KEY_SHIFT) | (1 << (KEY_SHIFT - 1)); // the bucket's middle
    const r = f[0];
    if (!(r > 0) || !Number.isFinite(r)) continue; // zero, negative, NaN: index 0
    const t = 1 + Math.log10(r) / DECADES;
    table[key] = t <= 0 ? 0 : Math.round(Math.min(1, t) * 255);
  }
  // Ratios of 1 or more, up to +Infinity, map to the top index (NaNs above it stay at 0).
  for (let key = 0x3f800000 >>> KEY_SHIFT; key <= 0x7f800000 >>> KEY_SHIFT; key++) table[key] = 255;
  return table;
}
const scratchF = new Float32Array(1);
const scratchU = new Uint32Array(scratchF.buffer);

/** Probability relative to its row's maximum -> LUT index (0 .. 255). */
export function probIndex(ratio) {
  probTable ??= buildProbTable();
  scratchF[0] = ratio;
  return probTable[scratchU[0] >>> KEY_SHIFT];
}

/** probIndex over a whole array, writing packed RGBA (little-endian) pixels from a LUT. */
export function probPixels(ratios, lut, out32) {
  probTable ??= buildProbTable();
  const table = probTable;
  const packed = packLut(lut);
  const bits = new Uint32Array(ratios.buffer, ratios.byteOffset, ratios.length);
  for (let c = 0; c < ratios.length; c++) out32[c] = packed[table[bits[c] >>> KEY_SHIFT]];
  return out32;
}

/** A LUT as 256 packed RGBA words (opaque). */
export function packLut(lut) {
  const packed = new Uint32Array(256);
  for (let i = 0; i < 256; i++)
    packed[i] = (lut[3 * i] | (lut[3 * i + 1] << 8) | (lut[3 * i + 2] << 16) | (255 << 24)) >>> 0;
  return packed;
}

/**
 * The A vs B map shows log2(pB / pA): how many times more (or less) B attends to a key than A.
 * Probabilities below RATIO_FLOOR count as RATIO_FLOOR, so keys neither scheme looks at stay
 * neutral instead of showing the noise of two tiny numbers; the scale saturates at RATIO_LIMIT
 * (2^3 = 8 times). A fixed scale keeps maps comparable across settings (a scale set by the largest
 * difference lets the diagonal wash everything else out).
 */
export const RATIO_FLOOR = 1e-6;
export const RATIO_LIMIT = 3;

/** log2(pB / pA) with the floor, exactly (CSV export, hover). */
export function logRatio(pA, pB) {
  return Math.log2(Math.max(pB, RATIO_FLOOR) / Math.max(pA, RATIO_FLOOR));
}

// The map's colours come from log2 looked up by a float's top 17 bits (as probIndex does), within
// 0.003 of the exact value: a 512 x 512 map costs ~2 ms instead of ~15 ms of Math.log2 on the
// page's thread while a person types. Values below the floor use the floor's entry.
let log2Table = null;
function buildLog2Table() {
  const table = new Float32Array(1 << (32 - KEY_SHIFT));
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let key = 0; key < table.length; key++) {
    u[0] = (key << KEY_SHIFT) | (1 << (KEY_SHIFT - 1));
    table[key] = Math.log2(
      Math.max(f[0] > 0 && Number.isFinite(f[0]) ? f[0] : RATIO_FLOOR, RATIO_FLOOR),
    );
  }
  return table;
}
const FLOOR_KEY = (() => {
  scratchF[0] = RATIO_FLOOR;
  return scratchU[0] >>> KEY_SHIFT;
})();

const INF_KEY = 0x7f800000 >>> KEY_SHIFT; // +Infinity; larger keys are NaNs and negative numbers

/** log2(pB / pA) with the floor, from the table (what the A vs B map shows). */
export function tableLogRatio(pA, pB) {
  return tableLogRatios(Float32Array.of(pA), Float32Array.of(pB), new Float32Array(1))[0];
}

/** tableLogRatio over two arrays of float32 probabilities, into out (Float32Array). */
export function tableLogRatios(rawA, rawB, out) {
  log2Table ??= buildLog2Table();
  const table = log2Table;
  const a = new Uint32Array(rawA.buffer, rawA.byteOffset, rawA.length);
  const b = new Uint32Array(rawB.buffer, rawB.byteOffset, rawB.length);
  for (let c = 0; c < out.length; c++) {
    // Zero, anything below the floor, negative numbers, infinities and NaN read the floor's entry.
    const ka = a[c] >>> KEY_SHIFT;
    const kb = b[c] >>> KEY_SHIFT;
    out[c] =
      table[kb >= FLOOR_KEY && kb < INF_KEY ? kb : FLOOR_KEY] -
      table[ka >= FLOOR_KEY && ka < INF_KEY ? ka : FLOOR_KEY];
  }
  return out;
}

/** log2(pB / pA) -> LUT index: 0 is A RATIO_LIMIT-fold, 128 equal, 255 B RATIO_LIMIT-fold. */
export function ratioIndex(pA, pB) {
  return ratioIndexOf(tableLogRatio(pA, pB));
}

/** The LUT index of a log2 ratio (NaN is neutral). */
export function ratioIndexOf(r) {
  // round(127.5 + r * 255 / (2 * RATIO_LIMIT)) clamped to 0..255, without Math calls (per cell).
  const x = 127.5 + r * RATIO_SCALE;
  return x > 0 ? (x < 255 ? (x + 0.5) | 0 : 255) : Number.isNaN(r) ? 128 : 0; // NaN: neutral
}
const RATIO_SCALE = 255 / (2 * RATIO_LIMIT);

/** Value in [lo, hi] -> LUT index, linear. */
export function linearIndex(v, lo, hi) {
  if (!(hi > lo)) return 0;
  return Math.round(Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * 255);
}

/** The RGB triple of a LUT entry. */
export function rgb(lut, index) {
  return [lut[3 * index], lut[3 * index + 1], lut[3 * index + 2]];
}

/** The CSS gradient of a LUT, for legends. */
export function cssGradient(lut) {
  const stops = [];
  for (let i = 0; i <= 4; i++) {
    const [r, g, b] = rgb(lut, Math.round((i * 255) / 4));
    stops.push(`rgb(${r}, ${g}, ${b}) ${i * 25}%`);
  }
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

/** Clears (to transparent) the cells wholly above the diagonal: every key after every query. */
export function maskUpper(rgba, rows, cols, region) {
  const words = new Uint32Array(rgba.buffer, rgba.byteOffset, rows * cols);
  const span = region.c1 - region.c0;
  for (let y = 0; y < rows; y++) {
    const lastRow = region.r0 + Math.ceil(((y + 1) * (region.r1 - region.r0)) / rows) - 1;
    // Cell x starts at column c0 + ceil(x * span / cols); the first one past lastRow is masked.
    let x = Math.max(0, Math.floor(((lastRow - region.c0) * cols) / span));
    while (x < cols && region.c0 + Math.ceil((x * span) / cols) <= lastRow) x++;
    words.fill(0, y * cols + x, (y + 1) * cols);
  }
  return rgba;
}

/**
 * The attention heatmap of one scheme, as the page draws it: the `ratio` of hr.pool() (each
 * cell's mean of p / its row's maximum) on the magma ramp, log scale over DECADES decades
 * (probIndex), and the cells wholly above the diagonal transparent. Returns rows x cols RGBA.
 */
export function probImage(ratio, rows, cols, region) {
  const rgba = new Uint8ClampedArray(rows * cols * 4);
  probPixels(ratio, LUTS.magma, new Uint32Array(rgba.buffer));
  return maskUpper(rgba, rows, cols, region);
}
