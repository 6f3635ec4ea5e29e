// The q/k file format (docs/playground.md): a person's own queries and keys, one row per token.
import { plural } from '../shared/wording.js';
import { PlaygroundError } from './playground-error.js';

/** The q/k file format's size limit (bytes of JSON), checked before parsing. */
export const MAX_QK_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Parses a q/k file: JSON {"headDim": d, "q": rows, "k": rows} where rows is an array of n arrays
 * of d numbers (one per token), or a flat array of n * d numbers.
 */
export function parseQKFile(text) {
  if (typeof text !== 'string') throw new PlaygroundError('the q/k file must be text (JSON)');
  if (text.length > MAX_QK_FILE_BYTES)
    throw new PlaygroundError(`the q/k file is larger than ${MAX_QK_FILE_BYTES} bytes`);
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PlaygroundError(`the q/k file is not valid JSON (${e.message})`);
  }
  if (!json || typeof json !== 'object')
    throw new PlaygroundError('the q/k file must hold a JSON object');
  const headDim = json.headDim;
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 || headDim > 1024) {
    throw new PlaygroundError(
      `the q/k file's headDim must be an even integer from 2 to 1024, got ${JSON.stringify(headDim)}`,
    );
  }
  const flat = (name) => {
    const rows = json[name];
    if (!Array.isArray(rows))
      throw new PlaygroundError(`the q/k file needs "${name}": an array of rows`);
    const nested = Array.isArray(rows[0]);
    const n = nested ? rows.length : rows.length / headDim;
    if (!Number.isInteger(n) || n < 1)
      throw new PlaygroundError(
        `"${name}" holds ${rows.length} numbers, not a whole number of rows of ${headDim}`,
      );
    const out = new Float32Array(n * headDim);
    for (let i = 0; i < n; i++) {
      const row = nested ? rows[i] : rows.slice(i * headDim, (i + 1) * headDim);
      if (!Array.isArray(row) || row.length !== headDim)
        throw new PlaygroundError(`"${name}" row ${i} does not hold ${headDim} numbers`);
      for (let c = 0; c < headDim; c++) {
        const v = row[c];
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new PlaygroundError(`"${name}" row ${i} column ${c} is not a finite number`);
        out[i * headDim + c] = v;
      }
    }
    return { n, data: out };
  };
  const q = flat('q');
  const k = flat('k');
  if (q.n !== k.n) throw new PlaygroundError(`"q" has ${plural(q.n, 'row')} but "k" has ${k.n}`);
  return { n: q.n, headDim, q: q.data, k: k.data };
}
