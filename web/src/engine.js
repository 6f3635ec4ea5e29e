// The playground's compute side: code analysis, attention under schemes A and B, the pooled and
// coloured heatmap images, and the data for the distance, angle and decay views. It runs inside the
// Web Worker (worker.js) and in Node tests; it keeps the full matrices so that zooming, row
// selection and CSV export need no recomputation.
import { LUTS, MASKED, packLut, ratioIndexOf, tableLogRatios, divergingLut, linearIndex, maskUpper, probImage } from './colormap.js';
import { schemeFor, analyzeOptionsFor, ROTARY, WINDOWED, DEFAULTS } from './state.js';
import { plural } from './wording.js';

/** Heatmaps cover at most this many tokens (the analysis covers the whole text). */
export const MAX_ATTENTION_TOKENS = 4096;
/** Side of the distance-view matrices (tokens are sampled evenly beyond it). */
export const DISTANCE_VIEW_SIZE = 160;
/** Columns of the angle view (keys are sampled evenly beyond it). */
export const ANGLE_VIEW_COLUMNS = 384;
/** The q/k file format's size limit (bytes of JSON), checked before parsing. */
export const MAX_QK_FILE_BYTES = 64 * 1024 * 1024;

/** Detection order: a language that parses as cleanly as a later one wins. */
export const LANGUAGE_PREFERENCE = ['python', 'javascript', 'typescript', 'tsx', 'c', 'cpp', 'java', 'go', 'rust'];

/**
 * The page's parse budget in milliseconds: 3 s plus 1 s per million characters. Real code parses
 * at several MB/s in WebAssembly; input that defeats tree-sitter's error recovery (tens of
 * thousands of quotes) stops after 3 s with a message that says so, rather than the library's
 * default of 10 s.
 */
export const pageParseBudget = (code) => 3000 + code.length / 1000;
/** Detection parses the code once per grammar: 250 ms plus 0.25 s per million characters each. */
const detectParseBudget = (code) => 250 + code.length / 4000;

export class PlaygroundError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PlaygroundError';
  }
}

const now = () => performance.now();

/**
 * Parses a q/k file: JSON {"headDim": d, "q": rows, "k": rows} where rows is an array of n arrays
 * of d numbers (one per token), or a flat array of n * d numbers.
 */
export function parseQKFile(text) {
  if (typeof text !== 'string') throw new PlaygroundError('the q/k file must be text (JSON)');
  if (text.length > MAX_QK_FILE_BYTES) throw new PlaygroundError(`the q/k file is larger than ${MAX_QK_FILE_BYTES} bytes`);
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PlaygroundError(`the q/k file is not valid JSON (${e.message})`);
  }
  if (!json || typeof json !== 'object') throw new PlaygroundError('the q/k file must hold a JSON object');
  const headDim = json.headDim;
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 || headDim > 1024) {
    throw new PlaygroundError(`the q/k file's headDim must be an even integer from 2 to 1024, got ${JSON.stringify(headDim)}`);
  }
  const flat = (name) => {
    const rows = json[name];
    if (!Array.isArray(rows)) throw new PlaygroundError(`the q/k file needs "${name}": an array of rows`);
    const nested = Array.isArray(rows[0]);
    const n = nested ? rows.length : rows.length / headDim;
    if (!Number.isInteger(n) || n < 1) throw new PlaygroundError(`"${name}" holds ${rows.length} numbers, not a whole number of rows of ${headDim}`);
    const out = new Float32Array(n * headDim);
    for (let i = 0; i < n; i++) {
      const row = nested ? rows[i] : rows.slice(i * headDim, (i + 1) * headDim);
      if (!Array.isArray(row) || row.length !== headDim) throw new PlaygroundError(`"${name}" row ${i} does not hold ${headDim} numbers`);
      for (let c = 0; c < headDim; c++) {
        const v = row[c];
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new PlaygroundError(`"${name}" row ${i} column ${c} is not a finite number`);
        out[i * headDim + c] = v;
      }
    }
    return { n, data: out };
  };
  const q = flat('q');
  const k = flat('k');
  if (q.n !== k.n) throw new PlaygroundError(`"q" has ${plural(q.n, 'row')} but "k" has ${k.n}`);
  return { n: q.n, headDim, q: q.data, k: k.data };
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

