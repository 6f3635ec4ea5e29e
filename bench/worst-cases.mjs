// How long the worst cases take, moved out of the tests (issue 35: tests check behaviour, not
// speed). Each row: what runs, its median wall time over --repeats runs, on the SIMD build.
//  - a parse stopped at a 50 ms budget (60,000 `"` as JavaScript; about 20 s without a budget);
//  - one 1 MB line of Python analysed; a 10 MB Python file analysed with cl100k tokens;
//  - cl100k on a megabyte of one character (a space, a letter);
//  - a 10-million-entry LongRoPE factor list refused from its length alone.
//
//   node bench/worst-cases.mjs [--repeats 3]
import init from '../dist/index.js';

const args = process.argv.slice(2);
const at = args.indexOf('--repeats');
const REPEATS = at >= 0 ? Number(args[at + 1]) : 3;
const hr = await init({ simd: true });
await hr.loadTokenizer('cl100k');

function median(fn) {
  const times = [];
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}
const expectThrow = (fn) => () => {
  try {
    fn();
  } catch {
    return;
  }
  throw new Error('expected a HiRoPEError');
};

const chunk = 'def f(x):\n    y = x * 2\n    return y\n\n\nclass C:\n    pass\n\n';
const rows = [
  [
    'parse stopped at a 50 ms budget (60,000 quotes, JavaScript)',
    expectThrow(() => hr.analyze('"'.repeat(60000), { language: 'javascript', timeoutMs: 50 })),
  ],
  [
    'analyze one 1 MB line (Python)',
    () => hr.analyze('x = [' + '1, '.repeat(350000) + ']', { language: 'python' }),
  ],
  [
    'analyze 10 MB of Python, cl100k tokens',
    () =>
      hr.analyze(chunk.repeat(Math.ceil((10 << 20) / chunk.length)), {
        language: 'python',
        tokenizer: 'cl100k',
      }),
  ],
  ['cl100k on 1 MB of spaces', () => hr.encode(' '.repeat(1 << 20), { tokenizer: 'cl100k' })],
  ['cl100k on 1 MB of one letter', () => hr.encode('a'.repeat(1 << 20), { tokenizer: 'cl100k' })],
  [
    'refuse a 10,000,000-entry shortFactor',
    expectThrow(() =>
      hr.bands(
        {
          type: 'rope',
          scaling: {
            type: 'longrope',
            factor: 2,
            originalLength: 8,
            shortFactor: new Float64Array(1e7),
            longFactor: [1, 1, 1, 1],
          },
        },
        8,
      ),
    ),
  ],
];
console.log(`worst cases (wasm-simd, median of ${REPEATS})`);
for (const [what, fn] of rows)
  console.log(`${what.padEnd(62)} ${median(fn).toFixed(1).padStart(9)} ms`);
