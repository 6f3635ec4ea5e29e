// The compute side of the playground's Model mode, for one scheme (one per Web Worker, like
// SideEngine): the code model's per-byte loss, its real attention for a layer and head as a
// pooled image, and generation. Pure of DOM, so Node tests drive it directly.
import { truncateStride } from '../shared/model-state.js';
import { THUMB_SIZE, isBaseline, lossCurve } from '../shared/models.js';
import { recallClasses, tokenRecallClasses } from 'hirope/recall';
import { PlaygroundError } from './playground-error.js';
import { gridFor, poolMatrix, heatImage, matrixRow, matrixValues } from './matrix-view.js';

/** Bytes of code the byte model reads (the rest is noted and left out). */
export const MODEL_BYTES = 4096;
/** Tokens of code the token model reads (the rest is noted and left out), and its attention maps' tokens. */
export const MODEL_TOKENS = 2560;
export const ATTENTION_TOKENS = 1024;

/** Bytes whose attention matrix is shown (n x n floats stay at 4 MB). */
export const ATTENTION_BYTES = 1024;

/**
 * A checkpoint's limits (a real model is ten to a hundred times the shipped ones): the tokens
 * its loss reads, and the tokens of its attention maps, whose every layer and head come from one
 * forward and stay in the worker (layers x heads x n^2 floats: 70 MB for SmolLM2-135M's 30 x 9 at
 * 256), so that a layer or head change draws without a forward.
 */
export const CHECKPOINT_LIMITS = Object.freeze({ tokens: 512, attentionTokens: 256 });

/** The model API options for one side of the model state. */
export function modelOptionsFor(side, language) {
  // A checkpoint's own positions: each layer as its config sets it up.
  if (side.type === 'model') return { scheme: 'model', language };
  if (side.type === 'sliding-window')
    return { scheme: { type: side.type, window: side.window }, language };
  if (side.type === 'truncate')
    return {
      scheme: { type: side.type, length: side.window, stride: truncateStride(side.window) },
      language,
    };
  const scheme = { type: side.type };
  if (side.scaling !== 'none') scheme.scaling = { type: side.scaling, factor: side.factor };
  if (side.type !== 'rope') scheme.window = side.window;
  if (side.type === 'self-extend') scheme.group = side.group;
  if (side.type === 'hirope') scheme.ratio = side.ratio;
  const options = { scheme, language, hierarchy: side.hierarchy };
  if (side.hierarchy === 'segments') options.segmentSize = side.segment;
  return options;
}

/**
 * The first `limit` bytes of text's UTF-8, cut at a character boundary; the characters kept, and
 * the whole text's bytes (total).
 */
export function clipUtf8(text, limit) {
  const bytes = new TextEncoder().encode(text);
  const total = bytes.length;
  if (total <= limit) return { bytes, chars: text.length, clipped: false, total };
  let end = limit;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // not inside a multi-byte character
  const kept = bytes.subarray(0, end);
  return { bytes: kept, chars: new TextDecoder().decode(kept).length, clipped: true, total };
}

export class ModelEngine {
  /**
   * checkpointInstance(): a Promise of the instance a checkpoint loads on, whose lossAsync runs
   * its linear layers and attention on the GPU, or of null (this.hr, WebAssembly).
   */
  constructor(hr, { checkpointInstance = async () => null } = {}) {
    this.hr = hr;
    this._checkpointInstance = checkpointInstance;
    this._onGPU = new WeakSet(); // the checkpoints loaded on the GPU instance
    this.model = null;
    this._loading = null;
    this.matrix = null;
    this._all = null; // a checkpoint's every-head attention of the last input (_allOf)
    this.n = 0;
    /**
     * Passes run so far: loss (forward over the whole code), attention (the main heatmap),
     * thumbnails, forwards (a checkpoint's every-head forwards, which its maps and thumbnails share).
     */
    this.counts = { loss: 0, attention: 0, thumbnails: 0, forwards: 0 };
    this._thumbs = { key: null, images: new Map() }; // pooled thumbnails of one input, by layer * heads + head
    this._models = new Map(); // name -> Promise of the loaded model
    this.name = null; // the model requests use
  }

