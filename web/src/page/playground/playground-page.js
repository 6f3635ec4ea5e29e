// The playground page: presets that tell a story, the editor with its units outline, the heatmaps
// A / B / A vs B with the comparison in numbers, and the distance, angle and decay views below,
// all fed by two workers (one per scheme). The whole state lives in the URL hash. This module
// holds the page's state (pg) and runs the redraws; the views are modules of their own.
import { createEditor, tokenAt } from '../editor.js';
import { installUnitColours } from '../heatmap-draw.js';
import { $, statusLine, progressAfter, showLinkNotice, startWorkers } from '../shell.js';
import { createControls } from './playground-controls.js';
import { createMaps } from './playground-maps.js';
import { createHoverCard } from './hover-card.js';
import { createOutline } from './outline.js';
import { createSummary } from './summary.js';
import { createViews } from './playground-views.js';
import { createRunProgress, cancelledText } from './run-progress.js';
import { createLinks, linkNotice } from './playground-url.js';
import { plainStatus, errorText, retitleUncomputed } from './playground-status.js';
import {
  normalizeState,
  readStateLink,
  describeScheme,
  analyzeOptionsFor,
} from '../../shared/playground-state.js';
import { splitHint, redrawTimings, alibiHint } from '../../shared/wording.js';
import { SAMPLES } from '../../shared/samples.js';

installUnitColours();
const progress = progressAfter(150);
const runProgress = createRunProgress(document.querySelector('.status-line'), () =>
  pg.client.cancel(),
);

const link = await readStateLink(location.hash);
/** The page's state, shared with its views: what the URL holds, and what is on screen. */
const pg = {
  state: link.state,
  zoom: null, // region of token indices, or null for everything
  selected: { side: 'b', index: -1 },
  result: null, // the last run's result
  comparison: null, // { tv, kl } per row for the result on screen
  qkFileName: null,
  ready: false,
  pushNext: false, // the next URL write adds a history entry (a discrete choice was made)
  choose() {
    pg.pushNext = true; // (playground-url.js replaces it: earlier choices get their entries first)
  },
  detected: null, // { code, language }: the last language detection, of that code
  lastEdit: -Infinity,
  paintTimes: {},
  syncSample: () => {}, // shows whether the code is a sample (set once the picker exists)
  schedule,
  showError,
  plainStatus: (value, snapshot) => plainStatus(pg, value, snapshot),
};
const backendTimes = {};
showLinkNotice(linkNotice(link), $('story'));

// ----- editor (first, so that a paste works while the module loads)
pg.editor = createEditor({
  parent: $('editor'),
  doc: pg.state.code ?? SAMPLES[pg.state.language] ?? '',
  language: pg.state.language,
  label: 'Source code (tokens are underlined by unit; hover a token for its positions)',
  onChange(text, update) {
    pg.state.code = text === SAMPLES[pg.state.language] ? null : text;
    pg.syncSample();
    const pasted = update.transactions.some(
      (tr) => tr.isUserEvent('input.paste') || tr.isUserEvent('input.drop'),
    );
    if (pasted && pg.ready && update.state.doc.length > 0 && update.changes.length > 0)
      controls.detectLanguage(true);
    scheduleEdit();
  },
  onSelect(pos) {
    const a = pg.result?.analysis;
    if (!a) return;
    const t = tokenAt(a, pos);
    outline.markUnit(t >= 0 ? a.unit[t] : -1, false);
  },
  describeToken(index) {
    const a = pg.result?.analysis;
    if (!a) return [];
    return [
      ['token', `${index} of ${a.count}`],
      ['text', JSON.stringify(maps.tokenText(index))],
      ['unit', maps.unitName(a.unit[index])],
      ['statement', String(a.statement[index])],
    ];
  },
});

pg.client = startWorkers().client;
pg.info = await pg.client.a.request('ready');
pg.ready = true;

