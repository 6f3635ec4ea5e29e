// One attention heatmap on a canvas: the pooled image from the worker, unit bands on both axes,
// the selected query row, drag-to-zoom, and keyboard control. Cell (row, col) of the image fills
// plot pixels [MARGIN + col * PLOT / cols, ...), so tests can read any cell back exactly.

import { el, legend } from './dom.js';
import { plural } from '../shared/wording.js';
import { placeLabels, drawHeatmap } from './heatmap-draw.js';

export const MARGIN = 14;
export const PLOT = 512;
/** Extra margin for token labels, shown when the view spans at most LABEL_TOKENS tokens. */
export const LABEL_MARGIN = 96;
export const LABEL_TOKENS = 64;
/**
 * The token labels' smallest size as displayed (CSS pixels): the canvas is drawn at 590 pixels
 * and shown at its column's width (often half that), so the labels' font follows the displayed
 * size, and where the rows are too close for it only every k-th token is labelled.
 */
export const LABEL_MIN_PX = 11;

export class Heatmap {
  /**
   * options: { id, title, description, onRow(index), onZoom(region | null), onExport(kind),
   * onHover(cell | null, event) with cell = { row, col } token indices }
   */
  constructor(parent, options) {
    this.options = options;
    this.figure = el('figure', { class: 'hm', id: options.id });
    const caption = el('figcaption');
    this.titleEl = el('span', { class: 'hm-title' }, options.title);
    this.subEl = el('span', { class: 'hm-sub' });
    const actions = el('span', { class: 'hm-actions' });
    for (const kind of ['PNG', 'CSV']) {
      const b = el(
        'button',
        {
          type: 'button',
          class: 'small',
          title:
            kind === 'PNG'
              ? 'Save this heatmap as a PNG image with its title, settings and legend'
              : 'Save the numbers of the visible region as CSV, with token texts',
          'aria-label': `Save ${options.title} as ${kind}`,
        },
        kind,
      );
      b.addEventListener('click', () => options.onExport(kind.toLowerCase()));
      actions.append(b);
    }
    caption.append(this.titleEl, this.subEl, actions);
    this.wrap = el('div', { class: 'hm-wrap' });
    this.canvas = el('canvas', {
      width: String(PLOT + MARGIN),
      height: String(PLOT + MARGIN),
      tabindex: '0',
      role: 'img',
      'aria-label': options.title,
    });
    this.rect = el('div', { class: 'hm-rect', hidden: '' });
    // Guides (the window, the training length) go on their own canvas over the map, so that the
    // map's pixels stay exactly the data's colours.
    this.overlay = el('canvas', {
      class: 'hm-guides',
      width: this.canvas.width,
      height: this.canvas.height,
      'aria-hidden': 'true',
    });
    this.guides = [];
    this.wrap.append(this.canvas, this.overlay, this.rect);
    this.legend = el('div', { class: 'legend' });
    this.figure.append(caption, this.wrap, this.legend);
    parent.append(this.figure);
    this.image = null;
    this.selected = -1;
    this.margin = MARGIN;
    this.highlight = null; // { from, to }: a unit's token range, outlined on both axes
    this.labels = null; // (index) => short token text, for views of at most LABEL_TOKENS tokens
    this._bindPointer();
    this._bindKeys();
    // The labels' size follows the canvas's displayed width: a new width redraws a labelled view.
    this.shownWidth = 0;
    new ResizeObserver(() => {
      const width = this.canvas.clientWidth;
      if (width === this.shownWidth) return;
      this.shownWidth = width;
      if (this.image && this.labelled) this.render();
    }).observe(this.canvas);
  }

  setTitle(title, sub = '') {
    this.titleEl.textContent = title;
    this.subEl.textContent = sub;
    this.subEl.title = sub;
  }

  setLegend(gradient, left, right, note = '') {
    const spec = { gradient, left, right, note };
    if (JSON.stringify(spec) === JSON.stringify(this.legendSpec)) return;
    const next = legend(gradient, left, right, note);
    this.legend.replaceWith(next);
    this.legend = next;
    this.legendSpec = spec;
  }

