// One attention heatmap on a canvas: the pooled image from the worker, unit bands on both axes,
// the selected query row, drag-to-zoom, and keyboard control. Cell (row, col) of the image fills
// plot pixels [MARGIN + col * PLOT / cols, ...), so tests can read any cell back exactly.

import { el, legend } from './dom.js';

export const MARGIN = 14;
export const PLOT = 512;
/** Unit colours (RGB), shared with the editor's unit classes through CSS custom properties. */
export const UNIT_PALETTE = [[230, 159, 0], [86, 180, 233], [0, 158, 115], [204, 121, 167], [213, 94, 0], [0, 114, 178]];

export function installUnitColours(root = document.documentElement) {
  UNIT_PALETTE.forEach(([r, g, b], i) => root.style.setProperty(`--hr-u${i}`, `${r} ${g} ${b}`));
}


/**
 * Draws a pooled image into [margin, margin + plot) on both axes, with unit bands along the top
 * and left margins (a dark tick where a unit starts) and the selected row marked.
 */
export function drawHeatmap(ctx, image, region, units, { margin, plot, selected = -1 }) {
  const off = new OffscreenCanvas(image.cols, image.rows);
  off.getContext('2d').putImageData(new ImageData(image.rgba, image.cols, image.rows), 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(off, margin, margin, plot, plot);
  // The unit strips: one pixel per plot pixel, built as image rows and stretched to the margin.
  const strip = margin - 3;
  const axis = (from, to, horizontal) => {
    const span = to - from;
    const pixels = new Uint8ClampedArray(plot * 4);
    let previous = -1;
    for (let p = 0; p < plot; p++) {
      const u = units[from + Math.floor((p * span) / plot)];
      const colour = previous >= 0 && u !== previous ? [17, 17, 17] : UNIT_PALETTE[u % UNIT_PALETTE.length];
      pixels.set(colour, 4 * p);
      pixels[4 * p + 3] = 255;
      previous = u;
    }
    const line = new OffscreenCanvas(horizontal ? plot : 1, horizontal ? 1 : plot);
    line.getContext('2d').putImageData(new ImageData(pixels, horizontal ? plot : 1, horizontal ? 1 : plot), 0, 0);
    if (horizontal) ctx.drawImage(line, margin, 0, plot, strip);
    else ctx.drawImage(line, 0, margin, strip, plot);
  };
  axis(region.c0, region.c1, true);
  axis(region.r0, region.r1, false);
  if (selected >= region.r0 && selected < region.r1) {
    const y = margin + ((selected - region.r0 + 0.5) * plot) / (region.r1 - region.r0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, y - 2, strip, 4);
    ctx.fillStyle = '#000';
    ctx.fillRect(0, y - 1, strip, 2);
  }
}

export class Heatmap {
  /**
   * options: { id, title, description, onRow(index), onZoom(region | null), onExport(kind) }
   */
  constructor(parent, options) {
    this.options = options;
    this.figure = el('figure', { class: 'hm', id: options.id });
    const caption = el('figcaption');
    this.titleEl = el('span', { class: 'hm-title' }, options.title);
    this.subEl = el('span', { class: 'hm-sub' });
    const actions = el('span', { class: 'hm-actions' });
    for (const kind of ['PNG', 'CSV']) {
      const b = el('button', { type: 'button', class: 'small', title: kind === 'PNG' ? 'Save this heatmap as a PNG image' : 'Save the numbers of the visible region as CSV' }, kind);
      b.addEventListener('click', () => options.onExport(kind.toLowerCase()));
      actions.append(b);
    }
    caption.append(this.titleEl, this.subEl, actions);
    this.wrap = el('div', { class: 'hm-wrap' });
    this.canvas = el('canvas', { width: String(PLOT + MARGIN), height: String(PLOT + MARGIN), tabindex: '0', role: 'img', 'aria-label': options.title });
    this.rect = el('div', { class: 'hm-rect', hidden: '' });
    this.wrap.append(this.canvas, this.rect);
    this.legend = el('div', { class: 'legend' });
    this.figure.append(caption, this.wrap, this.legend);
    parent.append(this.figure);
    this.image = null;
    this.selected = -1;
    this._bindPointer();
    this._bindKeys();
  }

  setTitle(title, sub = '') {
    this.titleEl.textContent = title;
    this.subEl.textContent = sub;
  }

  setLegend(gradient, left, right, note = '') {
    const next = legend(gradient, left, right, note);
    this.legend.replaceWith(next);
    this.legend = next;
  }

  /** image: { rgba, rows, cols }; region: token ranges; units: Int32Array unit per token. */
  draw(image, region, units, n) {
    const same = image && this.image && image.rgba === this.image.rgba && region === this.region && units === this.units;
    this.image = image;
    this.region = region;
    this.units = units;
    this.n = n;
    if (!same) this.render();
  }

  render() {
    const { image, region, units } = this;
    const ctx = this.canvas.getContext('2d');
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!image) return;
    drawHeatmap(ctx, image, region, units, { margin: MARGIN, plot: PLOT, selected: this.selected });
    this.canvas.setAttribute('aria-label', `${this.titleEl.textContent}: ${this.n} tokens, rows ${region.r0}-${region.r1 - 1}${this.selected >= 0 ? `, query ${this.selected} selected` : ''}`);
  }

  select(index) {
    this.selected = index;
    this.render();
  }

  /** Token indices (row, col) under a client point, or null outside the plot. */
  cellAt(clientX, clientY) {
    if (!this.region) return null;
    const box = this.canvas.getBoundingClientRect();
    const x = ((clientX - box.left) * this.canvas.width) / box.width - MARGIN;
    const y = ((clientY - box.top) * this.canvas.height) / box.height - MARGIN;
    if (x < 0 || y < 0 || x >= PLOT || y >= PLOT) return null;
    const { r0, r1, c0, c1 } = this.region;
    return { row: r0 + Math.floor((y * (r1 - r0)) / PLOT), col: c0 + Math.floor((x * (c1 - c0)) / PLOT), x, y };
  }

  _bindPointer() {
    let start = null;
    const box = () => this.canvas.getBoundingClientRect();
    this.canvas.addEventListener('pointerdown', (e) => {
      start = this.cellAt(e.clientX, e.clientY) && { x: e.clientX, y: e.clientY };
      if (start) this.canvas.setPointerCapture(e.pointerId);
    });
    this.canvas.addEventListener('pointermove', (e) => {
      if (!start) return;
      const b = box();
      const dx = Math.abs(e.clientX - start.x);
      const dy = Math.abs(e.clientY - start.y);
      if (dx < 4 && dy < 4) return;
      this.rect.hidden = false;
      this.rect.style.left = `${Math.min(e.clientX, start.x) - b.left}px`;
      this.rect.style.top = `${Math.min(e.clientY, start.y) - b.top}px`;
      this.rect.style.width = `${dx}px`;
      this.rect.style.height = `${dy}px`;
    });
    this.canvas.addEventListener('pointerup', (e) => {
      if (!start) return;
      const from = this.cellAt(start.x, start.y);
      const to = this.cellAt(Math.min(Math.max(e.clientX, box().left), box().right - 1), Math.min(Math.max(e.clientY, box().top), box().bottom - 1));
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
