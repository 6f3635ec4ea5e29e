// Both sides' attention calls where a side shows a real model: the model's setup (hr.fromConfig on
// a gallery config, fetched once from the site's data/configs/, or on the person's own text), and
// the chosen layer's scheme, mask, sinks and temperature (shared/model-gallery.js layerCall).
import { schemeFor } from '../shared/playground-state.js';
import { modelSource, galleryPath, layerCall } from '../shared/model-gallery.js';
import { assetURL } from '../shared/hashed-assets.js';
import { PlaygroundError } from './playground-error.js';

/** A gallery config's text, from beside this module (the site's data/configs/). */
export async function fetchGalleryConfig(id) {
  const url = assetURL(galleryPath(id), import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new PlaygroundError(`${url} answered ${response.status}`);
  return response.text();
}

/** Reads and keeps model setups by source: a gallery id or the config's own text. */
export class ModelSetups {
  constructor(hr, loadConfig = fetchGalleryConfig) {
    this.hr = hr;
    this.loadConfig = loadConfig;
    this._setups = new Map();
  }

  /** The setup of a side's model source ({ id } or { config }). */
  async setup(source) {
    const key = source.id ? `id:${source.id}` : `config:${source.config}`;
    if (!this._setups.has(key)) {
      const text = source.id ? await this.loadConfig(source.id) : source.config;
      let setup;
      try {
        setup = this.hr.fromConfig(text);
      } catch (e) {
        throw new PlaygroundError(`the config.json could not be read: ${e.message}`);
      }
      if (this._setups.size > 8) this._setups.clear();
      this._setups.set(key, setup);
    }
    return this._setups.get(key);
  }

  /**
   * Both sides' schemes and call extras ({ mask, sinks, temperature } where a layer has them), the
   * reach of a sliding or chunked layer (its window or chunk, in positions; 0: none), and each
   * side's own facts: { headDim, train, model, nope } (a model side's are its layer's head dim
   * and the model's trained length, so that two models keep theirs; another side's are the page's
   * settings). `qkHeadDim` is the q/k file's head dim, or null for q/k made at any head dim;
   * a model layer with another head dim than the file's gets a note.
   */
  async sides(state, qkHeadDim = null, notes = []) {
    const schemes = {};
    const extras = {};
    const reach = { a: 0, b: 0 };
    const facts = {};
    for (const name of ['a', 'b']) {
      const side = state[name];
      const source = modelSource(side);
      if (!source) {
        schemes[name] = schemeFor(side, state);
        extras[name] = {};
        facts[name] = { headDim: qkHeadDim ?? state.headDim, train: state.train, model: false };
        continue;
      }
      const setup = await this.setup(source);
      let call;
      try {
        call = layerCall(setup, side);
      } catch (e) {
        throw new PlaygroundError(`${name.toUpperCase()}: ${e.message}`);
      }
      schemes[name] = call.scheme;
      extras[name] = call.extras;
      const layer = setup.layers[side.layer];
      reach[name] = layer.attention.window ?? layer.attention.chunkSize ?? 0;
      facts[name] = {
        headDim: qkHeadDim ?? call.headDim,
        train: setup.trainedLength,
        model: true,
        nope: !layer.rope,
        maxLength: setup.maxLength,
        // The config reader's verdict (hr.unseenPairs needs it for a linear scaling).
        scaledAfterTraining: setup.scaledAfterTraining,
      };
      if (qkHeadDim !== null && call.headDim !== qkHeadDim)
        notes.push(
          `${name.toUpperCase()}'s layer has head dim ${call.headDim}; the maps use ${qkHeadDim}, the q/k file's.`,
        );
    }
    return { schemes, extras, reach, facts };
  }
}