/**
 * Per query row of a causal probability matrix: the attention mass on keys of the query's own
 * unit, and the mean attended token distance sum_j p_ij (t_i - t_j).
 */
export function rowStats(probs, n, unit, token) {
  const own = new Float32Array(n);
  const distance = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    const u = unit[i];
    const t = token[i];
    let mass = 0;
    let d = 0;
    for (let j = 0; j <= i; j++) {
      const p = probs[row + j];
      if (unit[j] === u) mass += p;
      d += p * (t - token[j]);
    }
    own[i] = mass;
    distance[i] = d;
  }
  return { own, distance };
}

/**
 * Per query row, how far B's attention is from A's: total variation 1/2 sum_j |a - b| (0 equal,
 * 1 disjoint) and KL(A || B) in bits, B's probabilities floored at KL_FLOOR.
 */
export function compareRows(a, b, n) {
  const tv = new Float32Array(n);
  const kl = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    let t = 0;
    let k = 0;
    for (let j = 0; j <= i; j++) {
      const pa = a[row + j];
      const pb = b[row + j];
      t += Math.abs(pa - pb);
      if (pa > 0) k += pa * Math.log2(pa / Math.max(pb, KL_FLOOR));
    }
    tv[i] = t / 2;
    kl[i] = Math.max(0, k);
  }
  return { tv, kl };
}
const KL_FLOOR = 1e-30;

function fullRegion(n) {
  return { r0: 0, r1: n, c0: 0, c1: n };
}

export function clampRegion(region, n) {
  if (!region) return fullRegion(n);
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, Math.round(v)));
  const r0 = clamp(region.r0, 0, n - 1);
  const c0 = clamp(region.c0, 0, n - 1);
  return { r0, r1: clamp(region.r1, r0 + 1, n), c0, c1: clamp(region.c1, c0 + 1, n) };
}

// The mask of the upper triangle (wasm/colormap.js), shared with the command line's --png.
export { maskUpper };

/**
 * The A vs B heatmap from the two sides' pooled raw means: log2(pB / pA) per cell on the theme's
 * diverging ramp (see colormap.js), and the share of lower-triangle cells whose ratio is at least
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

/** A cell counts as visibly coloured when B attends at least this factor more or less than A. */
export const VISIBLE_RATIO = 1.25;