// ----- the views, each a module of its own over pg
const controls = createControls(pg);
Object.assign(pg, {
  syncControls: controls.syncControls,
  supersedeModels: controls.supersedeModels,
  showNote: controls.showNote,
  sourceLabel: controls.sourceLabel,
  tokenizersBox: controls.tokenizersBox,
});
const maps = createMaps(pg);
Object.assign(pg, {
  heatmaps: maps.heatmaps,
  tokenText: maps.tokenText,
  unitName: maps.unitName,
  selectRow: maps.selectRow,
});
pg.hover = createHoverCard(pg);
const outline = createOutline(pg);
pg.markUnit = outline.markUnit;
const summary = createSummary(pg);
pg.renderSummary = summary.renderSummary;
const views = createViews(pg);
const links = createLinks(pg);

// ----- running
// TV and KL per row need both matrices; the workers compute them once the maps are on screen and
// no newer run has started or waits for the typing to pause for COMPARE_IDLE ms: while a slider
// moves or keys are typed, each comparison would cost the next redraw its time in both workers
// (each request waits for the one before it) and be replaced at once.
const COMPARE_IDLE = 150;
let compareTimer = 0;
let compared = null; // the matrices whose comparison is on screen or being computed

// Typing: a burst of keystrokes computes once the typing pauses (EDIT_IDLE) or at least every
// EDIT_MAX_WAIT while it goes on, so the maps follow the code without a computation per key.
const EDIT_IDLE = 150;
const EDIT_MAX_WAIT = 750;
let editTimer = 0;
let firstEdit = 0;
function scheduleEdit() {
  pg.lastEdit = performance.now();
  clearTimeout(compareTimer); // a run follows; the comparison waits for its result
  if (!pg.ready) return;
  const now = performance.now();
  if (!editTimer) firstEdit = now;
  clearTimeout(editTimer);
  editTimer = setTimeout(
    () => {
      editTimer = 0;
      schedule();
    },
    Math.max(0, Math.min(EDIT_IDLE, firstEdit + EDIT_MAX_WAIT - now)),
  );
}

