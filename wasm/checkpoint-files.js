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
/** Whether files names a folder served over HTTP(S): a URL, or a string starting http(s)://. */
export const isFolderURL = (files) =>
  files instanceof URL || (typeof files === 'string' && WEB_FOLDER.test(files));
// A shard's name as an index may give it (the core checks the index again): a plain file name.
const SHARD_NAME = /^[^/\\:]+\.safetensors$/;

/**
 * Opens `files` (a folder path in Node, a folder's http(s) URL, or { name: bytes | text | Blob } /
 * a Map): { size(name) (-1 when absent), read(name, offset, size) (a Uint8Array; an empty one on
 * failure, with the reason in error), whole(name) (a small file's bytes, or undefined), close(),
 * error }.
 */
export async function openCheckpointFiles(files, { maxBytes = Infinity, onProgress } = {}) {
  // A URL's files: fetchFolder holds them to maxBytes as they download.
  if (isFolderURL(files))
    return openCheckpointFiles(await fetchFolder(String(files), maxBytes, onProgress));
  const access = typeof files === 'string' ? await openFolder(files) : await openEntries(files);
  checkTotal(access, maxBytes);
  return access;
}

// The checkpoint's files in bytes: the fixed names and the shards its index names (unread names
// count 0); a folder larger than maxBytes is refused before its weights are read.
function checkTotal(access, maxBytes) {
  if (!(maxBytes < Infinity)) return;
  let names = [
    'config.json',
    'tokenizer.json',
    'model.safetensors.index.json',
    'model.safetensors',
  ];
  const index = access.whole('model.safetensors.index.json');
  if (index !== undefined) names = names.concat(shardNames(index));
  let total = 0;
  for (const name of new Set(names)) total += Math.max(0, access.size(name));
  if (total > maxBytes) {
    access.close();
    fail(tooLarge(total, maxBytes));
  }
}

const megabytes = (n) => `${(n / 1048576).toFixed(1)} MB`;
const tooLarge = (total, maxBytes) =>
  `the checkpoint's files take ${megabytes(total)} (${total} bytes), more than maxBytes ${megabytes(maxBytes)} (${maxBytes} bytes)`;

// The shards an index names (deduplicated, plain file names only: the core checks the index).
function shardNames(index) {
  let map = null;
  try {
    map = JSON.parse(new TextDecoder().decode(index)).weight_map;
  } catch {
    // the core names what is wrong with the index
  }
  return isPlainObject(map)
    ? [...new Set(Object.values(map))].filter((n) => typeof n === 'string' && SHARD_NAME.test(n))
    : [];
}

async function openEntries(files) {
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
// model.safetensors; each downloaded whole, since the core reads synchronously. The weights'
// sizes are asked first (HEAD): a folder over maxBytes is refused before they download, and one
// whose server gives no size is stopped as soon as it passes maxBytes. onProgress({ stage:
// 'download', loaded, total }) counts the weights' bytes as they arrive.
export async function fetchFolder(url, maxBytes = Infinity, onProgress) {
  const base = url.endsWith('/') ? url : `${url}/`;
  const request = async (name, method) => {
    try {
      return await fetch(new URL(name, base), { method });
    } catch (e) {
      fail(`cannot fetch ${name} from ${base}: ${e.message}`);
    }
  };
  const get = async (name, optional = false) => {
    const res = await request(name, 'GET');
    if (optional && res.status === 404) return undefined;
    if (!res.ok) fail(`cannot fetch ${name} from ${base}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const out = new Map([['config.json', await get('config.json')]]);
  const tokenizer = await get('tokenizer.json', true);
  if (tokenizer) out.set('tokenizer.json', tokenizer);
  // One weights file, else an index and its shards: the index is asked for only when there is
  // no model.safetensors (a browser reports every 404 on its console).
  const sizeOf = (res) => {
    const length = Number(res.headers.get('content-length'));
    return res.ok && Number.isFinite(length) && length > 0 ? length : null;
  };
  const single = await request('model.safetensors', 'HEAD');
  let weights = ['model.safetensors'];
  const sizes = [];
  if (single.ok) sizes.push(sizeOf(single));
  else {
    const index = await get('model.safetensors.index.json', true);
    if (!index) fail(`cannot fetch model.safetensors from ${base}: HTTP ${single.status}`);
    out.set('model.safetensors.index.json', index);
    weights = shardNames(index);
    for (const name of weights) {
      const res = await request(name, 'HEAD');
      if (res.status === 404) fail(`cannot fetch ${name} from ${base}: HTTP 404`);
      sizes.push(sizeOf(res));
    }
  }
  let small = 0;
  for (const bytes of out.values()) small += bytes.length;
  const known = sizes.every((x) => x !== null);
  const total = known ? sizes.reduce((a, b) => a + b, 0) : null;
  if (known && small + total > maxBytes) fail(tooLarge(small + total, maxBytes));
  let loaded = 0;
  for (const name of weights) {
    const res = await request(name, 'GET');
    if (!res.ok) fail(`cannot fetch ${name} from ${base}: HTTP ${res.status}`);
    const chunks = [];
    let size = 0;
    const reader = res.body.getReader();
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        fail(`cannot fetch ${name} from ${base}: ${e.message}`);
      }
      if (step.done) break;
      chunks.push(step.value);
      size += step.value.length;
      loaded += step.value.length;
      if (small + loaded > maxBytes) {
        await reader.cancel().catch(() => {});
        fail(`${tooLarge(small + loaded, maxBytes)}, and more was still arriving`);
      }
      onProgress?.({ stage: 'download', loaded, total });
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    out.set(name, bytes);
  }
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
