// Bits per byte by position bucket: shared by `hirope eval-model` and scripts/model-report.mjs.

/** Bucket edges for a training context L: [0, L), [L, 2L), [2L, 4L), [4L, 8L), ... up to length. */
export function defaultBuckets(trainingContext, length) {
  const edges = [0, trainingContext];
  while (edges[edges.length - 1] < length) edges.push(Math.min(length, edges[edges.length - 1] * 2));
  return edges;
}

/** Consecutive windows of `length` bytes of each file (at most `perFile`, evenly spread). */
export function windowsOf(files, length, perFile = Infinity) {
  const out = [];
  for (const { name, bytes } of files) {
    const count = Math.floor(bytes.length / length);
    const take = Math.min(count, perFile);
    for (let w = 0; w < take; w++) {
      const index = take === count ? w : Math.floor((w * count) / take);
      out.push({ file: name, offset: index * length, bytes: bytes.subarray(index * length, (index + 1) * length) });
    }
  }
  return out;
}

/**
 * Per-window sums of bits and byte counts in every bucket: { sums: [windows][buckets],
 * counts: [buckets] }. The byte at position p (p >= 1) is predicted from bytes 0..p-1 and falls
 * in the bucket holding p.
 */
export function bucketLosses(model, windows, options, edges) {
  const sums = [];
  const counts = new Array(edges.length - 1).fill(0);
  windows.forEach((w, wi) => {
    const { losses } = model.loss(w.bytes, options);
    const row = new Array(edges.length - 1).fill(0);
    let b = 0;
    for (let p = 1; p <= losses.length; p++) {
      while (p >= edges[b + 1]) b++;
      row[b] += losses[p - 1];
      if (wi === 0) counts[b]++;
    }
    sums.push(row);
  });
  return { sums, counts };
}

export function bucketLabel(edges, b) {
  return `${edges[b]}-${edges[b + 1] - 1}`;
}

/**
 * The schemes the evaluation compares, for a model trained at context L evaluated on windows of
 * `length` bytes: factors of the scaled RoPEs are length / L; windows are L / 2; Self-Extend's
 * group is the smallest whose usable length (L - W) * G + W covers the window.
 */
export function presetSchemes(L, length) {
  const factor = length / L;
  const window = Math.floor(L / 2);
  const group = Math.max(2, Math.ceil((length - window) / (L - window)));
  return {
    rope: { scheme: 'rope' },
    pi: { scheme: { type: 'rope', scaling: { type: 'linear', factor } } },
    ntk: { scheme: { type: 'rope', scaling: { type: 'ntk', factor } } },
    'dynamic-ntk': { scheme: { type: 'rope', scaling: { type: 'dynamic-ntk', factor: 1 } } },
    yarn: { scheme: { type: 'rope', scaling: { type: 'yarn', factor } } },
    rerope: { scheme: { type: 'rerope', window } },
    'self-extend': { scheme: { type: 'self-extend', window, group } },
    'hirope-0.5-units': { scheme: { type: 'hirope', ratio: 0.5, window }, hierarchy: 'units' },
    'hirope-1/3-units': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'units' },
    'hirope-1/3-statements': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'statements' },
    'hirope-1/3-segments32': { scheme: { type: 'hirope', ratio: 1 / 3, window }, hierarchy: 'segments', segmentSize: 32 },
  };
}
