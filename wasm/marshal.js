// The marshalling layer of the JS API: reading the caller's values once, checking them, and taking
// typed arrays as fixed views ready to be copied into the WASM heap (runtime.js's Heap copies
// them). Internal to wasm/.
//
// Every call works in three phases. (1) Read: each option, each property of a nested object and
// each element of a plain array is read exactly once (readOptions, readObject, readArray), so a
// getter or Proxy of the caller runs only here. (2) Check: the values read, and typed arrays
// through the engine's own getters (never a property the caller can override), then taken as
// fixed-length views, copied where their buffer can be resized. (3) Copy into the WASM heap, with
// the lengths checked in (2); no code of the caller runs between (2) and the end of the call.
import { fail } from './errors.js';

// The checks fail with a HiRoPEError; modules that only check import fail from here.
export { fail };

// The engine's typed array and buffer getters, taken once: a typed array's kind, length, buffer
// and offset come from its internal slots, whatever the object or its prototype chain defines.
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name)?.get;
const TYPED = Object.getPrototypeOf(Int8Array).prototype;
const TA_TAG = getter(TYPED, Symbol.toStringTag);
const TA_LENGTH = getter(TYPED, 'length');
const TA_BUFFER = getter(TYPED, 'buffer');
const TA_OFFSET = getter(TYPED, 'byteOffset');
const AB_LENGTH = getter(ArrayBuffer.prototype, 'byteLength');
const AB_RESIZABLE = getter(ArrayBuffer.prototype, 'resizable');
const SAB_GROWABLE =
  typeof SharedArrayBuffer === 'function'
    ? getter(SharedArrayBuffer.prototype, 'growable')
    : undefined;
const TYPES = { Float32Array, Float64Array, Int32Array, Uint8Array };

/** The kind of a typed array ('Float32Array', ...), undefined for anything else (runs no code of it). */
export const typedArrayName = (value) => TA_TAG.call(value);
/** A typed array's length now (0 once its buffer is detached or shrunk past it). */
export const typedLength = (value) => TA_LENGTH.call(value);
/** The buffer of a typed array. */
export const typedBuffer = (value) => TA_BUFFER.call(value);

// Whether a buffer can change length: a resizable ArrayBuffer or a growable SharedArrayBuffer.
function resizable(buffer) {
  try {
    return AB_RESIZABLE ? AB_RESIZABLE.call(buffer) : false;
  } catch {
    // not an ArrayBuffer: a SharedArrayBuffer
  }
  try {
    return SAB_GROWABLE ? SAB_GROWABLE.call(buffer) : false;
  } catch {
    return false;
  }
}

/**
 * The first `length` elements of a typed array as a view of fixed length over the same memory,
 * or (copy) a copy where the buffer can be resized, so that a later resize cannot change it.
 */
export function fixedView(value, length, copy = true) {
  const Type = TYPES[TA_TAG.call(value)];
  if (length === 0) return new Type(0);
  const buffer = TA_BUFFER.call(value);
  const view = new Type(buffer, TA_OFFSET.call(value), length);
  return copy && resizable(buffer) ? new Type(view) : view;
}

/** An array's elements, read once by readArray; items is null when it was longer than the cap. */
export class ArrayCopy {
  constructor(length, items) {
    this.length = length;
    this.items = items;
  }
}

// Objects made by readObject (already read: reading them again runs nothing of the caller's).
const READ = new WeakSet();

/** A value as an error message names it ('an array', 'a Float32Array', "'text'", ...). */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value) || value instanceof ArrayCopy) return 'an array';
  const typed = TA_TAG.call(value);
  if (typed) return `a ${typed}`;
  if (ArrayBuffer.isView(value)) return 'a DataView';
  if (typeof value === 'string')
    return value.length > 200
      ? `'${value.slice(0, 200)}...' (${value.length} characters)`
      : `'${value}'`;
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : String(value);
}

