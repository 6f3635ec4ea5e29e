// The views below the playground's maps, computed in the worker for one side: the per-band
// effective relative distance matrices (RoPE, ReRoPE, Self-Extend, HiRoPE), the rotation angle of
// every frequency pair from the last token, and RoFormer's long-term decay.
import { LUTS, MASKED, linearIndex } from 'hirope/colormap';
import { ROTARY, WINDOWED, schemeName } from '../shared/schemes.js';
import { DEFAULTS } from '../shared/playground-state.js';

/** Side of the distance-view matrices (tokens are sampled evenly beyond it). */
export const DISTANCE_VIEW_SIZE = 160;
/** Columns of the angle view (keys are sampled evenly beyond it). */
export const ANGLE_VIEW_COLUMNS = 384;
/** Up to this distance the decay view is the core's curve at every distance; beyond, sampled. */
export const DENSE_DECAY_DISTANCE = 4096;
/** Distances of a sampled decay curve (log-spaced from 1 to its maximum distance). */
export const DECAY_SAMPLES = 512;

/**
 * At most `count` distinct distances, log-spaced from `max` down to 1 (descending: the farthest
 * key first, as the angle view's columns run from the far past to the query).
 */
export function logDistances(max, count) {
  const out = [];
  for (let c = 0; c < count; c++) {
    const d = Math.round(Math.exp(Math.log(max) * (1 - c / (count - 1))));
    if (d >= 1 && d !== out.at(-1)) out.push(d);
  }
  return Int32Array.from(out);
}

/**
 * Positions for a query at `query` and keys `distances` before it, all in one unit and statement
 * (as the core's long_term_decay places them): the keys first (ascending), the query last.
 */
function farPositions(query, distances) {
  const m = distances.length + 1;
  const token = new Int32Array(m);
  distances.forEach((d, c) => {
    token[c] = query - d;
  });
  token[m - 1] = query;
  return { token, unit: new Int32Array(m), statement: new Int32Array(m) };
}

/**
 * Each band's distance for the query at `query` and each key `distances` before it
 * (hr.relativeDistances on those positions): one array per band, one entry per distance. With
 * `segments`, HiRoPE on fixed segments gets no unit (the core derives it from the segments); else
 * every key is in the query's unit, as in the core's long_term_decay.
 */
function bandDistances(hr, scheme, headDim, query, distances, segments = false) {
  const m = distances.length + 1;
  const placed = farPositions(query, distances);
  const positions = segments ? positionsFor(scheme, placed) : placed;
  return hr
    .relativeDistances({ n: m, headDim, positions, scheme })
    .map((b) => b.distances.subarray((m - 1) * m, m * m - 1));
}

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

/**
 * The least width of a pair's red (unseen) cells, in columns: a pair the core counts as unseen
 * only at the farthest keys still shows (2% of the view, at least one column: 8 of 384, about a
 * dozen pixels on a wide screen).
 */
export const minUnseenColumns = (cols) => Math.ceil(cols / 48);

/**
 * The rotation angle theta_j * distance of every frequency pair from the last token (the query)
 * to each key it sees, and which pairs meet angles unseen in training: the core's rule
 * (hr.unseenPairs, docs/real-models.md) at the code's own span, the positions its tokens reach
 * (the last token's position + 1: with a position stride, far past the token count). A real
 * model's sliding or chunked layer sees no key further back than its window or chunk (`reach`, in
 * positions): where the code spans more, the columns are distances log-spaced from the reach down
 * to 1 (`distances` says so) instead of the code's keys; reachKind: its mask type ('sliding' or
 * 'chunked'), for the words. scaledAfterTraining: the page's own
 * linear or NTK-aware scaling was put on RoPE trained at the training length (true), a model's
 * was trained with (its config names no length before it).
 */
export function angleView(
  hr,
  state,
  scheme,
  headDim,
  analysis,
  { reach = 0, reachKind = null, scaledAfterTraining = true } = {},
) {
  if (!ROTARY.has(scheme.type)) return null;
  const n = analysis.n;
  const lastToken = analysis.positions.token[n - 1];
  const span = lastToken + 1;
  const L = state.train;
  let columns;
  if (reach > 0 && reach < span) {
    const distances = logDistances(Math.max(1, reach - 1), ANGLE_VIEW_COLUMNS);
    columns = {
      keys: Array.from(distances, (d) => lastToken - d),
      rowDistances: Array.from(distances),
      perBand: bandDistances(hr, scheme, headDim, lastToken, distances, true),
      distances: Array.from(distances),
    };
  } else {
    const keys = sampleIndices(n, ANGLE_VIEW_COLUMNS);
    const pick = (arr) => Int32Array.from([...keys, n - 1], (i) => arr[i]);
    const positions = {
      token: pick(analysis.positions.token),
      unit: pick(analysis.positions.unit),
      statement: pick(analysis.positions.statement),
    };
    const m = keys.length + 1;
    columns = {
      keys: Array.from(keys),
      rowDistances: Array.from(keys, (k) => lastToken - analysis.positions.token[k]),
      perBand: hr
        .relativeDistances({ n: m, headDim, positions: positionsFor(scheme, positions), scheme })
        .map((b) => b.distances.subarray((m - 1) * m, m * m - 1)),
    };
  }
  const cols = columns.keys.length;
  // The largest distance each band meets (HiRoPE's unit pairs meet unit distances, a windowed
  // scheme's far pairs clamped or grouped ones), for the core's verdict.
  const bandDistancesSeen = columns.perBand.map((row) =>
    row.reduce((max, d) => (Number.isFinite(d) && d > max ? d : max), 0),
  );
  const unseen = hr.unseenPairs(scheme, headDim, {
    trainedLength: L,
    length: span,
    reach,
    bandDistances: bandDistancesSeen,
    scaledAfterTraining,
  });
  // The training-length line: after the last column at least L back.
  let trainColumn = null;
  for (let c = 0; c < cols; c++) if (columns.rowDistances[c] >= L) trainColumn = c + 1;
  const bands = hr.bands(scheme, headDim);
  return {
    image: { rgba: angleImage(bands, unseen, columns.perBand, cols), rows: unseen.pairs, cols },
    pairs: unseen.pairs,
    bands: bands.map((b) => ({ name: b.name, pairs: [b.pairBegin, b.pairEnd] })),
    splitPair: unseen.splitPair, // on the layer's own trained frequencies
    trainColumn,
    oodPairs: unseen.count,
    span,
    reach,
    reachKind,
    keys: columns.keys,
    ...(columns.distances ? { distances: columns.distances, length: lastToken + 1 } : {}),
  };
}

