// Which bytes of a text need far context: the long-range measurement of the code model
// (docs/model-eval.md). A byte inside an identifier that occurred before can be copied from that
// earlier occurrence; whether the earlier one lies within the last `reach` bytes (the training
// context) decides whether a model limited to its training length can see it.

/** Byte classes of recallClasses(), in the order of its numeric codes. */
export const RECALL_CLASSES = Object.freeze(['other', 'first', 'near', 'far']);

// Words that occur in every file: Python's and JavaScript's keywords and the commonest names.
const COMMON = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls ' +
    'print len range str int dict list set tuple match case ' +
    'const let var function new this typeof instanceof void delete switch default throw catch do of ' +
    'null undefined true false export extends super static get'
  ).split(' '),
);

const isStart = (b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;
const isPart = (b) => isStart(b) || (b >= 0x30 && b <= 0x39);

/**
 * The identifiers of bytes (a Uint8Array): [{ start, end, name }], ASCII letters, digits and '_'
 * not starting with a digit; common keywords and one-letter names left out.
 */
export function identifiers(bytes) {
  const out = [];
  let i = 0;
  while (i < bytes.length) {
    if (!isStart(bytes[i]) || (i > 0 && isPart(bytes[i - 1]))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < bytes.length && isPart(bytes[j])) j++;
    if (j - i > 1) {
      const name = String.fromCharCode(...bytes.subarray(i, j));
      if (!COMMON.has(name)) out.push({ start: i, end: j, name });
    }
    i = j;
  }
  return out;
}

/**
 * A class per byte (Uint8Array of RECALL_CLASSES indices): 'far' for the bytes of an identifier
 * whose previous occurrence in the text starts more than `reach` bytes before it, with none
 * nearer; 'near' where the previous occurrence starts within `reach` bytes; 'first' for an
 * identifier's first occurrence; 'other' for every other byte. The loss of byte t (predicted
 * from bytes before it) belongs to the class of byte t.
 */
export function recallClasses(bytes, reach) {
  if (!(bytes instanceof Uint8Array))
    throw new TypeError('recallClasses: bytes must be a Uint8Array');
  if (!Number.isInteger(reach) || reach < 1)
    throw new RangeError(`recallClasses: reach must be an integer >= 1, got ${reach}`);
  return classify(bytes, bytes.length, (b) => b, reach);
}

// The classes of `count` units (bytes or tokens) of bytes: unitOf(b) is the unit holding byte b
// (-1 for none); distances count units, and a unit takes the highest class of the identifiers it
// overlaps.
function classify(bytes, count, unitOf, reach) {
  const classes = new Uint8Array(count);
  const last = new Map();
  for (const { start, end, name } of identifiers(bytes)) {
    const first = unitOf(start);
    const lastUnit = unitOf(end - 1);
    if (first < 0 || lastUnit < 0) continue; // bytes no unit covers
    const prev = last.get(name);
    const cls = prev === undefined ? 1 : first - prev > reach ? 3 : 2;
    for (let k = first; k <= lastUnit; k++) if (classes[k] < cls) classes[k] = cls;
    last.set(name, first);
  }
  return classes;
}

/**
 * The same classes for a token model: one per token (Uint8Array), given the text's bytes and each
 * token's byte span [start[k], end[k]) in them. Distances count tokens: an identifier is 'far'
 * when its previous occurrence starts more than `reach` tokens before it (the token holding its
 * first byte), 'near' within, 'first' at its first occurrence; a token takes the class of the
 * identifiers it overlaps (the highest: far over near over first), 'other' if none.
 */
export function tokenRecallClasses(bytes, start, end, reach) {
  if (!(bytes instanceof Uint8Array))
    throw new TypeError('tokenRecallClasses: bytes must be a Uint8Array');
  if (start.length !== end.length)
    throw new RangeError('tokenRecallClasses: start and end must have one entry per token');
  if (!Number.isInteger(reach) || reach < 1)
    throw new RangeError(`tokenRecallClasses: reach must be an integer >= 1, got ${reach}`);
  const tokenOf = new Int32Array(bytes.length).fill(-1);
  for (let k = 0; k < start.length; k++) {
    if (!(start[k] <= end[k] && end[k] <= bytes.length))
      throw new RangeError(
        `tokenRecallClasses: token ${k} spans [${start[k]}, ${end[k]}) outside the ${bytes.length} bytes`,
      );
    tokenOf.fill(k, start[k], end[k]);
  }
  return classify(bytes, start.length, (b) => tokenOf[b], reach);
}
