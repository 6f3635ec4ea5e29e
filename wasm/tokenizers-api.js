// The tokenizers library of the JS API: loading vocabularies (built-in data files or a user's
// tokenizer.json) and encode / decode / countTokens under them. HiRoPE (api.js) delegates to it;
// analysis-api.js and model.js reach a loaded tokenizer through address().
import {
  fail,
  describe,
  checkCount,
  checkBytes,
  readOptions,
  closestName,
  readArray,
  ArrayCopy,
  isPlainObject,
  typedArrayName,
  utf8Length,
  sizeOverLimit,
  textOverLimit,
  grouped,
} from './marshal.js';
import {
  TOKENIZER_DATA,
  TOKENIZER_FILES,
  DEFAULT_TOKENIZER,
  MODEL_TOKENIZERS,
  MODEL_ENCODINGS_NOT_SHIPPED,
  canonicalTokenizer,
  MAX_TOKENIZER_JSON_BYTES,
  readData,
  guardMethods,
  DECODER,
} from './runtime.js';

/** The built-in tokenizers' names (each loads its data file with hr.loadTokenizer(name)). */
export const BUILTIN_TOKENIZERS = Object.freeze([...TOKENIZER_DATA]);

/**
 * The built-in tokenizer a model reads ('gpt-4o' -> 'o200k', 'llama-3.1-8b-instruct' -> 'llama3',
 * a Hugging Face id 'meta-llama/Llama-3.1-8B' -> 'llama3'),
 * from the one table MODEL_TOKENIZERS (wasm/runtime.js); a model whose tokenizer hirope does not
 * ship is a HiRoPEError.
 */
export function tokenizerForModel(model) {
  if (typeof model !== 'string') fail(`model must be a string, got ${describe(model)}`);
  // A Hugging Face repository id names the model after its owner: 'meta-llama/Llama-3.1-8B'.
  const name = model.toLowerCase().slice(model.lastIndexOf('/') + 1);
  if (Object.hasOwn(MODEL_ENCODINGS_NOT_SHIPPED, name))
    fail(
      `the model ${describe(model)} reads tiktoken's ${MODEL_ENCODINGS_NOT_SHIPPED[name]}, which hirope does not ship (its built-ins: ${TOKENIZER_DATA.join(', ')}); a tokenizer.json of it loads with hr.loadTokenizer({ json })`,
    );
  let best = null;
  for (const key of Object.keys(MODEL_TOKENIZERS))
    if ((name === key || name.startsWith(`${key}-`)) && (!best || key.length > best.length))
      best = key;
  if (best) return MODEL_TOKENIZERS[best];
  const guess = closestName(name, Object.keys(MODEL_TOKENIZERS));
  return fail(
    `no built-in tokenizer for the model ${describe(model)}${guess ? ` (did you mean '${guess}'?)` : ''}; known models: ${Object.keys(MODEL_TOKENIZERS).join(', ')}`,
  );
}

const ENCODER = new TextEncoder();
const ENCODE_KEYS = ['tokenizer', 'specialTokens'];

/** The tokenizers of one runtime: their handles in the current instance, reloaded after a reset. */
const isHighSurrogate = (unit) => unit >= 0xd800 && unit <= 0xdbff;

export class Tokenizers {
  /** dataFiles: URLs of the data files by name (init.js). */
  constructor(runtime, dataFiles) {
    this.runtime = runtime;
    /** Tokenizer names; all but 'lexical' load their vocabulary on first use (load). */
    this.names = runtime.hasAnalysis ? ['lexical', ...TOKENIZER_DATA] : [];
    /** name -> TokenizerHandle in the current instance. */
    this.handles = new Map();
    this._data = new Map(); // name -> { bytes, json }, to load again into a fresh instance
    this._dataFiles = dataFiles;
    // A fresh instance (after a trap or abort) gets the tokenizers loaded so far.
    runtime.onReset(() => {
      this.handles = new Map();
      for (const [name, { bytes, json }] of this._data) this._loadBytes(name, bytes, json);
    });
  }

  /** hr.loadTokenizer (see api.js). */
  async load(name, options) {
    this.runtime.needAnalysis();
    if (isPlainObject(name)) {
      if (options !== undefined) fail('loadTokenizer({ json }) takes no options');
      return this._loadJson(name);
    }
    name = canonicalTokenizer(name);
    const { data } = readOptions(options, ['data'], { unknown: 'loadTokenizer options' });
    if (name === 'lexical') return name;
    if (!TOKENIZER_DATA.includes(name))
      fail(
        `tokenizer must be one of ${this.names.map((t) => `'${t}'`).join(', ')} or { json }, got ${describe(name)}`,
      );
    if (this.handles.has(name)) return name;
    let bytes = data;
    if (bytes === undefined) {
      const url = this._dataFiles[name];
      if (!url)
        fail(
          `no location for the '${name}' tokenizer data: pass options.data or init({ dataURL })`,
        );
      bytes = await readData(url);
    }
    bytes = checkBytes(bytes, 'options.data');
    if (this.handles.has(name)) return name; // loaded by a call that finished during the await
    const json = TOKENIZER_FILES[name].endsWith('.json');
    if (json && bytes.length > MAX_TOKENIZER_JSON_BYTES)
      fail(
        sizeOverLimit(
          `the '${name}' tokenizer data`,
          { bytes: bytes.length },
          MAX_TOKENIZER_JSON_BYTES,
        ),
      );
    this._loadBytes(name, bytes, json);
    this._data.set(name, { bytes: bytes.slice(), json });
    return name;
  }

