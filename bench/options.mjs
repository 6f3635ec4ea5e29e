// The benchmarks' command-line options: --name value pairs and --flag switches.
/** The arguments after the script's name. */
export const args = process.argv.slice(2);

/** Whether --name was given. */
export const has = (name) => args.includes(name);

/** The value after --name, or fallback. */
export const value = (name, fallback) => (has(name) ? args[args.indexOf(name) + 1] : fallback);

/** The value after --name as a number >= 0 (an error names a value that is not). */
export const number = (name, fallback) => {
  const v = Number(value(name, fallback));
  if (!Number.isFinite(v) || v < 0)
    throw new Error(`${name}: not a number: ${value(name, fallback)}`);
  return v;
};
