// The "Real model" choice of each side: a gallery config or the person's own config.json (pasted,
// opened or dropped), the model's layer strip (each layer's kind drawn; click one to pick it), the
// "HiRoPE on this model" switch and, on layers with sinks, their logit. The worker reads the
// config (its modelSetup request) and computes the chosen layer (web/src/worker/model-sides.js).
import { el } from '../dom.js';
import {
  GALLERY,
  OWN_CONFIG,
  modelSource,
  layerProblem,
  layerKind,
  modelNotes,
  NOT_COMPUTED,
} from '../../shared/model-gallery.js';
import { normalizeState } from '../../shared/playground-state.js';
import { createModelChoices, sourceKey } from './model-choices.js';
import { numberProblem } from '../../shared/core-catalogue.js';
import { sizeOverLimit, textOverLimit } from 'hirope/runtime';

/** The sink logit field's range (the page's, for one logit shared by every head). */
const SINK_SPEC = { min: -100, max: 100, step: 0.5 };

const fmt = (x) => x.toLocaleString('en');

/** A model source's name: its gallery id, or "your config.json". */
const modelName = (source) => source.id ?? 'your config.json';

/**
 * A RoPE layer in words, with what sets models apart: the dims it rotates where not all (and
 * which), the pair layout, the scaling and its factor (LongRoPE's switch from its short to its
 * long factors), and the attention factor on cos and sin where not 1.
 */
function ropeWords(layer, headDim) {
  const fraction = layer.rotaryFraction ?? 1;
  const rotated = Math.round(fraction * headDim);
  const dims =
    rotated < headDim
      ? ` on the ${layer.rotaryLast ? 'last' : 'first'} ${rotated} of ${headDim} dims`
      : '';
  const pairs = layer.layout === 'interleaved' ? 'interleaved pairs' : 'half-split pairs';
  const factor = layer.factor && layer.factor !== 1 ? ` ×${fmt(layer.factor)}` : '';
  const scaling =
    layer.scaling === 'none'
      ? ''
      : layer.scaling === 'longrope' && layer.originalLength
        ? `, LongRoPE${factor}: its short factors up to ${fmt(layer.originalLength)} positions, its long factors beyond`
        : `, ${layer.scaling} scaling${factor}`;
  const af = layer.attentionFactor ?? 1;
  const attention =
    Math.abs(af - 1) > 1e-9
      ? `, cos and sin ×${af.toPrecision(3)} (logits ×${(af * af).toPrecision(3)})`
      : '';
  return `RoPE base ${fmt(layer.base)}${dims}, ${pairs}${scaling}${attention}`;
}

/** The sentence under a side's strip: the chosen layer and the model's lengths. */
export function layerSentence(summary, index) {
  const layer = summary.layers[index];
  const a = layer.attention;
  const kind =
    a.type === 'sliding'
      ? `sliding-window attention (${fmt(a.window)} positions)`
      : a.type === 'chunked'
        ? `chunked attention (${fmt(a.chunkSize)}-position chunks)`
        : 'full attention';
  const headDim = layer.headDim ?? summary.headDim;
  const rope = layer.rope ? ropeWords(layer, headDim) : 'no rotation (NoPE)';
  const temperature = layer.temperature ? ', query temperature' : '';
  // The layer's own softmax scale where it is not 1/√d (query_pre_attn_scalar, YaRN's mscale),
  // and its logit soft-cap.
  const usual = 1 / Math.sqrt(headDim);
  const scale =
    layer.scale && Math.abs(layer.scale - usual) > 1e-9 * usual
      ? `, logits scaled by ${layer.scale.toPrecision(3)} (not 1/√${headDim} = ${usual.toPrecision(3)})`
      : '';
  const softcap = layer.softcap ? `, logits soft-capped at ${fmt(layer.softcap)}` : '';
  const sinks = layer.sinks ? ' with sinks' : '';
  return `Layer ${index} of ${summary.layers.length}: ${kind}${sinks}, ${rope}${temperature}${scale}${softcap}. Head dim ${headDim}, trained at ${fmt(summary.trainedLength)} positions (max ${fmt(summary.maxLength)}).`;
}

/**
 * Builds both sides' pickers into #scheme-a and #scheme-b; `changed(discrete)` is called after
 * each change of pg.state (a discrete one adds a history entry first).
 */