// cos(angle) per pair and column in grey, the cells past the core's limit of a pair it counts as
// unseen in red (at least minUnseenColumns of the farthest, column 0 being the farthest key);
// `perBand` holds each band's distance per column.
function angleImage(bands, unseen, perBand, cols) {
  const { pairs, frequencies, limits } = unseen;
  const bandOf = new Int32Array(pairs);
  bands.forEach((b, index) => {
    bandOf.fill(index, b.pairBegin, b.pairEnd);
  });
  const least = minUnseenColumns(cols);
  const rgba = new Uint8ClampedArray(pairs * cols * 4);
  for (let j = 0; j < pairs; j++) {
    const row = perBand[bandOf[j]];
    for (let c = 0; c < cols; c++) {
      const angle = frequencies[j] * row[c];
      const out = unseen.unseen[j] === 1 && (c < least || angle > limits[j]);
      // cos(angle) in grey (black -1, white +1); unseen cells tinted red.
      const grey = 40 + 100 * (1 + Math.cos(angle));
      const o = 4 * (j * cols + c);
      rgba[o] = out ? 120 + 0.5 * grey : grey;
      rgba[o + 1] = out ? 0.3 * grey : grey;
      rgba[o + 2] = out ? 0.3 * grey : grey;
      rgba[o + 3] = 255;
    }
  }
  return rgba;
}

/**
 * RoFormer's long-term decay of a scheme up to maxDistance, or { error } where the core has none:
 * the core's curve at every distance (a Float32Array) up to DENSE_DECAY_DISTANCE; beyond (a model's
 * maximum length, 10^6 and more, where the core's O(d * maxDistance) curve would be slow and the
 * chart could not show a million points), { distances, values, sampled: true } at DECAY_SAMPLES
 * log-spaced distances (sampledDecay).
 */
export function decayView(hr, scheme, headDim, maxDistance) {
  // Said in the page's words (the core's message names its API function).
  if (!ROTARY.has(scheme.type))
    return {
      error: `${schemeName(scheme.type)} does not rotate q and k, so RoFormer's long-term decay does not apply`,
    };
  try {
    if (maxDistance <= DENSE_DECAY_DISTANCE) return hr.longTermDecay(scheme, headDim, maxDistance);
    return sampledDecay(hr, scheme, headDim, maxDistance, DECAY_SAMPLES);
  } catch (e) {
    return { error: e.message };
  }
}

/**
 * The core's long_term_decay (hirope.h: (1 / (d/2)) sum_j |S_j|, S_j = sum_{k<j} e^{i r theta_k},
 * the query at maxDistance and every key in one unit) at distance 0 and `count` log-spaced
 * distances up to maxDistance: the band distances from hr.relativeDistances and the frequencies
 * from hr.inverseFrequencies (seqLen maxDistance + 1, as the core's), summed here.
 */
export function sampledDecay(hr, scheme, headDim, maxDistance, count) {
  if (!ROTARY.has(scheme.type)) throw new Error('longTermDecay needs a rotary scheme');
  const inv = hr.inverseFrequencies(scheme, headDim, { seqLen: maxDistance + 1 });
  const bandOf = new Int32Array(inv.length);
  hr.bands(scheme, headDim).forEach((b, index) => {
    bandOf.fill(index, b.pairBegin, b.pairEnd);
  });
  const far = logDistances(maxDistance, count); // descending
  const perBand = bandDistances(hr, scheme, headDim, maxDistance, far);
  const m = far.length + 1;
  const distances = new Float64Array(m); // ascending, 0 first
  const values = new Float32Array(m);
  for (let c = 0; c < m; c++) {
    const column = m - 2 - (c - 1); // distances[c] = far[column] for c >= 1
    distances[c] = c === 0 ? 0 : far[column];
    let re = 0;
    let im = 0;
    let total = 0;
    for (let p = 0; p < inv.length; p++) {
      const angle = c === 0 ? 0 : perBand[bandOf[p]][column] * inv[p];
      re += Math.cos(angle);
      im += Math.sin(angle);
      total += Math.hypot(re, im);
    }
    values[c] = total / inv.length;
  }
  return { distances, values, sampled: true };
}
