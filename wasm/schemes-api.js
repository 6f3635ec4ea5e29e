// The scheme-maths library of the JS API: what a position encoding does, without attention:
// frequencies, bands, relative distances, rotated vectors, long-term decay, ALiBi slopes and the
// Split% bound. HiRoPE (api.js) delegates to it; the schemes are read and checked by catalogue.js.
import {
  fail,
  describe,
  checkCount,
  checkFloat32,
  readOptions,
  readArray,
  ArrayCopy,
} from './marshal.js';
import { SHAPE_KEYS, normalizePositions, guardMethods } from './runtime.js';

const ROTATE_KEYS = [...SHAPE_KEYS, 'x', 'role', 'branch'];

const UNSEEN_KEYS = ['trainedLength', 'length', 'reach', 'bandDistances', 'scaledAfterTraining'];

/** bandDistances as numbers: an array or a typed array of finite numbers >= 0. */
function readBandDistances(value) {
  const list = readArray(value, 64);
  if (list instanceof ArrayCopy && !list.items)
    fail(`bandDistances must have one entry per band, got ${list.length} entries`);
  const items =
    list instanceof ArrayCopy
      ? list.items
      : ArrayBuffer.isView(value) && !(value instanceof DataView)
        ? [...value]
        : null;
  if (!items) fail(`bandDistances must be an array of numbers, got ${describe(value)}`);
  items.forEach((d, b) => {
    if (typeof d !== 'number' || !Number.isFinite(d) || d < 0)
      fail(`bandDistances[${b}] must be a finite number >= 0, got ${describe(d)}`);
  });
  return items;
}

/** The scheme maths over one runtime and its catalogue. */
export class SchemeMaths {
  constructor(runtime, catalogue) {
    this.runtime = runtime;
    this.catalogue = catalogue;
  }

  /** hr.inverseFrequencies (see api.js). */
  inverseFrequencies(scheme, headDim, options) {
    return this._frequencies(scheme, headDim, options, 'inverseFrequencies').values;
  }

  /** hr.attentionFactor (see api.js). */
  attentionFactor(scheme, headDim, options) {
    return this._frequencies(scheme, headDim, options, 'attentionFactor').attentionFactor;
  }

  _frequencies(scheme, headDim, options, caller) {
    scheme = this.catalogue.readScheme(scheme);
    const { seqLen = 1 } = readOptions(options, ['seqLen'], { unknown: `${caller} options` });
    const s = this.catalogue.normalizeScheme(scheme);
    // NoPE (a model's NoPE layer) has no frequencies and the factor 1; other schemes without
    // rotary frequencies are refused.
    if (!s.rotary && s.name !== 'nope') fail(`scheme '${s.name}' has no rotary frequencies`);
    this.runtime.headDim(headDim);
    checkCount(seqLen, 'seqLen');
    const res = this.runtime.mod.inverseFrequencies(s, headDim, seqLen);
    this.runtime.check(res.error);
    return res;
  }

  /** hr.unseenPairs (see api.js): the core's unseen_pairs (hirope.h). */
  unseenPairs(scheme, headDim, options) {
    scheme = this.catalogue.readScheme(scheme);
    const o = readOptions(options, UNSEEN_KEYS, {
      unknown: 'unseenPairs options',
      required: true,
    });
    const s = this.catalogue.normalizeScheme(scheme);
    if (!s.rotary) fail(`scheme '${s.name}' has no rotary frequencies`);
    this.runtime.headDim(headDim);
    // Types and ranges here in the API's words; the core checks them again.
    checkCount(o.trainedLength, 'trainedLength', { max: 2 ** 53 });
    checkCount(o.length, 'length', { max: 2 ** 53 });
    const reach = o.reach ?? 0;
    checkCount(reach, 'reach', { min: 0, max: 2 ** 53 });
    const after = o.scaledAfterTraining ?? false;
    if (typeof after !== 'boolean')
      fail(`scaledAfterTraining must be a boolean, got ${describe(after)}`);
    const distances = o.bandDistances === undefined ? [] : readBandDistances(o.bandDistances);
    const bands = this._bands(s, headDim).length;
    if (distances.length && distances.length !== bands)
      fail(`bandDistances must have one entry per band (${bands}), got ${distances.length}`);
    const r = this.runtime.mod.unseenPairs(
      s,
      headDim,
      o.trainedLength,
      o.length,
      reach,
      distances,
      after,
    );
    this.runtime.check(r.error);
    const { error, ...result } = r;
    return result;
  }

