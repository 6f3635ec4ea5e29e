// The scheme catalogue on the JS side, built at start-up from the core's table (catalogue_json()
// in src/core/catalogue.cpp, parsed by wasm/bindings/catalogue.cpp): the option names each scheme
// and scaling type takes, their defaults (with the core's default rules), type checks, enum names
// to numbers, and the JS spelling of the function arguments the core's messages name (scheme
// parameters come from the core in the users' words). Nothing about a particular scheme is
// written here.
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
  checkKnownKeys,
} from './marshal.js';

const quoted = (names) => names.map((n) => `'${n}'`).join(', ');

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// A scheme's or scaling's keys: 'type' and its own parameters (the shared unknown-key check).
const checkKeys = (obj, allowed, where) =>
  checkKnownKeys(obj, allowed, where, { ignored: ['type'] });

// A list parameter (an array, Float64Array or Float32Array, read once) as a new array of numbers,
// its length checked against `cap` before anything is copied.
function numberList(value, where, cap) {
  const read = readArray(value, cap);
  const typed = typedArrayName(read);
  if (!(read instanceof ArrayCopy) && typed !== 'Float64Array' && typed !== 'Float32Array') {
    fail(`${where} must be an array of numbers, got ${describe(read)}`);
  }
  const length = read instanceof ArrayCopy ? read.length : typedLength(read);
  if (!(length <= cap))
    fail(`${where} has ${length} entries, more than rotaryDim/2 can be (at most ${cap})`);
  const items = read instanceof ArrayCopy ? read.items : Array.from(fixedView(read, length));
  items.forEach((x, i) => {
    if (typeof x !== 'number') fail(`${where}[${i}] must be a number, got ${describe(x)}`);
  });
  return items.slice();
}

const INT32_MAX = 2147483647;

/** Whether x lies in a parameter's range as the table states it. */
function inRange(p, x) {
  if (!Number.isFinite(x)) return false;
  if (p.allowed.length) return p.allowed.includes(x);
  if (p.min !== null && (p.minOpen ? !(x > p.min) : !(x >= p.min))) return false;
  if (p.max !== null && (p.maxOpen ? !(x < p.max) : !(x <= p.max))) return false;
  return true;
}

/**
 * The scheme catalogue of one loaded module. `data` is the core's plain object (hr.catalogue): schemes,
 * scalings, parameters, scalingParameters, value lists, defaultRules, arguments, languages.
 */
export class Catalogue {
  /** maxHeadDim: the core's limit (lists of rotaryDim / 2 entries are checked against it first). */
  constructor(data, { maxHeadDim = Infinity } = {}) {
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
    this._schemes = new Map(data.schemes.map((s) => [s.name, s]));
    this._scalings = new Map(
      data.scalings.flatMap((s) => [s.name, ...s.aliases].map((n) => [n, s])),
    );
    // The core writes scheme parameters as users write them; function arguments keep the C++
    // and Python spelling there (head_dim), which JS callers write in camelCase (headDim).
    this._arguments = new Map(data.arguments.map((a) => [a.field, a.name]));
  }

  /** The row of a scheme type by name, or undefined. */
  scheme(name) {
    return typeof name === 'string' ? this._schemes.get(name) : undefined;
  }

  /** The row of a scaling type by name or alias, or undefined. */
  scaling(name) {
    return typeof name === 'string' ? this._scalings.get(name) : undefined;
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
   * not an object is returned as it is, for normalizeScheme to name.
   */
  readScheme(scheme) {
    if (typeof scheme === 'string') return readObject({ type: scheme }, this._schemeKeys);
    if (!isPlainObject(scheme)) return scheme;
    const lists = (o, params) => {
      for (const p of params)
        if (p.kind === 'list' && o[p.name] !== undefined)
          o[p.name] = readArray(o[p.name], this.maxListLength);
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
   * values are checked for their kind here and for their range by the core.
   */
  normalizeScheme(scheme) {
    scheme = this.readScheme(scheme);
    if (!isPlainObject(scheme)) {
      fail(`scheme must be an object such as { type: 'rope' }, got ${describe(scheme)}`);
    }
    const type = scheme.type;
    const info = this.scheme(type);
    if (!info)
      fail(`scheme.type must be one of ${quoted(this.schemeNames)}, got ${describe(type)}`);
    checkKeys(scheme, info.parameters, `scheme (type '${type}')`);
    const out = { name: type, type: info.value };
    for (const p of this.data.parameters) {
      if (p.kind === 'scaling') out.scaling = this._scaling(scheme.scaling);
      else
        out[p.name] =
          scheme[p.name] === undefined
            ? this._fallback(p, info.parameters)
            : this._read(p, scheme[p.name], 'scheme');
    }
    for (const rule of this.data.defaultRules) {
      if (scheme[rule.parameter] !== undefined || !rule.schemes.includes(type)) continue;
      if (rule.when && out[rule.when.parameter] !== rule.when.equals) continue;
      out[rule.parameter] =
        rule.from === undefined
          ? rule.value
          : (rule.offset + rule.scale * out[rule.from]) / rule.divisor;
    }
    out.rotary = info.rotary;
    out.windowed = info.windowed;
    return out;
  }

  _scaling(given) {
    const scaling = given === undefined ? { type: 'none' } : given;
    if (!isPlainObject(scaling)) {
      fail(
        `scheme.scaling must be an object such as { type: 'yarn', factor: 4, originalLength: 4096 }, got ${describe(scaling)}`,
      );
    }
    const name = scaling.type === undefined ? 'none' : scaling.type;
    const info = this.scaling(name);
    if (!info)
      fail(
        `scheme.scaling.type must be one of ${quoted(this.scalingNames)}, got ${describe(name)}`,
      );
    checkKeys(scaling, info.parameters, `scheme.scaling (type '${name}')`);
    const out = { type: info.value };
    for (const p of this.data.scalingParameters) {
      out[p.name] =
        scaling[p.name] === undefined
          ? this._fallback(p, info.parameters)
          : this._read(p, scaling[p.name], 'scheme.scaling');
    }
    return out;
  }

  // The value of a parameter left out: NaN where the type takes a required one (the core then
  // names it), else the table's default.
  _fallback(p, taken) {
    if (p.required && taken.includes(p.name)) return NaN;
    if (p.kind === 'enum') return this.value(p.values, p.default, p.name);
    if (p.kind === 'list') return [];
    return p.default;
  }

  // A given value, checked for its kind; options that are no core field get their range here.
  _read(p, value, where) {
    const path = `${where}.${p.name}`;
    switch (p.kind) {
      case 'enum':
        return this.value(p.values, value, path);
      case 'list':
        return numberList(value, path, this.maxListLength);
      case 'boolean':
        if (typeof value !== 'boolean') fail(`${path} must be a boolean, got ${describe(value)}`);
        return value;
      default:
        if (typeof value !== 'number') fail(`${path} must be a number, got ${describe(value)}`);
        if (p.kind === 'integer' && !Number.isInteger(value))
          fail(`${path} must be an integer, got ${value}`);
        if (p.field === null && !inRange(p, value))
          fail(`${path} must be ${p.range}, got ${value}`);
        // The core's integer fields hold 32 bits: larger values are named here, as given.
        if (p.kind === 'integer' && p.field !== null && Math.abs(value) > INT32_MAX) {
          fail(
            !inRange(p, value)
              ? `${path} must be ${p.range}, got ${value}`
              : `${path} is too large: ${value}`,
          );
        }
        return value;
    }
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