  /**
   * Loads the weights once: from `data` (the bytes, which the page fetches once for both
   * workers) or else from the package's own data/pybyte.hrm (a fetch of about 1.3 MB).
   */
  async load(data, name, files, onProgress) {
    if (name === undefined) {
      // The page's first request names no model: the package's own byte model, or the one loaded.
      if (this.name) return this.load(undefined, this.name);
      name = 'pybyte';
    }
    if (files) {
      // A checkpoint's files (Blobs, read a slice at a time): it replaces the one loaded before.
      const previous = this._models.get(name);
      this._models.delete(name);
      if (this.name === name) this.name = null;
      previous?.then((m) => m.dispose()).catch(() => {});
      this._models.set(
        name,
        this._checkpointInstance().then(async (gpu) => {
          const model = await (gpu ?? this.hr).model.fromPretrained(files, { onProgress });
          if (gpu) this._onGPU.add(model);
          return model;
        }),
      );
      this._models.get(name).catch(() => this._models.delete(name));
    }
    if (!this._models.has(name))
      this._models.set(name, this.hr.model.load(data ? { data } : { name }));
    const model = await this._models.get(name);
    if (this.name !== name) {
      this.name = name;
      this.model = model;
      this.matrix = null;
      this._all = null;
      this._thumbs = { key: null, images: new Map() };
    }
    return model;
  }

  /**
   * A token model's input: the text cut at MODEL_TOKENS tokens (and first at the bytes one call
   * accepts), its bytes, the limit that cut it (clippedAt: { limit, unit }, null when whole), the
   * code's bytes, and the text of its first ATTENTION_TOKENS tokens.
   */
  _tokenText(code) {
    const model = this.model;
    const limit = model.checkpoint ? CHECKPOINT_LIMITS.tokens : MODEL_TOKENS;
    const first = clipUtf8(code, model.maxInputBytes); // what one call accepts
    const { tokens } = model.positions(first.bytes, { hierarchy: 'segments' });
    const n = tokens.ids.length;
    const cut = n > limit ? tokens.start[limit] : first.bytes.length;
    const bytes = first.bytes.subarray(0, cut);
    const m = Math.min(
      n,
      limit,
      model.checkpoint ? CHECKPOINT_LIMITS.attentionTokens : ATTENTION_TOKENS,
    );
    const attentionBytes = m < n ? tokens.start[m] : cut;
    // The token limit cuts first when the bytes one call accepts hold more tokens than it.
    const clippedAt =
      n > limit
        ? { limit, unit: 'token' }
        : first.clipped
          ? { limit: model.maxInputBytes, unit: 'byte' }
          : null;
    return {
      bytes,
      count: Math.min(n, limit),
      clipped: clippedAt !== null,
      clippedAt,
      totalBytes: first.total,
      attentionText: bytes.subarray(0, attentionBytes),
    };
  }

  /**
   * The bytes the model reads, the limit that cut them (clippedAt) and the code's bytes, the model
   * options, the attention's input (its first `m` bytes, or a token model's text of its first
   * ATTENTION_TOKENS tokens) and the key of the attention input.
   */
  _input(code, side, language) {
    const token = Boolean(this.model.tokenizer);
    const byteInput = () => {
      const r = clipUtf8(code, MODEL_BYTES);
      return {
        ...r,
        totalBytes: r.total,
        clippedAt: r.clipped ? { limit: MODEL_BYTES, unit: 'byte' } : null,
      };
    };
    const {
      bytes,
      count = bytes.length,
      clipped,
      clippedAt,
      totalBytes,
      attentionText,
    } = token ? this._tokenText(code) : byteInput();
    if (bytes.length < 2)
      throw new PlaygroundError(
        bytes.length === 0
          ? 'The editor is empty: paste or type some code for the model to read.'
          : 'The model needs at least 2 bytes of code: paste or type some more.',
      );
    const options = modelOptionsFor(side, language);
    const m = Math.min(bytes.length, ATTENTION_BYTES);
    const attentionInput = token ? attentionText : bytes.subarray(0, m);
    const key = `${this.name}|${JSON.stringify(options)}|${new TextDecoder().decode(attentionInput)}`;
    return { bytes, count, clipped, clippedAt, totalBytes, options, m, attentionInput, key };
  }