  /** hr.bands (see api.js). */
  bands(scheme, headDim) {
    return this._bands(this.catalogue.normalizeScheme(scheme), headDim);
  }

  _bands(s, headDim) {
    this.runtime.headDim(headDim);
    const res = this.runtime.mod.bands(s, headDim);
    this.runtime.check(res.error);
    return res.bands;
  }

  /** hr.relativeDistances (see api.js). */
  relativeDistances(options) {
    const runtime = this.runtime;
    const args = runtime.readCall(options, SHAPE_KEYS, 'relativeDistances');
    const { n, headDim } = runtime.shape(args);
    const scheme = this.catalogue.normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    if (!scheme.rotary) fail(`scheme '${scheme.name}' has no rotary bands`);
    const limit = runtime.limits.maxOutputElements;
    if (n * n > limit) fail(`n * n = ${n * n} exceeds the output limit of ${limit} elements`);
    const pos = normalizePositions(args.positions, n, scheme);
    const bands = this._bands(scheme, headDim);
    return runtime.run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const out = heap.alloc(n * n * 4);
      return bands.map((band, index) => {
        runtime.check(runtime.mod.relativeDistances(scheme, headDim, n, tp, up, sp, index, out));
        return { ...band, distances: heap.readFloat32(out, n * n).slice() };
      });
    });
  }

  /** hr.rotate (see api.js). */
  rotate(options) {
    const runtime = this.runtime;
    const catalogue = this.catalogue;
    const args = runtime.readCall(options, ROTATE_KEYS, 'rotate');
    const { n, headDim, heads, width } = runtime.shape(args);
    const scheme = catalogue.normalizeScheme(args.scheme === undefined ? 'rope' : args.scheme);
    const x = checkFloat32(args.x, 'x', n * width, 'n * heads * headDim');
    const role = catalogue.value('roles', args.role === undefined ? 'query' : args.role, 'role');
    const branch = catalogue.value(
      'branches',
      args.branch === undefined ? 'near' : args.branch,
      'branch',
    );
    const pos = normalizePositions(args.positions, n, scheme);
    return runtime.run((heap) => {
      const [tp, up, sp] = heap.positions(pos);
      const xp = heap.float32(x);
      const out = heap.alloc(x.length * 4);
      runtime.check(
        runtime.mod.rotate(scheme, headDim, heads, n, tp, up, sp, role, branch, xp, out),
      );
      return heap.readFloat32(out, x.length).slice();
    });
  }

  /** hr.longTermDecay (see api.js). */
  longTermDecay(scheme, headDim, maxDistance) {
    const runtime = this.runtime;
    const s = this.catalogue.normalizeScheme(scheme);
    runtime.headDim(headDim);
    checkCount(maxDistance, 'maxDistance', { min: 0, max: runtime.limits.maxTokens - 1 });
    return runtime.run((heap) => {
      const out = heap.alloc((maxDistance + 1) * 4);
      runtime.check(runtime.mod.longTermDecay(s, headDim, maxDistance, out));
      return heap.readFloat32(out, maxDistance + 1).slice();
    });
  }

  /** hr.alibiSlopes (see api.js). */
  alibiSlopes(heads) {
    checkCount(heads, 'heads', { max: this.runtime.limits.maxHeads });
    return this.runtime.mod.alibiSlopes(heads);
  }

  /** hr.splitFraction (see api.js). */
  splitFraction(trainingLength, base = 10000) {
    // Types here (the binding would coerce); ranges in the core.
    if (typeof trainingLength !== 'number')
      fail(`trainingLength must be a positive number, got ${describe(trainingLength)}`);
    if (typeof base !== 'number') fail(`base must be a number > 1, got ${describe(base)}`);
    const r = this.runtime.mod.splitFraction(trainingLength, base);
    this.runtime.check(r.error);
    return r.value;
  }

  /** hr.splitBound (see api.js). */
  splitBound(scheme, headDim) {
    const s = this.catalogue.normalizeScheme(scheme);
    this.runtime.headDim(headDim);
    const r = this.runtime.mod.splitBound(s, headDim);
    this.runtime.check(r.error);
    const { split, pairs, tokenPairs, maxTokenPairs, over } = r;
    return {
      split,
      pairs,
      tokenPairs,
      maxTokenPairs,
      maxRatio: pairs ? maxTokenPairs / pairs : 0,
      over,
    };
  }
}
guardMethods(SchemeMaths, function () {
  return this.runtime;
});
