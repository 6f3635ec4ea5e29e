// A Hugging Face checkpoint's real attention for the <hirope-attention> element's checkpoint
// attribute: the folder fetched once per worker (so once per page, whatever the number of
// elements), its size checked against the element's max-bytes before the weights download, and
// one layer's and head's attention under the model's own positions (A) and a scheme swapped in
// on the same weights (B), pooled into the heatmaps' images. Pure of DOM, so Node tests drive it.
import { PlaygroundError } from './playground-error.js';
import { gridFor, poolMatrix, heatImage } from './matrix-view.js';
import { clipUtf8 } from './model-engine.js';
import { layerKind } from '../shared/model-gallery.js';
import { CHECKPOINT_TOKENS } from '../shared/checkpoint.js';
import { CATALOGUE } from '../shared/core-catalogue.js';

/**
 * The API scheme of one side { type, ...the attributes given }: 'rope' without a scaling is the
 * model's own positions (each layer as its config sets it up); any other replaces the positions
 * of every RoPE layer, the API filling in what is not given from the model (its base, layout and
 * training length; a window of half of it).
 */
export function checkpointSchemeOf(side) {
  const { type, scaling, factor, window, group, leakyFactor, ratio, levels, segment } = side;
  if (type === 'rope' && (scaling ?? 'none') === 'none') return 'model';
  const scheme = { type };
  if (scaling !== undefined && scaling !== 'none')
    scheme.scaling = { type: scaling, ...(factor !== undefined && { factor }) };
  // Only what this scheme takes (the attributes are the element's, for both sides).
  const takes = CATALOGUE.schemes.find((x) => x.name === type)?.parameters ?? [];
  const given = { window, group, leakyFactor, ratio, levels, segmentSize: segment };
  for (const [key, value] of Object.entries(given))
    if (value !== undefined && takes.includes(key)) scheme[key] = value;
  return scheme;
}

const NO_TOKENIZER = 'no tokenizer.json';
const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;

// The API's words for what went wrong, as one sentence the element shows.
function readable(e, url) {
  const message = String(e?.message ?? e);
  const missing = /cannot fetch (\S+) from \S+: HTTP 404/.exec(message);
  if (missing)
    return `The checkpoint folder ${url} has no ${missing[1]} (the server answered 404).`;
  const refused = /cannot fetch (\S+) from \S+: (?!HTTP)/.exec(message);
  if (refused)
    return `The checkpoint's ${refused[1]} could not be fetched from ${url}: the server did not answer, or it does not allow this page's origin (CORS).`;
  const status = /cannot fetch (\S+) from \S+: HTTP (\d+)/.exec(message);
  if (status)
    return `The checkpoint's ${status[1]} could not be fetched from ${url}: the server answered HTTP ${status[2]}.`;
  const large = /^the checkpoint's files take (.*), more than maxBytes (.*?)(, and more.*)?$/.exec(
    message,
  );
  if (large)
    return `The checkpoint's files take ${large[1]}, more than this element's max-bytes of ${large[2]}: raise max-bytes to show it.`;
  if (message === NO_TOKENIZER)
    return `The checkpoint at ${url} has no tokenizer.json, which the element needs to read code.`;
  return `The checkpoint at ${url} cannot be shown: ${message.replace(/\.$/, '')}.`;
}

export class CheckpointEngine {
  constructor(hr) {
    this.hr = hr;
    this._models = new Map(); // url -> Promise of { model, bytes }
  }