  _loadJson(source) {
    const { json } = readOptions(source, ['json'], {
      name: 'the tokenizer source',
      unknown: 'the tokenizer source',
    });
    const max = MAX_TOKENIZER_JSON_BYTES;
    let bytes;
    if (typeof json === 'string') {
      // Sizes checked before anything is encoded or copied into the heap.
      const over = textOverLimit('json', json, max);
      if (over) fail(over);
      bytes = ENCODER.encode(json);
    } else if (json === undefined) {
      fail('loadTokenizer needs a built-in name or { json } (a tokenizer.json as text or bytes)');
    } else {
      bytes = checkBytes(json, 'json');
      if (bytes.length > max) fail(sizeOverLimit('json', { bytes: bytes.length }, max));
    }
    const runtime = this.runtime;
    const name = `json-${runtime.run((heap) => runtime.mod.tokenizerJsonHash(...heap.bytes(bytes)))}`;
    if (!this.handles.has(name)) {
      this._loadBytes(name, bytes, true);
      this._data.set(name, { bytes: bytes.slice(), json: true });
    }
    return name;
  }

  _loadBytes(name, bytes, json) {
    const runtime = this.runtime;
    const handle = new runtime.mod.TokenizerHandle();
    try {
      runtime.run((heap) =>
        runtime.check(
          json ? handle.loadJson(...heap.bytes(bytes), name) : handle.load(...heap.bytes(bytes)),
        ),
      );
    } catch (e) {
      handle.delete();
      throw e;
    }
    this.handles.set(name, handle);
  }

  /** The core's address of a loaded tokenizer by name (0: 'lexical'); a HiRoPEError if not loaded. */
  address(name) {
    name = canonicalTokenizer(name);
    if (name === 'lexical') return 0;
    const handle = typeof name === 'string' ? this.handles.get(name) : undefined;
    if (handle) return handle.address();
    if (TOKENIZER_DATA.includes(name))
      fail(`tokenizer '${name}' is not loaded: call await hr.loadTokenizer('${name}') first`);
    if (typeof name === 'string' && /^json-[0-9a-f]{16}$/.test(name))
      fail(
        `tokenizer '${name}' is not loaded: pass its tokenizer.json to await hr.loadTokenizer({ json }) first`,
      );
    fail(
      `tokenizer must be one of ${this.names.map((t) => `'${t}'`).join(', ')} or a name hr.loadTokenizer({ json }) returned, got ${describe(name)}`,
    );
  }

  /** The vocabulary size of a loaded tokenizer. */
  size(name) {
    return this.handles.get(name).size();
  }

