// Model mode's generation: both schemes continue the code from its end, with the length,
// temperature and seed controls; the button waits while it runs or a field is invalid.
import { el } from './dom.js';
import { $ } from './shell.js';
import { normal, unitOf } from './model-mode.js';
import { describeModelSide } from '../shared/model-state.js';
import { generatedSentence } from '../shared/model-wording.js';

/** The Generate button and its two outputs (#gen-a, #gen-b). */
export function createGeneration(mx) {
  // Generate is disabled while it runs, and while any visible field holds a value that cannot be
  // used (the field says why; the button's hover text names it).
  function syncGenerate() {
    const button = $('generate');
    const invalid = [...document.querySelectorAll('[aria-invalid="true"]')].filter(
      (input) => !input.closest('[hidden]'),
    );
    const names = invalid.map((input) => $(`${input.id}-label`)?.textContent.trim() ?? input.name);
    button.disabled = mx.generating || invalid.length > 0;
    button.title = invalid.length
      ? `Correct ${names.join(', ')} first: the marked field${invalid.length === 1 ? ' holds a value' : 's hold values'} that cannot be used.`
      : '';
  }
  document.addEventListener('input', syncGenerate); // after the field's own check (bubbling)
  // ----- generation
  $('generate').addEventListener('click', async () => {
    mx.generating = true;
    syncGenerate();
    await mx.modelReady.catch(() => {}); // the workers load the page's copy of the weights first
    const snapshot = normal(mx.state);
    for (const side of ['a', 'b']) {
      $(`gen-${side}`).classList.remove('gen-empty');
      $(`gen-${side}`).textContent = 'Generating…';
      $(`gen-title-${side}`).textContent =
        `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))}`;
    }
    try {
      const payload = {
        code: mx.editor.text,
        language: snapshot.language,
        model: snapshot.model,
        maxBytes: snapshot.maxBytes,
        temperature: snapshot.temperature,
        seed: snapshot.seed,
      };
      const [a, b] = await Promise.all(
        ['a', 'b'].map((s) =>
          mx.client.side(s).request('modelGenerate', { ...payload, side: snapshot[s] }),
        ),
      );
      for (const [side, g] of [
        ['a', a],
        ['b', b],
      ]) {
        const pre = $(`gen-${side}`);
        const tail = mx.editor.text.slice(-240);
        pre.replaceChildren(
          el('span', { class: 'prompt-tail' }, tail),
          el('mark', { class: 'generated' }, g.text),
        );
        $(`gen-title-${side}`).textContent =
          `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))} — ${generatedSentence({ unit: unitOf(snapshot), bytes: g.bytes, asked: snapshot.maxBytes, promptBytes: g.promptBytes, bytesPerSecond: g.bytesPerSecond })}`;
      }
      document.body.dataset.generated = 'true';
    } catch (e) {
      mx.showError(e);
    } finally {
      mx.generating = false;
      syncGenerate();
    }
  });

  return { syncGenerate };
}
