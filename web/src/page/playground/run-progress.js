// The progress of a long map (up to 32,768 tokens): a bar with the share of each side's map done
// and a Cancel button, under the status line. The workers report { stage, fraction } between the
// chunks of a map (web/src/worker/pooled-map.js), only for runs long enough to show it; Cancel
// posts a 'cancel' notice to both workers, which stop at their next chunk (the run then rejects
// with a 'Cancelled' error and the maps keep the last result).
import { el } from '../dom.js';

/** The line beside the bar: "Computing the maps: A 40%, B 35%". */
export function progressText(fractions) {
  const parts = Object.entries(fractions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([side, f]) => `${side} ${f > 0 && f < 0.01 ? '<1' : Math.floor(100 * f)}%`);
  return `Computing the maps: ${parts.join(', ')}`;
}

/** The status line after Cancel. */
export function cancelledText(pg) {
  return pg.result?.n
    ? 'Cancelled: the maps still show the last result. Change a setting or the code to compute again.'
    : 'Cancelled. Change a setting or the code to compute the maps.';
}

/** The panel after `anchor`; onCancel() is called by its Cancel button. */
export function createRunProgress(anchor, onCancel) {
  const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Share of the maps computed' });
  const text = el('span', { class: 'run-progress-text', 'aria-live': 'polite' });
  const cancel = el(
    'button',
    { type: 'button', class: 'small', title: 'Stop computing these maps (the last ones stay)' },
    'Cancel',
  );
  const box = el('div', { id: 'run-progress', class: 'run-progress', hidden: true });
  box.append(bar, text, cancel);
  anchor.after(box);
  let fractions = {};
  let run = 0; // the run whose reports count; a report of an earlier run changes nothing
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    text.textContent = 'Cancelling…';
    onCancel();
  });
  const panel = {
    /**
     * A run starts: the reporter of its progress, which takes a worker's reports (a stage name,
     * or { stage: 'attention A', fraction }) until the next begin() or stop(): a worker that
     * reports one more chunk after the run ended (its cancel landed after that chunk) shows
     * nothing.
     */
    begin() {
      const mine = ++run;
      return (value) => mine === run && panel.report(value);
    },
    report(value) {
      if (typeof value !== 'object' || value === null || !Number.isFinite(value.fraction)) return;
      if (cancel.disabled) return; // cancelling: the last chunks' reports change nothing
      const side = /\b([AB])$/.exec(value.stage)?.[1] ?? value.stage;
      fractions[side] = Math.max(0, Math.min(1, value.fraction));
      const shares = Object.values(fractions);
      bar.value = shares.reduce((a, b) => a + b, 0) / shares.length;
      text.textContent = progressText(fractions);
      box.hidden = false;
    },
    /** The run ended (done, failed, cancelled or replaced): the panel goes. */
    stop() {
      run++;
      fractions = {};
      box.hidden = true;
      cancel.disabled = false;
      bar.value = 0;
      text.textContent = '';
    },
  };
  return panel;
}
