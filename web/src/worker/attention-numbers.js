// The comparison in numbers, per query row of a causal probability matrix: each side's own-unit
// mass and mean attended distance, and how far B's attention is from A's (TV, KL).
/**
 * Per query row of a causal probability matrix: the attention mass on keys of the query's own
 * unit, and the mean attended token distance sum_j p_ij (t_i - t_j). With r0 and r1, `probs`
 * holds rows r0 .. r1-1 only (a strip) and only those rows of `out` are written.
 */
export function rowStats(
  probs,
  n,
  unit,
  token,
  r0 = 0,
  r1 = n,
  out = { own: new Float32Array(n), distance: new Float32Array(n) },
) {
  const { own, distance } = out;
  for (let i = r0; i < r1; i++) {
    const row = (i - r0) * n;
    const u = unit[i];
    const t = token[i];
    let mass = 0;
    let d = 0;
    for (let j = 0; j <= i; j++) {
      const p = probs[row + j];
      if (unit[j] === u) mass += p;
      d += p * (t - token[j]);
    }
    own[i] = mass;
    distance[i] = d;
  }
  return out;
}

/**
 * Per query row, how far B's attention is from A's: total variation 1/2 sum_j |a - b| (0 equal,
 * 1 disjoint) and KL(A || B) in bits, B's probabilities floored at KL_FLOOR. With r0 and r1, `a`
 * and `b` hold rows r0 .. r1-1 only (strips) and only those rows of `out` are written.
 */
export function compareRows(
  a,
  b,
  n,
  r0 = 0,
  r1 = n,
  out = { tv: new Float32Array(n), kl: new Float32Array(n) },
) {
  const { tv, kl } = out;
  for (let i = r0; i < r1; i++) {
    const row = (i - r0) * n;
    let t = 0;
    let k = 0;
    for (let j = 0; j <= i; j++) {
      const pa = a[row + j];
      const pb = b[row + j];
      t += Math.abs(pa - pb);
      if (pa > 0) k += pa * Math.log2(pa / Math.max(pb, KL_FLOOR));
    }
    tv[i] = t / 2;
    kl[i] = Math.max(0, k);
  }
  return out;
}
const KL_FLOOR = 1e-30;
