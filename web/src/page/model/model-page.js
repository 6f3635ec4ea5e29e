// The playground's Model mode: hirope's code model under two schemes — loss by position, code
// shaded by loss, the model's real attention per layer and head (and every layer and head as
// thumbnails), and generation — computed by the same two workers as the attention mode. The
// whole state lives in the URL hash. This module holds the page's state (mx) and runs the model;
// the views are modules of their own.
import { createEditor, HEAT_LEVELS } from '../editor.js';
import { installUnitColours } from '../heatmap-draw.js';
import {
  $,
  statusLine,
  progressAfter,
  showLinkNotice,
  startWorkers,
  bindModeLink,
} from '../shell.js';
import { createLinkHistory } from '../link-history.js';
import { unitOf, normal, sampleOf, stateFromHash } from './model-mode.js';
import { markTable, charBits } from './model-marks.js';
import { createModelLoading } from './model-loading.js';
import { createCheckpointSource } from './checkpoint-source.js';
import { CHECKPOINT } from '../../shared/models.js';
import { createModelControls } from './model-controls.js';
import { createModelMaps } from './model-maps.js';
import { createThumbnails } from './thumbnails.js';
import { createGeneration } from './generation.js';
import { createLossChart } from '../charts/loss.js';
import { readModelLink, encodeModelState, describeModelSide } from '../../shared/model-state.js';
import { DEFAULTS } from '../../shared/playground-state.js';
import { LINK_UNREADABLE } from '../../shared/wording.js';
import { readCount, clipSentence, modelErrorText } from '../../shared/model-wording.js';

installUnitColours();
const progress = progressAfter(150);

let pageBuilt;
/** The page's state, shared with its views: what the URL holds, the model and what is on screen. */
const mx = {
  state: await stateFromHash(location.hash),
  zoom: null,
  result: null, // { a, b } of the last run
  config: null, // the model's config (from its file, once loaded)
  bound: null, // splitBoundOf(0): the largest band within the bound, once the config is known
  paperBound: null, // splitBoundOf(0.5): the paper's ratio against this model's bound
  selected: null, // { side, index }: the query row shading the code, if any
  generating: false, // a generation is under way (Generate is disabled)
  chars: null, // { count, start, end, unit, firstByte, byteChar }: the marks of the code read
  modelReady: null, // the current model's load, with config and bound set once it is loaded
  built: new Promise((resolve) => (pageBuilt = resolve)), // the controls exist (end of this module)
  computed: { a: null, b: null }, // per side: { key, layer, head } of the worker's last result
  counts: { a: null, b: null }, // the workers' pass counters, as last reported
  schedule,
  showError,
  writeURL,
  shadeCode,
  sideKey,
};
// A link that cannot be read (cut off or garbled when copied) says so; the page shows the defaults.
if ((await readModelLink(location.hash)).unreadable)
  showLinkNotice(LINK_UNREADABLE, document.querySelector('.status-line'));
// The core's Split% bound for this model's training length, base and head size, at a ratio.
mx.splitBoundOf = (ratio) =>
  mx.client.a.request('splitBound', {
    scheme: {
      type: 'hirope',
      ratio,
      base: mx.config.ropeBase,
      trainingLength: mx.config.trainingContext,
    },
    headDim: mx.config.headDim,
  });
Object.assign(mx, startWorkers());
// The code's grammar, compiled and handed to both workers while the model's weights download
// (the first run would otherwise wait for it after them).
for (const side of ['a', 'b'])
  mx.client
    .side(side)
    .loadLanguage(mx.state.language)
    .catch(() => {});

const loading = createModelLoading(mx);
Object.assign(mx, { useModel: loading.useModel, labelSizes: loading.labelSizes });
// The person's checkpoint (a folder, files or URL): each one opened is a new model, whose
// results replace the last one's.
mx.checkpointSource = createCheckpointSource(mx, {
  onOpened({ url, fromLink }) {
    mx.checkpointOpened = (mx.checkpointOpened ?? 0) + 1;
    if (mx.state.model !== CHECKPOINT) return;
    mx.state.checkpoint = url;
    mx.zoom = null;
    mx.clearRow?.();
    mx.result = null;
    mx.chars = null;
    for (const side of ['a', 'b']) mx.computed[side] = null;
    mx.clearResults?.();
    loading.useModel(CHECKPOINT);
    writeURL({ push: !fromLink }); // a folder opened adds a history entry; one a link opened does not
    schedule();
  },
});
loading.useModel(mx.state.model);
mx.info = await mx.client.a.request('ready');

