// Counts the page states about an analysis, computed one way everywhere so that two places never
// disagree (the status line and the units outline). Pure functions, for tests/js.

/**
 * Statements per unit, counted where each statement starts: a token whose statement index is k
 * more than the previous token's has k statement nodes starting at or before it (since the last
 * token), which belong to that token's unit; statements starting after the last token's first
 * byte go to the last unit. So the counts sum to `analysis.statements`, the number of statement
 * nodes. (Counting the distinct statement indices of a unit's tokens counted index 0, "before the
 * first statement", as a statement: on text that parses into no statement at its start, such as
 * binary garbage, the outline said one more than the status.)
 *
 * a: { count, unit: per-token unit, statement: per-token statement index, units, statements }.
 */
export function statementsPerUnit(a) {
  const counts = new Array(a.units.length).fill(0);
  let previous = 0;
  let lastUnit = -1;
  for (let t = 0; t < a.count; t++) {
    const u = a.unit[t];
    const s = a.statement[t];
    if (u >= 0 && u < counts.length) {
      if (s > previous) counts[u] += s - previous;
      lastUnit = u;
    }
    if (s > previous) previous = s;
  }
  const rest = a.statements - previous;
  if (rest > 0 && counts.length) counts[lastUnit >= 0 ? lastUnit : counts.length - 1] += rest;
  return counts;
}
