// A node:test reporter for scripts/test.sh's closing report: each test file's seconds (the sum of
// its top-level tests' durations; node runs each file in its own process) and each file's passed,
// failed and skipped tests (suites not counted, as node's own summary), and each test's own
// seconds (tests, not suites: the slowest of them are where a file's time goes), written as one
// JSON object when the run ends. It runs beside the TAP reporter that prints the tests
// (--test-reporter twice), so the output is as before.
export default async function* testTimes(source) {
  const files = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details, skip, todo } = event.data;
    const name = file ?? '(no file)';
    files[name] ??= { seconds: 0, passed: 0, failed: 0, skipped: 0, tests: [] };
    const entry = files[name];
    if (nesting === 0) entry.seconds += (details?.duration_ms ?? 0) / 1000;
    if (details?.type === 'suite') continue;
    entry.tests.push({ name: event.data.name, seconds: (details?.duration_ms ?? 0) / 1000 });
    if (skip || todo) entry.skipped++;
    else entry[event.type === 'test:pass' ? 'passed' : 'failed']++;
  }
  yield `${JSON.stringify(files)}\n`;
}
