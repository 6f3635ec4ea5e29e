// The shell the playground's pages share (index.html: attention, model.html: Model mode): element
// lookup, the status line and progress bar, the notice about the link that opened the page, the
// two workers, the history entry a state is written to, the mode links, and the theme.
import { el } from './dom.js';
import { PairClient } from './worker-requests.js';
import { encodeWith } from '../shared/link-state.js';

export const $ = (id) => document.getElementById(id);

/** The colour scheme the page follows (its media query, and 'dark' or 'light' now). */
export const dark = matchMedia('(prefers-color-scheme: dark)');
export const theme = () => (dark.matches ? 'dark' : 'light');

/**
 * The page's two workers (one per scheme). The site bundles the worker as worker.js beside the
 * pages' bundles and their chunks, so the URL is relative to this module's bundle; `?simd=0` on
 * the page runs the scalar build, as browsers without WebAssembly SIMD do, and `?gpu=any` lets a
 * checkpoint's loss run on a software WebGPU adapter.
 */
export function startWorkers() {
  const workerURL = new URL('./worker.js', import.meta.url);
  const search = new URLSearchParams(location.search);
  if (search.get('simd') === '0') workerURL.searchParams.set('simd', '0'); // the scalar build
  // A checkpoint's loss on any WebGPU adapter, a software one too (the tests' SwiftShader).
  if (search.get('gpu') === 'any') workerURL.searchParams.set('gpu', 'any');
  return { client: new PairClient(workerURL), workerURL };
}

/** The status line: a sentence, or an error (which also marks the page as settled for tests). */
export const statusLine = {
  show(text) {
    const status = $('status');
    status.classList.remove('error');
    status.textContent = text;
  },
  error(text) {
    const status = $('status');
    status.classList.add('error');
    status.textContent = text;
    document.body.dataset.ready = 'true';
  },
  get failed() {
    return $('status').classList.contains('error');
  },
};

/**
 * The progress bar (and, where the page has one, the line saying what runs), shown once a run
 * takes longer than `after` ms; `line()` gives that line's text at that moment.
 */
export function progressAfter(after = 150) {
  const bar = $('progress');
  const lineBox = $('progress-line');
  let timer = 0;
  return {
    start(line) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        bar.hidden = false;
        if (lineBox && line) {
          lineBox.hidden = false;
          lineBox.textContent = line();
        }
      }, after);
    },
    stop() {
      clearTimeout(timer);
      bar.hidden = true;
      if (lineBox) lineBox.hidden = true;
    },
  };
}

/** A notice about the link that opened the page (cut off, garbled, made without its code) before `anchor`; '' removes it. */
export function showLinkNotice(text, anchor) {
  $('link-notice')?.remove();
  if (!text) return;
  const box = el('div', { class: 'link-notice', id: 'link-notice', role: 'alert' });
  const close = el(
    'button',
    { type: 'button', class: 'small', title: 'Hide this notice' },
    'Dismiss',
  );
  close.addEventListener('click', () => box.remove());
  box.append(el('p', {}, text), close);
  anchor.before(box);
}

/** Writes a state's hash into the address bar: a new history entry when `push`, else in place. */
export function writeHash(hash, push = false) {
  if (hash !== location.hash && !(hash === '' && location.hash === ''))
    history[push ? 'pushState' : 'replaceState'](
      null,
      '',
      hash || location.pathname + location.search,
    );
}

/** The mode link `id` opens `page` with the code and language of this page's state (against that mode's defaults). */
export function bindModeLink(id, page, defaults, current) {
  $(id).addEventListener('click', async (e) => {
    e.preventDefault();
    const state = current();
    location.href = `${page}${await encodeWith(defaults, { language: state.language, code: state.code })}`;
  });
}