let scheduled = false;
const lastHalves = { a: null, b: null }; // each worker's last full result
let startedAt = 0;
function schedule() {
  clearTimeout(compareTimer); // the run's own end asks for the comparison again
  if (!scheduled) startedAt = performance.now();
  scheduled = true;
  queueMicrotask(run);
}

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = startedAt;
  const code = pg.editor.text;
  const snapshot = normalizeState(pg.state);
  const viewsWanted = views.visible;
  progress.start();
  const reportProgress = runProgress.begin();
  let value;
  try {
    const pair = await pg.client.latest(
      {
        code,
        state: snapshot,
        backend: controls.backendSelect.value,
        view: { size: 512, region: pg.zoom },
        reuse: true,
        views: true,
        distancesWanted: viewsWanted,
        viewLength: controls.modelViewLength() ?? undefined, // a real model's maximum length
      },
      (report) => {
        const stage = typeof report === 'string' ? report : report.stage;
        $('progress').title = stage;
        $('status').dataset.stage = stage;
        reportProgress(report); // a long map's share done, with Cancel (run-progress.js)
      },
    );
    if (pair) {
      // A side that reports no change keeps its last result.
      for (const side of ['a', 'b']) {
        if (pair[side].unchanged) pair[side] = { ...lastHalves[side], timings: pair[side].timings };
        else lastHalves[side] = pair[side];
      }
    }
    value = pair && combine(pair.a, pair.b, snapshot, code.length);
    if (value) value.code = code;
  } catch (e) {
    progress.stop();
    runProgress.stop();
    if (e.name === 'Cancelled') {
      statusLine.show(cancelledText(pg));
      document.dispatchEvent(new Event('hirope:cancelled'));
      return;
    }
    showError(e);
    if (e.name !== 'Superseded') {
      retitleUncomputed(pg, snapshot, controls.ratioHints);
      controls.flagRefused(pg.result?.snapshot, snapshot);
    }
    return;
  }
  if (value === null) return; // superseded by a newer state
  progress.stop();
  runProgress.stop();
  const tPaint = performance.now();
  const compareNeeded = value.n > 0 && value.matrices !== compared;
  paint(value, snapshot);
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (pg.result !== value) return; // a newer result was painted meanwhile
  paintRest(value, snapshot);
  const now = performance.now();
  const total = now - t0;
  if (value.n) backendTimes[value.backend] = value.timings.a + value.timings.b;
  const t = value.timings;
  const backends = Object.entries(backendTimes)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`)
    .join(', ');
  statusLine.show(plainStatus(pg, value, snapshot));
  $('timing-text').textContent =
    `${redrawTimings({ total, received: tPaint - t0, paint: now - tPaint, sides: value.sideTimings })}${backends ? ` Attention A + B by backend: ${backends}.` : ''}`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(
    new CustomEvent('hirope:redraw', {
      detail: {
        total,
        paint: now - tPaint,
        tokens: value.n,
        ...t,
        received: tPaint - t0,
        visibleShare: value.images?.visibleShare,
        paintEditor: pg.paintTimes.editor,
        paintMaps: pg.paintTimes.maps,
        paintViews: pg.paintTimes.views,
      },
    }),
  );
  links.writeURL(snapshot);
  if (compareNeeded) compareSoon(value);
  // The views came into view while this run computed without them (the observer reports after the
  // first run has started, and reports again only when visibility changes): compute them now.
  if (value.n && !viewsWanted && views.visible && !value.views.distances) {
    views.clearPending();
    schedule();
  }
}

function compareSoon(value) {
  clearTimeout(compareTimer);
  compared = null;
  pg.comparison = null;
  summary.renderSummary();
  compareTimer = setTimeout(() => compareSides(value), COMPARE_IDLE);
}

async function compareSides(value) {
  if (pg.result?.matrices !== value.matrices) return; // a newer result asks for its own
  compared = value.matrices;
  try {
    const c = await pg.client.compare(value.n);
    // A later result with the same two matrices (a zoom, the views arriving) keeps the comparison.
    if (pg.result?.matrices !== value.matrices) return;
    pg.comparison = c;
    summary.renderSummary();
    document.dispatchEvent(new CustomEvent('hirope:compare', { detail: { tv: c.tv, kl: c.kl } }));
  } catch {
    // A newer run replaced a matrix in between; its own comparison follows.
    if (compared === value.matrices) compared = null;
  }
}

// One result from the two workers' halves.
function combine(a, b, snapshot, length) {
  const timings = {
    analysis: Math.max(a.timings.analysis ?? 0, b.timings.analysis ?? 0),
    a: a.timings.attention,
    b: b.timings.attention,
    images: Math.max(a.timings.images ?? 0, b.timings.images ?? 0),
    views: Math.max(a.timings.views ?? 0, b.timings.views ?? 0),
  };
  const analysis = { ...a.analysis, length };
  const sideTimings = { a: a.timings, b: b.timings };
  if (!a.n) return { analysis, n: 0, notes: a.notes, timings, sideTimings, backend: a.backend };
  return {
    analysis,
    sideTimings,
    n: a.n,
    headDim: a.headDim,
    alibiSlope: { a: a.alibiSlope, b: b.alibiSlope },
    masks: { a: a.mask, b: b.mask },
    // Each side's own head dim and training length (a real model's: model-sides.js).
    facts: { a: a.facts, b: b.facts },
    notes: a.notes,
    backend: a.backend,
    timings,
    matrices: `${a.matrix}|${b.matrix}`,
    images: maps.combineImages(a.image, b.image),
    views: {
      distances: b.views.distances,
      angles: { a: a.views.angles, b: b.views.angles },
      // Each side's curve runs to its own farthest distance, judged at its own training length.
      decay: {
        a: a.views.decay,
        b: b.views.decay,
        maxDistance: { a: a.views.maxDistance, b: b.views.maxDistance },
        reach: { a: a.views.reach, b: b.views.reach },
        masks: { a: a.mask?.type ?? null, b: b.mask?.type ?? null },
        train: { a: a.facts.train, b: b.facts.train },
        nope: { a: a.facts.nope, b: b.facts.nope },
        stride: snapshot.stride,
      },
    },
    snapshot,
  };
}

function paint(value, snapshot) {
  pg.paintTimes.editor = 0;
  const previous = pg.result;
  // The analysis object is kept when its version is unchanged, so the heatmaps' unit strips and
  // the editor's marks are not rebuilt.
  if (
    previous &&
    value.analysis.version === previous.analysis.version &&
    value.analysis.count === previous.analysis.count
  )
    value.analysis = previous.analysis;
  pg.result = value;
  const a = value.analysis;
  if (a !== previous?.analysis) {
    pg.selected.index = -1;
    $('query-info').textContent = '';
    for (const h of Object.values(pg.heatmaps)) {
      h.selected = -1;
      h.highlight = null;
    }
  }
  const names = {
    a: describeScheme(snapshot.a, value.facts?.a),
    b: describeScheme(snapshot.b, value.facts?.b),
  };
  pg.heatmaps.a.setTitle('A', names.a);
  pg.heatmaps.b.setTitle('B', names.b);
  pg.heatmaps.diff.setTitle('A vs B', 'B ÷ A');
  controls.syncHeadDim(); // a q/k file's head dimension, once its result is on screen
  if (!value.n) {
    for (const h of Object.values(pg.heatmaps)) h.draw(null);
  } else {
    const t = performance.now();
    maps.drawHeatmaps(value.images);
    pg.paintTimes.maps = performance.now() - t;
  }
}

// The rest of a redraw, in the task after the maps: the editor's marks, the outline, the numbers
// and the hints (so that no single task of a redraw blocks typing for long).
let marked = null; // the analysis whose tokens the editor and the outline show
function paintRest(value, snapshot) {
  const a = value.analysis;
  if (a !== marked) {
    marked = a;
    const t = performance.now();
    pg.editor.setTokens({
      count: a.count,
      start: a.start,
      end: a.end,
      unit: a.unit,
      length: a.length,
    });
    pg.paintTimes.editor = performance.now() - t;
    outline.renderOutline(a);
    controls.tokenizersBox.update(
      value.code,
      { ...analyzeOptionsFor(snapshot), tokenizer: undefined },
      snapshot.tokenizer,
    );
  }
  summary.renderSummary();
  if (!value.n) return;
  pg.paintTimes.views = 0;
  views.show(value);
  for (const side of ['a', 'b']) {
    const angles = value.views.angles[side]?.value;
    const hint = controls.ratioHints[side];
    if (snapshot[side].type === 'alibi' && value.alibiSlope?.[side]) {
      hint.classList.remove('warn');
      hint.textContent = alibiHint(value.alibiSlope[side]);
      continue;
    }
    if (snapshot[side].type !== 'hirope' || !angles) {
      hint.textContent = '';
      hint.classList.remove('warn');
      continue;
    }
    // The token band is in distribution when its slowest pair turns a full period within the
    // training length, i.e. its index is below Split% of the pairs.
    const { text, over } = splitHint({
      splitPair: angles.splitPair,
      pairs: angles.pairs,
      tokenPairs: angles.bands[0].pairs[1],
      train: value.facts[side].train, // the side's own (a real model's trained length)
      stride: snapshot.stride,
    });
    hint.classList.toggle('warn', over);
    hint.textContent = text;
  }
  if (pg.selected.index >= 0 && pg.selected.index < value.n)
    maps.selectRow(pg.selected.side, pg.selected.index);
}

function showError(e) {
  statusLine.error(errorText(pg, e));
}
// Window width changes redraw the width-filling charts.
let resizeTimer = 0;
addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (!pg.result?.n) return;
    summary.renderSummary();
    views.redraw();
  }, 150);
});

// On a phone the maps come first: the comparison before the code, and in it the maps before the
// scheme controls. The nodes are moved (not reordered by CSS), so that reading and tab order
// follow what is seen; a wider window puts them back.
const phone = matchMedia('(max-width: 760px)');
function arrange() {
  const bar = document.querySelector('#compare > .scheme-bar');
  if (phone.matches) {
    $('source').before($('compare'));
    $('maps').after(bar);
  } else {
    $('compare').before($('source'));
    document.querySelector('#compare > .section-head').before(bar);
  }
}
phone.addEventListener('change', arrange);
arrange();

controls.syncControls();
schedule();
