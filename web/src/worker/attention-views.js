// The views below the playground's maps, computed in the worker for one side: the per-band
// effective relative distance matrices (RoPE, ReRoPE, Self-Extend, HiRoPE), the rotation angle of
// every frequency pair from the last token, and RoFormer's long-term decay.
import { LUTS, MASKED, linearIndex } from 'hirope/colormap';
import { ROTARY, WINDOWED } from '../shared/schemes.js';
import { DEFAULTS } from '../shared/playground-state.js';

/** Side of the distance-view matrices (tokens are sampled evenly beyond it). */
export const DISTANCE_VIEW_SIZE = 160;
/** Columns of the angle view (keys are sampled evenly beyond it). */
export const ANGLE_VIEW_COLUMNS = 384;

/** Evenly spaced indices 0 .. n-1, at most `count` of them, always including the last. */
export function sampleIndices(n, count) {
  if (n <= count) return Int32Array.from({ length: n }, (_, i) => i);
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = Math.round((i * (n - 1)) / (count - 1));
  return out;
}

/** The positions a scheme reads: HiRoPE on fixed segments gets no unit (the core derives it). */
export function positionsFor(scheme, positions) {
  if (scheme.segmentSize === undefined) return positions;
  return { token: positions.token, statement: positions.statement };
}

function distanceImage(distances, size, maxDistance) {
  const rgba = new Uint8ClampedArray(distances.length * 4);
  for (let c = 0; c < distances.length; c++) {
    const v = distances[c];
    // Keys after the query are masked for every scheme (some report a distance there too).
    const col = Number.isNaN(v) || c % size > Math.floor(c / size) ? MASKED : null;
    const k = col ? 0 : 3 * linearIndex(v, 0, maxDistance);
    rgba[4 * c] = col ? col[0] : LUTS.viridis[k];
    rgba[4 * c + 1] = col ? col[1] : LUTS.viridis[k + 1];
    rgba[4 * c + 2] = col ? col[2] : LUTS.viridis[k + 2];
    rgba[4 * c + 3] = 255;
  }
  return { rgba, rows: size, cols: size };
}

// RoPE, ReRoPE, Self-Extend and HiRoPE side by side, with the window, group and ratio of the
// sides that use those schemes (the defaults otherwise), over evenly sampled tokens; `cached`
// keeps the result by key (SideEngine's view cache).
export function distanceViews(hr, schemes, headDim, analysis, cached) {
  const find = (type) =>
    schemes.a.type === type ? schemes.a : schemes.b.type === type ? schemes.b : null;
  const windowed = [schemes.b, schemes.a].find((s) => WINDOWED.has(s.type));
  const window = windowed?.window ?? DEFAULTS.b.window;
  const list = [
    ['RoPE', { type: 'rope' }],
    ['ReRoPE', find('rerope') ?? { type: 'rerope', window }],
    ['Self-Extend', find('self-extend') ?? { type: 'self-extend', window, group: 8 }],
    ['HiRoPE', find('hirope') ?? { type: 'hirope', window, ratio: DEFAULTS.b.ratio }],
  ];
  return cached(`distances|${JSON.stringify(list)}|${headDim}|${analysis.version}`, () => {
    const idx = sampleIndices(analysis.n, DISTANCE_VIEW_SIZE);
    const pick = (arr) => Int32Array.from(idx, (i) => arr[i]);
    const positions = {
      token: pick(analysis.positions.token),
      unit: pick(analysis.positions.unit),
      statement: pick(analysis.positions.statement),
    };
    const views = list.map(([name, scheme]) => ({
      name,
      window: scheme.window,
      bands: hr.relativeDistances({
        n: idx.length,
        headDim,
        positions: positionsFor(scheme, positions),
        scheme,
      }),
    }));
    let maxDistance = 1;
    for (const v of views)
      for (const b of v.bands) for (const d of b.distances) if (d > maxDistance) maxDistance = d;
    const bandMax = (distances) => {
      let max = 0;
      for (const d of distances) if (d > max) max = d;
      return max;
    };
    return {
      sampled: idx.length < analysis.n,
      tokens: analysis.n,
      size: idx.length,
      maxDistance,
      views: views.map((v) => ({
        name: v.name,
        window: v.window,
        bands: v.bands.map((b) => ({
          name: b.name,
          pairs: [b.pairBegin, b.pairEnd],
          max: bandMax(b.distances),
          image: distanceImage(b.distances, idx.length, maxDistance),
        })),
      })),
    };
  });
}