// ----- the views, each a module of its own over mx
const generation = createGeneration(mx);
mx.syncGenerate = generation.syncGenerate;
const controls = createModelControls(mx);
Object.assign(mx, { syncControls: controls.syncControls, configured: controls.configured });
const lossChart = createLossChart(mx);
mx.drawLossChart = lossChart.drawLossChart;
const maps = createModelMaps(mx);
Object.assign(mx, {
  heatmaps: maps.heatmaps,
  clearRow: maps.clearRow,
  syncMapHint: maps.syncMapHint,
  // A switch of model: the previous model's chart, key and maps go at once, not when the new
  // one has downloaded and run (about 20 s for the token model on a first visit).
  clearResults: () => {
    lossChart.drawLossChart();
    for (const side of ['a', 'b']) maps.heatmaps[side].clear('Running the model over the code…');
  },
});
mx.thumbs = createThumbnails(mx);

// ----- editor: one mark per character, shaded by its loss
mx.editor = createEditor({
  parent: $('editor'),
  doc: mx.state.code ?? sampleOf(mx.state) ?? '',
  language: mx.state.language,
  label: "Source code (shaded by the model's loss; hover a character for details)",
  onChange(text, update) {
    mx.state.code = text === sampleOf(mx.state) ? null : text;
    mx.syncGenerate();
    // Pasted or dropped code: its language is detected, as in the attention mode.
    const pasted = update.transactions.some(
      (tr) => tr.isUserEvent('input.paste') || tr.isUserEvent('input.drop'),
    );
    if (pasted && text.length > 0) controls.detectLanguage().catch(showError);
    mx.schedule();
  },
  describeToken(index) {
    if (!mx.chars || !mx.result) return [];
    if (mx.chars.tokens) {
      // A token: its text, its llama2 id, and its loss (bits) under A and B, as the API gives them.
      const bits = (side) =>
        index === 0 ? '—' : `${mx.result[side].losses[index - 1].toFixed(2)} bits`;
      return [
        ['token', `${index} of ${mx.result.a.n}`],
        ['text', JSON.stringify(mx.editor.text.slice(mx.chars.start[index], mx.chars.end[index]))],
        ['id', String(mx.chars.tokens.ids[index])],
        ['loss A', bits('a')],
        ['loss B', bits('b')],
        ['unit (B)', String(mx.chars.unit[index])],
      ];
    }
    const byte = mx.chars.firstByte[index];
    const bits = (side) => {
      const v = charBits(mx.chars, mx.result[side].losses, index);
      return v === null ? '—' : `${v.toFixed(2)} bits`;
    };
    return [
      ['byte', `${byte} of ${mx.result.a.n}`],
      ['text', JSON.stringify(mx.editor.text.slice(mx.chars.start[index], mx.chars.end[index]))],
      ['loss A', bits('a')],
      ['loss B', bits('b')],
      ['unit (B)', String(mx.chars.unit[index])],
    ];
  },
});

function shadeCode() {
  if (!mx.chars || !mx.result) return;
  const losses = mx.result[mx.state.colour].losses;
  const levels = new Uint8Array(mx.chars.count);
  for (let c = 0; c < mx.chars.count; c++) {
    const bits = charBits(mx.chars, losses, c);
    levels[c] = bits === null ? 0 : Math.max(0, Math.min(HEAT_LEVELS, Math.round(bits)));
  }
  mx.editor.setHeat({ levels, query: -1 });
  $('code-legend').textContent =
    `Shading: bits to predict each ${mx.chars.tokens ? 'token (hover one for its text, id and loss)' : 'character'} under ${mx.state.colour.toUpperCase()}, ${describeModelSide(mx.state[mx.state.colour], unitOf(mx.state))} — one shade per bit, darkest at ${HEAT_LEVELS} bits or more.`;
  writeURL();
}

// ----- running
// A side's loss depends on the code and its scheme; its attention also on the layer and head.
// Each worker keeps what it computed last, so a layer or head change asks only for the attention
// (no loss pass), and a change to one scheme leaves the other side's worker idle.
let scheduled = false;
function schedule() {
  scheduled = true;
  queueMicrotask(run);
}

function sideKey(payload, side) {
  return JSON.stringify([
    payload.state.model,
    mx.checkpointOpened ?? 0, // another checkpoint opened: everything computes again
    payload.code,
    payload.language,
    payload.state[side],
  ]);
}

