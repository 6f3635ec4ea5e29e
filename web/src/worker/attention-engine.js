// The playground's compute side: code analysis, attention under schemes A and B, the pooled and
// coloured heatmap images, and the data for the distance, angle and decay views. It runs inside the
// Web Worker (web/src/worker/main.js) and in Node tests. It keeps no matrix: the core pools each
// strip of rows while it computes it, and rows, cells, CSV, zoom and the per-row numbers are
// recomputed from q/k for what is asked (attention-rows.js).
import { analyzeOptionsFor } from '../shared/playground-state.js';
import { ModelSetups } from './model-sides.js';
import { plural } from '../shared/wording.js';
import { PlaygroundError } from './playground-error.js';
import { parseQKFile } from './qk-file.js';
import { detectLanguage } from '../shared/language-detection.js';
import { compareRows } from './attention-numbers.js';
import { positionsFor, distanceViews, angleView, decayView } from './attention-views.js';
import { gridFor, heatImage, matrixValues, clampRegion, MAX_VALUES } from './matrix-view.js';
import {
  attentionRows,
  eachStrip,
  stripStats,
  compareStrips,
  bothCalls,
} from './attention-rows.js';
import { poolInChunks, MAX_EXPORT_TOKENS } from './pooled-map.js';

/** Heatmaps cover at most this many tokens (the analysis covers the whole text). */
export const MAX_ATTENTION_TOKENS = 32768;

/** The longest viewLength a run takes (positions are 32-bit integers). */
export const MAX_VIEW_LENGTH = 2 ** 30;

// A run's viewLength: 0 (none given) or an integer from 2 to MAX_VIEW_LENGTH.
function viewLength(value) {
  if (value === undefined || value === null) return 0;
  if (!Number.isInteger(value) || value < 2 || value > MAX_VIEW_LENGTH)
    throw new PlaygroundError(
      `viewLength must be an integer from 2 to ${MAX_VIEW_LENGTH.toLocaleString('en')}, got ${value}`,
    );
  return value;
}

// A whole n x n copy (exportProbs, compare({ probs })) is refused past MAX_EXPORT_TOKENS.
function wholeMatrixAllowed(n) {
  if (n > MAX_EXPORT_TOKENS)
    throw new PlaygroundError(
      `a whole matrix of ${plural(n, 'token')} is too large to copy (at most ${MAX_EXPORT_TOKENS.toLocaleString('en')}); compare({ rows }) recomputes strips instead`,
    );
}

/**
 * The page's parse budget in milliseconds: 3 s plus 1 s per million characters. Real code parses
 * at several MB/s in WebAssembly; input that defeats tree-sitter's error recovery (tens of
 * thousands of quotes) stops after 3 s with a message that says so, rather than the library's
 * default of 10 s.
 */
export const pageParseBudget = (code) => 3000 + code.length / 1000;

const now = () => performance.now();

/**
 * One side (scheme A or B) of the playground: the analysis and q/k it shares with the other side,
 * its attention matrix, pooled images and views. The page runs one per Web Worker, so the two
 * sides compute in parallel.
 */
export class SideEngine {
  /** @param options.async run attention with attentionAsync (the WebGPU backend) */
  constructor(hr, { async = false, loadConfig } = {}) {
    this.hr = hr;
    this.async = async;
    this.models = new ModelSetups(hr, loadConfig); // real models' setups (model-sides.js)
    this._analysis = null; // { key, result, positions, n, version }
    this._qks = []; // the last two { key, q, k, headDim } made (each side's head dim)
    this._qkFromFile = null; // { key, q, k, headDim } of the q/k file
    this._file = null; // { text, parsed }
    this._side = null; // { key, args, argsOf, rowMax, scheme, ... }: the call, not the matrix
    this._sideVersion = 0; // counts the matrices computed (the page compares A and B once per pair)
    this._cache = new Map(); // view data by key
  }

