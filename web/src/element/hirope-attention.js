// <hirope-attention>: an attention heatmap pair for blog posts, loaded with one script tag.
//
//   <script type="module" src="hirope-attention.js"></script>
//   <hirope-attention language="python" scheme-a="rope" scheme-b="hirope">
//     <template>def f(x):
//     return x + 1</template>
//   </hirope-attention>
//
// The code comes from the `code` attribute, a <template> child, or the element's text. The
// WebAssembly module loads only when an element first scrolls into view, in one Web Worker shared
// by every element on the page. Colours follow the surrounding page (light or dark text).
import { PairClient } from '../page/worker-requests.js';
import { drawHeatmap } from '../page/heatmap-draw.js';
import { describeScheme } from '../shared/playground-state.js';
import { schemeName, SCHEME_TYPES } from '../shared/schemes.js';
import { diffImage } from '../shared/diff-image.js';
import { LUTS, cssGradient, DECADES, RATIO_LIMIT, divergingLut } from 'hirope/colormap';
import { el } from '../page/dom.js';
import { plural, powerOfTen, DIFF_LEGEND } from '../shared/wording.js';
import { numberSpec, CATALOGUE } from '../shared/core-catalogue.js';
import {
  ATTRIBUTES,
  MODEL_SCHEMES,
  CHECKPOINT_SCHEMES,
  readAttributes,
  sameHint,
} from './attributes.js';
import { modelSource, layerProblem, modelNotes, NOT_COMPUTED } from '../shared/model-gallery.js';
import { assetURL } from '../shared/hashed-assets.js';
import { showCheckpoint } from './checkpoint-maps.js';

const MARGIN = 10;
/** What an element without code says (nothing to draw is not a picture of "no attention"). */
export const EMPTY_CODE =
  "There is no code to show: put it in the code attribute, in a <template> child or as the element's text.";
const CSS = `
:host { display: block; container-type: inline-size; color: inherit; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1.2em 0; }
:host([hidden]), [hidden] { display: none !important; }
.card { border: 1px solid color-mix(in srgb, currentColor 22%, transparent); border-radius: 10px; padding: 0.7em 0.8em; }
.bar { display: flex; flex-wrap: wrap; gap: 0.4em 0.8em; align-items: center; margin-bottom: 0.5em; font-size: 0.85em; }
label { display: inline-flex; gap: 0.35em; align-items: center; }
select, input { font: inherit; color: inherit; background: transparent; border: 1px solid color-mix(in srgb, currentColor 30%, transparent); border-radius: 5px; padding: 0.1em 0.3em; }
select option { color: #111; background: #fff; }
:host([data-theme=dark]) select option { color: #eee; background: #222; }
input[type=range] { padding: 0; width: 8em; accent-color: #2455c3; }
:host([data-theme=dark]) input[type=range] { accent-color: #7aa2ff; }
:focus-visible { outline: 2px solid #2455c3; outline-offset: 2px; }
.maps { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0.8em; }
@container (max-width: 520px) { .maps { grid-template-columns: 1fr; } }
figure { margin: 0; min-width: 0; }
figcaption { font-size: 0.85em; margin-bottom: 0.25em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
figcaption b { color: #8a5300; }
figure + figure figcaption b { color: #0072b2; }
:host([data-theme=dark]) figure + figure figcaption b { color: #56b4e9; }
figure:nth-child(3) figcaption b, :host([data-theme=dark]) figure:nth-child(3) figcaption b { color: inherit; }
:host([data-theme=dark]) figcaption b { color: #e6a700; }
canvas { width: 100%; height: auto; display: block; image-rendering: pixelated; aspect-ratio: 1; border-radius: 4px; }
.placeholder { aspect-ratio: 1; border-radius: 4px; background: color-mix(in srgb, currentColor 6%, transparent); display: grid; place-items: center; font-size: 0.8em; opacity: 0.8; }
.foot { display: flex; flex-wrap: wrap; gap: 0.3em 0.8em; align-items: center; margin-top: 0.45em; font-size: 0.78em; opacity: 0.85; }
.legend { display: inline-flex; gap: 0.35em; align-items: center; }
.legend span.bar { display: inline-block; width: 90px; height: 8px; border-radius: 2px; margin: 0; }
.error { color: #c62828; }
.same { flex-basis: 100%; font-weight: 600; opacity: 1; }
.notes { flex-basis: 100%; }
:host([data-theme=dark]) .error { color: #ff8a80; }
`;

