// Model mode's every layer and head (as bertviz's model view): A's and B's layer x head grids of
// thumbnails in the heatmaps' colours, computed one request at a time and kept per input; a
// checkpoint's grids hold the chosen layer's heads.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { THUMB_SIZE } from '../../shared/models.js';

/** The thumbnails' figure under the maps; clicking one opens its layer and head. */
export function createThumbnails(mx) {
  // ----- every layer and head as thumbnails (bertviz's model view), A's and B's
  const thumbs = {
    figure: el('figure', { class: 'thumbs', id: 'thumbs' }),
    grids: {},
    cells: { a: [], b: [] },
    key: { a: null, b: null }, // the input whose thumbnails are shown or being computed, per side
    done: { a: false, b: false },
    layers: 0,
    heads: 0,

    shownLayer: -1, // a checkpoint's grid: the layer whose heads it shows; -1: every layer

    /**
     * The grids for a model's layers and heads. oneLayer: only the chosen layer's heads (a
     * checkpoint's: SmolLM2-135M's 30 x 9 would be 540 canvases, whose compositing alone cost
     * 80 ms per keystroke), the row following the Layer menu.
     */
    build(layers, heads, { oneLayer = false } = {}) {
      if (layers === this.layers && heads === this.heads && oneLayer === this.shownLayer >= 0)
        return;
      this.layers = layers;
      this.heads = heads;
      this.rows(oneLayer ? mx.state.layer : -1);
    },

    /** (Re)builds the grids' rows: every layer, or layer `only` (>= 0). */
    rows(only) {
      const { heads } = this;
      this.shownLayer = only;
      const layers = only >= 0 ? [only] : [...Array(this.layers).keys()];
      const caption = el(
        'figcaption',
        {},
        only >= 0
          ? `Every head of layer ${only} (the Layer menu picks the layer)`
          : 'Every layer and head',
      );
      const pair = el('div', { class: 'thumbs-pair' });
      for (const side of ['a', 'b']) {
        const grid = el('div', {
          class: `thumb-grid side-${side}${only >= 0 ? ' one-layer' : ''}`,
          id: `thumbs-${side}`,
          role: 'group',
          'aria-label': `Scheme ${side.toUpperCase()}: attention of every ${only >= 0 ? `head of layer ${only}` : 'layer and head'}`,
        });
        grid.style.setProperty('--heads', String(heads));
        grid.append(el('span', { class: 'thumb-corner' }, side.toUpperCase()));
        // One layer: its heads wrap, each labelled under its map; every layer: a table.
        if (only < 0)
          for (let h = 0; h < heads; h++)
            grid.append(el('span', { class: 'thumb-col' }, `head ${h}`));
        this.cells[side] = [];
        for (const l of layers) {
          if (only < 0) grid.append(el('span', { class: 'thumb-row' }, `layer ${l}`));
          for (let h = 0; h < heads; h++) {
            const button = el('button', {
              type: 'button',
              class: 'thumb',
              'aria-label': `Layer ${l}, head ${h} (${side.toUpperCase()})`,
              title: `Open layer ${l}, head ${h}`,
            });
            const canvas = el('canvas', { width: String(THUMB_SIZE), height: String(THUMB_SIZE) });
            button.append(canvas);
            if (only >= 0) button.append(el('span', { class: 'thumb-label' }, `head ${h}`));
            button.addEventListener('click', () => openHead(l, h));
            grid.append(button);
            this.cells[side].push({ button, canvas, layer: l, head: h });
          }
        }
        this.grids[side] = grid;
        pair.append(grid);
      }
      this.note = el('p', { class: 'legend-note thumbs-note' });
      this.figure.replaceChildren(caption, pair, this.note);
      if (!this.figure.isConnected) $('maps').append(this.figure);
      this.key = { a: null, b: null };
      this.done = { a: false, b: false };
      this.select(only >= 0 ? only : mx.state.layer, mx.state.head);
    },

    select(layer, head) {
      // A checkpoint's row follows the layer (filled by the run that the change schedules).
      if (this.shownLayer >= 0 && layer !== this.shownLayer) return this.rows(layer);
      for (const side of ['a', 'b']) {
        for (const cell of this.cells[side])
          cell.button.setAttribute(
            'aria-pressed',
            String(cell.layer === layer && cell.head === head),
          );
      }
    },

    /** Computes one side's thumbnails for an input, one request at a time (so that others can pass). */
    async fill(side, payload) {
      const key = `${mx.sideKey(payload, side)}|${this.shownLayer}`;
      if (!this.layers || this.key[side] === key) return;
      this.key[side] = key;
      this.done[side] = false;
      this.update();
      for (const { canvas, button } of this.cells[side]) {
        canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
        button.classList.add('pending');
      }
      for (const cell of this.cells[side]) {
        const { layer: l, head: h } = cell;
        if (this.key[side] !== key) return;
        let image;
        try {
          image = await mx.client.side(side).request('modelThumbnail', {
            code: payload.code,
            language: payload.language,
            model: payload.state.model,
            side: payload.state[side],
            layer: l,
            head: h,
            size: THUMB_SIZE,
          });
        } catch {
          if (this.key[side] === key) this.key[side] = null; // shown by the run's own error
          return;
        }
        if (this.key[side] !== key) return;
        mx.counts[side] = image.counts;
        const { canvas, button } = cell;
        canvas.width = image.cols;
        canvas.height = image.rows;
        canvas
          .getContext('2d')
          .putImageData(new ImageData(image.rgba, image.cols, image.rows), 0, 0);
        button.classList.remove('pending');
      }
      this.done[side] = true;
      this.update();
    },

    update() {
      const ready = this.done.a && this.done.b;
      document.body.dataset.thumbs = ready ? 'ready' : 'busy';
      this.figure.setAttribute('aria-busy', String(!ready));
      if (this.note)
        this.note.textContent = ready
          ? `Each map: the first ${mx.result?.a.attentionBytes ?? ''} ${mx.result?.a.unit ?? 'byte'}s pooled to ${THUMB_SIZE} × ${THUMB_SIZE} cells, same colours as above. Click one to open it.`
          : 'Computing every layer and head…';
    },
  };

  function openHead(layer, head) {
    if (layer === mx.state.layer && head === mx.state.head) return;
    mx.state.layer = layer;
    mx.state.head = head;
    mx.syncControls();
    mx.writeURL({ push: true }); // a discrete choice, as the Layer and Head menus are
    mx.schedule();
  }

  return thumbs;
}
