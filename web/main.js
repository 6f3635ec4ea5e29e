// The starter page: one attention heatmap from the hirope API, redrawn on every control change.
import init from '../dist/index.js';

const form = document.getElementById('controls');
const canvas = document.getElementById('heatmap');
const status = document.getElementById('status');

// Magma-like colour ramp: 5 stops, linear in between.
const STOPS = [[0, 0, 4], [81, 18, 124], [183, 55, 121], [252, 137, 97], [252, 253, 191]];
function colour(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  return STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f));
}
const LUT = Array.from({ length: 256 }, (_, i) => colour(i / 255));

function readControls() {
  const data = new FormData(form);
  const num = (k) => Number(data.get(k));
  return {
    type: data.get('scheme'), n: num('n'), headDim: num('headDim'), window: num('window'),
    ratio: num('ratio'), segment: num('segment'), source: data.get('source'), backend: data.get('backend'),
  };
}

function schemeFor(c) {
  const windowed = ['rerope', 'leaky-rerope', 'self-extend', 'hirope'].includes(c.type);
  const scheme = { type: c.type };
  if (windowed) scheme.window = c.window;
  if (c.type === 'hirope') Object.assign(scheme, { ratio: c.ratio, segmentSize: c.segment });
  return scheme;
}

function render(probs, n) {
  canvas.width = n;
  canvas.height = n;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(n, n);
  // Colour by probability relative to the row's maximum, on a log scale over 4 decades.
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let j = 0; j < n; j++) max = Math.max(max, probs[i * n + j]);
    for (let j = 0; j < n; j++) {
      const p = probs[i * n + j];
      const t = p > 0 ? 1 + Math.log10(p / max) / 4 : 0;
      const [r, g, b] = LUT[Math.max(0, Math.round(t * 255))];
      const o = 4 * (i * n + j);
      image.data[o] = r;
      image.data[o + 1] = g;
      image.data[o + 2] = b;
      image.data[o + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
}

const hr = await init({ analysis: false }); // this page needs no grammars
// A second instance for the GPU, made on first use; null when this browser has no adapter.
let gpu;
const times = {};
async function gpuInstance() {
  if (gpu === undefined) gpu = await init({ analysis: false, backend: 'auto' }).then((g) => (g.attentionBackend === 'webgpu' ? g : null));
  return gpu;
}

let pending = 0;
async function draw() {
  const c = readControls();
  const ticket = ++pending;
  try {
    const { q, k } = hr.qk({ source: c.source, n: c.n, headDim: c.headDim, seed: 1 });
    const args = { q, k, n: c.n, headDim: c.headDim, scheme: schemeFor(c) };
    const engine = c.backend === 'webgpu' ? await gpuInstance() : hr;
    if (!engine) throw new Error('WebGPU is not available in this browser; using WebAssembly');
    const t0 = performance.now();
    const probs = c.backend === 'webgpu' ? await engine.attentionAsync(args) : engine.attention(args);
    const ms = performance.now() - t0;
    if (ticket !== pending) return; // a newer input is being drawn
    times[c.backend === 'webgpu' ? 'WebGPU' : hr.backend] = ms;
    render(probs, c.n);
    status.classList.remove('error');
    const timing = Object.entries(times).map(([name, t]) => `${name} ${t.toFixed(1)} ms`).join(', ');
    status.textContent = `${c.type}: ${c.n} tokens, head dim ${c.headDim}; last runs: ${timing}`;
    canvas.dataset.ready = 'true';
  } catch (e) {
    status.classList.add('error');
    status.textContent = `${e.name}: ${e.message}`;
  }
}
form.addEventListener('input', draw);
draw();