export function createModelPickers(pg, changed) {
  // The worker's readings of the models, and the choice of a new one (model-choices.js).
  const choices = createModelChoices(pg, changed, () => sync());
  const { summaryOf } = choices;
  const choose = (side, patch) => choices.choose(side, patch);

  function set(side, patch, discrete) {
    if (discrete) pg.choose();
    Object.assign(pg.state[side], patch);
    pg.state = normalizeState(pg.state);
    changed();
  }

  const pickers = {};
  for (const side of ['a', 'b']) {
    const S = side.toUpperCase();
    const box = el('div', { class: 'model-picker', id: `model-${side}` });
    const label = el('label', {
      class: 'field',
      title:
        "A real model's own positions: a config.json from the gallery, or your own. Pick a layer in the strip below.",
    });
    const select = el('select', { id: `model-select-${side}`, name: `${side}.model` });
    select.append(new Option('none (a scheme below)', ''));
    for (const id of GALLERY) select.append(new Option(id, id));
    select.append(new Option('your config.json…', OWN_CONFIG));
    label.append(
      el('span', { class: 'field-label' }, 'Real model'),
      el('span', { class: 'sr-only' }, ` (scheme ${S})`),
      select,
    );
    select.addEventListener('change', () => {
      if (select.value === OWN_CONFIG) {
        own.hidden = false;
        text.focus();
        return;
      }
      choose(side, { model: select.value });
    });

    // The person's own config.json: pasted into the box, opened, or dropped on the side's panel.
    const own = el('div', { class: 'model-own', hidden: true });
    const text = el('textarea', {
      id: `model-config-${side}`,
      rows: '3',
      spellcheck: 'false',
      placeholder: 'Paste a config.json here, or drop the file on this panel',
      'aria-label': `config.json text (scheme ${S})`,
    });
    const use = el('button', { type: 'button', class: 'small' }, 'Use this config');
    const openLabel = el('label', { class: 'button small', title: 'Open a config.json file' });
    const openInput = el('input', {
      type: 'file',
      accept: '.json,application/json',
      class: 'sr-only',
    });
    openLabel.append(el('span', {}, 'Open config.json'), openInput);
    // A config over the reader's limit is refused here, before it is read into the box, the
    // state and the link (a 5 MB file froze the page for seconds), with the API's wording.
    const ownError = el('p', {
      id: `model-config-${side}-error`,
      class: 'field-error',
      role: 'alert',
      hidden: true,
    });
    own.append(text, use, openLabel, ownError);
    const refuse = (message) => {
      ownError.hidden = !message;
      ownError.textContent = message ? `${message}.` : '';
      text.setAttribute('aria-invalid', message ? 'true' : 'false');
    };
    const configLimit = () => pg.info.limits.maxConfigBytes;
    let attempts = 0; // a newer paste or file wins over a reading still under way
    // A config refused by its size: a reading still under way no longer applies.
    const refuseSize = (problem) => {
      attempts++;
      pickers[side].pending = false;
      refuse(problem);
    };
    const useText = async (value) => {
      const problem = textOverLimit('The config.json', value, configLimit());
      if (problem) {
        refuseSize(problem);
        return;
      }
      const mine = ++attempts;
      // The worker reads the config first: one that cannot be read is marked here and not used,
      // so that the side keeps its last scheme and the other side keeps computing (a run with
      // it would fail both). Meanwhile the box keeps the text (sync() leaves it alone).
      pickers[side].pending = true;
      const summary = await choices.reading({ config: value });
      if (mine !== attempts) return;
      pickers[side].pending = false;
      refuse(null);
      if (summary.error) {
        const reason = summary.error.replace(/\.$/, '');
        refuse(`${reason[0].toUpperCase()}${reason.slice(1)}. Scheme ${S} keeps its last setting`);
        return;
      }
      text.value = value;
      choose(side, { model: OWN_CONFIG, config: value });
    };
    // A file's size is known before it is read.
    const useFile = async (file) => {
      if (file.size > configLimit()) {
        refuseSize(sizeOverLimit(`The file ${file.name}`, { bytes: file.size }, configLimit()));
        return;
      }
      useText(await file.text());
    };
    use.addEventListener('click', () => useText(text.value));
    openInput.addEventListener('change', async () => {
      if (openInput.files[0]) await useFile(openInput.files[0]);
    });
    const panel = document.getElementById(`scheme-${side}`);
    panel.addEventListener('dragover', (e) => {
      if ([...e.dataTransfer.types].includes('Files')) e.preventDefault();
    });
    panel.addEventListener('drop', async (e) => {
      const file = e.dataTransfer.files[0];
      if (!file) return;
      e.preventDefault();
      own.hidden = false;
      await useFile(file);
    });

    const strip = el('div', {
      class: 'layer-strip',
      role: 'group',
      'aria-label': `Layers of scheme ${S}'s model (click one to show it)`,
    });
    const legend = el('p', { class: 'layer-legend', 'aria-hidden': 'true' });
    for (const [cls, name] of [
      ['layer-full', 'full'],
      ['layer-sliding', 'sliding window'],
      ['layer-chunked', 'chunked'],
      ['layer-full layer-nope', 'NoPE'],
      ['layer-full layer-sinks', 'sinks'],
    ]) {
      const item = el('span', { class: 'layer-key' });
      item.append(el('span', { class: `layer ${cls}` }), name);
      legend.append(item);
    }
    const info = el('p', { class: 'hint model-info', 'aria-live': 'polite' });
    // What the config says that the maps do not compute (the reader's warnings, Dual Chunk
    // Attention), beside the layer.
    const notes = el('div', { class: 'hint model-notes', id: `model-notes-${side}` });
    const hiropeLabel = el('label', {
      class: 'field field-checkbox',
      title:
        "HiRoPE with this layer's own frequencies (base, scaling, rotated dims): beyond the window, the slow pairs count units instead of tokens. Ratio and window below.",
    });
    const hirope = el('input', { type: 'checkbox', id: `model-hirope-${side}` });
    hiropeLabel.append(
      hirope,
      el('span', { class: 'field-label' }, 'HiRoPE on this model'),
      el('span', { class: 'sr-only' }, ` (scheme ${S})`),
    );
    hirope.addEventListener('change', () =>
      set(side, { type: hirope.checked ? 'hirope' : 'rope' }, true),
    );
    const sinksLabel = el('label', {
      class: 'field field-checkbox',
      title:
        'Sinks: one more softmax column per head with a learned logit, dropped after the softmax, so a row may attend to nothing.',
    });
    const sinks = el('input', { type: 'checkbox', id: `model-sinks-${side}` });
    sinksLabel.append(
      sinks,
      el('span', { class: 'field-label' }, 'Sinks'),
      el('span', { class: 'sr-only' }, ` (scheme ${S})`),
    );
    sinks.addEventListener('change', () => set(side, { sinks: sinks.checked }, true));
    const sinkLabel = el('label', {
      class: 'field',
      title:
        'The sink logit of every head. GPT-oss learns one per head; they are weights, not in the config, so the page uses one value for all (0 unless set: about a key the query does not look at in particular; q·k/√d of the content-free q/k is up to √d).',
    });
    const sink = el('input', {
      type: 'number',
      id: `model-sink-${side}`,
      step: '0.5',
      min: '-100',
      max: '100',
      inputmode: 'decimal',
    });
    // A logit outside the field's range, or no number, is marked in place and not used, as the
    // scheme fields' are (controls.js): the maps keep the last good logit until it is corrected.
    const sinkError = el('span', {
      id: `model-sink-${side}-error`,
      class: 'field-error',
      role: 'alert',
      hidden: true,
    });
    sink.setAttribute('aria-describedby', sinkError.id);
    sinkLabel.append(
      el('span', { class: 'field-label' }, 'Sink logit'),
      el('span', { class: 'sr-only' }, ` (scheme ${S})`),
      sink,
      sinkError,
    );
    sink.addEventListener('input', () => {
      // A number field gives '' for text that is no number ("abc").
      const problem = numberProblem(SINK_SPEC, sink.value, 'sink logit');
      sink.setAttribute('aria-invalid', problem ? 'true' : 'false');
      sinkError.hidden = !problem;
      sinkError.textContent = problem ?? '';
      sinkLabel.classList.toggle('invalid', Boolean(problem));
      if (!problem) set(side, { sink: Number(sink.value) });
    });
    box.append(label, own, strip, legend, info, notes, hiropeLabel, sinksLabel, sinkLabel);
    panel.querySelector('.side-title').after(box);
    pickers[side] = {
      select,
      own,
      text,
      strip,
      legend,
      info,
      notes,
      hiropeLabel,
      hirope,
      sinksLabel,
      sinks,
      sinkLabel,
      sink,
      refuse,
      pending: false, // a config is being read (useText)
      sourceShown: '',
      drawn: '',
    };
  }

  function drawStrip(side, summary, index) {
    const p = pickers[side];
    const key = `${JSON.stringify(summary.layers)}|${index}`;
    if (p.drawn === key) return;
    p.drawn = key;
    p.strip.replaceChildren(
      ...summary.layers.map((layer, i) => {
        const b = el('button', {
          type: 'button',
          class: `layer layer-${layer.attention.type}${layer.rope ? '' : ' layer-nope'}${layer.sinks ? ' layer-sinks' : ''}`,
          'aria-pressed': String(i === index),
          'aria-label': `Layer ${i}: ${layerKind(layer)}`,
          title: `Layer ${i}: ${layerKind(layer)}`,
          'data-layer': String(i),
        });
        b.addEventListener('click', () => set(side, { layer: i }, true));
        return b;
      }),
    );
  }

  /** Shows the state: each side's model, strip, layer sentence and switches. */
  function sync() {
    for (const side of ['a', 'b']) {
      const p = pickers[side];
      const s = pg.state[side];
      const source = modelSource(s);
      p.select.value = source ? s.model : '';
      // A refused paste stays in its box, marked, until the side's model changes.
      const shown = source ? sourceKey(source) : '';
      if (shown !== p.sourceShown) {
        p.sourceShown = shown;
        p.refuse(null);
      }
      if (
        source?.config &&
        p.text.value !== source.config &&
        p.text.getAttribute('aria-invalid') !== 'true' &&
        !p.pending
      )
        p.text.value = source.config;
      if (s.model === OWN_CONFIG) p.own.hidden = false;
      const summary = source ? summaryOf(source) : null;
      const ready = summary && !summary.error;
      p.strip.hidden = !ready;
      p.legend.hidden = !ready;
      p.hiropeLabel.hidden = !ready;
      p.info.hidden = !source;
      p.info.classList.remove('warn');
      if (!source) p.info.textContent = '';
      else if (!summary) p.info.textContent = 'Reading the config…';
      else if (summary.error) p.info.textContent = summary.error;
      const noteList = ready ? modelNotes(summary) : [];
      const list = el('ul');
      list.append(...noteList.map((text) => el('li', {}, text)));
      p.notes.replaceChildren(el('span', {}, NOT_COMPUTED), list);
      p.notes.hidden = !noteList.length;
      if (!ready) {
        p.sinksLabel.hidden = p.sinkLabel.hidden = true;
        p.drawn = '';
        continue;
      }
      // A layer the model does not have (from a link) is named, never shown as another one.
      const problem = layerProblem(s.layer, summary.layers.length, modelName(source));
      drawStrip(side, summary, problem ? -1 : s.layer);
      if (problem) {
        p.info.textContent = `This layer is not one of the model's: ${problem}. Pick one in the strip.`;
        p.info.classList.add('warn');
        p.sinksLabel.hidden = p.sinkLabel.hidden = true;
        continue;
      }
      const layer = summary.layers[s.layer];
      p.info.textContent =
        layerSentence(summary, s.layer) +
        (s.type === 'hirope' && !layer.rope
          ? ' A NoPE layer has no frequencies for HiRoPE: it is shown as it is.'
          : '');
      p.hirope.checked = s.type === 'hirope';
      p.sinksLabel.hidden = !layer.sinks;
      p.sinks.checked = s.sinks;
      p.sinkLabel.hidden = !layer.sinks || !s.sinks;
      if (document.activeElement !== p.sink) p.sink.value = String(s.sink);
    }
  }
  /** A side's layer as far as its model is read ({ nope }), or null: for its title. */
  function layerOf(s) {
    const source = modelSource(s);
    const summary = source && summaryOf(source);
    const layer = summary?.layers?.[s.layer];
    return layer ? { nope: !layer.rope } : null;
  }
  return { sync, layerOf, viewLength: choices.viewLength, supersede: choices.supersede };
}