  /** hr.encode (see api.js). */
  encode(text, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'encode');
    return this._encode(vocab, text, specialTokens);
  }

  /** hr.countTokens (see api.js). */
  countTokens(text, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'countTokens');
    return this._encode(vocab, text, specialTokens).length;
  }

  /** hr.isWithinTokenLimit (see api.js). */
  isWithinTokenLimit(text, limit, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'isWithinTokenLimit');
    checkCount(limit, 'limit', { min: 0, max: Number.MAX_SAFE_INTEGER });
    // A long text's prefix often tells: more than `limit` tokens that are the whole text's first
    // ones (Vocabulary::encode_prefix) whatever follows. Prefixes of 8 characters a token, then
    // four times longer each, copy and read a few times the tokens asked for, not the whole text.
    if (typeof text === 'string') {
      for (let end = 8 * (limit + 8); end < text.length; end *= 4) {
        // Cut between characters: a high surrogate goes with its pair.
        const cut = isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
        const prefix = this._countPrefix(vocab, text.slice(0, cut), specialTokens, limit);
        if (prefix === null) break; // a vocabulary without a rule for prefixes
        if (prefix.final && prefix.count > limit) return false;
      }
    }
    // The whole text; the core stops once it has more than `limit` tokens (max_tokens).
    const count = this._encode(vocab, text, specialTokens, limit).length;
    return count <= limit ? count : false;
  }

  // Vocabulary::encode_prefix's { count, final } for a prefix, or null (see isWithinTokenLimit).
  _countPrefix(vocab, prefix, specialTokens, maxTokens) {
    const runtime = this.runtime;
    const out = runtime.run((heap) =>
      runtime.mod.countPrefix(vocab, ...heap.text(prefix, 'text'), specialTokens, maxTokens),
    );
    if (typeof out === 'string') runtime.check(out);
    return out;
  }

  /** hr.encodeBatch (see api.js). */
  encodeBatch(texts, options) {
    const { vocab, specialTokens } = this._encodeOptions(options, 'encodeBatch');
    // One limit on the batch, in bytes: the texts' UTF-8 together (each counting one byte at
    // least, so that a million empty strings are over too) within one text's limit, checked
    // before anything is copied.
    const max = this.runtime.limits.maxSourceBytes;
    const list = readArray(texts, max);
    if (!(list instanceof ArrayCopy))
      fail(`texts must be an array of strings, got ${describe(texts)}`);
    const over = () =>
      `texts hold more than the limit of ${grouped(max)} bytes of UTF-8 in one batch (each entry counts one byte at least)`;
    if (list.items === null) fail(`${over()}: ${grouped(list.length)} entries`);
    let bytes = 0;
    list.items.forEach((text, i) => {
      if (typeof text !== 'string') fail(`texts[${i}] must be a string, got ${describe(text)}`);
      bytes += Math.max(1, utf8Length(text));
      if (bytes > max) fail(`${over()}, at texts[${i}]`);
    });
    return list.items.map((text) => this._encode(vocab, text, specialTokens));
  }

  // encode()'s options (tokenizer, default DEFAULT_TOKENIZER; specialTokens), read and checked.
  _encodeOptions(options, caller) {
    const { tokenizer = DEFAULT_TOKENIZER, specialTokens = false } = readOptions(
      options,
      ENCODE_KEYS,
      { unknown: `${caller} options` },
    );
    this.runtime.needAnalysis();
    if (typeof specialTokens !== 'boolean')
      fail(`options.specialTokens must be a boolean, got ${describe(specialTokens)}`);
    if (tokenizer === 'lexical')
      fail(`${caller}() needs a vocabulary tokenizer; 'lexical' tokens come from analyze()`);
    return { vocab: this.address(tokenizer), specialTokens };
  }

  _encode(vocab, text, specialTokens, maxTokens = Infinity) {
    const runtime = this.runtime;
    const ids = runtime.run((heap) =>
      runtime.mod.encode(vocab, ...heap.text(text, 'text'), specialTokens, maxTokens),
    );
    if (typeof ids === 'string') runtime.check(ids);
    return ids;
  }

  /** hr.decode (see api.js). */
  decode(ids, options) {
    const { vocab, list } = this._decodeArgs(ids, options, 'decode');
    const runtime = this.runtime;
    const bytes = runtime.run((heap) => runtime.mod.decode(vocab, heap.int32(list), list.length));
    if (typeof bytes === 'string') runtime.check(bytes);
    return DECODER.decode(bytes);
  }

  /** hr.tokenBytes (see api.js). */
  tokenBytes(ids, options) {
    const { vocab, list } = this._decodeArgs(ids, options, 'tokenBytes');
    const { bytes, ends } = this._tokenBytes(vocab, list);
    const out = [];
    let start = 0;
    for (const end of ends) {
      out.push(bytes.slice(start, end));
      start = end;
    }
    return out;
  }

  /** hr.decoder (see api.js). */
  decoder(options) {
    const { tokenizer } = this._decodeArgs([], options, 'decoder');
    const text = new TextDecoder('utf-8', { ignoreBOM: true });
    let started = false; // the first bytes are out (a dummy-prefix space is dropped before them)
    return {
      decode: (ids) => {
        const { vocab, list } = this._decodeArgs(ids, { tokenizer }, 'decoder.decode');
        let { bytes, prefixSpace } = this._tokenBytes(vocab, list);
        if (!started && bytes.length) {
          if (prefixSpace && bytes[0] === 0x20) bytes = bytes.subarray(1);
          started = true;
        }
        return text.decode(bytes, { stream: true });
      },
      flush: () => {
        started = false; // a next sequence starts afresh, as decode() of it would
        return text.decode();
      },
    };
  }

  // decode()'s arguments read and checked: the tokenizer's address and the ids as an Int32Array.
  _decodeArgs(ids, options, caller) {
    const { tokenizer = DEFAULT_TOKENIZER } = readOptions(options, ['tokenizer'], {
      unknown: `${caller} options`,
    });
    const runtime = this.runtime;
    runtime.needAnalysis();
    if (tokenizer === 'lexical')
      fail(`${caller}() needs a vocabulary tokenizer; 'lexical' has no ids to decode`);
    const vocab = this.address(tokenizer);
    let list;
    if (typedArrayName(ids) === 'Int32Array') list = ids;
    else if (Array.isArray(ids)) {
      list = new Int32Array(ids.length);
      ids.forEach((id, i) => {
        if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff)
          fail(`ids[${i}] must be a token id (an integer >= 0), got ${describe(id)}`);
        list[i] = id;
      });
    } else fail(`ids must be an Int32Array or an array of token ids, got ${describe(ids)}`);
    return { tokenizer, vocab, list };
  }

  // Each token's bytes from the core: { bytes (concatenated), ends, prefixSpace }.
  _tokenBytes(vocab, list) {
    const runtime = this.runtime;
    const r = runtime.run((heap) => runtime.mod.tokenBytes(vocab, heap.int32(list), list.length));
    if (typeof r === 'string') runtime.check(r);
    return r;
  }
}
guardMethods(Tokenizers, function () {
  return this.runtime;
});
