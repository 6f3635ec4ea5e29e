// Model mode's story presets: one click each sets both schemes (and the filter) to one point of
// the token model's held-out story, with its sentence above the loss chart.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { sampleOf } from './model-mode.js';
import { modelDefaultsOf } from '../../shared/model-state.js';
import { normalizeWith } from '../../shared/link-state.js';

/**
 * Builds the presets' buttons and sentence above the loss chart; a click sets mx.state and calls
 * changed(). Returns { sync }, which marks the preset the state matches and says its sentence.
 */
export function createStories(mx, changed) {
  // Presets that tell the story, one sentence each (the token model; the first is the first view).
  const STORIES = [
    {
      id: 'baseline',
      label: 'baseline vs HiRoPE',
      sentence:
        "Past 512 tokens a sliding window (A) forgets what lies farther back; HiRoPE on 64-token segments (B) still reads it, and its loss drops below A's where names come back from far.",
      state: {},
    },
    {
      id: 'verdict',
      label: 'ReRoPE vs HiRoPE',
      sentence:
        'The held-out verdict: past 512 tokens HiRoPE on segments edges ReRoPE by a few hundredths of a bit, on ordinary tokens rather than far recall — on one file the two are hard to tell apart.',
      state: { a: { type: 'rerope', window: 256 } },
    },
    {
      id: 'rope',
      label: 'RoPE vs ReRoPE',
      sentence:
        'Plain RoPE falls apart past the training length; a window (ReRoPE) keeps the loss level.',
      state: { a: { type: 'rope' }, b: { type: 'rerope' } },
    },
    {
      id: 'far',
      label: 'far recall',
      sentence:
        'On names used again more than 512 tokens later (far-recall tokens only), a scheme that still sees them (Self-Extend) beats a sliding window that cannot.',
      state: { bytes: 'far', b: { type: 'self-extend', window: 128, group: 22 } },
    },
  ];
  const storyState = (story) => {
    const d = modelDefaultsOf('pyjs-llama2');
    return normalizeWith(d, {
      ...d,
      ...story.state,
      a: { ...d.a, ...story.state.a },
      b: { ...d.b, ...story.state.b },
    });
  };
  const story = {
    box: el('div', {
      class: 'presets stories',
      role: 'group',
      'aria-label': 'Presets: the story in one click',
      id: 'stories',
    }),
    line: el('p', { class: 'story-line', id: 'story-line', 'aria-live': 'polite' }),
    buttons: [],
    build() {
      this.box.append(el('span', { class: 'presets-label' }, 'Token model:'));
      for (const st of STORIES) {
        const button = el(
          'button',
          { type: 'button', class: 'preset', id: `story-${st.id}`, title: st.sentence },
          st.label,
        );
        button.addEventListener('click', () => {
          const wasSample = mx.state.code === null || mx.state.code === sampleOf(mx.state);
          const next = storyState(st);
          const switching = mx.state.model !== next.model;
          mx.state = {
            ...next,
            language: mx.state.language,
            code: switching && wasSample ? null : mx.state.code,
            layer: switching ? 0 : mx.state.layer,
            head: switching ? 0 : mx.state.head,
            colour: mx.state.colour,
          };
          if (switching) {
            mx.zoom = null;
            mx.clearRow();
            mx.result = null;
            mx.chars = null;
            if (wasSample) mx.editor.setText(sampleOf(mx.state) ?? '');
            mx.useModel(mx.state.model);
          }
          changed();
        });
        this.buttons.push([st, button]);
        this.box.append(button);
      }
      // Above the chart they explain: the first thing a visitor reads.
      $('loss').querySelector('.loss-and-verdict').before(this.box, this.line);
    },
    sync() {
      let on = null;
      for (const [st, button] of this.buttons) {
        const want = storyState(st);
        const same =
          mx.state.model === 'pyjs-llama2' &&
          mx.state.bytes === want.bytes &&
          ['a', 'b'].every((side) => JSON.stringify(mx.state[side]) === JSON.stringify(want[side]));
        button.setAttribute('aria-pressed', String(same));
        if (same) on = st;
      }
      this.line.textContent = on
        ? on.sentence
        : mx.state.model === 'pyjs-llama2'
          ? 'Your own settings: pick a preset above to see one point of the story.'
          : mx.state.model === 'checkpoint'
            ? 'Your checkpoint: the presets are the token model’s held-out story (one click switches to it).'
            : 'The byte model: pick the token model (Model, above the code) or a preset for the held-out story.';
    },
  };
  story.build();
  return { sync: () => story.sync() };
}
