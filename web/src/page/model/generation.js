// Model mode's generation: both schemes continue the code from its end, with the length,
// temperature and seed controls; the button waits while it runs or a field is invalid.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { normal, unitOf } from './model-mode.js';
import { describeModelSide } from '../../shared/model-state.js';
import { generatedSentence } from '../../shared/model-wording.js';

const NOTHING_YET = 'Nothing generated for these settings yet: press “Continue under A and B”.';

/** The Generate button and its two outputs (#gen-a, #gen-b). */
export function createGeneration(mx) {
  // What a generation is made from: once any of it changes (the model, the code, a scheme, a
  // generation setting), the panel no longer shows this view's output and is cleared.
  const inputsOf = (snapshot, code) =>
    JSON.stringify([
      snapshot.model,
      code,
      snapshot.language,
      snapshot.a,
      snapshot.b,
      snapshot.maxBytes,
      snapshot.temperature,
      snapshot.seed,
    ]);
  let shown = null; // the inputs of what the panel shows or is generating (null: nothing)
  function clearGenerated() {
    shown = null;
    for (const side of ['a', 'b']) {
      $(`gen-${side}`).classList.add('gen-empty');
      $(`gen-${side}`).textContent = NOTHING_YET;
      $(`gen-title-${side}`).textContent = side.toUpperCase();
    }
  }
  const current = () => inputsOf(normal(mx.state), mx.editor.text);
  // Called after every change of the state or the code.
  function syncGenerated() {
    if (shown !== null && shown !== current()) clearGenerated();
  }

  // Generate is disabled while it runs, and while any visible field holds a value that cannot be
  // used (the field says why; the button's hover text names it).
  function syncGenerate() {
    if (mx.editor) syncGenerated();
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
    const code = mx.editor.text;
    const inputs = inputsOf(snapshot, code);
    shown = inputs;
    for (const side of ['a', 'b']) {
      $(`gen-${side}`).classList.remove('gen-empty');
      $(`gen-${side}`).textContent = 'Generating…';
      $(`gen-title-${side}`).textContent =
        `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))}`;
    }
    try {
      const payload = {
        code,
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
      if (shown !== inputs) return; // the settings or the code changed meanwhile: not this view's
      for (const [side, g] of [
        ['a', a],
        ['b', b],
      ]) {
        const pre = $(`gen-${side}`);
        // The end of the prompt the model continued (the code's first promptChars when it was cut).
        const tail = code.slice(0, g.promptChars).slice(-240);
        pre.replaceChildren(
          el('span', { class: 'prompt-tail' }, tail),
          el('mark', { class: 'generated' }, g.text),
        );
        $(`gen-title-${side}`).textContent =
          `${side.toUpperCase()}: ${describeModelSide(snapshot[side], unitOf(snapshot))} — ${generatedSentence({ unit: unitOf(snapshot), asked: snapshot.maxBytes, ...g })}`;
      }
      document.body.dataset.generated = 'true';
    } catch (e) {
      if (shown === inputs) clearGenerated();
      mx.showError(e);
    } finally {
      mx.generating = false;
      syncGenerate();
    }
  });

  return { syncGenerate, clearGenerated };
}
