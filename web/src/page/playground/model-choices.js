// Reading each side's real model (the worker's modelSetup request) and applying a choice once its
// reading arrives. No DOM, so that the order in which readings arrive can be driven in Node
// (tests/js/model-choices.test.mjs): a reading that arrives after a later choice never
// overwrites that choice.
import { normalizeState } from '../../shared/playground-state.js';
import { modelSource } from '../../shared/model-gallery.js';

/** The key a model source is read and kept under: its gallery id, or its config's text. */
export const sourceKey = (source) => (source.id ? `id:${source.id}` : `config:${source.config}`);

/**
 * The model readings of a page. `pg` holds the state (pg.state), pg.choose() (a discrete choice:
 * the next URL write adds a history entry), pg.schedule() and pg.client.a.request; `changed()` is
 * called after each change of pg.state, and `read()` when a reading arrives.
 */
export function createModelChoices(pg, changed, read = () => {}) {
  const summaries = new Map(); // source key -> the worker's setup summary, { error }, or null while read
  const readings = new Map(); // source key -> Promise of that summary
  let choices = 0; // counts the choices made, so that only the latest one applies its reading

  /** The worker's reading of a source, once (a promise of its summary, or of { error }). */
  function reading(source) {
    const key = sourceKey(source);
    if (!readings.has(key)) {
      summaries.set(key, null);
      const done = (summary) => {
        summaries.set(key, summary);
        read();
        pg.schedule(); // the views run to the model's length (viewLength)
        return summary;
      };
      readings.set(
        key,
        pg.client.a.request('modelSetup', { source }).then(done, (e) => done({ error: e.message })),
      );
    }
    return readings.get(key);
  }

  /** A source's summary as far as it is read: null while it is read (and the reading starts). */
  function summaryOf(source) {
    reading(source);
    return summaries.get(sourceKey(source));
  }

  /**
   * A new model on `side` (patch: { model } or { model, config }), at layer 0 and as the model
   * computes it (the switch applies HiRoPE to it later). Once the model's reading arrives, it sets
   * the shared head dim and training length to the model's (a side without a model then compares
   * at them), unless another choice was made meanwhile or those settings were moved: a reading
   * that finishes late never overwrites a later choice. Resolves when the choice is complete
   * (true) or superseded (false).
   */
  async function choose(side, patch) {
    pg.choose();
    const mine = ++choices;
    Object.assign(pg.state[side], patch, { layer: 0, type: 'rope', scaling: 'none' });
    pg.state = normalizeState(pg.state);
    const source = modelSource(pg.state[side]);
    changed();
    if (!source) return true;
    const shared = [pg.state.headDim, pg.state.train];
    const summary = await reading(source);
    const now = modelSource(pg.state[side]);
    if (
      mine !== choices ||
      !now ||
      sourceKey(now) !== sourceKey(source) ||
      pg.state.headDim !== shared[0] ||
      pg.state.train !== shared[1]
    )
      return false;
    if (summary.error) return true;
    if (summary.headDim <= 256) pg.state.headDim = summary.headDim;
    pg.state.train = summary.trainedLength;
    changed();
    return true;
  }

  /** The latest choice is superseded by another change to the sides (a preset, a link, Back). */
  function supersede() {
    choices++;
  }

  /** The longest maximum length of the models shown, which the angle and decay views run to. */
  function viewLength() {
    let length = null;
    for (const side of ['a', 'b']) {
      const source = modelSource(pg.state[side]);
      const summary = source && summaries.get(sourceKey(source));
      if (summary && !summary.error)
        length = Math.max(length ?? 2, Math.min(summary.maxLength, 2 ** 30));
    }
    return length;
  }

  return { reading, summaryOf, choose, supersede, viewLength };
}
