// Model mode's "your checkpoint" source: a Hugging Face checkpoint folder picked (a directory
// picker, several files, or dropped on the panel) or named by URL. The page says what loading it
// takes before it loads (hr.model.inspectPretrained in a worker: parameters, weight bytes, the
// memory of a forward) and refuses, with the figures, what does not fit; then both workers load
// it (each holds a copy, as each computes one side), with progress and Cancel. Local files never
// leave the machine: the workers read them a slice at a time. A URL goes into the link; a local
// folder cannot, and the panel says so.
import { $ } from '../shell.js';

/** The files a checkpoint folder may hold that the page reads; the rest are left out. */
const WANTED = /^(config\.json|tokenizer\.json|model\.safetensors\.index\.json|.*\.safetensors)$/;

/** A file's name inside the folder it was picked or dropped from (the last path segment). */
const baseName = (file) => (file.webkitRelativePath || file.name).split('/').pop();

// The files of a folder dropped on the page (DataTransferItem entries), those at its top level.
async function droppedFiles(items) {
  const files = [];
  const entries = [...items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
  for (const entry of entries) {
    if (entry.isFile) files.push(await fileOf(entry));
    else if (entry.isDirectory) {
      const reader = entry.createReader();
      // readEntries answers in batches until an empty one.
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const e of batch) if (e.isFile) files.push(await fileOf(e));
      }
    }
  }
  return files;
}

const megabytes = (n) => `${(n / 1e6).toFixed(1)} MB`;
const GiB = 2 ** 30;
const millions = (n) => `${(n / 1e6).toFixed(1)} M`;

/**
 * The checkpoint panel over mx (model-page.js): mx.checkpointSource.load() gives the loaded
 * checkpoint's config (both workers), once a folder, files or URL was opened.
 */