  /**
   * run({ code, side, language, layer, head, view: { size, region }, parts: { loss, attention } })
   * -> { n, clipped, clippedAt ({ limit, unit } that cut the code, or null), totalBytes (the
   * code's), config, ran, counts, timings } with, when parts.loss (the default): losses,
   * bitsPerByte, curve, byteUnits; when parts.attention (the default): image, units, attentionBytes. A layer
   * or head change asks for the attention alone: the loss does not depend on them.
   */
  async run({ code, side, language, layer = 0, head = 0, view = {}, parts = {}, model: name }) {
    const wantLoss = parts.loss !== false;
    const wantAttention = parts.attention !== false;
    const t0 = performance.now();
    const model = await this.load(undefined, name);
    const tLoad = performance.now();
    const { bytes, count, clipped, clippedAt, totalBytes, options, attentionInput, key } =
      this._input(code, side, language);
    const token = Boolean(model.tokenizer);
    // n counts the model's units (a token model: its tokens, bytes: the bytes read) whichever parts
    // run: an attention-only reply merges into the last loss result, whose n it must not change.
    const out = {
      n: count,
      ...(token ? { bytes: bytes.length } : {}),
      clipped,
      clippedAt,
      totalBytes,
      config: model.config,
      unit: token ? 'token' : 'byte',
      ran: { loss: wantLoss, attention: wantAttention },
    };
    // Where the loss runs: a checkpoint on the GPU instance, its linear layers and attention there.
    out.backend = this._onGPU.has(model)
      ? `${this.hr.backend}, its loss on WebGPU`
      : this.hr.backend;
    if (wantLoss) {
      // lossAsync is loss() on an instance without a GPU.
      const r = model.checkpoint
        ? await model.lossAsync(bytes, options)
        : model.loss(bytes, options);
      this.counts.loss++;
      // byteUnits: the unit of every byte (a token model: every token) read (for the code's hover
      // cards); recall: the class of every byte or token (far-recall: a name whose previous use is
      // more than the training context back). A token model's n counts tokens, with their ids and
      // byte spans.
      Object.assign(out, {
        losses: r.losses,
        bitsPerByte: r.bitsPerByte,
        curve: lossCurve(r.losses),
        byteUnits: r.positions.unit,
        recall: token
          ? tokenRecallClasses(bytes, r.tokens.start, r.tokens.end, model.config.trainingContext)
          : recallClasses(bytes, model.config.trainingContext),
      });
      if (token)
        Object.assign(out, {
          n: r.n,
          bytes: bytes.length,
          bitsPerToken: r.bitsPerToken,
          tokens: r.tokens,
        });
    }
    const tLoss = performance.now();
    let tAttention = tLoss;
    if (wantAttention) {
      const {
        matrix,
        positions,
        n: m,
      } = model.checkpoint && !isBaseline(options.scheme?.type)
        ? this._headOf(this._allOf(attentionInput, options, key), layer, head)
        : model.attention(attentionInput, { ...options, layer, head });
      this.counts.attention++;
      this.matrix = matrix;
      this.n = m;
      tAttention = performance.now();
      out.image = this.images(view);
      // The units the attention used (the heatmaps' strips): a copy, since the reply transfers
      // it and a checkpoint's positions stay in the every-head cache.
      out.units = positions.unit.slice();
      out.attentionBytes = m;
      // The same matrix gives this layer's and head's thumbnail for free.
      this._thumbsOf(key).set(
        layer * model.config.heads + head,
        this._pooled(matrix, m, THUMB_SIZE, null),
      );
    }
    out.counts = { ...this.counts };
    out.timings = {
      load: tLoad - t0,
      loss: tLoss - tLoad,
      attention: tAttention - tLoss,
      image: performance.now() - tAttention,
    };
    return out;
  }

  /**
   * Every layer's and head's attention over the input from one forward, kept for the last input
   * (a checkpoint's maps: a layer or head change, and its thumbnails, need no forward).
   */
  _allOf(input, options, key) {
    if (this._all?.key !== key) {
      this._all = null; // the old matrices go before the new ones are made
      this._all = { key, ...this.model.attentionAll(input, options) };
      this.counts.forwards++;
    }
    return this._all;
  }

  /** One layer's and head's matrix of _allOf's: { matrix, positions, n }. */
  _headOf(all, layer, head) {
    const at = (layer * all.heads + head) * all.n * all.n;
    return {
      matrix: all.matrices.subarray(at, at + all.n * all.n),
      positions: all.positions,
      n: all.n,
    };
  }