let sharedClient = null;
function client() {
  // The site's worker.js (web/src/worker/main.js), bundled beside this module's bundle; the
  // package's element registers its own (dist/element-worker.js, see web/src/element/package.js).
  sharedClient ??= new PairClient(assetURL('worker.js', import.meta.url));
  return sharedClient;
}

const sheet = typeof CSSStyleSheet !== 'undefined' ? new CSSStyleSheet() : null;
sheet?.replaceSync(CSS);

function parseColour(text) {
  const m = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?/.exec(text || '');
  return m ? { r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4] } : null;
}
const luminance = ({ r, g, b }) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

// The page's Content Security Policy violations, the latest first: a policy that refuses the
// worker's start module (worker-src without blob:) is seen only here, not by the worker's error.
const violations = [];
globalThis.document?.addEventListener('securitypolicyviolation', (event) => {
  violations.unshift({ uri: event.blockedURI, directive: event.effectiveDirective });
  violations.length = Math.min(violations.length, 8);
});

/**
 * What to say when the worker did not start. A browser's error event names no file, so the
 * worker's URL is asked again: a missing file is named with the server's answer.
 */
async function workerFailure(reason) {
  const url = assetURL('worker.js', import.meta.url);
  // The blob: module that starts a worker from another origin reports its own cause (package.js).
  if (url.protocol === 'blob:') {
    const refused = violations.find((v) => v.uri === 'blob' || v.uri === url.href);
    if (refused)
      return `The hirope worker did not start: the page's Content Security Policy blocks its blob: start module (${refused.directive}): allow blob: in ${refused.directive}.`;
    return `The hirope worker did not start: ${reason.replace(/^Uncaught (Error: )?/, '')}.`;
  }
  let answer = '';
  try {
    const response = await fetch(url, { method: 'HEAD' });
    if (!response.ok) answer = ` (${url.href} answered HTTP ${response.status})`;
  } catch (e) {
    answer = ` (${url.href} could not be fetched: ${e.message})`;
  }
  return `The hirope worker did not start: ${reason}${answer || ` (${url.href})`}.`;
}