const packedRamps = {};
function packedDiverging(theme) {
  return (packedRamps[theme] ??= packLut(divergingLut(theme)));
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

/**
 * One side (scheme A or B) of the playground: the analysis and q/k it shares with the other side,
 * its attention matrix, pooled images and views. The page runs one per Web Worker, so the two
 * sides compute in parallel.
 */
export class SideEngine {
  /** @param options.async run attention with attentionAsync (the WebGPU backend) */
  constructor(hr, { async = false } = {}) {
    this.hr = hr;
    this.async = async;
    this._analysis = null; // { key, result, positions, n, version }
    this._qk = null; // { key, q, k, headDim }
    this._file = null; // { text, parsed }
    this._side = null; // { key, probs, rowMax, scheme }
    this._buffer = null; // the output array, reused across runs
    this._sideVersion = 0; // counts the matrices computed (the page compares A and B once per pair)
    this._cache = new Map(); // view data by key
  }

  /**
   * Everything one redraw needs from this side. request: { code, state, side: 'a' | 'b',
   * qkFile?: string, view?: { size, region }, summary?: true for the analysis summary,
   * views?: false to skip the angle and decay views, distances?: true for the distance views,
   * reuse?: true to get { unchanged: true } when the result equals the previous reuse run's }.
   * `progress(stage)` is called between stages.
   */
  async run(request, progress = () => {}) {
    const { code, state, side } = request;
    if (typeof code !== 'string') throw new PlaygroundError('code must be a string');
    if (side !== 'a' && side !== 'b') throw new PlaygroundError("side must be 'a' or 'b'");
    const hr = this.hr;
    const timings = {};
    let t = now();
    const lastSignature = this._lastSignature;
    this._lastSignature = null; // until this run succeeds
    // A built-in loads its vocabulary once (later calls return at once); a person's own
    // tokenizer.json was loaded by the page's 'tokenizerFile' request.
    if (state.tokenizer !== 'lexical' && hr.tokenizers.includes(state.tokenizer)) {
      progress('loading the tokenizer');
      await hr.loadTokenizer(state.tokenizer);
    }
    progress('analysis');
    const analysis = this._analyze(code, state);
    timings.analysis = now() - t;
    const n = analysis.n;
    const notes = [];
    if (analysis.result.tokens.count > n) notes.push(`The heatmaps show the first ${n.toLocaleString('en')} of ${analysis.result.tokens.count.toLocaleString('en')} tokens.`);
    const summary = request.summary ? this._analysisSummary(analysis) : null;
    if (n === 0) return { side, analysis: summary, n: 0, notes: ['The code has no tokens.'], timings };

    t = now();
    const qk = this._qkFor(request, state, analysis, notes);
    timings.qk = now() - t;
    const headDim = qk.headDim;
    const schemes = { a: schemeFor(state.a, state), b: schemeFor(state.b, state) };
    progress(`attention ${side.toUpperCase()}`);
    t = now();
    const grid = this._grid(request.view);
    const pooled = await this._attention(schemes[side], qk, analysis, grid);
    timings.attention = now() - t;


    const views = {};
    t = now();
    if (request.views !== false) {
      progress('views');
      views.angles = this._cached(`angles|${JSON.stringify(schemes[side])}|${headDim}|${state.train}|${analysis.version}`, () => this._angleView(state, state[side], schemes[side], headDim, analysis));
      const maxDistance = Math.min(this.hr.limits.maxTokens - 1, Math.max(analysis.n, 2 * state.train, 256));
      views.decay = this._cached(`decay|${JSON.stringify(schemes[side])}|${headDim}|${maxDistance}`, () => this._decay(schemes[side], headDim, maxDistance));
      views.maxDistance = maxDistance;
    }
    if (request.distances) views.distances = this._distanceViews(schemes, headDim, analysis);
    timings.views = now() - t;

    // With request.reuse, a run that would send exactly what the last one sent says so instead
    // (the page keeps the last result): the other scheme's slider moves cost this side nothing.
    const signature = JSON.stringify([analysis.version, this._side.key, grid, views.angles?.key, views.decay?.key, views.distances?.key, request.summary, notes]);
    this._lastSignature = request.reuse ? signature : null;
    if (request.reuse && lastSignature === signature) return { side, n, unchanged: true, timings };

    progress('heatmaps');
    t = now();
    const image = this._image(grid, pooled ?? this._pool(grid));
    timings.images = now() - t;
    return { side, analysis: summary, n, headDim, image, views, notes, timings, matrix: this._side.version };
  }

  // View data by key; the key travels with it so that the page can skip redrawing what is unchanged.
  _cached(key, compute) {
    if (!this._cache.has(key)) {
      if (this._cache.size > 16) this._cache.clear();
      const value = compute();
      this._cache.set(key, value && { key, value });
    }
    return this._cache.get(key);
  }

  _analyze(code, state) {
    const options = analyzeOptionsFor(state);
    const key = JSON.stringify(options) + '\u0000' + code;
    if (this._analysis?.key === key) return this._analysis;
    const result = this.hr.analyze(code, { ...options, timeoutMs: pageParseBudget(code) });
    const n = Math.min(result.tokens.count, MAX_ATTENTION_TOKENS);
    const p = result.positions;
    const positions = { token: p.token.subarray(0, n), unit: p.unit.subarray(0, n), statement: p.statement.subarray(0, n) };
    this._analysis = { key, result, positions, n, version: (this._analysis?.version ?? 0) + 1 };
    this._side = null;
    return this._analysis;
  }

  _analysisSummary(analysis) {
    const r = analysis.result;
    return {
      language: r.language,
      tokenizer: r.tokenizer,
      count: r.tokens.count,
      start: r.tokens.start.slice(),
      end: r.tokens.end.slice(),
      unit: r.positions.unit.slice(),
      statement: r.positions.statement.slice(),
      units: r.units.map(({ index, kind, name, nodeType, languageKind, start, end }) => ({ index, kind, name, nodeType, languageKind, start, end })),
      errors: r.errors.map(({ start, end, missing }) => ({ start, end, missing })),
      statements: r.statements,
      version: analysis.version,
    };
  }

  _qkFor(request, state, analysis, notes) {
    const n = analysis.n;
    if (state.source === 'file') {
      if (typeof request.qkFile !== 'string') throw new PlaygroundError('Q/K source "file": load a q/k JSON file first');
      if (this._file?.text !== request.qkFile) this._file = { text: request.qkFile, parsed: parseQKFile(request.qkFile), version: (this._file?.version ?? 0) + 1 };
      const f = this._file.parsed;
      if (f.n < n) throw new PlaygroundError(`the q/k file has ${plural(f.n, 'row')} but the code has ${plural(n, 'token')}; it needs one row per token`);
      if (f.n > n) notes.push(`The q/k file has ${plural(f.n, 'row')}; the first ${n === 1 ? 'is' : `${n} are`} used.`);
      if (f.headDim !== state.headDim) notes.push(`Head dimension ${f.headDim} comes from the q/k file.`);
      const key = `file:${this._file.version}:${n}:${analysis.version}`;
      if (this._qk?.key !== key) this._qk = { key, q: f.q.subarray(0, n * f.headDim), k: f.k.subarray(0, n * f.headDim), headDim: f.headDim };
      return this._qk;
    }
    const key = `${state.source}:${state.seed}:${state.headDim}:${analysis.version}`;
    if (this._qk?.key !== key) {
      const ids = analysis.result.tokens.ids.subarray(0, n);
      const { q, k } = this.hr.qk({ source: state.source, n, headDim: state.headDim, tokenIds: ids, seed: state.seed });
      this._qk = { key, q, k, headDim: state.headDim };
    }
    return this._qk;
  }

  // The side's attention matrix, pooled for `grid` on the way (the core pools each strip of rows
  // while it is in WebAssembly memory); null when the matrix is cached and needs pooling anew.
  async _attention(scheme, qk, analysis, grid) {
    const n = analysis.n;
    const key = `${JSON.stringify(scheme)}|${qk.key}`;
    if (this._side?.key === key) return null;
    // Reuse the buffer: fresh large arrays cost page faults on every redraw.
    if (!this._buffer || this._buffer.length !== n * n) this._buffer = new Float32Array(n * n);
    const cells = grid.rows * grid.cols;
    const pool = { rows: grid.rows, cols: grid.cols, region: grid.region, ratio: new Float32Array(cells), raw: new Float32Array(cells), rowMax: new Float32Array(n) };
    const args = { q: qk.q, k: qk.k, n, headDim: qk.headDim, positions: positionsFor(scheme, analysis.positions), scheme, causal: true, output: 'probs', out: this._buffer, pool };
    this._side = null; // a failed call leaves no stale matrix behind
    const probs = this.async ? await this.hr.attentionAsync(args) : this.hr.attention(args);
    this._side = { key, probs, rowMax: pool.rowMax, scheme, stats: null, version: ++this._sideVersion, pooled: { key: JSON.stringify(grid), value: pool } };
    return pool;
  }

  _grid(view = {}) {
    const n = this._analysis.n;
    const size = Math.max(16, Math.min(2048, Math.round(view.size || 512)));
    const region = clampRegion(view.region, n);
    return { region, rows: Math.min(size, region.r1 - region.r0), cols: Math.min(size, region.c1 - region.c0) };
  }

  // Pools the stored matrix for a grid (zoom, a cached side), reusing the last pooling of that grid.
  _pool(grid) {
    const key = JSON.stringify(grid);
    if (this._side.pooled?.key === key) return this._side.pooled.value;
    const value = this.hr.pool({ matrix: this._side.probs, n: this._analysis.n, rows: grid.rows, cols: grid.cols, region: grid.region, causal: true });
    this._side.pooled = { key, value };
    return value;
  }

  _image(grid, pooled) {
    const { region, rows, cols } = grid;
    // raw is copied: the pooled arrays stay cached here while the image is transferred away.
    return { region, rows, cols, rgba: probImage(pooled.ratio, rows, cols, region), raw: pooled.raw.slice() };
  }

  /**
   * The language whose grammar parses the code with the fewest error bytes (ties go to the earlier
   * language in LANGUAGE_PREFERENCE: JavaScript is also valid TypeScript, C is mostly valid C++).
   */
  detectLanguage(code) {
    if (typeof code !== 'string') throw new PlaygroundError('code must be a string');
    let best = null;
    for (const language of LANGUAGE_PREFERENCE) {
      if (!this.hr.languages.includes(language)) continue;
      let errors;
      try {
        ({ errors } = this.hr.analyze(code, { language, timeoutMs: detectParseBudget(code) }));
      } catch (e) {
        if (e.name === 'HiRoPEError') continue; // past the budget: this grammar fails on it anyway
        throw e;
      }
      let score = 0;
      for (const e of errors) score += e.missing ? 1 : Math.max(1, e.byteEnd - e.byteStart);
      if (!best || score < best.score) best = { language, score };
      if (score === 0) break;
    }
    return best?.language ?? null;
  }

  _require() {
    if (!this._side || !this._analysis?.n) throw new PlaygroundError('nothing has been computed yet');
    return this._side;
  }

  /** The pooled heatmap of this side for a view { size, region }: colours and raw means. */
  images(view = {}) {
    this._require();
    const grid = this._grid(view);
    return this._image(grid, this._pool(grid));
  }

  /** Row i (a query token): its probabilities over keys 0 .. i. */
  row(i) {
    const s = this._require();
    const n = this._analysis.n;
    if (!Number.isInteger(i) || i < 0 || i >= n) throw new PlaygroundError(`no row ${i}`);
    return { probs: s.probs.slice(i * n, i * n + i + 1), max: s.rowMax[i] };
  }

  // Per-row numbers of this side's matrix (rowStats), computed once per matrix and only when the
  // page asks for the comparison, after the maps are on screen.
  _stats() {
    const s = this._require();
    const p = this._analysis.positions;
    s.stats ??= rowStats(s.probs, this._analysis.n, p.unit, p.token);
    return s.stats;
  }

  /** A copy of the whole probability matrix (n x n), to compare with the other side's, and its per-row numbers. */
  exportProbs() {
    const s = this._require();
    return { n: this._analysis.n, probs: s.probs.slice(0, this._analysis.n * this._analysis.n), stats: this._stats() };
  }

  /** TV and KL per row between another side's matrix (as A) and this side's (as B), and this side's per-row numbers. */
  compare(other) {
    const s = this._require();
    const n = this._analysis.n;
    if (!other || other.n !== n || !(other.probs instanceof Float32Array) || other.probs.length !== n * n) throw new PlaygroundError('the two sides disagree on the token count; run both first');
    return { ...compareRows(other.probs, s.probs, n), stats: this._stats() };
  }

  /** One cell: probability p(query i -> key j) and the distance each frequency band sees. */
  cell(i, j) {
    const s = this._require();
    const n = this._analysis.n;
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= n || j >= n) throw new PlaygroundError(`no cell (${i}, ${j})`);
    const p = this._analysis.positions;
    const pick = (arr) => Int32Array.of(arr[j], arr[i]);
    const positions = positionsFor(s.scheme, { token: pick(p.token), unit: pick(p.unit), statement: pick(p.statement) });
    // Two tokens (key first) give the pair's relative distance per band at index [1][0].
    const bands = this.hr.relativeDistances({ n: 2, headDim: this._qk.headDim, positions, scheme: s.scheme }).map((b) => ({ name: b.name, pairs: [b.pairBegin, b.pairEnd], distance: j > i ? null : b.distances[2] }));
    return { p: j > i ? 0 : s.probs[i * n + j], bands };
  }

  /** The probabilities of a region, row-major (NaN where masked), for CSV export. */
  values(regionIn) {
    const s = this._require();
    const n = this._analysis.n;
    const region = clampRegion(regionIn, n);
    const { r0, r1, c0, c1 } = region;
    if ((r1 - r0) * (c1 - c0) > 4 * 1024 * 1024) throw new PlaygroundError('the region has more than 4M cells; zoom in to export it as CSV');
    const out = new Float32Array((r1 - r0) * (c1 - c0));
    for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) out[(i - r0) * (c1 - c0) + j - c0] = j > i ? NaN : s.probs[i * n + j];
    return { region, values: out };
  }

  // RoPE, ReRoPE, Self-Extend and HiRoPE side by side, with the window, group and ratio of the
  // sides that use those schemes (the defaults otherwise), over evenly sampled tokens.
  _distanceViews(schemes, headDim, analysis) {
    const find = (type) => (schemes.a.type === type ? schemes.a : schemes.b.type === type ? schemes.b : null);
    const windowed = [schemes.b, schemes.a].find((s) => WINDOWED.has(s.type));
    const window = windowed?.window ?? DEFAULTS.b.window;
    const list = [
      ['RoPE', { type: 'rope' }],
      ['ReRoPE', find('rerope') ?? { type: 'rerope', window }],
      ['Self-Extend', find('self-extend') ?? { type: 'self-extend', window, group: 8 }],
      ['HiRoPE', find('hirope') ?? { type: 'hirope', window, ratio: DEFAULTS.b.ratio }],
    ];
    return this._cached(`distances|${JSON.stringify(list)}|${headDim}|${analysis.version}`, () => {
      const idx = sampleIndices(analysis.n, DISTANCE_VIEW_SIZE);
      const pick = (arr) => Int32Array.from(idx, (i) => arr[i]);
      const positions = { token: pick(analysis.positions.token), unit: pick(analysis.positions.unit), statement: pick(analysis.positions.statement) };
      const views = list.map(([name, scheme]) => ({
        name,
        window: scheme.window,
        bands: this.hr.relativeDistances({ n: idx.length, headDim, positions: positionsFor(scheme, positions), scheme }),
      }));
      let maxDistance = 1;
      for (const v of views) for (const b of v.bands) for (const d of b.distances) if (d > maxDistance) maxDistance = d;
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
          bands: v.bands.map((b) => ({ name: b.name, pairs: [b.pairBegin, b.pairEnd], max: bandMax(b.distances), image: distanceImage(b.distances, idx.length, maxDistance) })),
        })),
      };
    });
  }

  // The rotation angle theta_j * distance for the last token as the query against every key, per
  // frequency pair j; a pair is out of distribution where the distance exceeds what training showed
  // (trainingLength - 1) and the pair never turned a full period within the training length.
  _angleView(state, side, scheme, headDim, analysis) {
    if (!ROTARY.has(scheme.type)) return null;
    const n = analysis.n;
    const inv = this.hr.inverseFrequencies(scheme, headDim, { seqLen: n });
    const original = this.hr.inverseFrequencies({ type: 'rope', base: side.base }, headDim);
    const pairs = inv.length;
    const bandsOfPairs = new Array(pairs).fill(0);
    const bands = this.hr.bands(scheme, headDim);
    bands.forEach((b, index) => bandsOfPairs.fill(index, b.pairBegin, b.pairEnd));
    const keys = sampleIndices(n, ANGLE_VIEW_COLUMNS);
    const pick = (arr) => Int32Array.from([...keys, n - 1], (i) => arr[i]);
    const positions = { token: pick(analysis.positions.token), unit: pick(analysis.positions.unit), statement: pick(analysis.positions.statement) };
    const m = keys.length + 1;
    const distances = this.hr.relativeDistances({ n: m, headDim, positions: positionsFor(scheme, positions), scheme }).map((b) => b.distances.subarray((m - 1) * m, m * m - 1));
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
    for (let c = 0; c < cols; c++) if (lastToken - analysis.positions.token[keys[c]] >= L) trainColumn = c + 1;
    return {
      image: { rgba, rows: pairs, cols },
      pairs,
      bands: bands.map((b) => ({ name: b.name, pairs: [b.pairBegin, b.pairEnd] })),
      splitPair: this.hr.splitFraction(L, side.base) * pairs,
      trainColumn,
      oodPairs,
      keys: Array.from(keys),
    };
  }

  _decay(scheme, headDim, maxDistance) {
    try {
      return this.hr.longTermDecay(scheme, headDim, maxDistance);
    } catch (e) {
      return { error: e.message };
    }
  }
}
