// The page side of the playground workers: promise-based requests on the package's worker
// protocol (hirope/protocol), and "latest wins" scheduling (PairClient) so that a burst of
// edits or slider moves computes only the newest state.
import { simdSupported } from 'hirope';
import { grammarFile } from 'hirope/runtime';
import { TOKENIZER_FILES } from 'hirope/registry';
import { WorkerClient } from 'hirope/protocol';
import { registeredText } from 'hirope/assets';
import { assetURL } from '../shared/hashed-assets.js';
import { detection } from '../shared/language-detection.js';
import { galleryPath, modelSource } from '../shared/model-gallery.js';

export class WorkerError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name === 'Error' ? 'WorkerError' : name;
  }
}

// One download and one compile of each .wasm per page, shared by every worker (both sides of the
// playground, every <hirope-attention> on a page): a compiled WebAssembly.Module can be posted to
// a worker, which then only instantiates it. The module, and each language's grammar when a
// worker first needs it. Null when compiling here fails (the worker then loads the file itself).
const compiled = new Map(); // file name -> Promise of its WebAssembly.Module or null
function compileAsset(name) {
  if (!compiled.has(name))
    compiled.set(
      name,
      (async () => {
        const url = assetURL(name, import.meta.url);
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${url} answered ${response.status}`);
        return WebAssembly.compileStreaming
          ? WebAssembly.compileStreaming(response)
          : WebAssembly.compile(await response.arrayBuffer());
      })().catch(() => null),
    );
  return compiled.get(name);
}
export const compiledModule = (simd) =>
  compileAsset(simd ? 'hirope-simd.wasm' : 'hirope-scalar.wasm');
export const grammarModule = (language) => compileAsset(grammarFile(language));

// The requests that analyse code, and where their payload names its language.
const languageOf = (payload) =>
  payload.state?.language ?? payload.options?.language ?? payload.language;
const ANALYSING = ['run', 'tokenCounts', 'modelRun', 'modelGenerate', 'modelThumbnail'];

// Files fetched once per page and handed to every worker (both sides, every <hirope-attention>),
// as the model's weights are: the built-in tokenizers' vocabularies (two workers fetching the
// 14 MB Gemma 3 file at the same moment made one of them fail in a fresh browser profile,
// net::ERR_CACHE_WRITE_FAILURE) and the gallery's configs (a bundled page's registered text,
// hirope/assets/config/<id>, which a worker cannot see). A network error is tried once more; if
// that fails too, the error says which file could not be downloaded.
const downloads = new Map(); // file -> Promise of its bytes or text

/** Whether a tokenizer name is a built-in one with a data file (not 'lexical', not a file's own). */
export const hasTokenizerData = (name) => Object.hasOwn(TOKENIZER_FILES, name);

/** The message of a data file that could not be downloaded, in plain words. */
export function downloadFailure(name, file, reason) {
  return `The ${name} tokenizer's vocabulary (${file}) could not be downloaded: ${reason}. Choose the tokenizer again to retry, or another one.`;
}

/** The message of a gallery config that could not be downloaded. */
export function configDownloadFailure(id, file, reason) {
  return `The ${id} config (${file}) could not be downloaded: ${reason}.`;
}

/** A site file by its plain name, fetched once per page; `read` takes the Response's body. */
function download(file, failure, read, fetchFn) {
  if (!downloads.has(file)) {
    const url = assetURL(file, import.meta.url);
    const once = async () => {
      const response = await fetchFn(url);
      if (!response.ok)
        throw Object.assign(new Error(failure(`the server answered HTTP ${response.status}`)), {
          name: 'NetworkError',
          http: true,
        });
      return read(response);
    };
    const pending = once()
      .catch((e) => (e.http ? Promise.reject(e) : once()))
      .catch((e) => {
        downloads.delete(file); // a later request tries again
        throw e.name === 'NetworkError'
          ? e
          : Object.assign(new Error(failure(e.message || String(e))), { name: 'NetworkError' });
      });
    downloads.set(file, pending);
  }
  return downloads.get(file);
}

/** A built-in tokenizer's data file: fetched once, a network error retried once. */
export function tokenizerData(name, fetchFn = fetch) {
  const file = `data/${TOKENIZER_FILES[name]}`;
  return download(
    file,
    (reason) => downloadFailure(name, file, reason),
    async (response) => new Uint8Array(await response.arrayBuffer()),
    fetchFn,
  );
}

/**
 * A gallery config's text (model="<id>"): the text its asset module registered
 * (hirope/assets/config/<id>), or else fetched once, a network error retried once.
 */
export function galleryConfigText(id, fetchFn = fetch) {
  const file = galleryPath(id);
  const registered = registeredText(file);
  if (registered !== undefined) return Promise.resolve(registered);
  return download(
    file,
    (reason) => configDownloadFailure(id, file, reason),
    (response) => response.text(),
    fetchFn,
  );
}

/** The gallery ids a request's payload names: a modelSetup's source, or a run's sides. */
function galleryIds(type, payload) {
  if (type === 'modelSetup') return payload.source?.id ? [payload.source.id] : [];
  if (type !== 'run' || !payload.state) return [];
  const ids = ['a', 'b'].map((side) => modelSource(payload.state[side] ?? {})?.id);
  return [...new Set(ids.filter(Boolean))];
}

// Under Trusted Types (a CSP with require-trusted-types-for 'script'), a worker's URL must be a
// TrustedScriptURL, made by a policy the page's CSP names: this one is 'hirope' (trusted-types
// hirope). Made only where a plain URL is refused, once per page (a second policy of that name
// would be refused), and it passes only the worker URLs this module starts.
const TRUSTED_POLICY = Symbol.for('hirope.trustedTypes');
function startWorker(url) {
  const options = { type: 'module', name: 'hirope' };
  try {
    return new Worker(url, options);
  } catch (e) {
    if (!(e instanceof TypeError) || !globalThis.trustedTypes?.createPolicy) throw e;
  }
  if (!(TRUSTED_POLICY in globalThis)) {
    try {
      globalThis[TRUSTED_POLICY] = trustedTypes.createPolicy('hirope', {
        createScriptURL: (text) => text,
      });
    } catch {
      globalThis[TRUSTED_POLICY] = null;
    }
  }
  const policy = globalThis[TRUSTED_POLICY];
  if (!policy)
    throw new WorkerError(
      'WorkerError',
      "the page's Trusted Types policy refuses the worker's URL, and its CSP does not allow a policy named hirope: add hirope to its trusted-types directive",
    );
  return new Worker(policy.createScriptURL(String(url)), options);
}

// Requests whose effect a worker keeps (a q/k file, a tokenizer.json, the model's weights): a
// fresh worker that replaces a busy one gets them again first.
const STICKY = ['qkFile', 'tokenizerFile', 'modelLoad'];

export class PlaygroundClient {
  constructor(workerURL) {
    this.workerURL = workerURL;
    this._tokenizers = new Map(); // name -> Promise of the worker's having loaded its data
    this._configs = new Map(); // gallery id -> Promise of the worker's having its config's text
    // language -> Promise of the worker's having its grammar, then true once it has it
    this._languages = new Map();
    const simd =
      new URL(workerURL, location.href).searchParams.get('simd') !== '0' && simdSupported();
    // The package's worker protocol: the compiled module goes to every worker it starts.
    this._client = new WorkerClient(() => startWorker(this.workerURL), {
      onStart: (notify) => compiledModule(simd).then((module) => notify('module', { module })),
      sticky: STICKY,
      failed: (event) =>
        new WorkerError('WorkerError', event.message || 'the worker failed to start'),
      errors: { fallback: (name, message) => new WorkerError(name, message) },
    });
  }

  /** Hands the page's copy of a built-in tokenizer's data to this worker, once. */
  loadTokenizer(name) {
    if (!this._tokenizers.has(name)) {
      const loaded = tokenizerData(name).then((data) =>
        this.request('tokenizerData', { name, data }),
      );
      loaded.catch(() => this._tokenizers.get(name) === loaded && this._tokenizers.delete(name));
      this._tokenizers.set(name, loaded);
    }
    return this._tokenizers.get(name);
  }

  /** Hands the page's copy of a gallery config to this worker, once. */
  loadGalleryConfig(id) {
    if (!this._configs.has(id)) {
      const loaded = galleryConfigText(id).then((text) =>
        this._client.request('galleryConfig', { id, text }),
      );
      loaded.catch(() => this._configs.get(id) === loaded && this._configs.delete(id));
      this._configs.set(id, loaded);
    }
    return this._configs.get(id);
  }

  /**
   * Hands the page's compiled grammar of a language to this worker, once (a worker whose page
   * could not compile it loads the file itself).
   */
  loadLanguage(language) {
    const known = this._languages.get(language);
    if (known === true) return Promise.resolve();
    if (known) return known;
    // A restart meanwhile forgets it: the fresh worker gets the grammar with its next request.
    const mine = () => this._languages.get(language) === loaded;
    const loaded = grammarModule(language)
      .then((module) => this._client.request('grammar', { language, module }))
      .then(() => mine() && this._languages.set(language, true));
    loaded.catch(() => mine() && this._languages.delete(language));
    this._languages.set(language, loaded);
    return loaded;
  }

  /**
   * The language of the code: the grammars parse it in the worker, each one handed over when
   * detection first tries it (shared/language-detection.js).
   */
  async detectLanguage(code) {
    const run = detection(code);
    let step = run.next();
    while (!step.done) {
      const language = step.value;
      await this.loadLanguage(language).catch(() => {}); // the worker then reports the failure
      step = run.next(await this.request('errorScore', { code, language }));
    }
    return step.value;
  }

  /**
   * One request; resolves with the worker's result. A request that analyses code in a language
   * whose grammar the worker does not have yet, or names a gallery model whose config it does not
   * have, waits for the page to hand it over.
   */
  request(type, payload = {}, progress = null, transfer = [], signal = null) {
    const ids = galleryIds(type, payload);
    if (ids.length)
      return Promise.all(ids.map((id) => this.loadGalleryConfig(id))).then(() =>
        this._request(type, payload, progress, transfer, signal),
      );
    return this._request(type, payload, progress, transfer, signal);
  }

  _request(type, payload, progress, transfer, signal) {
    // signal: aborting it rejects the call and replaces this worker (worker-protocol.js), which
    // gets the data handed over again with its next requests, as after restart().
    signal?.addEventListener('abort', () => this._forget(), { once: true });
    const send = () => this._client.request(type, payload, { progress, transfer, signal });
    const language = ANALYSING.includes(type) ? languageOf(payload) : undefined;
    if (typeof language !== 'string' || this._languages.get(language) === true) return send();
    return this.loadLanguage(language).then(send, send);
  }

  /**
   * Replaces a busy worker (a parse cannot be interrupted from outside): its pending requests
   * reject with a WorkerError named 'Superseded', and the fresh worker gets the sticky requests
   * again.
   */
  restart() {
    this._forget();
    this._client.restart(new WorkerError('Superseded', 'a newer request replaced this one'));
  }

  // A fresh worker has none of the data handed over: it gets it again with its next requests.
  _forget() {
    this._tokenizers.clear();
    this._configs.clear();
    this._languages.clear();
  }

  /** Stops this worker's run at its map's next chunk (a notice: it skips the request queue). */
  cancel() {
    this._client.worker.postMessage({ type: 'cancel' });
  }

  terminate() {
    this._client.terminate();
  }
}

/**
 * Two workers, one per scheme, driven as one: a run computes A and B at the same time (each
 * worker analyses the code itself, which costs less than shipping the analysis across), and
 * "latest wins" applies to the pair.
 */
export class PairClient {
  constructor(workerURL) {
    this.a = new PlaygroundClient(workerURL);
    this.b = new PlaygroundClient(workerURL);
    this._running = null; // { started } of the run under way
    this._queued = null;
    this._restartedAt = -Infinity;
  }

  side(name) {
    return name === 'b' ? this.b : this.a;
  }

  /** The same request to both workers. */
  both(type, payload = {}) {
    return Promise.all([
      this.a.request(type, { ...payload, side: 'a' }),
      this.b.request(type, { ...payload, side: 'b' }),
    ]);
  }

  /** A built-in tokenizer's data into both workers (fetched once by the page). */
  loadTokenizer(name) {
    return Promise.all([this.a.loadTokenizer(name), this.b.loadTokenizer(name)]);
  }

  /** A run of both sides: resolves with { a, b }, the two workers' results. */
  async run(payload, progress = null) {
    const tokenizer = payload.state?.tokenizer;
    if (hasTokenizerData(tokenizer)) {
      progress?.('loading the tokenizer');
      await this.loadTokenizer(tokenizer);
    }
    // The language's grammar, compiled here once and handed to both workers (a grammar that
    // cannot be loaded fails the run with the worker's message naming it and its URL).
    const language = payload.state?.language;
    if (typeof language === 'string') {
      progress?.('loading the grammar');
      await Promise.all([this.a.loadLanguage(language), this.b.loadLanguage(language)]);
    }
    return Promise.all([
      // The distance views depend on both schemes; B's worker computes them, so that moving a
      // slider of scheme B (the HiRoPE side by default) leaves A's worker nothing to send.
      this.a.request('run', { ...payload, side: 'a', summary: true }, progress),
      this.b.request(
        'run',
        { ...payload, side: 'b', distances: payload.distancesWanted ?? payload.views !== false },
        progress,
      ),
    ]).then(([a, b]) => ({ a, b }));
  }

  /**
   * Per-row TV and KL between the two sides' current matrices of n tokens, and each side's per-row
   * numbers (own-unit mass, mean distance). No matrix crosses between the workers: each recomputes
   * both schemes' rows for its share of the queries (A the first n / sqrt(2), which cost as much
   * as the rest under the causal mask) and compares them, at the same time.
   */
  async compare(n) {
    const split = Math.round(n / Math.SQRT2);
    const parts = await Promise.all([
      this.a.request('compare', { other: { rows: [0, split] } }),
      this.b.request('compare', { other: { rows: [split, n] } }),
    ]);
    const join = (pick) => {
      const out = new Float32Array(n);
      for (const p of parts) out.set(pick(p), p.rows[0]);
      return out;
    };
    const side = (s) => ({
      own: join((p) => p.sides[s].own),
      distance: join((p) => p.sides[s].distance),
    });
    return {
      tv: join((p) => p.tv),
      kl: join((p) => p.kl),
      stats: { a: side('a'), b: side('b') },
    };
  }

  /**
   * A run of both sides where only the newest matters; superseded calls resolve with null.
   * `run(payload, progress)` replaces the playground's run (Model mode passes its own).
   * restart: false waits for a long run to end instead of replacing the workers (a checkpoint's:
   * fresh workers would read its weights again, which takes longer than the forward).
   */
  latest(payload, progress, run = (p, pr) => this.run(p, pr), { restart = true } = {}) {
    if (this._queued) this._queued.resolve(null);
    const queued = new Promise((resolve, reject) => {
      this._queued = { payload, progress, resolve, reject, run };
    });
    // A run that has taken long (pathological input keeps a parse busy for seconds) is not
    // waited for: both workers are replaced and the newest request runs at once.
    // Not a run that started on workers replaced moments ago: its time is their start-up.
    const now = performance.now();
    if (
      restart &&
      this._running &&
      now - this._running.started > PairClient.CANCEL_AFTER_MS &&
      this._running.started - this._restartedAt > PairClient.RESTART_SETTLE_MS
    ) {
      this._running.superseded = true;
      this._restartedAt = now;
      this.a.restart();
      this.b.restart();
      globalThis.document?.dispatchEvent(new Event('hirope:restart'));
    }
    this._pump();
    return queued;
  }

  async _pump() {
    if (this._running || !this._queued) return;
    const job = this._queued;
    this._queued = null;
    const running = { started: performance.now(), superseded: false };
    this._running = running;
    try {
      job.resolve(await job.run(job.payload, job.progress));
    } catch (e) {
      if (running.superseded) job.resolve(null);
      else job.reject(e);
    } finally {
      this._running = null;
      this._pump();
    }
  }

  /** Cancels the run under way in both workers (PlaygroundClient.cancel). */
  cancel() {
    this.a.cancel();
    this.b.cancel();
  }

  terminate() {
    this.a.terminate();
    this.b.terminate();
  }
}

/** Milliseconds after which a newer request replaces a running one instead of waiting for it. */
PairClient.CANCEL_AFTER_MS = 500;
/** Runs that start this soon after a replacement are not replaced again (the workers are starting). */
PairClient.RESTART_SETTLE_MS = 3000;