/** Whether two pooled maps are the same, cell for cell. */
function sameAttention(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class HiRoPEAttention extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  constructor() {
    super();
    this._root = this.attachShadow({ mode: 'open' });
    if (sheet) this._root.adoptedStyleSheets = [sheet];
    this._visible = false;
    this._pending = false;
    this._build();
  }

  _build() {
    const card = el('div', { class: 'card', part: 'card' });
    const bar = el('div', { class: 'bar' });
    const select = (name, label) => {
      const wrap = el('label', { title: `Position encoding ${label}` });
      const s = el('select', { 'aria-label': `Scheme ${label}` });
      for (const [value, text] of SCHEME_TYPES)
        s.append(
          Object.assign(new Option(text, value), {
            title: CATALOGUE.schemes.find((x) => x.name === value).description,
          }),
        );
      s.addEventListener('change', () => this.setAttribute(name, s.value));
      wrap.append(el('span', {}, label), s);
      bar.append(wrap);
      return s;
    };
    this._selectA = select('scheme-a', 'A');
    this._selectB = select('scheme-b', 'B');
    const ratio = numberSpec('ratio');
    this._ratioLabel = el('label', { title: `HiRoPE: ${ratio.help}` });
    this._ratio = el('input', {
      type: 'range',
      min: ratio.min,
      max: ratio.max,
      step: ratio.step,
      'aria-label': 'HiRoPE ratio',
    });
    this._ratioValue = el('output');
    this._ratio.addEventListener('input', () => this.setAttribute('ratio', this._ratio.value));
    this._ratioLabel.append(el('span', {}, 'ratio'), this._ratio, this._ratioValue);
    bar.append(this._ratioLabel);
    const maps = el('div', { class: 'maps' });
    this._figures = ['a', 'b', 'diff'].map((side) => {
      const figure = el('figure');
      const caption = el('figcaption');
      const label =
        side === 'diff'
          ? 'Where B attends more (blue) or less (orange) than A'
          : `Attention under scheme ${side.toUpperCase()}`;
      const canvas = el('canvas', { role: 'img', 'aria-label': label, width: '1', height: '1' });
      canvas.hidden = true;
      const placeholder = el('div', { class: 'placeholder' }, 'hirope loads when visible…');
      figure.append(caption, placeholder, canvas);
      maps.append(figure);
      return { caption, canvas, placeholder };
    });
    this._foot = el('div', { class: 'foot', role: 'status' });
    card.append(bar, maps, this._foot);
    this._root.append(card);
  }

  connectedCallback() {
    this._applyTheme();
    this._themeWatch ??= this._watchTheme();
    this._syncControls();
    if (!this._observer) {
      this._observer = new IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            this._visible = true;
            this._observer.disconnect();
            this._update();
          }
        },
        { rootMargin: '200px' },
      );
    }
    if (!this._visible) this._observer.observe(this);
    this._resize ??= new ResizeObserver(() => this._draw());
    this._resize.observe(this);
  }

  disconnectedCallback() {
    this._observer?.disconnect();
    this._resize?.disconnect();
  }

  attributeChangedCallback() {
    this._syncControls();
    if (this._visible) this._update();
  }

  /** The code shown: the code attribute, a <template> child, or the text content. */
  get code() {
    if (this.hasAttribute('code')) return this.getAttribute('code');
    const template = this.querySelector('template');
    const text = template ? template.content.textContent : this.textContent;
    // Drop the first line break and the common indentation that HTML layout adds.
    const lines = text
      .replace(/^\s*\n/, '')
      .replace(/\s+$/, '')
      .split('\n');
    const indent = Math.min(
      ...lines.filter((l) => l.trim()).map((l) => l.match(/^[ \t]*/)[0].length),
    );
    return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n') + '\n';
  }

  set code(value) {
    this.setAttribute('code', value);
  }

  get state() {
    return this._read().state;
  }

  /** The attributes read: the state, and the problems of those not acceptable (attributes.js). */
  _read() {
    return readAttributes((name) => this.getAttribute(name), this.getAttributeNames());
  }

  _syncControls() {
    const { state: s, checkpoint } = this._read();
    // A real model's side shows its layer (rope) or HiRoPE on it (hirope), a checkpoint's its own
    // positions (rope) or a scheme that keeps its rotation: the other schemes are not offered.
    const model = Boolean(modelSource(s.a));
    const offered = checkpoint ? CHECKPOINT_SCHEMES : model ? MODEL_SCHEMES : null;
    for (const select of [this._selectA, this._selectB])
      for (const option of select.options) {
        option.disabled = offered !== null && !offered.includes(option.value);
        if (option.value === 'rope') option.textContent = checkpoint ? 'its own' : 'RoPE';
      }
    this._selectA.value = s.a.type;
    this._selectB.value = s.b.type;
    this._ratio.value = String(s.b.ratio);
    this._ratioValue.textContent = String(s.b.ratio);
    this._ratioLabel.hidden = s.a.type !== 'hirope' && s.b.type !== 'hirope';
  }

  async _update() {
    const { state, problems, checkpoint } = this._read();
    const t0 = performance.now();
    this._runs = (this._runs ?? 0) + 1;
    const run = this._runs;
    if (problems.length) {
      this._fail(state, problems.join(' '), { bare: true });
      return;
    }
    if (!this.code.trim()) {
      this._fail(state, EMPTY_CODE);
      return;
    }
    this._foot.textContent = 'Computing…';
    this._foot.classList.remove('error');
    if (checkpoint) {
      await showCheckpoint(this, {
        state,
        checkpoint,
        run,
        t0,
        client: client(),
        sameAttention,
        workerFailure,
      });
      return;
    }
    try {
      // A real model sets the head dim and training length, unless the attributes do.
      const source = modelSource(state.a);
      let setup = null;
      if (source) {
        setup = await client().a.request('modelSetup', { source });
        if (run !== this._runs) return;
        // A layer the model does not have is refused by name, never shown as its last one.
        const problem = layerProblem(state.a.layer, setup.layers.length, source.id);
        if (problem) {
          this._fail(state, `The layer attribute must name a layer of the model: ${problem}.`);
          return;
        }
        if (this.getAttribute('head-dim') === null && setup.headDim <= 256)
          state.headDim = setup.headDim;
        if (this.getAttribute('train') === null) state.train = setup.trainedLength;
      }
      const { a, b } = await client().run({
        code: this.code,
        state,
        backend: 'wasm',
        views: false,
        view: { size: 320 },
      });
      if (run !== this._runs) return; // a newer state is on its way
      const result = {
        n: a.n,
        analysis: a.analysis,
        images: a.n ? { ...a.image, a: a.image.rgba, b: b.image.rgba, rawB: b.image.raw } : null,
      };
      this._result = { ...result, state, setup };
      this._draw();
      const ms = performance.now() - t0;
      this._foot.replaceChildren(
        ...this._legends(),
        el(
          'span',
          {},
          `${plural(result.analysis.count, 'token')}, ${plural(result.analysis.units.length, 'unit')} · ${ms.toFixed(0)} ms · hirope`,
        ),
      );
      // Identical maps and an empty diff would read as "no effect": say why, and what to change.
      const same = result.n > 0 && sameAttention(result.images.raw, result.images.rawB);
      if (same) this._foot.append(el('span', { class: 'same' }, sameHint(state, result.n, setup)));
      // What the model's config says that the maps do not compute (model-gallery.js modelNotes).
      const notes = setup ? modelNotes(setup) : [];
      if (notes.length)
        this._foot.append(el('span', { class: 'notes' }, `${NOT_COMPUTED} ${notes.join('; ')}.`));
      this.dataset.same = String(same);
      this.dataset.ready = 'true';
      this.dispatchEvent(
        new CustomEvent('hirope:ready', { detail: { tokens: result.n, ms, same } }),
      );
    } catch (e) {
      if (run !== this._runs) return;
      let message =
        e.name === 'NetworkError' ? e.message : `These settings cannot be computed: ${e.message}`;
      if (e.name === 'WorkerError') message = await workerFailure(e.message);
      if (run !== this._runs) return;
      this._fail(state, message);
    }
  }

  /** The two colour legends of the foot: the maps' magma ramp and the A vs B ratio ramp. */
  _legends() {
    const legend = el('span', { class: 'legend' });
    const gradient = el('span', { class: 'bar' });
    gradient.style.background = cssGradient(LUTS.magma);
    legend.append(el('span', {}, powerOfTen(-DECADES)), gradient, el('span', {}, 'row max'));
    const ratioLegend = el('span', { class: 'legend' });
    const ratioBar = el('span', { class: 'bar' });
    ratioBar.style.background = cssGradient(divergingLut(this.dataset.theme));
    ratioLegend.append(
      el('span', {}, `A attends ${2 ** RATIO_LIMIT}× more`),
      ratioBar,
      el('span', {}, `B ${2 ** RATIO_LIMIT}× more`),
    );
    return [legend, ratioLegend];
  }

  /**
   * A state that cannot be drawn: the message in the foot, and the maps titled with that state's
   * schemes, empty (never the previous result under the new names, nor the new names over it).
   */
  _fail(state, message, { bare = false, names: given = null } = {}) {
    this._result = null;
    // bare: an attribute was refused, so the scheme's own settings are not what was asked for.
    const name = (side) => (bare ? schemeName(side.type) : describeScheme(side));
    const names = given ?? { a: name(state.a), b: name(state.b) };
    ['a', 'b', 'diff'].forEach((side, i) => {
      const f = this._figures[i];
      if (side === 'diff') f.caption.replaceChildren(el('b', {}, 'A vs B'));
      else
        f.caption.replaceChildren(
          el('b', {}, side.toUpperCase()),
          document.createTextNode(` ${names[side]}`),
        );
      f.canvas.hidden = true;
      f.placeholder.textContent = 'not computed';
      f.placeholder.hidden = false;
      if (!f.placeholder.isConnected) f.canvas.before(f.placeholder);
    });
    this._foot.textContent = message;
    this._foot.classList.add('error');
    this.dataset.ready = 'error';
    this.dispatchEvent(new CustomEvent('hirope:error', { detail: { message } }));
  }

  _draw() {
    const r = this._result;
    if (!r) return;
    // A real model's NoPE layer is titled as such, not "HiRoPE on its frequencies".
    const layerOf = (side) => {
      const layer = r.setup?.layers[side.layer];
      return layer ? { nope: !layer.rope } : null;
    };
    const names = r.names ?? {
      a: describeScheme(r.state.a, layerOf(r.state.a)),
      b: describeScheme(r.state.b, layerOf(r.state.b)),
    };
    ['a', 'b', 'diff'].forEach((side, i) => {
      const f = this._figures[i];
      if (side === 'diff')
        f.caption.replaceChildren(
          el('b', {}, 'A vs B'),
          document.createTextNode(` ${DIFF_LEGEND}`),
        );
      else
        f.caption.replaceChildren(
          el('b', {}, side.toUpperCase()),
          document.createTextNode(` ${names[side]}`),
        );
      if (!r.n) return;
      // The A vs B map follows the element's theme (its neutral middle matches the background).
      const rgba =
        side === 'diff'
          ? diffImage(
              r.images.raw,
              r.images.rawB,
              r.images.rows,
              r.images.cols,
              r.images.region,
              this.dataset.theme,
            ).rgba
          : r.images[side];
      const width = Math.max(
        64,
        Math.round(
          f.placeholder.isConnected && !f.placeholder.hidden
            ? f.placeholder.clientWidth
            : f.canvas.clientWidth,
        ) || 320,
      );
      const plot = Math.max(
        r.images.cols,
        Math.min(1024, Math.round(width * (window.devicePixelRatio || 1)) - MARGIN),
      );
      f.canvas.width = f.canvas.height = plot + MARGIN;
      drawHeatmap(
        f.canvas.getContext('2d'),
        { rgba, rows: r.images.rows, cols: r.images.cols },
        r.images.region,
        r.analysis.unit,
        { margin: MARGIN, plot },
      );
      f.canvas.dataset.cells = String(r.images.cols);
      f.placeholder.hidden = true;
      f.placeholder.remove();
      f.canvas.hidden = false;
    });
  }

  // Light or dark from the page: the luminance of the inherited text colour.
  _applyTheme() {
    const colour = parseColour(getComputedStyle(this).color);
    const dark = colour
      ? luminance(colour) > 140
      : matchMedia('(prefers-color-scheme: dark)').matches;
    const theme = dark ? 'dark' : 'light';
    if (this.dataset.theme !== theme) {
      this.dataset.theme = theme;
      this._draw(); // the A vs B map's neutral colour follows the theme
    }
  }

  _watchTheme() {
    const update = () => this._applyTheme();
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', update);
    const observer = new MutationObserver(update);
    for (const node of [document.documentElement, document.body])
      if (node)
        observer.observe(node, {
          attributes: true,
          attributeFilter: ['class', 'style', 'data-theme'],
        });
    return observer;
  }
}

if (!customElements.get('hirope-attention'))
  customElements.define('hirope-attention', HiRoPEAttention);
