// A playground Web Worker: owns a hirope module and the SideEngine of one scheme (the page runs
// two, one for A and one for B, so that both compute at once), so that analysis, attention and
// image work never block the page. One handler per request type, on the package's worker
// protocol (dist/worker-protocol.js): requests are handled one at a time, in order.
import init from './hirope-init.js';
import { buffers, serve, transfer } from 'hirope/protocol';
import { SideEngine } from './attention-engine.js';
import { assetURL } from '../shared/hashed-assets.js';
import { ModelEngine } from './model-engine.js';
import { CheckpointEngine } from './checkpoint-engine.js';
import { fetchGalleryConfig } from './model-sides.js';
import { PlaygroundError } from './playground-error.js';
import { errorScore } from '../shared/language-detection.js';
import { setupSummary } from '../shared/model-gallery.js';

// worker.js?simd=0 forces the scalar build (the page passes its own ?simd=0 on), to see and test
// the page as browsers without WebAssembly SIMD run it.
const options = new URL(self.location.href).searchParams.get('simd') === '0' ? { simd: false } : {};
let engine = null;
let modelEngine = null; // Model mode: created on its first request
let checkpointEngine = null; // the element's checkpoint attribute: created on its first request
let gpuEngine; // undefined: not tried; null: no adapter
let qkFile = null;
let running = null; // the AbortController of the run under way
// The page compiles the .wasm once and posts the WebAssembly.Module as a notice ('module') to
// every worker it starts, so that no worker downloads or compiles it again; a null module (the
// page could not compile it) makes the worker load the file itself.
let receiveModule;
// The init options of every instance here: the page's module, or else the .wasm under the site's
// hashed name (grammars a page has not handed over load from there too).
const loadOptions = new Promise((resolve) => {
  receiveModule = resolve;
}).then((module) => ({
  ...options,
  ...(module && { wasmModule: module }),
  // Beside this module (self.location is a blob: URL where a page starts it from another origin).
  locateFile: (name) => assetURL(name, import.meta.url).href,
}));
// The gallery's configs the page handed over (id -> text): the page reads them at the URLs it
// registered (a bundle's), which this worker cannot see; an id it did not send is read beside here.
const galleryConfigs = new Map();
const loadConfig = (id) => galleryConfigs.get(id) ?? fetchGalleryConfig(id);
const ready = loadOptions.then(init).then((hr) => {
  engine = new SideEngine(hr, { loadConfig });
  return hr;
});

// A second instance whose attentionAsync (and a checkpoint's lossAsync) run on the GPU: a
// Promise of it, or of null when there is no adapter; made once, on first use.
let gpuInstance = null;
const gpuReady = () =>
  (gpuInstance ??= loadOptions
    .then((o) => init({ ...o, backend: 'auto' }))
    .then((hr) => (hr.attentionBackend === 'webgpu' ? hr : null))
    .catch(() => null));

// The instance a checkpoint loads on: the GPU one where the browser offers a hardware adapter (a
// software one, as SwiftShader, runs on the same cores as WebAssembly, only slower), else none
// (the worker's own). ?gpu=any on the worker's URL (from the page's) takes any adapter: the tests'.
// Decided once per worker.
let checkpointInstance = null;
const checkpointGPU = () =>
  (checkpointInstance ??= (async () => {
    const gpu = self.navigator?.gpu;
    if (!gpu) return null;
    if (new URL(self.location.href).searchParams.get('gpu') !== 'any') {
      const adapter = await gpu.requestAdapter().catch(() => null);
      if (!adapter || adapter.info?.isFallbackAdapter || adapter.isFallbackAdapter) return null;
    }
    return gpuReady();
  })());

async function engineFor(backend) {
  if (backend !== 'webgpu') return engine;
  if (gpuEngine === undefined) {
    const hr = await gpuReady();
    gpuEngine = hr ? new SideEngine(hr, { async: true, loadConfig }) : null;
  }
  if (!gpuEngine)
    throw new PlaygroundError('WebGPU is not available in this browser; choose WebAssembly');
  return gpuEngine;
}

// The engine of the last run (the SideEngine or the ModelEngine), which the view requests below
// read: rows, images, values and CSV.
let current = null;
const viewed = () => {
  if (!current) throw new PlaygroundError('nothing has been computed yet');
  return current;
};
const model = async () => {
  modelEngine ||= new ModelEngine(await ready, { checkpointInstance: checkpointGPU });
  return modelEngine;
};

