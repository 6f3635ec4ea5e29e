// The WebGPU property of tests/webgpu/property.mjs at its former length, n up to 700 (the test
// stops at 300, past the softmax's 256-wide workgroup, the last boundary n crosses), on Dawn in a
// child process as tests/webgpu/node.test.mjs runs it. Prints the time and the seed.
//   node bench/webgpu-property.mjs [--seed S] [--runs 24] [--max-n 700]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const seed = Number(opt('seed', Math.floor(Math.random() * 2 ** 31)));
const runs = Number(opt('runs', '24'));
const maxN = Number(opt('max-n', '700'));
const child = fileURLToPath(new URL('../tests/webgpu/dawn-child.mjs', import.meta.url));
const t0 = performance.now();
const r = spawnSync(
  process.execPath,
  ['--expose-gc', child, 'property', seed, runs, maxN].map(String),
  {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  },
);
const seconds = (performance.now() - t0) / 1000;
const last = r.stdout.trim().split('\n').pop();
console.log(`seed ${seed}, ${runs} runs, n up to ${maxN}: ${last} in ${seconds.toFixed(1)} s`);
if (r.status !== 0) {
  console.error(r.stderr.slice(-4000));
  process.exitCode = 1;
}