// The rotation angle theta_j * distance for the last token as the query against every key, per
// frequency pair j; a pair is out of distribution where the distance exceeds what training showed
// (trainingLength - 1) and the pair never turned a full period within the training length.
export function angleView(hr, state, side, scheme, headDim, analysis) {
  if (!ROTARY.has(scheme.type)) return null;
  const n = analysis.n;
  const inv = hr.inverseFrequencies(scheme, headDim, { seqLen: n });
  const original = hr.inverseFrequencies({ type: 'rope', base: side.base }, headDim);
  const pairs = inv.length;
  const bandsOfPairs = new Array(pairs).fill(0);
  const bands = hr.bands(scheme, headDim);
  bands.forEach((b, index) => {
    bandsOfPairs.fill(index, b.pairBegin, b.pairEnd);
  });
  const keys = sampleIndices(n, ANGLE_VIEW_COLUMNS);
  const pick = (arr) => Int32Array.from([...keys, n - 1], (i) => arr[i]);
  const positions = {
    token: pick(analysis.positions.token),
    unit: pick(analysis.positions.unit),
    statement: pick(analysis.positions.statement),
  };
  const m = keys.length + 1;
  const distances = hr
    .relativeDistances({ n: m, headDim, positions: positionsFor(scheme, positions), scheme })
    .map((b) => b.distances.subarray((m - 1) * m, m * m - 1));
  const L = state.train;
  const cols = keys.length;
  const rgba = new Uint8ClampedArray(pairs * cols * 4);
  let oodPairs = 0;
  for (let j = 0; j < pairs; j++) {
    const seenAngle = original[j] * (L - 1);
    const fullTurn = seenAngle >= 2 * Math.PI;
    const row = distances[bandsOfPairs[j]];
    let ood = false;
    for (let c = 0; c < cols; c++) {
      const angle = inv[j] * row[c];
      const out = !fullTurn && angle > seenAngle + 1e-9;
      ood ||= out;
      // cos(angle) in grey (black -1, white +1); out-of-distribution cells tinted red.
      const grey = 40 + 100 * (1 + Math.cos(angle));
      const o = 4 * (j * cols + c);
      rgba[o] = out ? 120 + 0.5 * grey : grey;
      rgba[o + 1] = out ? 0.3 * grey : grey;
      rgba[o + 2] = out ? 0.3 * grey : grey;
      rgba[o + 3] = 255;
    }
    if (ood) oodPairs++;
  }
  // The training-length line: the key whose token distance to the last query is L.
  const lastToken = analysis.positions.token[n - 1];
  let trainColumn = null;
  for (let c = 0; c < cols; c++)
    if (lastToken - analysis.positions.token[keys[c]] >= L) trainColumn = c + 1;
  return {
    image: { rgba, rows: pairs, cols },
    pairs,
    bands: bands.map((b) => ({ name: b.name, pairs: [b.pairBegin, b.pairEnd] })),
    splitPair: hr.splitFraction(L, side.base) * pairs,
    trainColumn,
    oodPairs,
    keys: Array.from(keys),
  };
}

/** RoFormer's long-term decay of a scheme up to maxDistance, or { error } where the core has none. */
export function decayView(hr, scheme, headDim, maxDistance) {
  try {
    return hr.longTermDecay(scheme, headDim, maxDistance);
  } catch (e) {
    return { error: e.message };
  }
}
