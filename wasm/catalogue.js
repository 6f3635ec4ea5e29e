// The scheme catalogue on the JS side, built at start-up from the core's table (catalogue_json()
// in src/core/catalogue.cpp, parsed by wasm/bindings/catalogue.cpp): scheme and scaling names,
// enum names to numbers, the JS spelling of the function arguments the core's messages name
// (scheme parameters come from the core in the users' words). A scheme is read once here (phase 1
// of marshal.js) and then read and checked by the core (read_scheme through the binding's
// readScheme: kinds, defaults, unknown keys, lists). Nothing about a particular scheme is written
// here.
import {
  fail,
  describe,
  readObject,
  readArray,
  isPlainObject,
  ArrayCopy,
  typedArrayName,
  typedLength,
  fixedView,
} from './marshal.js';

const quoted = (names) => names.map((n) => `'${n}'`).join(', ');

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// A list parameter (an array, Float64Array or Float32Array) read once, as a plain array of its
// items when it has at most `cap`, else as an empty array of its length (the core refuses it by
// its length); anything else as it is, for the core to name.
function listValue(value, cap) {
  const read = readArray(value, cap);
  if (read instanceof ArrayCopy) return read.items ?? new Array(read.length);
  const typed = typedArrayName(read);
  if (typed !== 'Float64Array' && typed !== 'Float32Array') return read;
  const length = typedLength(read);
  return length <= cap ? Array.from(fixedView(read, length)) : new Array(length);
}

/**
 * The scheme catalogue of one loaded module. `data` is the core's plain object (hr.catalogue): schemes,
 * scalings, parameters, scalingParameters, value lists, defaultRules, arguments, languages.
 */
export class Catalogue {
  /**
   * maxHeadDim: the core's limit (lists of rotaryDim / 2 entries are checked against it first);
   * readScheme: the module's reader (the core's read_scheme), which gives the normalized scheme or
   * its message.
   */
  constructor(data, { maxHeadDim = Infinity } = {}, readScheme = null) {
    this._readScheme = readScheme;
    this.data = deepFreeze(data);
    this.maxListLength = maxHeadDim / 2;
    this._schemeKeys = ['type', ...data.parameters.map((p) => p.name)];
    this._scalingKeys = ['type', ...data.scalingParameters.map((p) => p.name)];
    // Each value list by name: own entries only, so no name reaches Object.prototype.
    this._values = new Map(
      Object.keys(data)
        .filter((k) => Array.isArray(data[k]))
        .map((k) => [k, new Map(data[k].map((e) => [e.name, e]))]),
    );
    this.schemeNames = data.schemes.map((s) => s.name);
    this.scalingNames = data.scalings.flatMap((s) => [s.name, ...s.aliases]);
    this.languageNames = data.languages.map((l) => l.name);
    // The core writes scheme parameters as users write them; function arguments keep the C++
    // and Python spelling there (head_dim), which JS callers write in camelCase (headDim).
    this._arguments = new Map(data.arguments.map((a) => [a.field, a.name]));
  }

  /** The enum number of `name` in one of the value lists ('layouts', 'gaps', ...). */
  value(list, name, where) {
    const entry = typeof name === 'string' ? this._values.get(list).get(name) : undefined;
    if (!entry) fail(`${where} must be one of ${quoted(this.names(list))}, got ${describe(name)}`);
    return entry.value;
  }

  /** The names of a value list, in enum order. */
  names(list) {
    return this.data[list].map((e) => e.name);
  }

  /** A language name of this build, or a HiRoPEError naming the known ones. */
  checkLanguage(language) {
    if (!this.languageNames.includes(language))
      fail(`language must be one of ${quoted(this.languageNames)}, got ${describe(language)}`);
    return language;
  }

  /** A core message with the function arguments it names in JS spelling (head_dim -> headDim). */
  coreMessage(message) {
    return message.replace(
      /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g,
      (w) => this._arguments.get(w) ?? w,
    );
  }

  /**
   * A scheme read once (phase 1, see marshal.js): its type and parameters, its scaling's, and each
   * list's elements (up to rotaryDim / 2 at most). A string is { type }; anything else that is
   * not an object is returned as it is, for the core to name.
   */
  readScheme(scheme) {
    if (typeof scheme === 'string') return readObject({ type: scheme }, this._schemeKeys);
    if (!isPlainObject(scheme)) return scheme;
    const lists = (o, params) => {
      for (const p of params)
        if (p.kind === 'list' && o[p.name] !== undefined)
          o[p.name] = listValue(o[p.name], this.maxListLength);
      return o;
    };
    const s = lists(readObject(scheme, this._schemeKeys), this.data.parameters);
    if (isPlainObject(s.scaling))
      s.scaling = lists(readObject(s.scaling, this._scalingKeys), this.data.scalingParameters);
    return s;
  }

  /**
   * Fills in a scheme's defaults and maps names to the core's enum numbers. Accepts a string
   * ('rope') as shorthand for { type: 'rope' }. Unknown keys are errors (they are usually typos);
   * the core reads and checks the kinds here and the ranges when the scheme is used.
   */
  normalizeScheme(scheme) {
    const out = this._readScheme(this.readScheme(scheme), describe);
    if (typeof out === 'string') fail(out);
    return out;
  }
}

let first = null;

/** Makes the first loaded module's catalogue the one normalizeScheme() below uses. */
export function registerCatalogue(catalogue) {
  first ||= catalogue;
}

/**
 * Fills in a scheme's defaults and maps names to the core's enum numbers (see
 * Catalogue.normalizeScheme). The catalogue comes from the core: call after init().
 */
export function normalizeScheme(scheme) {
  if (!first)
    fail('normalizeScheme() needs the scheme catalogue of a loaded module: call it after init()');
  return first.normalizeScheme(scheme);
}
