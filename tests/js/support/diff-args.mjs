// The command line shared by the reference-diff scripts (tokenizer-json-diff, pretokenize-regex-diff,
// normalizers-diff): the repository root, `--name value` options, and the native tokjson_cli they
// drive (--cli overrides its path).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
/** The value after --name, or `def`. */
export const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
export const cli = path.resolve(root, opt('cli', 'build/native/tokjson_cli'));
