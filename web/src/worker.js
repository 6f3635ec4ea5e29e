// A playground Web Worker: owns a hirope module and the SideEngine of one scheme (the page runs
// two, one for A and one for B, so that both compute at once), so that analysis, attention and
// image work never block the page. Requests are handled one at a time, in order.
import init from '../../dist/index.js';
import { SideEngine } from './engine.js';
import { assetURL } from './assets.js';
import { ModelEngine } from './model-engine.js';

// worker.js?simd=0 forces the scalar build (the page passes its own ?simd=0 on), to see and test
// the page as browsers without WebAssembly SIMD run it.
const options = new URL(self.location.href).searchParams.get('simd') === '0' ? { simd: false } : {};
let engine = null;
let modelEngine = null; // Model mode: created on its first request
let gpuEngine; // undefined: not tried; null: no adapter
let qkFile = null;
// The page compiles the .wasm once and posts the WebAssembly.Module as the first message
// ({ type: 'module', module }), so that no worker downloads or compiles it again; a null module
// (the page could not compile it) makes the worker load the file itself.
let receiveModule;
// The init options of every instance here: the page's module, or else the .wasm under the site's
// hashed name.
const loadOptions = new Promise((resolve) => (receiveModule = resolve)).then((module) =>
  module ? { ...options, wasmModule: module } : { ...options, locateFile: (name) => assetURL(name, self.location.href).href },
);
const ready = loadOptions.then(init).then((hr) => {
  engine = new SideEngine(hr);
  return hr;
});

async function engineFor(backend) {
  if (backend !== 'webgpu') return engine;
  if (gpuEngine === undefined) {
    // A second instance whose attentionAsync runs on the GPU; null when there is no adapter.
    const hr = await init({ ...(await loadOptions), backend: 'auto' }).catch(() => null);
    gpuEngine = hr && hr.attentionBackend === 'webgpu' ? new SideEngine(hr, { async: true }) : null;
  }
  if (!gpuEngine) throw Object.assign(new Error('WebGPU is not available in this browser; choose WebAssembly'), { name: 'PlaygroundError' });
  return gpuEngine;
}

const transferables = (value, list = []) => {
  if (ArrayBuffer.isView(value)) list.push(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, list);
  return list;
};

let current = null; // the engine of the last run (SideEngine or ModelEngine), for rows, images and CSV
async function handle(message) {
  const { id, type } = message;
  const reply = (payload, transfer = []) => self.postMessage({ id, ...payload }, transfer);
  try {
    const hr = await ready;
    if (type === 'ready') return reply({ type: 'result', value: { backend: hr.backend, languages: hr.languages, tokenizers: hr.tokenizers, limits: hr.limits } });
    if (type === 'qkFile') {
      qkFile = message.text;
      return reply({ type: 'result', value: true });
    }
    if (type === 'run') {
      const e = await engineFor(message.backend);
      const { code, state, side, view, views, distances, summary, reuse } = message;
      // Progress messages only once a run is slow enough for the page to show its indicator.
      const started = performance.now();
      const progress = (stage) => performance.now() - started > 100 && reply({ type: 'progress', stage });
      const result = await e.run({ code, state, side, qkFile, view, views, distances, summary, reuse }, progress);
      result.backend = message.backend === 'webgpu' ? 'WebGPU' : hr.backend;
      current = e;
      // Only fresh arrays are transferred; cached view data is copied by structured clone.
      return reply({ type: 'result', value: result }, transferables({ image: result.image, summary: result.analysis }));
    }
    // A built-in tokenizer's vocabulary, downloaded once by the page for every worker.
    if (type === 'tokenizerData') return reply({ type: 'result', value: await hr.loadTokenizer(message.name, { data: message.data }) });
    if (type === 'tokenizerFile') return reply({ type: 'result', value: await hr.loadTokenizer({ json: message.data }) });
    if (type === 'tokenCounts') {
      // The code under each tokenizer: tokens and the top-level units that hold them.
      const rows = [];
      // A tokenizer that cannot be loaded or used gets its reason in its row; the others count.
      for (const name of message.names) {
        try {
          if (hr.tokenizers.includes(name)) await hr.loadTokenizer(name);
          const a = hr.analyze(message.code, { ...message.options, tokenizer: name });
          const units = new Set();
          const unit = a.positions.unit;
          for (let t = 0; t < a.tokens.count; t++) if (unit[t] >= 0) units.add(unit[t]);
          rows.push({ name, tokens: a.tokens.count, units: units.size });
        } catch (e) {
          rows.push({ name, error: e?.message || String(e) });
        }
      }
      return reply({ type: 'result', value: rows });
    }
    if (type === 'splitBound') return reply({ type: 'result', value: hr.splitBound(message.scheme, message.headDim) });
    if (type === 'languageOf') return reply({ type: 'result', value: hr.detectLanguage(String(message.name)) ?? null });
    if (type === 'detect') return reply({ type: 'result', value: engine.detectLanguage(message.code) });
    if (type === 'modelLoad' || type === 'modelRun' || type === 'modelThumbnail' || type === 'modelGenerate') {
      modelEngine ||= new ModelEngine(hr);
      // modelLoad: the weights' bytes, fetched once by the page for both workers; the reply is the
      // model's config. (Without it, the first model request loads the package's own file.)
      if (type === 'modelLoad') return reply({ type: 'result', value: (await modelEngine.load(message.data, message.name)).config });
      if (type === 'modelGenerate') return reply({ type: 'result', value: await modelEngine.generate(message) });
      if (type === 'modelThumbnail') {
        const value = await modelEngine.thumbnail(message);
        return reply({ type: 'result', value }, [value.rgba.buffer]);
      }
      const value = await modelEngine.run(message);
      if (value.ran.attention) current = modelEngine; // images, row and values now come from the model's attention
      return reply({ type: 'result', value }, transferables(value));
    }
    if (!current) throw Object.assign(new Error('nothing has been computed yet'), { name: 'PlaygroundError' });
    if (type === 'probs') {
      const value = current.exportProbs();
      return reply({ type: 'result', value }, [value.probs.buffer]);
    }
    if (type === 'compare') {
      const value = current.compare(message.other);
      return reply({ type: 'result', value }, [value.tv.buffer, value.kl.buffer]);
    }
    if (type === 'cell') return reply({ type: 'result', value: current.cell(message.i, message.j) });
    if (type === 'images') {
      const images = current.images(message.view);
      return reply({ type: 'result', value: images }, transferables(images));
    }
    if (type === 'row') {
      const row = current.row(message.index);
      return reply({ type: 'result', value: row }, [row.probs.buffer]);
    }
    if (type === 'values') {
      const values = current.values(message.region);
      return reply({ type: 'result', value: values }, [values.values.buffer]);
    }
    throw new Error(`unknown request ${type}`);
  } catch (e) {
    reply({ type: 'error', name: e?.name || 'Error', message: e?.message || String(e) });
  }
}

let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  if (data?.type === 'module') return receiveModule(data.module instanceof WebAssembly.Module ? data.module : null);
  queue = queue.then(() => handle(data));
};
