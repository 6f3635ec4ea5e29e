// The playground's Web Worker: owns the hirope module and a PlaygroundEngine, so that analysis,
// attention and image work never blocks the page. Requests are handled one at a time, in order.
import init from '../../dist/index.js';
import { PlaygroundEngine } from './engine.js';

let engine = null;
let gpuEngine; // undefined: not tried; null: no adapter
let qkFile = null;
const ready = init().then((hr) => {
  engine = new PlaygroundEngine(hr);
  return hr;
});

async function engineFor(backend) {
  if (backend !== 'webgpu') return engine;
  if (gpuEngine === undefined) {
    // A second instance whose attentionAsync runs on the GPU; null when there is no adapter.
    const hr = await init({ backend: 'auto' }).catch(() => null);
    gpuEngine = hr && hr.attentionBackend === 'webgpu' ? new PlaygroundEngine(hr, { async: true }) : null;
  }
  if (!gpuEngine) throw Object.assign(new Error('WebGPU is not available in this browser; choose WebAssembly'), { name: 'PlaygroundError' });
  return gpuEngine;
}

const transferables = (value, list = []) => {
  if (ArrayBuffer.isView(value)) list.push(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, list);
  return list;
};
const copies = (result) => {
  // Arrays that stay in the engine are copied so that transferring them leaves the engine intact.
  const a = result.analysis;
  if (a) for (const key of ['start', 'end', 'unit', 'statement']) a[key] = a[key].slice();
  if (result.views?.decay) for (const side of ['a', 'b']) if (ArrayBuffer.isView(result.views.decay[side])) result.views.decay[side] = result.views.decay[side].slice();
  return result;
};

let current = null; // the engine of the last run, for rows, views and CSV
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
      const result = copies(await e.run({ code: message.code, state: message.state, qkFile, view: message.view, views: message.views }, (stage) => reply({ type: 'progress', stage })));
      result.backend = message.backend === 'webgpu' ? 'WebGPU' : hr.backend;
      current = e;
      return reply({ type: 'result', value: result }, transferables(result));
    }
    if (type === 'detect') return reply({ type: 'result', value: engine.detectLanguage(message.code) });
    if (!current) throw Object.assign(new Error('nothing has been computed yet'), { name: 'PlaygroundError' });
    if (type === 'images') {
      const images = current.images(message.view);
      return reply({ type: 'result', value: images }, transferables(images));
    }
    if (type === 'row') {
      const row = current.row(message.side, message.index);
      return reply({ type: 'result', value: row }, [row.probs.buffer]);
    }
    if (type === 'csv') return reply({ type: 'result', value: current.csv(message.which, message.region) });
    throw new Error(`unknown request ${type}`);
  } catch (e) {
    reply({ type: 'error', name: e?.name || 'Error', message: e?.message || String(e) });
  }
}

let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(() => handle(data));
};