  _thumbsOf(key) {
    if (this._thumbs.key !== key) this._thumbs = { key, images: new Map() };
    return this._thumbs.images;
  }

  /**
   * One layer's and head's attention over the same bytes as the heatmaps, pooled to a
   * size x size thumbnail in the heatmaps' colours: { layer, head, rgba, rows, cols, cached }.
   * Thumbnails are kept for the last input, so each is computed once per code and scheme.
   */
  async thumbnail({ code, side, language, layer, head, size = THUMB_SIZE, model: name }) {
    const model = await this.load(undefined, name);
    const { options, attentionInput, key } = this._input(code, side, language);
    const images = this._thumbsOf(key);
    const index = layer * model.config.heads + head;
    let image = images.get(index);
    const cached = Boolean(image);
    if (!cached && !isBaseline(options.scheme.type)) {
      // Every layer's and head's from one forward (the page asks for them all, one at a time);
      // a checkpoint's from the forward its heatmaps keep.
      const {
        matrices,
        n: m,
        layers,
        heads,
      } = model.checkpoint
        ? this._allOf(attentionInput, options, key)
        : model.attentionAll(attentionInput, options);
      for (let l = 0; l < layers; l++)
        for (let h = 0; h < heads; h++) {
          const at = l * heads + h;
          if (images.has(at)) continue;
          images.set(
            at,
            this._pooled(matrices.subarray(at * m * m, (at + 1) * m * m), m, size, null),
          );
          this.counts.thumbnails++;
        }
      image = images.get(index);
    } else if (!cached) {
      // A baseline's windows differ per row: one layer and head at a time.
      const { matrix, n: m } = model.attention(attentionInput, { ...options, layer, head });
      this.counts.thumbnails++;
      image = this._pooled(matrix, m, size, null);
      images.set(index, image);
    }
    // A copy goes out (the transfer detaches it); the cache keeps its own.
    return {
      layer,
      head,
      rgba: image.rgba.slice(),
      rows: image.rows,
      cols: image.cols,
      cached,
      counts: { ...this.counts },
    };
  }

  /** A matrix pooled to at most size x size cells over a region, coloured and masked. */
  _pooled(matrix, n, size, region) {
    const grid = gridFor({ size, region }, n);
    return heatImage(grid, poolMatrix(this.hr, matrix, n, grid));
  }

  /** The last attention matrix pooled to at most size x size cells over a byte region. */
  images({ size = 512, region = null } = {}) {
    return this._pooled(this.matrix, this.n, size, region);
  }

  /** One query's attention row (keys 0..index) and its maximum. */
  row(index) {
    return matrixRow(this.matrix, this.n, index);
  }

  /** Probabilities over a region, row-major, NaN where masked (the attention mode's rule), for CSV export. */
  values(region) {
    if (!this.matrix) throw new PlaygroundError('nothing has been computed yet');
    return matrixValues(this.matrix, this.n, region);
  }

  /**
   * Continues the code (its first promptLimit bytes, to leave room for the output) under this
   * side's scheme: { text, promptBytes, promptChars (the prompt's UTF-16 length), promptLimit,
   * codeBytes, bytes, ms, bytesPerSecond }.
   */
  async generate({ code, side, language, maxBytes, temperature, seed, model: name }) {
    const model = await this.load(undefined, name);
    // The prompt leaves room for the output in one run (and the byte model reads MODEL_BYTES).
    const room = model.maxInputBytes - maxBytes;
    const promptLimit = model.tokenizer ? room : Math.min(room, MODEL_BYTES);
    const { bytes, chars, total } = clipUtf8(code, promptLimit);
    if (bytes.length < 1) throw new PlaygroundError('Generation needs some code to continue.');
    const t0 = performance.now();
    const { text, bytes: out } = model.generate(bytes, {
      ...modelOptionsFor(side, language),
      maxBytes,
      temperature,
      seed,
    });
    const ms = performance.now() - t0;
    return {
      text,
      promptBytes: bytes.length,
      promptChars: chars,
      promptLimit,
      codeBytes: total,
      bytes: out.length,
      ms,
      bytesPerSecond: (1000 * out.length) / ms,
    };
  }
}