export function createCheckpointSource(mx, { onOpened }) {
  const panel = $('checkpoint-source');
  const status = $('checkpoint-status');
  const cancelButton = $('checkpoint-cancel');
  let current = null; // { url, config } of the checkpoint loaded
  let waiting = null; // { promise, resolve } of load() calls made before anything was opened
  let controller = null; // the AbortController of the step under way

  const say = (text, { error = false } = {}) => {
    status.textContent = text;
    status.classList.toggle('error', error);
  };

  function show(visible) {
    panel.hidden = !visible;
  }

  // A step the person can cancel: the workers that run it are replaced (a load cannot be
  // stopped from outside), and their last model is loaded again by the next run.
  async function cancellable(step) {
    controller = new AbortController();
    cancelButton.hidden = false;
    try {
      return await step(controller.signal);
    } finally {
      cancelButton.hidden = true;
      controller = null;
    }
  }
  cancelButton.addEventListener('click', () => controller?.abort());

  /** Inspects and loads files (a Map of name to Blob); label names them in what the panel says. */
  async function open(files, { label, url = '', fromLink = false }) {
    const names = [...files.keys()];
    if (!names.includes('config.json'))
      return say(
        `${label} has no config.json: choose the checkpoint's folder (config.json, tokenizer.json and model.safetensors, or its shards and model.safetensors.index.json).`,
        { error: true },
      );
    if (!names.includes('tokenizer.json'))
      return say(
        `${label} has no tokenizer.json, which the page needs to read code as the model does.`,
        { error: true },
      );
    say(`Reading ${label}'s headers…`);
    let plan;
    try {
      plan = await mx.client.a.request('checkpointInspect', { files });
    } catch (e) {
      return say(`${label} cannot be loaded: ${e.message}.`, { error: true });
    }
    const figures = `${plan.modelType}, ${millions(plan.parameters)} parameters: ${megabytes(plan.weightBytes)} of weights and up to ${megabytes(plan.workingBytes)} for a forward, in each of the page's two workers (${megabytes(2 * (plan.weightBytes + plan.workingBytes))} in all)`;
    if (!plan.fits)
      return say(`${label} does not fit: ${figures}. ${plan.memoryError}.`, { error: true });
    say(`Loading ${label}: ${figures}…`);
    let config;
    try {
      config = await cancellable((signal) =>
        Promise.all(
          ['a', 'b'].map((side) =>
            mx.client
              .side(side)
              .request(
                'modelLoad',
                { files, name: 'checkpoint' },
                side === 'a'
                  ? (p) =>
                      p.stage === 'load' &&
                      say(
                        `Loading ${label}: ${Math.round((100 * p.loaded) / p.total)}% of the weights read (${figures})…`,
                      )
                  : null,
                [],
                signal,
              ),
          ),
        ).then(([a]) => a),
      );
    } catch (e) {
      if (e.name === 'AbortError') return say(`Loading ${label} was cancelled.`, { error: true });
      return say(`${label} cannot be loaded: ${e.message}.`, { error: true });
    }
    current = { url, config };
    say(
      `${label}: ${figures}. ${url ? 'Its URL is in the link.' : 'The weights stay on this machine; a local folder cannot be put in a link (open the page again and choose it).'}`,
    );
    waiting?.resolve(config);
    waiting = null;
    onOpened({ url, config, fromLink });
    return config;
  }

  // The most a URL's files may take, refused before they download: what a worker's heap holds,
  // and on a device that says its memory (navigator.deviceMemory, in GiB: phones), an eighth of
  // it, since each of the two workers keeps a copy beside the page and the browser.
  async function downloadLimit() {
    const device = navigator.deviceMemory;
    const heap = (mx.info ?? (await mx.client.a.request('ready'))).heapBudgetBytes;
    return device ? Math.min(heap, (device * GiB) / 8) : heap;
  }

  /** A checkpoint folder's URL: its files downloaded once (a worker fetches them) for both workers. */
  async function openURL(url, { fromLink = false } = {}) {
    let files;
    try {
      const maxBytes = await downloadLimit();
      files = await cancellable((signal) =>
        mx.client.a.request(
          'checkpointDownload',
          { url, maxBytes },
          (p) =>
            say(
              `Downloading ${url}: ${megabytes(p.loaded)}${p.total ? ` of ${megabytes(p.total)}` : ''}…`,
            ),
          [],
          signal,
        ),
      );
    } catch (e) {
      if (e.name === 'AbortError') return say(`Downloading ${url} was cancelled.`, { error: true });
      return say(`${url} cannot be opened: ${e.message}.`, { error: true });
    }
    return open(files, { label: url, url, fromLink });
  }

  function openPicked(list, label) {
    const files = new Map();
    for (const file of list) if (WANTED.test(baseName(file))) files.set(baseName(file), file);
    return open(files, { label });
  }

  $('checkpoint-folder').addEventListener('change', (e) => {
    const list = [...e.target.files];
    const folder = list[0]?.webkitRelativePath.split('/')[0];
    openPicked(list, folder ? `The folder ${folder}` : 'The folder');
    e.target.value = '';
  });
  $('checkpoint-files').addEventListener('change', (e) => {
    openPicked([...e.target.files], 'The files chosen');
    e.target.value = '';
  });
  $('checkpoint-url-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('checkpoint-url').value.trim();
    let url;
    try {
      url = new URL(text, location.href);
    } catch {
      return say(`"${text}" is not a URL.`, { error: true });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return say(`${text} is not an http(s) URL.`, { error: true });
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    openURL(url.href);
  });
  panel.addEventListener('dragover', (e) => {
    e.preventDefault();
    panel.classList.add('dropping');
  });
  panel.addEventListener('dragleave', () => panel.classList.remove('dropping'));
  panel.addEventListener('drop', async (e) => {
    e.preventDefault();
    panel.classList.remove('dropping');
    // A dropped folder comes as an entry to read; files as files (also where entries are not
    // offered, as in a page's own DataTransfer). Both are taken before the event ends.
    const files = [...e.dataTransfer.files];
    const reading = e.dataTransfer.items ? droppedFiles(e.dataTransfer.items) : [];
    const fromEntries = await reading;
    openPicked(fromEntries.length ? fromEntries : files, 'The dropped files');
  });

  return {
    show,
    openURL,
    /** The chosen checkpoint's config, loaded in both workers (waits until one is opened). */
    load() {
      if (current) return Promise.resolve(current.config);
      if (mx.state.checkpoint && !controller) {
        $('checkpoint-url').value = mx.state.checkpoint;
        openURL(mx.state.checkpoint, { fromLink: true });
      }
      if (!waiting) {
        let resolve;
        const promise = new Promise((res) => (resolve = res));
        waiting = { promise, resolve };
      }
      return waiting.promise;
    },
    /** Whether a checkpoint was opened (and loaded). */
    get opened() {
      return current !== null;
    },
    /** The URL of the checkpoint shown ('' for a local folder, or none yet). */
    get url() {
      return current?.url ?? '';
    },
  };
}
