// The code models' evaluation rules (docs/model-eval.md), over the core's (src/model/evaluation.cpp
// through wasm/bindings/model.cpp): which bytes of a text need far context (recall classes), and
// for lib/model-eval.mjs the windows of a file, the position buckets, one window's sums by bucket
// and by class and the numbers a preset's symbols stand for. A byte inside an identifier that
// occurred before can be copied from that earlier occurrence; whether the earlier one lies within
// the last `reach` bytes (the training context) decides whether a model limited to its training
// length can see it.
//
// The functions run in the full module: the one an init() loaded (hr.model's runtime, registered
// by wasm/model.js); before any init() they throw.

/**
 * Byte classes of recallClasses(), in the order of its numeric codes: the names of the core's
 * codes (model::recall_class_names, checked equal in tests/js/recall.test.mjs), kept here so that
 * code with no module (the statistics, a page's chart) can name them.
 */
export const RECALL_CLASSES = Object.freeze(['other', 'first', 'near', 'far']);

let loaded = null; // the runtime of the latest full module an init() loaded

/** Called by wasm/model.js's ModelLoader: the runtime these functions run in. */
export function useEvaluationRuntime(runtime) {
  loaded = runtime;
}

function module(who) {
  if (!loaded)
    throw new Error(`${who}: the hirope module is not loaded: await init() (the full build) first`);
  return loaded.mod;
}

// A Status string of the core as the error type the function has always thrown.
function checked(r, who, ErrorType = RangeError) {
  if (r.error) throw new ErrorType(`${who}: ${r.error}`);
  return r;
}

function checkReach(reach, who) {
  if (!Number.isInteger(reach) || reach < 1)
    throw new RangeError(`${who}: reach must be an integer >= 1, got ${reach}`);
  return Math.min(reach, Number.MAX_SAFE_INTEGER); // any reach past the text is the same
}

/**
 * The identifiers of bytes (a Uint8Array): [{ start, end, name }], ASCII letters, digits and '_'
 * not starting with a digit; common keywords and one-letter names left out. The spans are the
 * bytes recallClasses() marks 'first' or 'far' or 'near' (an identifier always has one of those).
 */
export function identifiers(bytes) {
  if (!(bytes instanceof Uint8Array))
    throw new TypeError('identifiers: bytes must be a Uint8Array');
  const classes = recallClasses(bytes, 1);
  const out = [];
  // Runs of identifier bytes split at what is not one (the core's classes mark whole identifiers;
  // two identifiers are never adjacent: a name ends where a non-name byte begins).
  let i = 0;
  while (i < classes.length) {
    if (classes[i] === 0) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < classes.length && classes[j] !== 0) j++;
    out.push({ start: i, end: j, name: String.fromCharCode(...bytes.subarray(i, j)) });
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
  const who = 'recallClasses';
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${who}: bytes must be a Uint8Array`);
  const r = checkReach(reach, who);
  return checked(module(who).recallClasses(bytes, r), who).classes;
}

/**
 * The same classes for a token model: one per token (Uint8Array), given the text's bytes and each
 * token's byte span [start[k], end[k]) in them. Distances count tokens: an identifier is 'far'
 * when its previous occurrence starts more than `reach` tokens before it (the token holding its
 * first byte), 'near' within, 'first' at its first occurrence; a token takes the class of the
 * identifiers it overlaps (the highest: far over near over first), 'other' if none.
 */
export function tokenRecallClasses(bytes, start, end, reach) {
  const who = 'tokenRecallClasses';
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${who}: bytes must be a Uint8Array`);
  if (start.length !== end.length)
    throw new RangeError(`${who}: start and end must have one entry per token`);
  const r = checkReach(reach, who);
  return checked(module(who).tokenRecallClasses(bytes, start, end, r), who).classes;
}

// ---------------------------------------------------------------------------------------------
// The windowing rules, for lib/model-eval.mjs (not in the package's index: the evaluation's own)

/** The language the evaluation parses a file in: 'javascript' for .js, .mjs, .cjs, else 'python'. */
export const evaluationLanguage = (file) => module('evaluationLanguage').evaluationLanguage(file);

/**
 * The first units of a file's windows: of its floor(units / length) consecutive windows of
 * `length` units, at most perFile (Infinity: all), evenly spread.
 */
export function windowOffsets(units, length, perFile = Infinity) {
  const who = 'windowOffsets';
  const all = perFile === Infinity ? -1 : perFile;
  return checked(module(who).windowOffsets(units, length, all), who).offsets;
}

/** Bucket edges for a training context L: [0, L), [L, 2L), [2L, 4L), ... up to length. */
export function defaultBuckets(trainingContext, length) {
  const who = 'defaultBuckets';
  return checked(module(who).defaultBuckets(trainingContext, length), who).edges;
}

/**
 * One window's sums: { sums (bits per bucket), counts (units per bucket), classSums, classCounts
 * (per recall class) }. losses[p - 1] is the loss of unit p (p >= 1), in the bucket holding p and
 * in the class classes[p].
 */
export function windowSums(losses, classes, edges) {
  const who = 'windowSums';
  const { sums, counts, classSums, classCounts } = checked(
    module(who).windowSums(losses, classes, edges),
    who,
  );
  return { sums, counts, classSums, classCounts };
}

/**
 * The numbers the preset table's symbols stand for (the registry's evaluation.symbols: 'L',
 * 'L/2', 'length/L', 'self-extend group', 'truncate stride') at training context L, windows of
 * `length` units and the truncate baseline's stride divisor.
 */
export function presetSymbols(trainingContext, length, strideDivisor) {
  const who = 'presetSymbols';
  return checked(module(who).presetSymbols(trainingContext, length, strideDivisor), who).symbols;
}

/** The core's class names (for the test that RECALL_CLASSES names them in order). */
export const coreRecallClasses = () => module('coreRecallClasses').recallClassNames();