  /** Empties the map, with a few words in its middle saying why. */
  clear(text) {
    this.emptyText = text;
    this.image = null;
    this.region = null;
    this.n = 0;
    this.render();
    this.canvas.setAttribute(
      'aria-label',
      `${this.titleEl.textContent}: ${text.replace(/\n/g, ' ')}`,
    );
  }

  /** image: { rgba, rows, cols }; region: token ranges; units: Int32Array unit per token. */
  draw(image, region, units, n, labels = this.labels) {
    this.emptyText = '';
    const same =
      image &&
      this.image &&
      image.rgba === this.image.rgba &&
      region === this.region &&
      units === this.units &&
      labels === this.labels;
    this.image = image;
    this.region = region;
    this.units = units;
    this.n = n;
    this.labels = labels;
    if (!same) this.render();
  }

  /** Whether the current view shows token labels on its axes. */
  get labelled() {
    const r = this.region;
    return Boolean(this.labels && r && r.r1 - r.r0 <= LABEL_TOKENS && r.c1 - r.c0 <= LABEL_TOKENS);
  }

  render() {
    const { image, region, units } = this;
    this.margin = this.labelled ? MARGIN + LABEL_MARGIN : MARGIN;
    const size = String(PLOT + this.margin);
    if (this.canvas.width !== Number(size)) {
      this.canvas.width = Number(size);
      this.canvas.height = Number(size);
    }
    const ctx = this.canvas.getContext('2d');
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!image) {
      this._drawGuides(); // clears them
      if (this.emptyText) {
        // Why the map is empty, in the middle of the plot (clear() sets it).
        ctx.save();
        ctx.font = '24px system-ui, sans-serif';
        ctx.textAlign = 'center';
        ctx.fillStyle = getComputedStyle(this.figure).color || '#222';
        const lines = this.emptyText.split('\n');
        lines.forEach((line, i) => {
          ctx.fillText(
            line,
            this.margin + PLOT / 2,
            this.margin + PLOT / 2 + 32 * (i - (lines.length - 1) / 2),
          );
        });
        ctx.restore();
      }
      return;
    }
    const stripAt = this.margin - MARGIN;
    drawHeatmap(ctx, image, region, units, {
      margin: this.margin,
      plot: PLOT,
      selected: this.selected,
      strip: MARGIN - 3,
      stripAt,
    });
    if (this.labelled) this._drawLabels(ctx);
    else {
      delete this.canvas.dataset.labelPx;
      delete this.canvas.dataset.labelPitchPx;
    }
    if (this.highlight) this._drawHighlight(ctx);
    this._drawGuides();
    this.canvas.setAttribute(
      'aria-label',
      `${this.titleEl.textContent}: ${plural(this.n, 'token')}, rows ${region.r0}-${region.r1 - 1}${this.selected >= 0 ? `, query ${this.selected} selected` : ''}`,
    );
  }

  // Token texts beside the rows and above the columns (rotated), in the page's text colour.
  _drawLabels(ctx) {
    const { r0, r1, c0, c1 } = this.region;
    const ink = getComputedStyle(this.figure).color || '#222';
    // Canvas pixels per CSS pixel as shown (1 while the canvas is not laid out).
    const shown = this.canvas.getBoundingClientRect().width;
    const scale = shown > 0 ? this.canvas.width / shown : 1;
    const size = Math.max(10, Math.ceil(LABEL_MIN_PX * scale));
    // Labels at least a line apart: every k-th token where the cells are smaller than a line.
    const line = size * 1.2;
    const every = (span) => Math.max(1, Math.ceil(line / (PLOT / span)));
    const rowStep = every(r1 - r0);
    const colStep = every(c1 - c0);
    this.canvas.dataset.labelPx = (size / scale).toFixed(1);
    this.canvas.dataset.labelPitchPx = (
      Math.min(rowStep * (PLOT / (r1 - r0)), colStep * (PLOT / (c1 - c0))) / scale
    ).toFixed(1);
    ctx.save();
    ctx.fillStyle = ink;
    ctx.font = `${size}px ui-monospace, Menlo, Consolas, monospace`;
    ctx.textBaseline = 'middle';
    const room = LABEL_MARGIN - 4;
    const fit = (text) => {
      let t = text;
      while (t.length > 1 && ctx.measureText(t).width > room) t = t.slice(0, -1);
      return t === text ? t : `${t.slice(0, -1)}…`;
    };
    ctx.textAlign = 'right';
    for (let i = r0; i < r1; i += rowStep)
      ctx.fillText(
        fit(this.labels(i)),
        LABEL_MARGIN - 2,
        this.margin + ((i - r0 + 0.5) * PLOT) / (r1 - r0),
      );
    ctx.textAlign = 'left';
    for (let j = c0; j < c1; j += colStep) {
      ctx.save();
      ctx.translate(this.margin + ((j - c0 + 0.5) * PLOT) / (c1 - c0), LABEL_MARGIN - 2);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(fit(this.labels(j)), 0, 0);
      ctx.restore();
    }
    ctx.restore();
  }

  // A unit's rows and columns outlined (the outline selection).
  _drawHighlight(ctx) {
    const { r0, r1, c0, c1 } = this.region;
    const { from, to } = this.highlight;
    const y0 = this.margin + ((Math.max(from, r0) - r0) * PLOT) / (r1 - r0);
    const y1 = this.margin + ((Math.min(to, r1) - r0) * PLOT) / (r1 - r0);
    const x0 = this.margin + ((Math.max(from, c0) - c0) * PLOT) / (c1 - c0);
    const x1 = this.margin + ((Math.min(to, c1) - c0) * PLOT) / (c1 - c0);
    ctx.save();
    ctx.strokeStyle =
      getComputedStyle(this.figure).getPropertyValue('--accent').trim() || '#2455c3';
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 3]);
    if (y1 > y0) ctx.strokeRect(this.margin, y0, PLOT, y1 - y0);
    if (x1 > x0) ctx.strokeRect(x0, this.margin, x1 - x0, PLOT);
    ctx.restore();
  }

  select(index) {
    this.selected = index;
    this.render();
  }

  /** Dashed diagonals where the query-key token distance is d: [{ distance, label }]. */
  setGuides(guides) {
    if (JSON.stringify(guides) === JSON.stringify(this.guides)) return;
    this.guides = guides;
    this._drawGuides();
  }

  _drawGuides() {
    const o = this.overlay;
    if (o.width !== this.canvas.width) {
      o.width = this.canvas.width;
      o.height = this.canvas.height;
    }
    const ctx = o.getContext('2d');
    ctx.clearRect(0, 0, o.width, o.height);
    if (!this.image || !this.region) return;
    const { r0, r1, c0, c1 } = this.region;
    const m = this.margin;
    const X = (j) => m + ((j - c0) * PLOT) / (c1 - c0);
    const Y = (i) => m + ((i - r0) * PLOT) / (r1 - r0);
    ctx.save();
    ctx.font = '600 17px system-ui, sans-serif';
    const labels = [];
    for (const { distance: d, label } of this.guides) {
      // Cells (i, i - d): from the first row whose key is in view to the last.
      const from = Math.max(r0, c0 + d);
      const to = Math.min(r1, c1 + d);
      if (to <= from) continue;
      const line = () => {
        ctx.beginPath();
        ctx.moveTo(X(from - d), Y(from));
        ctx.lineTo(X(to - d), Y(to));
        ctx.stroke();
      };
      ctx.setLineDash([]);
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgb(255 255 255 / 55%)';
      line();
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1.25;
      ctx.strokeStyle = 'rgb(0 0 0 / 85%)';
      line();
      // The label sits left of the line's lower end, inside the plot.
      labels.push({ label, end: X(to - d), y: Math.min(Y(to), m + PLOT) - 6 });
    }
    // Lines that end close together (W and L on a long file) share one label, "L 256, W 64".
    for (const { label, x, y } of placeLabels(
      labels,
      (text) => ctx.measureText(text).width,
      m + 2,
    )) {
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgb(255 255 255 / 85%)';
      ctx.setLineDash([]);
      ctx.textAlign = 'left';
      ctx.strokeText(label, x, y);
      ctx.fillStyle = '#111';
      ctx.fillText(label, x, y);
    }
    ctx.restore();
  }

  setHighlight(range) {
    this.highlight = range;
    this.render();
  }

  /** Token indices (row, col) under a client point, or null outside the plot. */
  cellAt(clientX, clientY) {
    if (!this.region) return null;
    const box = this.canvas.getBoundingClientRect();
    const x = ((clientX - box.left) * this.canvas.width) / box.width - this.margin;
    const y = ((clientY - box.top) * this.canvas.height) / box.height - this.margin;
    if (x < 0 || y < 0 || x >= PLOT || y >= PLOT) return null;
    const { r0, r1, c0, c1 } = this.region;
    return {
      row: r0 + Math.floor((y * (r1 - r0)) / PLOT),
      col: c0 + Math.floor((x * (c1 - c0)) / PLOT),
      x,
      y,
    };
  }

  _bindPointer() {
    let start = null;
    const box = () => this.canvas.getBoundingClientRect();
    this.canvas.addEventListener('pointerdown', (e) => {
      start = this.cellAt(e.clientX, e.clientY) && { x: e.clientX, y: e.clientY };
      if (start) this.canvas.setPointerCapture(e.pointerId);
    });
    // A finger leaves the canvas as it lifts: the card of a tapped cell stays until the next tap.
    this.canvas.addEventListener(
      'pointerleave',
      (e) => e.pointerType !== 'touch' && this.options.onHover?.(null),
    );
    this.canvas.addEventListener('pointermove', (e) => {
      if (!start) {
        this.options.onHover?.(this.cellAt(e.clientX, e.clientY), e);
        return;
      }
      const b = box();
      const dx = Math.abs(e.clientX - start.x);
      const dy = Math.abs(e.clientY - start.y);
      if (dx < 4 && dy < 4) return;
      this.options.onHover?.(null);
      this.rect.hidden = false;
      this.rect.style.left = `${Math.min(e.clientX, start.x) - b.left}px`;
      this.rect.style.top = `${Math.min(e.clientY, start.y) - b.top}px`;
      this.rect.style.width = `${dx}px`;
      this.rect.style.height = `${dy}px`;
    });
    this.canvas.addEventListener('pointerup', (e) => {
      if (!start) return;
      const from = this.cellAt(start.x, start.y);
      const to = this.cellAt(
        Math.min(Math.max(e.clientX, box().left), box().right - 1),
        Math.min(Math.max(e.clientY, box().top), box().bottom - 1),
      );
      const dragged = !this.rect.hidden;
      this.rect.hidden = true;
      start = null;
      if (!from) return;
      if (dragged && to) {
        const r0 = Math.min(from.row, to.row);
        const r1 = Math.max(from.row, to.row) + 1;
        const c0 = Math.min(from.col, to.col);
        const c1 = Math.max(from.col, to.col) + 1;
        if (r1 - r0 >= 2 && c1 - c0 >= 2) this.options.onZoom({ r0, r1, c0, c1 });
      } else {
        this.options.onRow(from.row);
        // A tap cannot hover: it shows the cell's card as a hover does.
        if (e.pointerType === 'touch') this.options.onHover?.(from, e);
      }
    });
  }

  _bindKeys() {
    this.canvas.addEventListener('keydown', (e) => {
      if (!this.region) return;
      const { r0, r1, c0, c1 } = this.region;
      const row = this.selected >= 0 ? this.selected : r0;
      const step = { ArrowUp: -1, ArrowDown: 1, PageUp: -10, PageDown: 10 }[e.key];
      if (step !== undefined) this.options.onRow(Math.min(this.n - 1, Math.max(0, row + step)));
      else if (e.key === 'Home') this.options.onRow(0);
      else if (e.key === 'End') this.options.onRow(this.n - 1);
      else if (e.key === '+' || e.key === '=') {
        // Zoom in twice around the selected row.
        const half = Math.max(2, Math.floor(Math.max(r1 - r0, c1 - c0) / 4));
        const from = Math.max(0, Math.min(row - half, this.n - 2 * half));
        const to = Math.min(this.n, from + 2 * half);
        this.options.onZoom({ r0: from, r1: to, c0: from, c1: to });
      } else if (e.key === '-' || e.key === '0') this.options.onZoom(null);
      else return;
      e.preventDefault();
    });
  }
}
