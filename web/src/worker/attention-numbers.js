// The comparison in numbers, per query row of a causal probability matrix: each side's own-unit
// mass and mean attended distance, and how far B's attention is from A's (TV, KL).
/**
 * Per query row of a causal probability matrix: the attention mass on keys of the query's own
 * unit, and the mean attended token distance sum_j p_ij (t_i - t_j).
 */
export function rowStats(probs, n, unit, token) {
  const own = new Float32Array(n);
  const distance = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
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
  return { own, distance };
}

/**
 * Per query row, how far B's attention is from A's: total variation 1/2 sum_j |a - b| (0 equal,
 * 1 disjoint) and KL(A || B) in bits, B's probabilities floored at KL_FLOOR.
 */
export function compareRows(a, b, n) {
  const tv = new Float32Array(n);
  const kl = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
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
  return { tv, kl };
}
const KL_FLOOR = 1e-30;