// Whether a side's loss for this payload is computed (the code, model and scheme unchanged).
const lossDone = (payload, side) =>
  mx.computed[side]?.key === sideKey(payload, side) && mx.computed[side].hasLoss;

// lossLater: the attention alone, the loss left for the next run (a checkpoint's first maps).
async function runBoth(payload, { lossLater = false } = {}) {
  const parts = {};
  const [a, b] = await Promise.all(
    ['a', 'b'].map(async (s) => {
      const key = sideKey(payload, s);
      const prev = mx.computed[s];
      const same = prev?.key === key;
      const attention = !same || prev.layer !== payload.layer || prev.head !== payload.head;
      const loss = !lossLater && !lossDone(payload, s);
      parts[s] = { loss, attention };
      if (!loss && !attention) return prev.result;
      const r = await mx.client.side(s).request('modelRun', {
        code: payload.code,
        language: payload.language,
        model: payload.state.model,
        layer: payload.layer,
        head: payload.head,
        view: payload.view,
        side: payload.state[s],
        parts: parts[s],
      });
      mx.counts[s] = r.counts;
      const merged = same ? { ...prev.result, ...r } : r;
      Object.assign(merged, { side: payload.state[s], layer: payload.layer, head: payload.head });
      const hasLoss = loss || (same && prev.hasLoss);
      mx.computed[s] = { key, layer: payload.layer, head: payload.head, result: merged, hasLoss };
      return merged;
    }),
  );
  return { a, b, parts };
}

async function run() {
  if (!scheduled) return;
  scheduled = false;
  const t0 = performance.now();
  const snapshot = normal(mx.state);
  const payload = {
    code: mx.editor.text,
    state: snapshot,
    language: snapshot.language,
    layer: snapshot.layer,
    head: snapshot.head,
    view: { size: 512, region: mx.zoom },
  };
  // A progress line while the workers run (the page itself stays responsive: the forward passes
  // are in the workers), saying what runs.
  const lossWanted = ['a', 'b'].some((s) => !lossDone(payload, s));
  const unit = unitOf(snapshot);
  const mapsFirst = snapshot.model === CHECKPOINT && lossWanted;
  progress.start(() =>
    !mx.config
      ? 'Downloading the model…'
      : mapsFirst
        ? `Running the model under A and B: every layer's and head's attention, then the loss at every ${unit}…`
        : lossWanted
          ? `Running the model over the code under A and B (the loss at every ${unit}, then the attention)…`
          : `Computing layer ${snapshot.layer}, head ${snapshot.head}'s attention under A and B (no loss pass)…`,
  );
  // The checkpoint source with nothing opened yet: its panel asks for a folder, files or URL.
  if (snapshot.model === CHECKPOINT && !mx.checkpointSource.opened) {
    progress.stop();
    statusLine.show(
      'Choose a checkpoint folder or its files, drop them on the panel, or give a folder’s URL: the maps, loss and generation then come from that model.',
    );
    return;
  }
  let pair;
  try {
    await mx.modelReady;
    // A checkpoint draws its maps before its loss: every head of every layer comes from one
    // forward over the attention's tokens, and the loss over the longer code takes twice as long.
    if (mapsFirst) {
      const first = await mx.client.latest(payload, null, (p) => runBoth(p, { lossLater: true }), {
        restart: false,
      });
      if (!first) return progress.stop();
      mx.result = { a: first.a, b: first.b };
      mx.chars = null; // the marks come with the loss (a token's text, its loss)
      maps.drawMaps();
      mx.thumbs.select(snapshot.layer, snapshot.head);
      progress.start(() => `Maps drawn; now the loss at every ${unit} under A and B…`);
      document.dispatchEvent(new CustomEvent('hirope:model-maps'));
    }
    // A checkpoint's run is waited for, not cut short: replaced workers would read its weights again.
    pair = await mx.client.latest(payload, null, (p) => runBoth(p), {
      restart: snapshot.model !== CHECKPOINT,
    });
  } catch (e) {
    progress.stop();
    return showError(e);
  }
  if (!pair) return;
  progress.stop();
  const { parts } = pair;
  const lossRan = parts.a.loss || parts.b.loss;
  mx.result = { a: pair.a, b: pair.b };
  $('attention-bytes').textContent = String(pair.a.attentionBytes);
  if (lossRan || !mx.chars) {
    mx.chars = markTable(payload.code, pair.a, pair.b.byteUnits);
    // length: the text these offsets belong to (the editor maps older marks until it matches).
    mx.editor.setTokens({
      count: mx.chars.count,
      start: mx.chars.start,
      end: mx.chars.end,
      unit: mx.chars.unit,
      length: payload.code.length,
    });
    maps.clearRow();
    shadeCode();
    lossChart.drawLossChart();
  }
  maps.drawMaps();
  controls.updateHints();
  mx.thumbs.select(snapshot.layer, snapshot.head);
  if (!lossRan && mx.selected) maps.selectRow(mx.selected.side, mx.selected.index); // the same query under the new head
  const ms = performance.now() - t0;
  const t = (side) => pair[side].timings;
  const timing = (side, what) =>
    parts[side][what]
      ? `${side.toUpperCase()} ${t(side)[what].toFixed(0)}`
      : `${side.toUpperCase()} —`;
  const detail = lossRan
    ? `loss ${timing('a', 'loss')}, ${timing('b', 'loss')}; attention ${timing('a', 'attention')}, ${timing('b', 'attention')}`
    : `layer ${snapshot.layer}, head ${snapshot.head}: attention only, ${timing('a', 'attention')}, ${timing('b', 'attention')}`;
  // The status says what was read and how well each side predicts it; the timings are one click away.
  const u = pair.a.unit;
  const per = (r) => (u === 'token' ? r.bitsPerToken : r.bitsPerByte);
  const cut = clipSentence({ unit: u, ...pair.a });
  statusLine.show(
    `${readCount({ unit: u, ...pair.a })} read by ${mx.config.name} (${mx.config.parameters.toLocaleString('en')} parameters, ${pair.a.backend ?? mx.info.backend}): A ${per(pair.a).toFixed(3)} bits/${u}, B ${per(pair.b).toFixed(3)} (lower is better).${cut ? ` ${cut}` : ''}`,
  );
  document.getElementById('timing-text').textContent =
    `Last run ${ms.toFixed(0)} ms in the workers, which run side by side: ${detail}.`;
  document.body.dataset.ready = 'true';
  document.dispatchEvent(
    new CustomEvent('hirope:model', {
      detail: { total: ms, model: snapshot.model, unit: u, a: per(pair.a), b: per(pair.b) },
    }),
  );
  // Which parts ran on each side, and each worker's pass counters (tests count loss passes).
  document.dispatchEvent(
    new CustomEvent('hirope:model-run', {
      detail: { total: ms, parts, counts: { a: mx.counts.a, b: mx.counts.b } },
    }),
  );
  writeURL();
  for (const side of ['a', 'b']) mx.thumbs.fill(side, payload);
}

