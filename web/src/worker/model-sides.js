// Both sides' attention calls where a side shows a real model: the model's setup (hr.fromConfig on
// a gallery config, fetched once from the site's data/configs/, or on the person's own text), and
// the chosen layer's scheme, mask, sinks and temperature (shared/model-gallery.js layerCall).
import { schemeFor } from '../shared/playground-state.js';
import { modelSource, galleryPath, layerCall, layerIndex } from '../shared/model-gallery.js';
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
   * reach of a sliding or chunked layer (its window or chunk, in positions), and a note where a side's layer has another head dim than the q/k's.
   */
  async sides(state, headDim, notes = []) {
    const schemes = {};
    const extras = {};
    const reach = { a: 0, b: 0 }; // a sliding or chunked layer's farthest key, in positions (0: none)
    for (const name of ['a', 'b']) {
      const side = state[name];
      const source = modelSource(side);
      if (!source) {
        schemes[name] = schemeFor(side, state);
        extras[name] = {};
        continue;
      }
      const setup = await this.setup(source);
      let call;
      try {
        call = layerCall(setup, side, state);
      } catch (e) {
        throw new PlaygroundError(`${name.toUpperCase()}: ${e.message}`);
      }
      schemes[name] = call.scheme;
      extras[name] = call.extras;
      const attention = setup.layers[layerIndex(side, setup)].attention;
      reach[name] = attention.window ?? attention.chunkSize ?? 0;
      if (call.headDim !== headDim)
        notes.push(
          `${name.toUpperCase()}'s layer has head dim ${call.headDim}; the maps use ${headDim}, the q/k's.`,
        );
    }
    return { schemes, extras, reach };
  }
}
