// The files of a Hugging Face checkpoint folder as hr.model.fromPretrained receives them, turned
// into the synchronous access the core reads them through (checkpoint::open_checkpoint, then each
// weight): a Node folder path, the URL of a folder served over HTTP(S), or an object or Map of
// file names to bytes, text or Blobs. Only the files the core asks for are read, and of the
// weights files only the ranges it asks for (a URL's files are downloaded whole first).
import { describe, fail, isPlainObject } from './marshal.js';

const ENCODER = new TextEncoder();

// A Blob without FileReaderSync (a page's main thread) is read whole first: the core reads
// synchronously. In a worker, slices are read as the core asks.
async function entryOf(name, value) {
  if (typeof value === 'string')
    return { size: ENCODER.encode(value).length, bytes: ENCODER.encode(value) };
  if (value instanceof ArrayBuffer) return { size: value.byteLength, bytes: new Uint8Array(value) };
  if (ArrayBuffer.isView(value) && value instanceof Uint8Array)
    return { size: value.length, bytes: value };
  if (typeof Blob !== 'undefined' && value instanceof Blob) {
    if (typeof FileReaderSync === 'function') return { size: value.size, blob: value };
    return { size: value.size, bytes: new Uint8Array(await value.arrayBuffer()) };
  }
  fail(
    `files['${name}'] must be a Uint8Array, an ArrayBuffer, a string or a Blob, got ${describe(value)}`,
  );
}

const WEB_FOLDER = /^https?:\/\//i;
// A shard's name as an index may give it (the core checks the index again): a plain file name.
const SHARD_NAME = /^[^/\\:]+\.safetensors$/;

/**
 * Opens `files` (a folder path in Node, a folder's http(s) URL, or { name: bytes | text | Blob } /
 * a Map): { size(name) (-1 when absent), read(name, offset, size) (a Uint8Array; an empty one on
 * failure, with the reason in error), whole(name) (a small file's bytes, or undefined), close(),
 * error }.
 */
export async function openCheckpointFiles(files) {
  if (files instanceof URL || (typeof files === 'string' && WEB_FOLDER.test(files)))
    return openCheckpointFiles(await fetchFolder(String(files)));
  if (typeof files === 'string') return openFolder(files);
  let entries;
  if (files instanceof Map) entries = [...files.entries()];
  else if (isPlainObject(files)) entries = Object.entries(files);
  else
    fail(
      `files must be a folder path (Node) or an object of file names to bytes, text or Blobs, got ${describe(files)}`,
    );
  const map = new Map();
  for (const [name, value] of entries) {
    if (typeof name !== 'string') fail(`files must be keyed by file name, got ${describe(name)}`);
    map.set(name, await entryOf(name, value));
  }
  const access = {
    error: null,
    size: (name) => (map.has(name) ? map.get(name).size : -1),
    read(name, offset, size) {
      const entry = map.get(name);
      try {
        if (entry.bytes) return entry.bytes.subarray(offset, offset + size);
        // FileReaderSync (a worker): only the slice asked for.
        return new Uint8Array(
          new FileReaderSync().readAsArrayBuffer(entry.blob.slice(offset, offset + size)),
        );
      } catch (e) {
        access.error ??= `cannot read ${name}: ${e.message}`;
        return new Uint8Array(0);
      }
    },
    whole: (name) => (map.has(name) ? access.read(name, 0, map.get(name).size) : undefined),
    close() {},
  };
  return access;
}

// The files of a folder served over HTTP(S) (CORS where it is another origin): config.json,
// tokenizer.json when there is one, then model.safetensors.index.json and the shards it names, or
// model.safetensors; each downloaded whole, since the core reads synchronously.
async function fetchFolder(url) {
  const base = url.endsWith('/') ? url : `${url}/`;
  const get = async (name, optional = false) => {
    let res;
    try {
      res = await fetch(new URL(name, base));
    } catch (e) {
      fail(`cannot fetch ${name} from ${base}: ${e.message}`);
    }
    if (optional && res.status === 404) return undefined;
    if (!res.ok) fail(`cannot fetch ${name} from ${base}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const out = new Map([['config.json', await get('config.json')]]);
  const tokenizer = await get('tokenizer.json', true);
  if (tokenizer) out.set('tokenizer.json', tokenizer);
  const index = await get('model.safetensors.index.json', true);
  let weights = ['model.safetensors'];
  if (index) {
    out.set('model.safetensors.index.json', index);
    let map = null;
    try {
      map = JSON.parse(new TextDecoder().decode(index)).weight_map;
    } catch {
      // the core names what is wrong with the index
    }
    weights = isPlainObject(map)
      ? [...new Set(Object.values(map))].filter((n) => typeof n === 'string' && SHARD_NAME.test(n))
      : [];
  }
  for (const name of weights) out.set(name, await get(name));
  return out;
}

async function openFolder(folder) {
  const fsName = 'node:fs'; // variables, so bundlers leave Node's modules alone
  const pathName = 'node:path';
  let fs, path;
  try {
    fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
    path = await import(/* webpackIgnore: true */ /* @vite-ignore */ pathName);
  } catch {
    fail('a folder path needs Node: in a browser, pass an object of file names to Blobs or bytes');
  }
  let stat;
  try {
    stat = fs.statSync(folder);
  } catch (e) {
    fail(`cannot open the checkpoint folder ${folder}: ${e.message}`);
  }
  if (!stat.isDirectory()) fail(`files must be a checkpoint folder, got ${folder} (not a folder)`);
  const fds = new Map();
  const fileOf = (name) => {
    // Names come from the core (the fixed names and the index's shards, which it checked are
    // plain file names): never a path out of the folder.
    if (!fds.has(name)) fds.set(name, fs.openSync(path.join(folder, name), 'r'));
    return fds.get(name);
  };
  const access = {
    error: null,
    size(name) {
      try {
        const s = fs.statSync(path.join(folder, name));
        return s.isFile() ? s.size : -1;
      } catch {
        return -1;
      }
    },
    read(name, offset, size) {
      try {
        const out = new Uint8Array(size);
        let done = 0;
        while (done < size) {
          const n = fs.readSync(fileOf(name), out, done, size - done, offset + done);
          if (n === 0) break;
          done += n;
        }
        return done === size ? out : out.subarray(0, done);
      } catch (e) {
        access.error ??= `cannot read ${name}: ${e.message}`;
        return new Uint8Array(0);
      }
    },
    whole: (name) => {
      const size = access.size(name);
      return size < 0 ? undefined : access.read(name, 0, size);
    },
    close() {
      for (const fd of fds.values()) fs.closeSync(fd);
      fds.clear();
    },
  };
  return access;
}
