// The model-config library of the JS API: hr.fromConfig, a Hugging Face config.json read by the
// core (src/model_config, through wasm/bindings/model_config.cpp) into a model setup, the same
// object hirope.from_config returns in Python (the core writes it as JSON: model_setup_json).
// HiRoPE (api.js) delegates to it. Each layer's scheme is a plain scheme object, so
// hr.inverseFrequencies(layer.scheme, layer.headDim) gives that layer's own frequencies.
import { fail, describe, sizeOverLimit } from './marshal.js';
import { guardMethods } from './runtime.js';

/** Reads config.json files with one module. */
export class ModelConfigs {
  constructor(runtime) {
    this.runtime = runtime;
    /** The largest config.json read, in bytes (the full module's reader; api.js gives the core
     * module no ModelConfigs). */
    this.maxBytes = runtime.limits.maxConfigBytes;
  }

  /** hr.fromConfig (see api.js). */
  fromConfig(config) {
    const text = this._text(config);
    const res = this.runtime.mod.hfConfig(text);
    if (res.error) fail(res.error);
    return JSON.parse(res.setup);
  }

  // The config's text, its size checked before it is copied into the WASM heap (a string's
  // length in UTF-16 units is at most its length in UTF-8 bytes; the core checks the bytes).
  _text(config) {
    const max = this.maxBytes;
    if (typeof config === 'string') {
      if (config.length > max) fail(sizeOverLimit('config', { characters: config.length }, max));
      return config;
    }
    if (
      config === null ||
      typeof config !== 'object' ||
      Array.isArray(config) ||
      ArrayBuffer.isView(config)
    )
      fail(`config must be a config.json's text or its parsed object, got ${describe(config)}`);
    // An object is written back to JSON, stopping as soon as it outgrows the limit (a replacer
    // call per value, each counted by at least its key's and its own printed size), so a huge
    // object is refused without building its whole text. Cycles, BigInts and nesting deeper than
    // the engine's stack are refused too.
    let budget = max;
    const tooLarge = {};
    const count = (key, value) => {
      budget -= key.length + (typeof value === 'string' ? value.length : 1) + 2;
      if (budget < 0) throw tooLarge;
      return value;
    };
    let text;
    try {
      text = JSON.stringify(config, count);
    } catch (e) {
      if (e === tooLarge) fail(`config is over the limit of ${max} bytes as JSON`);
      fail(`config could not be written as JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (text === undefined) fail(`config could not be written as JSON (got ${describe(config)})`);
    if (text.length > max) fail(`config is over the limit of ${max} bytes as JSON`);
    return text;
  }
}
guardMethods(ModelConfigs, function () {
  return this.runtime;
});