  /**
   * The checkpoint at `url` (an absolute folder URL), loaded once: maxBytes refuses it (and a
   * later request with a smaller maxBytes refuses the loaded one) before its weights download;
   * progress({ stage, loaded, total }) as the API reports it.
   */
  async open(url, maxBytes, progress) {
    // A load under a smaller max-bytes may refuse what this request allows: then this one loads
    // under its own (whichever element asked first).
    const earlier = this._models.get(url);
    if (earlier && earlier.maxBytes < maxBytes) {
      const loaded = await earlier.promise.then(
        () => true,
        () => false,
      );
      if (!loaded && this._models.get(url) === earlier) this._models.delete(url);
    }
    if (!this._models.has(url)) {
      const promise = (async () => {
        // Code needs the checkpoint's tokenizer: a folder without one is refused before its
        // weights download (the API would load it, for ids only).
        // (A folder without config.json is not a checkpoint: the API says so.)
        const head = (name) => fetch(new URL(name, url), { method: 'HEAD' }).catch(() => null);
        const [config, tokenizer] = await Promise.all([
          head('config.json'),
          head('tokenizer.json'),
        ]);
        if (config?.ok && tokenizer?.status === 404) throw new Error(NO_TOKENIZER);
        let bytes = 0; // the weights' bytes downloaded
        const model = await this.hr.model.fromPretrained(url, {
          maxBytes,
          onProgress: (p) => {
            if (p.stage === 'download') bytes = p.loaded;
            progress?.(p);
          },
        });
        return { model, bytes };
      })();
      const entry = { promise, maxBytes };
      this._models.set(url, entry);
      // A failed load is tried again by the next request.
      promise.catch(() => this._models.get(url) === entry && this._models.delete(url));
    }
    let entry;
    try {
      entry = await this._models.get(url).promise;
    } catch (e) {
      throw new PlaygroundError(readable(e, url));
    }
    // Loaded for another element with a larger max-bytes: this one's limit still holds.
    if (entry.bytes > maxBytes)
      throw new PlaygroundError(
        `The checkpoint's weights take ${megabytes(entry.bytes)} (${entry.bytes} bytes), more than this element's max-bytes of ${megabytes(maxBytes)} (${maxBytes} bytes): raise max-bytes to show it.`,
      );
    return entry.model;
  }

  /**
   * One layer's and head's attention of the checkpoint on the code, A under sides.a and B under
   * sides.b (checkpointSchemeOf): { n, clipped, tokens, units (each token's unit, for the maps'
   * strips), images: { rows, cols, region, a, b, raw, rawB }, model: { modelType, layers, heads,
   * parameters, weightBytes, trainingContext, layer (its kind in words) } }.
   */
  async maps({ url, maxBytes, code, language, layer, head, a, b, view = {} }, progress) {
    const model = await this.open(url, maxBytes, progress);
    const { layers, heads } = model.config;
    if (!Number.isInteger(layer) || layer < 0 || layer >= layers)
      throw new PlaygroundError(
        `The layer attribute must name a layer of the checkpoint: it has no layer ${layer} (its ${layers} layers are 0 to ${layers - 1}).`,
      );
    if (!Number.isInteger(head) || head < 0 || head >= heads)
      throw new PlaygroundError(
        `The head attribute must name a head of the checkpoint: it has no head ${head} (its ${heads} heads are 0 to ${heads - 1}).`,
      );
    if (!model.tokenizer)
      throw new PlaygroundError(
        `The checkpoint at ${url} has no tokenizer.json, which the element needs to read code.`,
      );
    const { bytes } = clipUtf8(code, model.maxInputBytes);
    const { tokens } = model.positions(bytes, { hierarchy: 'segments' });
    const total = tokens.ids.length;
    const input =
      total > CHECKPOINT_TOKENS ? bytes.subarray(0, tokens.start[CHECKPOINT_TOKENS]) : bytes;
    const sides = {};
    for (const [name, side] of [
      ['a', a],
      ['b', b],
    ]) {
      progress?.({ stage: 'attention', side: name });
      const r = model.attention(input, { scheme: checkpointSchemeOf(side), language, layer, head });
      const grid = gridFor(view, r.n);
      const pooled = poolMatrix(this.hr, r.matrix, r.n, grid);
      sides[name] = {
        n: r.n,
        image: { ...heatImage(grid, pooled), raw: pooled.raw },
        unit: r.positions.unit,
      };
    }
    const setup = JSON.parse(model.config.setup);
    const { region, rows, cols } = sides.a.image;
    return {
      n: sides.a.n,
      total,
      clipped: total > CHECKPOINT_TOKENS,
      units: sides.a.unit,
      images: {
        region,
        rows,
        cols,
        a: sides.a.image.rgba,
        b: sides.b.image.rgba,
        raw: sides.a.image.raw,
        rawB: sides.b.image.raw,
      },
      model: {
        modelType: model.config.modelType,
        layers,
        heads,
        parameters: model.config.parameters,
        weightBytes: model.config.weightBytes,
        trainingContext: model.config.trainingContext,
        layer: setup.layers?.[layer] ? layerKind(setup.layers[layer]) : null,
      },
    };
  }
}