function showError(e) {
  if (e.name === 'Superseded') return; // a newer request replaced this one, and reports itself
  statusLine.error(modelErrorText(e));
}

// The state in the URL: a discrete choice (a menu, a preset, a thumbnail) adds a history entry,
// typing, sliders and numbers replace it (link-history.js, as the attention mode does).
const links = createLinkHistory((state) => encodeModelState(state));
function writeURL({ push = false } = {}) {
  links.write(mx.state, { push });
}

// The mode links carry the code and language to the other mode.
bindModeLink('mode-attention', 'index.html', DEFAULTS, () => mx.state);

// Back and Forward (and a hash edited by hand) restore the state their entry holds; a write still
// waiting belongs to the entry just left.
window.addEventListener('popstate', () => links.cancel());
window.addEventListener('hashchange', async () => {
  links.cancel();
  const previousModel = mx.state.model;
  mx.state = await stateFromHash(location.hash);
  const code = mx.state.code ?? sampleOf(mx.state) ?? '';
  if (mx.state.model !== previousModel) {
    mx.zoom = null;
    mx.clearRow();
  }
  // Back or Forward to another checkpoint URL: that folder opens (its entry is already there), and
  // its opening runs the model; until then the last model's results stay.
  const reopen =
    mx.state.model === previousModel &&
    mx.state.model === CHECKPOINT &&
    mx.state.checkpoint &&
    mx.state.checkpoint !== mx.checkpointSource.url;
  if (reopen) mx.checkpointSource.openURL(mx.state.checkpoint, { fromLink: true });
  else if (mx.state.model !== previousModel || !mx.config) loading.useModel(mx.state.model);
  mx.editor.setLanguage(mx.state.language);
  if (code !== mx.editor.text) mx.editor.setText(code);
  controls.syncControls();
  if (!reopen) schedule();
});

pageBuilt();
controls.syncControls();
schedule();
