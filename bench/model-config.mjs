// Reading real config.json files: hr.fromConfig on every gallery entry (models/configs/), in the
// SIMD and the scalar build, against JSON.parse of the same text (the least any reader does), and
// the Python binding's hirope.from_config when build/python is there. Each figure is a median
// over repeats of a batch of reads, after a warm-up.
//
//   node bench/model-config.mjs [--repeats 15] [--batch 20]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import init from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const REPEATS = opt('repeats', 15);
const BATCH = opt('batch', 20);

const gallery = path.join(root, 'models/configs');
const { entries } = JSON.parse(fs.readFileSync(path.join(gallery, 'index.json'), 'utf8'));
const texts = entries.map((e) => fs.readFileSync(path.join(gallery, `${e.id}.json`), 'utf8'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Milliseconds per call of fn, the median over REPEATS batches of BATCH calls. */
function perCall(fn) {
  const warm = performance.now();
  while (performance.now() - warm < 200) fn();
  const times = [];
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    for (let b = 0; b < BATCH; b++) fn();
    times.push((performance.now() - t0) / BATCH);
  }
  return median(times);
}

const simd = await init({ simd: true });
const scalar = await init({ simd: false });

// Python: the same loop in the installed module, one child process, figures as JSON.
function pythonTimes() {
  const py = path.join(root, 'build/python');
  if (!fs.existsSync(path.join(py, 'hirope'))) return null;
  const script = `
import json, sys, time, statistics, hirope
texts = json.load(sys.stdin)
out = []
for t in texts:
    end = time.perf_counter() + 0.2
    while time.perf_counter() < end:
        hirope.from_config(t)
    times = []
    for _ in range(${REPEATS}):
        t0 = time.perf_counter()
        for _ in range(${BATCH}):
            hirope.from_config(t)
        times.append((time.perf_counter() - t0) / ${BATCH} * 1000)
    out.append(statistics.median(times))
print(json.dumps(out))
`;
  const r = spawnSync('/usr/bin/python3', ['-c', script], {
    input: JSON.stringify(texts),
    env: { ...process.env, PYTHONPATH: py },
    encoding: 'utf8',
  });
  return r.status === 0 ? JSON.parse(r.stdout) : null;
}
const python = pythonTimes();

console.log(
  `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, Node ${process.version}; median of ${REPEATS} batches of ${BATCH} reads, ms per read`,
);
console.log(
  '| config | bytes | layers | JSON.parse | fromConfig simd | fromConfig scalar | simd / JSON.parse | Python from_config |',
);
console.log('|---|---|---|---|---|---|---|---|');
const sums = { parse: 0, simd: 0, scalar: 0, python: 0 };
entries.forEach((e, i) => {
  const text = texts[i];
  const parse = perCall(() => JSON.parse(text));
  const a = perCall(() => simd.fromConfig(text));
  const b = perCall(() => scalar.fromConfig(text));
  const layers = simd.fromConfig(text).layerCount;
  const p = python ? python[i] : null;
  sums.parse += parse;
  sums.simd += a;
  sums.scalar += b;
  sums.python += p ?? 0;
  console.log(
    `| ${e.id} | ${Buffer.byteLength(text)} | ${layers} | ${parse.toFixed(4)} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(a / parse).toFixed(1)}x | ${p === null ? '-' : p.toFixed(3)} |`,
  );
});
console.log(
  `| all ${entries.length} | | | ${sums.parse.toFixed(3)} | ${sums.simd.toFixed(2)} | ${sums.scalar.toFixed(2)} | ${(sums.simd / sums.parse).toFixed(1)}x | ${python ? sums.python.toFixed(2) : '-'} |`,
);
