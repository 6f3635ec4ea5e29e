// The property's seed and run count: HIROPE_PROPERTY_SEED reruns a printed seed; otherwise a new
// seed each run, printed, so that a failure can be replayed. HIROPE_PROPERTY_RUNS sets the count.
export function propertySeed(where) {
  const seed = Number(process.env.HIROPE_PROPERTY_SEED) || Math.floor(Math.random() * 2 ** 31);
  const runs = Number(process.env.HIROPE_PROPERTY_RUNS) || 24;
  console.log(
    `# webgpu property (${where}): seed ${seed}, ${runs} runs (HIROPE_PROPERTY_SEED=${seed} replays it)`,
  );
  return { seed, runs };
}