  /**
   * Everything one redraw needs from this side. request: { code, state, side: 'a' | 'b',
   * qkFile?: string, view?: { size, region }, summary?: true for the analysis summary,
   * views?: false to skip the angle and decay views, distances?: true for the distance views,
   * reuse?: true to get { unchanged: true } when the result equals the previous reuse run's,
   * viewLength?: the length the angle and decay views run to (a model's maximum length, up to
   * MAX_VIEW_LENGTH; by default the code's and twice the training length) }.
   * `progress(stage, fraction?)` is called between stages, and with the share of the map done
   * between its chunks (pooled-map.js); `signal` (an AbortSignal) cancels the run there: it
   * rejects with a CancelledError (name 'Cancelled') and keeps no half-computed map.
   */
  async run(request, progress = () => {}, signal = null) {
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
    if (analysis.result.tokens.count > n)
      notes.push(
        `The heatmaps show the first ${n.toLocaleString('en')} of ${analysis.result.tokens.count.toLocaleString('en')} tokens.`,
      );
    const summary = request.summary ? this._analysisSummary(analysis) : null;
    if (n === 0)
      return { side, analysis: summary, n: 0, notes: ['The code has no tokens.'], timings };

    t = now();
    const file = state.source === 'file' ? this._qkFile(request, state, analysis, notes) : null;
    // Each side's own facts: a real model's head dim and trained length (model-sides.js).
    const { schemes, extras, reach, facts } = await this.models.sides(
      state,
      file?.headDim ?? null,
      notes,
    );
    const other = side === 'a' ? 'b' : 'a';
    const qk = file ?? this._qkAt(state, analysis, facts[side].headDim);
    // The other side's q/k, where its head dim differs (the comparison recomputes its rows here).
    const otherQK = file ?? this._qkAt(state, analysis, facts[other].headDim);
    timings.qk = now() - t;
    const headDim = qk.headDim;
    const stage = `attention ${side.toUpperCase()}`;
    progress(stage);
    this._chunking = { progress: (fraction) => progress(stage, fraction), signal };
    t = now();
    const grid = this._grid(request.view);
    const pooled = await this._attention(schemes[side], qk, analysis, grid, extras[side]);
    // Both schemes' calls as they are now (the other's may change while this side's is cached).
    const otherExtras = { ...extras[other], q: otherQK.q, k: otherQK.k, headDim: otherQK.headDim };
    this._side.argsOf = bothCalls(this._side.args, schemes, side, analysis.positions, {
      ...extras,
      [other]: otherExtras,
    });
    timings.attention = now() - t;

    const views = {};
    t = now();
    if (request.views !== false) {
      progress('views');
      // A real model's sliding or chunked layer sees no key further back than its window or
      // chunk (model-sides.js reach): its angle and decay views stop there.
      const asked = viewLength(request.viewLength);
      const length = reach[side] ? Math.max(2, Math.min(asked || Infinity, reach[side])) : asked;
      // Judged at the side's own training length (a model's trained length).
      const train = facts[side].train;
      // At the code's own span (the positions it reaches), whatever length the decay view runs to.
      const angleOptions = {
        reach: reach[side],
        reachKind: extras[side].mask?.type ?? null,
        scaledAfterTraining: facts[side].scaledAfterTraining ?? true,
      };
      views.angles = this._cached(
        `angles|${JSON.stringify(schemes[side])}|${headDim}|${train}|${analysis.version}|${JSON.stringify(angleOptions)}`,
        () =>
          angleView(this.hr, { ...state, train }, schemes[side], headDim, analysis, angleOptions),
      );
      const maxDistance = length
        ? length - 1
        : Math.min(
            this.hr.limits.maxTokens - 1,
            Math.max(analysis.positions.token[analysis.n - 1] + 1, 2 * facts[side].train, 256),
          );
      views.decay = this._cached(
        `decay|${JSON.stringify(schemes[side])}|${headDim}|${maxDistance}`,
        () => decayView(this.hr, schemes[side], headDim, maxDistance),
      );
      views.maxDistance = maxDistance;
      views.reach = reach[side]; // a sliding or chunked layer's window or chunk (0: none)
    }
    if (request.distances)
      views.distances = distanceViews(this.hr, schemes, headDim, analysis, (key, compute) =>
        this._cached(key, compute),
      );
    timings.views = now() - t;

    // With request.reuse, a run that would send exactly what the last one sent says so instead
    // (the page keeps the last result): the other scheme's slider moves cost this side nothing.
    const signature = JSON.stringify([
      analysis.version,
      this._side.key,
      grid,
      views.angles?.key,
      views.decay?.key,
      views.distances?.key,
      request.summary,
      notes,
      facts[side],
    ]);
    this._lastSignature = request.reuse ? signature : null;
    if (request.reuse && lastSignature === signature) return { side, n, unchanged: true, timings };

    progress('heatmaps');
    t = now();
    const image = this._image(grid, pooled ?? this._pool(grid));
    timings.images = now() - t;
    return {
      side,
      analysis: summary,
      n,
      headDim,
      // The slope ALiBi uses here: the page computes one head (the API's default, heads: 1).
      alibiSlope: state[side].type === 'alibi' ? hr.alibiSlopes(1)[0] : null,
      mask: extras[side].mask ?? null, // a real model's layer mask, in positions (model-sides.js)
      facts: facts[side], // its head dim and training length, and whether it shows a model
      image,
      views,
      notes,
      timings,
      matrix: this._side.version,
    };
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
    const stride = state.stride ?? 1; // token i sits at position i * stride (long positions)
    const key = `${JSON.stringify(options)}|${stride}\u0000${code}`;
    if (this._analysis?.key === key) return this._analysis;
    const result = this.hr.analyze(code, { ...options, timeoutMs: pageParseBudget(code) });
    const n = Math.min(result.tokens.count, MAX_ATTENTION_TOKENS);
    const p = result.positions;
    const positions = {
      token: stride === 1 ? p.token.subarray(0, n) : p.token.slice(0, n).map((t) => t * stride),
      unit: p.unit.subarray(0, n),
      statement: p.statement.subarray(0, n),
    };
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
      units: r.units.map(({ index, kind, name, nodeType, languageKind, start, end }) => ({
        index,
        kind,
        name,
        nodeType,
        languageKind,
        start,
        end,
      })),
      errors: r.errors.map(({ start, end, byteStart, byteEnd, missing }) => ({
        start,
        end,
        byteStart,
        byteEnd,
        missing,
      })),
      statements: r.statements,
      version: analysis.version,
    };
  }

  // The q/k of a q/k file (its own head dim), checked against the code's tokens.
  _qkFile(request, state, analysis, notes) {
    const n = analysis.n;
    if (typeof request.qkFile !== 'string')
      throw new PlaygroundError('Q/K source "file": load a q/k JSON file first');
    if (this._file?.text !== request.qkFile)
      this._file = {
        text: request.qkFile,
        parsed: parseQKFile(request.qkFile),
        version: (this._file?.version ?? 0) + 1,
      };
    const f = this._file.parsed;
    if (f.n < n)
      throw new PlaygroundError(
        `the q/k file has ${plural(f.n, 'row')} but the code has ${plural(n, 'token')}; it needs one row per token`,
      );
    if (f.n > n)
      notes.push(
        `The q/k file has ${plural(f.n, 'row')}; the first ${n === 1 ? 'is' : `${n} are`} used.`,
      );
    if (f.headDim !== state.headDim)
      notes.push(`Head dimension ${f.headDim} comes from the q/k file.`);
    const key = `file:${this._file.version}:${n}:${analysis.version}`;
    if (this._qkFromFile?.key !== key)
      this._qkFromFile = {
        key,
        q: f.q.subarray(0, n * f.headDim),
        k: f.k.subarray(0, n * f.headDim),
        headDim: f.headDim,
      };
    return this._qkFromFile;
  }

  // Content-free or seeded q/k at a head dim (each side's own: a real model's layer has its own),
  // the last two kept.
  _qkAt(state, analysis, headDim) {
    const n = analysis.n;
    const key = `${state.source}:${state.seed}:${headDim}:${analysis.version}`;
    let qk = this._qks.find((x) => x.key === key);
    if (!qk) {
      const ids = analysis.result.tokens.ids.subarray(0, n);
      const { q, k } = this.hr.qk({
        source: state.source,
        n,
        headDim,
        tokenIds: ids,
        seed: state.seed,
      });
      qk = { key, q, k, headDim };
      this._qks = [qk, ...this._qks].slice(0, 2);
    }
    return qk;
  }

  // The side's attention, pooled for `grid` (the core pools each strip of rows while it is in
  // WebAssembly memory and keeps nothing); null when it is cached and needs pooling anew.
  async _attention(scheme, qk, analysis, grid, extras = {}) {
    const n = analysis.n;
    const key = `${JSON.stringify([scheme, extras, [...(extras.sinks ?? [])]])}|${qk.key}`;
    if (this._side?.key === key) return null;
    const cells = grid.rows * grid.cols;
    const pool = {
      rows: grid.rows,
      cols: grid.cols,
      region: grid.region,
      ratio: new Float32Array(cells),
      raw: new Float32Array(cells),
      rowMax: new Float32Array(n),
    };
    const args = {
      q: qk.q,
      k: qk.k,
      n,
      headDim: qk.headDim,
      positions: positionsFor(scheme, analysis.positions),
      scheme,
      causal: true,
      output: 'probs',
      ...extras, // a real model's layer: its mask, sinks, temperature
    };
    this._side = null; // a failed call leaves no stale matrix behind
    // WebGPU computes a whole matrix: within the output limit (16,384 tokens); chunks beyond.
    await (this.async && n * n <= this.hr.limits.maxOutputElements
      ? this.hr.attentionAsync({ ...args, matrix: false, pool })
      : poolInChunks(this.hr, args, pool, this._chunking));
    this._side = {
      key,
      args, // the call, for rows recomputed on demand
      rowMax: pool.rowMax,
      scheme,
      stats: null,
      version: ++this._sideVersion,
      pooled: { key: JSON.stringify(grid), value: pool },
    };
    return pool;
  }

  _grid(view = {}) {
    return gridFor(view, this._analysis.n);
  }

  // Pools the stored matrix for a grid (zoom, a cached side), reusing the last pooling of that grid.
  _pool(grid) {
    const key = JSON.stringify(grid);
    if (this._side.pooled?.key === key) return this._side.pooled.value;
    // Only the region's rows are recomputed and pooled.
    const { region, rows, cols } = grid;
    const value = {
      rows,
      cols,
      region,
      ratio: new Float32Array(rows * cols),
      raw: new Float32Array(rows * cols),
    };
    this.hr.attention({
      ...this._side.args,
      rows: [region.r0, region.r1],
      matrix: false,
      pool: value,
    });
    this._side.pooled = { key, value };
    return value;
  }

  _image(grid, pooled) {
    // raw is copied: the pooled arrays stay cached here while the image is transferred away.
    return { ...heatImage(grid, pooled), raw: pooled.raw.slice() };
  }

  /** The language whose grammar parses the code best (language-detection.js). */
  detectLanguage(code) {
    return detectLanguage(this.hr, code);
  }

  _require() {
    if (!this._side || !this._analysis?.n)
      throw new PlaygroundError('nothing has been computed yet');
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
    return { probs: this._row(i).slice(0, i + 1), max: s.rowMax[i] };
  }

  // Row i of this side's matrix (n values), recomputed; the last one is kept, so that a hover that
  // moves along a row, or a click and the hover card on its row, compute it once.
  _row(i) {
    const s = this._side;
    if (s.lastRow?.i !== i) s.lastRow = { i, probs: attentionRows(this.hr, s.args, i, i + 1) };
    return s.lastRow.probs;
  }

  // Per-row numbers of this side's matrix (rowStats), computed once per matrix and only when the
  // page asks for the comparison, after the maps are on screen.
  _stats() {
    const s = this._require();
    const p = this._analysis.positions;
    s.stats ??= stripStats(this.hr, s.args, p);
    return s.stats;
  }

  /** A copy of the whole probability matrix (n x n), to compare with the other side's, and its per-row numbers. */
  exportProbs() {
    const s = this._require();
    wholeMatrixAllowed(this._analysis.n);
    return {
      n: this._analysis.n,
      probs: attentionRows(this.hr, s.args, 0, this._analysis.n),
      stats: this._stats(),
    };
  }

  /**
   * TV and KL per row between another side's matrix (as A) and this side's (as B), and this side's
   * per-row numbers. With `other` = { rows: [r0, r1] } instead, both schemes' rows r0 .. r1-1 are
   * recomputed here from q/k and compared (compareStrips): no matrix crosses between workers.
   */
  compare(other) {
    const s = this._require();
    const n = this._analysis.n;
    if (other && !('probs' in other) && Array.isArray(other.rows)) {
      const [r0, r1] = other.rows;
      if (!Number.isInteger(r0) || !Number.isInteger(r1) || r0 < 0 || r0 > r1 || r1 > n)
        throw new PlaygroundError(`no rows [${r0}, ${r1}) of ${n}`);
      return compareStrips(this.hr, s.argsOf.a, s.argsOf.b, this._analysis.positions, r0, r1);
    }
    if (
      !other ||
      other.n !== n ||
      !(other.probs instanceof Float32Array) ||
      other.probs.length !== n * n
    )
      throw new PlaygroundError('the two sides disagree on the token count; run both first');
    wholeMatrixAllowed(n);
    const cmp = { tv: new Float32Array(n), kl: new Float32Array(n) };
    eachStrip(this.hr, s.args, 0, n, (b, s0, s1) =>
      compareRows(other.probs.subarray(s0 * n, s1 * n), b, n, s0, s1, cmp),
    );
    return { ...cmp, stats: this._stats() };
  }

  /**
   * One cell: probability p(query i -> key j), whether the side's mask hides the key (a real
   * model's sliding window or chunk, or the causal mask: the core's logit is -Infinity there), and
   * the distance each frequency band sees (null where masked: the layer sees no such distance).
   */
  cell(i, j) {
    const s = this._require();
    const n = this._analysis.n;
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= n || j >= n)
      throw new PlaygroundError(`no cell (${i}, ${j})`);
    const p = this._analysis.positions;
    const pick = (arr) => Int32Array.of(arr[j], arr[i]);
    const positions = positionsFor(s.scheme, {
      token: pick(p.token),
      unit: pick(p.unit),
      statement: pick(p.statement),
    });
    // The core's own mask: the row's logit is -Infinity for a key the side does not see (only a
    // real model's sliding or chunked layer hides keys before the query).
    const layerMask = Boolean(s.args.mask) && s.args.mask.type !== 'full';
    const masked =
      j > i ||
      (layerMask &&
        this.hr.attention({ ...s.args, output: 'logits', rows: [i, i + 1] })[j] === -Infinity);
    // Two tokens (key first) give the pair's relative distance per band at index [1][0].
    const bands = this.hr
      .relativeDistances({ n: 2, headDim: s.args.headDim, positions, scheme: s.scheme })
      .map((b) => ({
        name: b.name,
        pairs: [b.pairBegin, b.pairEnd],
        distance: masked ? null : b.distances[2],
      }));
    return { p: masked ? 0 : this._row(i)[j], masked, bands };
  }

  /** The probabilities of a region, row-major (NaN where masked), for CSV export. */
  values(region) {
    // The region's rows, recomputed strip by strip, into a region-sized array.
    const s = this._require();
    const n = this._analysis.n;
    const r = clampRegion(region, n);
    if ((r.r1 - r.r0) * (r.c1 - r.c0) > MAX_VALUES) return matrixValues(null, n, r); // throws
    const width = r.c1 - r.c0;
    const values = new Float32Array((r.r1 - r.r0) * width);
    eachStrip(this.hr, s.args, r.r0, r.r1, (strip, s0, s1) => {
      for (let i = s0; i < s1; i++)
        for (let j = r.c0; j < r.c1; j++)
          values[(i - r.r0) * width + j - r.c0] = j > i ? NaN : strip[(i - s0) * n + j];
    });
    return { region: r, values };
  }
}