serve(
  {
    ready: async () => {
      const hr = await ready;
      const heap = hr.memory();
      return {
        backend: hr.backend,
        languages: hr.languages,
        tokenizers: hr.tokenizers,
        limits: hr.limits,
        // What a checkpoint's weights and a forward may take in this worker's heap.
        heapBudgetBytes: heap.ceilingBytes - heap.reserveBytes,
      };
    },
    // A real model's setup as the page draws it (its layer strip): source { id } or { config }.
    modelSetup: async ({ source }) => {
      await ready;
      return setupSummary(await engine.models.setup(source), engine.hr);
    },
    // A gallery config's text, downloaded once by the page for every worker.
    galleryConfig: async ({ id, text }) => {
      galleryConfigs.set(String(id), String(text));
      return true;
    },
    qkFile: async ({ text }) => {
      await ready;
      qkFile = text;
      return true;
    },
    run: async (message, { progress }) => {
      // A 'cancel' notice aborts this run (before its map, or between two chunks of it).
      const controller = new AbortController();
      running = controller;
      const hr = await ready;
      const e = await engineFor(message.backend);
      const { code, state, side, view, views, distances, summary, reuse, viewLength } = message;
      // Progress messages only once a run is slow enough for the page to show its indicator:
      // a stage name, or { stage, fraction } between the chunks of a long map (pooled-map.js).
      const started = performance.now();
      const slow = (stage, fraction) =>
        performance.now() - started > 100 &&
        progress(fraction === undefined ? stage : { stage, fraction });
      const result = await e
        .run(
          { code, state, side, qkFile, view, views, distances, summary, reuse, viewLength },
          slow,
          controller.signal,
        )
        .finally(() => {
          if (running === controller) running = null;
        });
      result.backend = message.backend === 'webgpu' ? 'WebGPU' : hr.backend;
      current = e;
      // Only fresh arrays are transferred; cached view data is copied by structured clone.
      return transfer(result, buffers([result.image, result.analysis]));
    },
    // A built-in tokenizer's vocabulary, downloaded once by the page for every worker.
    tokenizerData: async ({ name, data }) => (await ready).loadTokenizer(name, { data }),
    tokenizerFile: async ({ data }) => (await ready).loadTokenizer({ json: data }),
    // The code under each tokenizer: tokens and the top-level units that hold them.
    tokenCounts: async ({ names, code, options: analyzeOptions }) => {
      const hr = await ready;
      const rows = [];
      // A tokenizer that cannot be loaded or used gets its reason in its row; the others count.
      for (const name of names) {
        try {
          if (hr.tokenizers.includes(name)) await hr.loadTokenizer(name);
          const a = hr.analyze(code, { ...analyzeOptions, tokenizer: name });
          const units = new Set();
          const unit = a.positions.unit;
          for (let t = 0; t < a.tokens.count; t++) if (unit[t] >= 0) units.add(unit[t]);
          rows.push({ name, tokens: a.tokens.count, units: units.size });
        } catch (e) {
          rows.push({ name, error: e?.message || String(e) });
        }
      }
      return rows;
    },
    splitBound: async ({ scheme, headDim }) => (await ready).splitBound(scheme, headDim),
    languageOf: async ({ name }) => (await ready).detectLanguage(String(name)) ?? null,
    // A language's grammar, compiled once by the page for every worker (null: the page could not
    // compile it, and this worker loads the file itself).
    grammar: async ({ language, module }) =>
      (await ready).loadLanguage(language, module ? { module } : undefined),
    // One step of the page's language detection (language-detection.js): this grammar's errors.
    errorScore: async ({ code, language }) => errorScore(await ready, code, language),
    // The weights' bytes, fetched once by the page for both workers; the answer is the model's
    // config. (Without it, the first model request loads the package's own file.)
    // Or a checkpoint's files (Blobs the page picked, or downloadPretrained's), with its
    // progress ({ stage: 'load', loaded, total }).
    modelLoad: async ({ data, name, files }, { progress }) =>
      (await (await model()).load(data, name, files, files && progress)).config,
    // What a checkpoint's files would take to load, from its headers (the page shows it first).
    checkpointInspect: async ({ files }) => (await ready).model.inspectPretrained(files),
    // A checkpoint folder's files from its URL, as Blobs the page hands to both workers.
    checkpointDownload: async ({ url, maxBytes }, { progress }) => {
      const files = await (await ready).model.downloadPretrained(url, {
        maxBytes,
        onProgress: progress,
      });
      return new Map([...files].map(([name, bytes]) => [name, new Blob([bytes])]));
    },
    modelGenerate: async (message) => (await model()).generate(message),
    modelThumbnail: async (message) => {
      const value = await (await model()).thumbnail(message);
      return transfer(value, [value.rgba.buffer]);
    },
    // A checkpoint's attention for the element (both sides here: one copy of the weights).
    checkpointMaps: async (message, { progress }) => {
      checkpointEngine ||= new CheckpointEngine(await ready);
      const value = await checkpointEngine.maps(message, progress);
      return transfer(value);
    },
    modelRun: async (message) => {
      const m = await model();
      const value = await m.run(message);
      if (value.ran.attention) current = m; // images, row and values now come from the model's attention
      return transfer(value);
    },
    probs: async () => {
      await ready;
      const value = viewed().exportProbs();
      return transfer(value, [value.probs.buffer]);
    },
    compare: async ({ other }) => {
      await ready;
      const value = viewed().compare(other);
      return transfer(value, [value.tv.buffer, value.kl.buffer]);
    },
    cell: async ({ i, j }) => {
      await ready;
      return viewed().cell(i, j);
    },
    images: async ({ view }) => {
      await ready;
      return transfer(viewed().images(view));
    },
    row: async ({ index }) => {
      await ready;
      const row = viewed().row(index);
      return transfer(row, [row.probs.buffer]);
    },
    values: async ({ region }) => {
      await ready;
      const values = viewed().values(region);
      return transfer(values, [values.values.buffer]);
    },
  },
  {
    notices: {
      // The page's Cancel: the run under way stops at its next chunk (none under way: nothing).
      cancel: () => running?.abort(),
      module: ({ module }) => receiveModule(module instanceof WebAssembly.Module ? module : null),
    },
  },
);