/** Names as a message lists them: "'a', 'b' or 'c'". */
export function orList(names) {
  const quoted = names.map((n) => `'${n}'`);
  return quoted.length < 2
    ? quoted.join('')
    : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** 0, 1, ..., n - 1 (token positions). */
export function iota(n) {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** An integer count in [min, max], named in the message. */
export function checkCount(value, name, { min = 1, max = Infinity } = {}) {
  if (typeof value !== 'number' || !Number.isInteger(value))
    fail(`${name} must be an integer, got ${describe(value)}`);
  if (value < min) fail(`${name} must be at least ${min}, got ${value}`);
  if (value > max) fail(`${name} must be at most ${max}, got ${value}`);
  return value;
}

// Output views (checkFloat32 with output) -> the caller's array, which the API returns.
const OUTPUTS = new WeakMap();

/**
 * A Float32Array of exactly `length` values (`shape` says how the length is made), as a fixed
 * view (see fixedView): a copy where its buffer can be resized, unless it is an output (written
 * into before the call returns, with no code of the caller's running in between; callerArray
 * gives back the caller's own array).
 */
export function checkFloat32(value, name, length, shape, { output = false } = {}) {
  if (TA_TAG.call(value) !== 'Float32Array')
    fail(`${name} must be a Float32Array, got ${describe(value)}`);
  const got = TA_LENGTH.call(value);
  if (got !== length) fail(`${name} has length ${got}, expected ${shape} = ${length}`);
  const view = fixedView(value, length, !output);
  if (output) OUTPUTS.set(view, value);
  return view;
}

/** The caller's array behind an output view (see checkFloat32), or the array itself. */
export const callerArray = (view) => OUTPUTS.get(view) ?? view;

/** Throws unless an output view still has its length (its buffer not detached or shrunk since). */
export function checkStill(view, length, name) {
  if (TA_LENGTH.call(view) !== length) fail(`${name} was detached or resized during the call`);
  return view;
}

/** Bytes: a Uint8Array (as a fixed view) or an ArrayBuffer (viewed whole), else a HiRoPEError. */
export function checkBytes(value, name) {
  if (TA_TAG.call(value) === 'Uint8Array') return fixedView(value, TA_LENGTH.call(value));
  let length = -1;
  try {
    length = AB_LENGTH.call(value);
  } catch {
    fail(`${name} must be a Uint8Array or ArrayBuffer, got ${describe(value)}`);
  }
  if (length === 0) return new Uint8Array(0);
  const view = new Uint8Array(value, 0, length);
  return resizable(value) ? new Uint8Array(view) : view;
}

// Optimal string alignment distance (edits: insert, delete, substitute, swap two neighbours),
// ignoring case: 'casual' is 1 from 'causal', 'ratoi' 1 from 'ratio', 'headdim' 0 from 'headDim'.
function editDistance(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let before = null;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length];
}

/** The known name closest to a misspelt one, or null when none is close (a third of it edited). */
export function closestName(name, known) {
  let best = null;
  let bestDistance = Infinity;
  const lower = name.toLowerCase();
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    // A key cut short or run on ('lang', 'languages') is as close as one edit.
    const prefix =
      Math.min(lower.length, other.length) >= 3 &&
      (other.startsWith(lower) || lower.startsWith(other));
    const d = prefix ? 1 : editDistance(name, candidate);
    // Not when the edits are as many as the shorter name's letters ('x' is no typo of 'n').
    if (d >= Math.min(lower.length, other.length)) continue;
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : null;
}

/**
 * The one check for unknown keys, used by every options object and nested object (schemes,
 * scalings, positions, pooling): a key of `value` outside `known` (and `ignored`) is a HiRoPEError
 * "<where> has an unknown key 'casual' (did you mean 'causal'? known keys: ...)".
 */
export function checkKnownKeys(value, known, where, { ignored = [] } = {}) {
  for (const key of Object.keys(value)) {
    if (known.includes(key) || ignored.includes(key)) continue;
    const guess = closestName(key, known);
    const list = known.length ? `known keys: ${known.join(', ')}` : 'it takes no parameters';
    fail(
      `${where} has an unknown key '${key}' (${guess ? `did you mean '${guess}'? ` : ''}${list})`,
    );
  }
}

/**
 * An options argument, read once: undefined is {} (unless required), anything but an object a
 * HiRoPEError; keys outside `keys` are errors '<unknown> has an unknown key ... did you mean'
 * (unknown defaults to name; false: the caller checks them).
 */
export function readOptions(
  value,
  keys,
  { name = 'options', unknown = name, required = false } = {},
) {
  if (value === undefined && !required) return readObject({}, keys);
  if (!isPlainObject(value)) fail(`${name} must be an object, got ${describe(value)}`);
  if (unknown && !READ.has(value)) checkKnownKeys(value, keys, unknown);
  return readObject(value, keys);
}

/**
 * An object's properties read once: each of `keys` (its own or inherited; undefined ones left
 * out), and each other own key with the value undefined (so that unknown keys can be named). A
 * null-prototype object; one that was read already is returned as it is.
 */
export function readObject(value, keys) {
  if (READ.has(value)) return value;
  const out = Object.create(null);
  for (const key of Object.keys(value)) out[key] = undefined;
  for (const key of keys) {
    const x = value[key];
    if (x !== undefined) out[key] = x;
  }
  READ.add(out);
  return out;
}

/** Whether `value` is a non-null object that is neither an array nor a typed array. */
export const isPlainObject = (value) =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !ArrayBuffer.isView(value) &&
  !(value instanceof ArrayCopy);

/**
 * A plain array (or a Proxy of one) read once: its length, then, when it is at most `cap`, each
 * element; as an ArrayCopy. Anything else (a typed array) is returned as it is, checked later.
 */
export function readArray(value, cap) {
  if (!Array.isArray(value)) return value;
  const length = value.length;
  if (!(length <= cap)) return new ArrayCopy(length, null);
  const items = new Array(length);
  for (let i = 0; i < length; i++) items[i] = value[i];
  return new ArrayCopy(length, items);
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * n 32-bit integers: an Int32Array (a fixed view, copied where resizable) or an array of integers
 * (converted once, each checked). `wrongLength(length)` is the message for another length.
 */
export function checkInt32s(
  value,
  name,
  n,
  wrongLength = (length) => `${name} has length ${length}, expected n = ${n}`,
) {
  const read = readArray(value, n);
  if (read instanceof ArrayCopy) {
    if (read.length !== n) fail(wrongLength(read.length));
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const x = read.items[i];
      if (!Number.isInteger(x) || x < INT32_MIN || x > INT32_MAX)
        fail(`${name}[${i}] must be a 32-bit integer, got ${describe(x)}`);
      out[i] = x;
    }
    return out;
  }
  if (TA_TAG.call(value) !== 'Int32Array')
    fail(`${name} must be an Int32Array (or an array of integers), got ${describe(value)}`);
  const length = TA_LENGTH.call(value);
  if (length !== n) fail(wrongLength(length));
  return fixedView(value, n);
}

/** A count with thousands separators, as every size message writes it: 1,048,576. */
export const grouped = (n) => n.toLocaleString('en-US');

/**
 * The one wording of a size over its limit, counted before anything is copied: `{ characters }`
 * for a string with more characters than the limit has bytes (each is one byte or more), `{ bytes,
 * utf8 }` for a string's UTF-8 (utf8: true) or for bytes as given.
 */
export function sizeOverLimit(name, { characters, bytes, utf8 = false }, limit) {
  if (characters !== undefined)
    return `${name} has ${grouped(characters)} characters, over the limit of ${grouped(limit)} bytes of UTF-8 (a character is one byte or more)`;
  return `${name} is ${grouped(bytes)} bytes${utf8 ? ' of UTF-8' : ''}, over the limit of ${grouped(limit)} bytes`;
}

/**
 * sizeOverLimit's message for a string over `limit` bytes of UTF-8, or null: by its characters
 * when they alone are over (nothing counted), else by its UTF-8.
 */
export function textOverLimit(name, text, limit) {
  if (text.length > limit) return sizeOverLimit(name, { characters: text.length }, limit);
  const bytes = utf8Length(text);
  return bytes > limit ? sizeOverLimit(name, { bytes, utf8: true }, limit) : null;
}

/** The UTF-8 length of a string, as TextEncoder writes it (a lone surrogate is U+FFFD: 3 bytes). */
export function utf8Length(text) {
  let bytes = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}
