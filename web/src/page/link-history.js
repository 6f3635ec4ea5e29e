// A page's state in its URL hash, with Back and Forward: the link is written after a short pause
// (compressing the code waits for the typing to stop), a discrete choice (a menu, a preset, a
// button) adds a history entry so that Back undoes it, and typing, sliders and numbers replace the
// entry they belong to. A discrete choice made while an earlier one still waits to be written
// writes that one first, so Back steps through both.
import { writeHash } from './shell.js';

/**
 * encode(snapshot) -> Promise of the hash ('' for none). Returns { write(snapshot, { push, delay }),
 * cancel() }: write takes a snapshot of the state (a copy: later changes do not reach it); cancel
 * drops what waits, for Back and Forward, whose entry already holds its state.
 */
export function createLinkHistory(encode) {
  let pending = null; // { snapshot, push } waiting for its timer
  let timer = 0;
  let writing = Promise.resolve(); // writes land in the order they were made
  let epoch = 0; // a cancel drops the writes still compressing too
  function flush() {
    clearTimeout(timer);
    const entry = pending;
    pending = null;
    if (!entry) return writing;
    const mine = epoch;
    writing = writing.then(async () => {
      const hash = await encode(entry.snapshot);
      if (mine !== epoch) return;
      writeHash(hash, entry.push);
      // Each write, for tests that follow the link (a hook, not a timer).
      document.dispatchEvent(new CustomEvent('hirope:link', { detail: { hash } }));
    });
    return writing;
  }
  return {
    write(snapshot, { push = false, delay = 150 } = {}) {
      if (push && pending?.push) flush(); // the earlier choice gets its own entry
      pending = { snapshot: structuredClone(snapshot), push: push || Boolean(pending?.push) };
      clearTimeout(timer);
      timer = setTimeout(flush, delay);
    },
    /** Writes what waits now (resolves once it is in the URL). */
    flush,
    cancel() {
      clearTimeout(timer);
      pending = null;
      epoch++;
    },
  };
}
