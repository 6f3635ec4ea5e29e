// Parse time per input size on inputs where tree-sitter's error recovery is quadratic, and what
// the parse time budget makes of them. Each size doubles the last; "x4" per doubling is quadratic.
// A shape stops growing once one parse passes --cap seconds. The last column parses the largest
// size under the default budget (10 s + 1 s per MB) and a 100 ms one: the call ends with the
// "pathological" error near the budget instead of running on. docs/analysis.md has the table.
//
//   node bench/parse-time.mjs [--sizes 5000,10000,20000,40000] [--cap 8] [--repeats 1]
import init from '../dist/index.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const SIZES = option('--sizes', '5000,10000,20000,40000').split(',').map(Number);
const CAP_MS = Number(option('--cap', '8')) * 1000;
const REPEATS = Number(option('--repeats', '1'));

const SHAPES = [
  ['javascript', 'JavaScript `"` × n', (n) => '"'.repeat(n)],
  ['javascript', "JavaScript `'` × n", (n) => "'".repeat(n)],
  ['typescript', 'TypeScript `"` × n', (n) => '"'.repeat(n)],
  ['go', 'Go `` ` `` × n', (n) => '`'.repeat(n)],
  ['rust', 'Rust `r#"` × n/3', (n) => 'r#"'.repeat(Math.round(n / 3))],
  ['python', 'Python `x = ;` × n/6', (n) => 'x = ;\n'.repeat(Math.round(n / 6))],
];

const hr = await init();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(code, language, timeoutMs) {
  const runs = [];
  let error = null;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    try {
      hr.parse(code, { language, timeoutMs });
    } catch (e) {
      error = e.message;
    }
    runs.push(performance.now() - t0);
  }
  return { ms: median(runs), error };
}

console.log(
  `Machine: ${process.platform} ${process.arch}, Node ${process.versions.node}, ${hr.backend}; median of ${REPEATS}.\n`,
);
console.log(
  `| input | ${SIZES.map((n) => `${n.toLocaleString('en')} chars`).join(' | ')} | per doubling | largest size, 100 ms budget |`,
);
console.log(`|---|${SIZES.map(() => '---').join('|')}|---|---|`);
for (const [language, name, make] of SHAPES) {
  const cells = [];
  const times = [];
  let largest = null;
  for (const n of SIZES) {
    if (times.length && times.at(-1) > CAP_MS) {
      cells.push('');
      continue;
    }
    const { ms } = time(make(n), language, 0);
    times.push(ms);
    largest = n;
    cells.push(`${(ms / 1000).toFixed(2)} s`);
  }
  const ratios = times
    .slice(1)
    .map((t, i) => t / times[i])
    .filter((r) => Number.isFinite(r));
  const growth = ratios.length ? `x${median(ratios).toFixed(1)}` : '';
  const budget = time(make(largest), language, 100);
  const stopped =
    budget.error && /pathological/.test(budget.error)
      ? `stopped after ${budget.ms.toFixed(0)} ms`
      : `no stop (${budget.ms.toFixed(0)} ms)`;
  console.log(`| ${name} | ${cells.join(' | ')} | ${growth} | ${stopped} |`);
}
