// The page's "Tokenizers" box: how many tokens the current code is under each tokenizer (tokens,
// bytes per token, units, tokens per unit), and a tokenizer.json of the person's own, picked or
// dropped, which becomes a choice of the Tokenizer control. Counting runs in worker A after each
// redraw, for the tokenizers whose vocabularies are loaded (the one in use, any the person asked
// for, or all of them after "Count with every tokenizer").
import { el } from '../dom.js';
import { tokenizerLabel } from '../controls.js';
import { hasTokenizerData } from '../worker-requests.js';

const number = (x, digits = 0) =>
  x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export class TokenizersBox {
  /**
   * parent: the element the box goes into; client: the page's PairClient; builtins: hr.tokenizers
   * of the worker; onPick(name, label): the person chose a tokenizer (a row, or a loaded file).
   */
  constructor(parent, client, builtins, onPick) {
    this.client = client;
    this.builtins = builtins.filter((t) => t !== 'lexical');
    this.onPick = onPick;
    this.counted = new Set(); // tokenizers the table counts (their vocabularies are loaded on demand)
    this.file = null; // { name, label, fileName } of the person's own tokenizer.json
    this.last = null; // { code, units, bytes } of the last redraw
    this.current = 'lexical';
    this._serial = 0;

    const box = el('details', { class: 'outline-box tokenizers-box', id: 'tokenizers-box' });
    const summary = el('summary', {}, 'Tokenizers ');
    this.count = el('span', { class: 'muted', id: 'tokenizers-count' });
    summary.append(this.count);
    this.table = el('table', { class: 'token-table', id: 'token-table' });
    this.table.append(el('caption', { class: 'sr-only' }, 'The code under each tokenizer'));
    const head = el('tr');
    for (const [text, title] of [
      ['Tokenizer', ''],
      ['Tokens', 'Tokens of the code'],
      ['Bytes per token', 'UTF-8 bytes of the code per token'],
      ['Units', 'Top-level units (functions, classes, code between them) that hold tokens'],
      ['Tokens per unit', 'Mean tokens per unit'],
    ])
      head.append(el('th', { scope: 'col', title: title || undefined }, text));
    this.table.append(el('thead'), el('tbody'));
    this.table.tHead.append(head);
    this.all = el(
      'button',
      { type: 'button', class: 'small', id: 'count-all' },
      'Count with every tokenizer',
    );
    this.all.title =
      'Loads each vocabulary (a few megabytes each, once) and counts the code with it';
    const fileLabel = el('label', {
      class: 'button small',
      id: 'tokenizer-file-label',
      title:
        'A Hugging Face tokenizer.json (byte-level BPE such as Llama 3, Qwen, DeepSeek; or SentencePiece BPE with byte fallback such as Gemma): it stays in this page, never in the URL',
    });
    this.fileInput = el('input', {
      type: 'file',
      accept: '.json,application/json',
      class: 'sr-only',
      id: 'tokenizer-file',
    });
    fileLabel.append(el('span', {}, 'Load tokenizer.json…'), this.fileInput);
    this.message = el('p', {
      class: 'muted tokenizers-note',
      role: 'status',
      'aria-live': 'polite',
    });
    const bar = el('div', { class: 'tokenizers-bar' });
    bar.append(this.all, fileLabel);
    box.append(
      summary,
      el(
        'p',
        { class: 'muted' },
        "Where a model puts token boundaries decides what HiRoPE's units hold. Click a row to use that tokenizer for the maps; drop a tokenizer.json here to add your own.",
      ),
      this.table,
      bar,
      this.message,
    );
    parent.append(box);
    this.box = box;
    box.addEventListener('toggle', () => box.open && this.refresh());

    this.all.addEventListener('click', () => {
      for (const name of this.builtins) this.counted.add(name);
      this.all.disabled = true;
      this.refresh();
    });
    this.fileInput.addEventListener('change', () => {
      const file = this.fileInput.files[0];
      this.fileInput.value = '';
      if (file) this.loadFile(file);
    });
    box.addEventListener('dragover', (e) => {
      if ([...(e.dataTransfer?.types ?? [])].includes('Files')) {
        e.preventDefault();
        box.classList.add('drop');
      }
    });
    box.addEventListener('dragleave', () => box.classList.remove('drop'));
    box.addEventListener('drop', (e) => {
      box.classList.remove('drop');
      const file = e.dataTransfer?.files?.[0];
      if (!file) return;
      e.preventDefault();
      box.open = true;
      this.loadFile(file);
    });
    this.table.tBodies[0].addEventListener('click', (e) => {
      const row = e.target.closest('tr[data-tokenizer]:not(.failed)');
      if (row) this.onPick(row.dataset.tokenizer);
    });
  }

  /** The label of a tokenizer name: a built-in's, or the person's file. */
  label(name) {
    return this.file?.name === name ? `${this.file.fileName} (your file)` : tokenizerLabel(name);
  }

  /** Reads a tokenizer.json into both workers; on success it becomes the tokenizer in use. */
  async loadFile(file) {
    this.message.textContent = `Reading ${file.name}…`;
    try {
      const data = new Uint8Array(await file.arrayBuffer());
      // Both workers load it (a sticky request: a replaced worker gets it again); the name is a
      // hash of the bytes, so both answer the same.
      const [name] = await this.client.both('tokenizerFile', { data });
      this.file = { name, fileName: file.name };
      this.counted.add(name);
      this.message.textContent = `${file.name} loaded (${number(data.length / 1e6, 1)} MB).`;
      this.onPick(name);
    } catch (e) {
      this.message.textContent = `${file.name} cannot be used: ${e.message}`;
    }
  }

  /**
   * After a redraw: the code, the analysis options (language, gaps) and the tokenizer in use.
   * Counting is worker A's work on every edit, so a closed box counts only once it is opened.
   */
  update(code, options, tokenizer) {
    this.current = tokenizer;
    if (tokenizer !== 'lexical') this.counted.add(tokenizer);
    this.last = { code, options };
    if (this.box.open) this.refresh();
  }

  async refresh() {
    if (!this.last) return;
    const serial = ++this._serial;
    const { code, options } = this.last;
    const names = ['lexical', ...this.counted];
    if (names.some((n) => this.builtins.includes(n))) this.message.textContent = 'Counting…';
    let rows;
    try {
      // The vocabularies come from the page's one download of each (worker-requests.js tokenizerData); one
      // that cannot be downloaded gets its reason in its row.
      await Promise.allSettled(
        names.filter(hasTokenizerData).map((n) => this.client.a.loadTokenizer(n)),
      );
      rows = await this.client.a.request('tokenCounts', { code, options, names });
    } catch (e) {
      if (serial === this._serial && e.name !== 'Superseded')
        this.message.textContent = `Counting failed: ${e.message}`;
      return;
    }
    if (serial !== this._serial) return;
    if (this.message.textContent === 'Counting…') this.message.textContent = '';
    this.render(rows);
  }

  render(rows) {
    const body = this.table.tBodies[0];
    const bytes = new TextEncoder().encode(this.last.code).length;
    body.replaceChildren(
      ...rows.map((r) => {
        if (r.error) {
          const tr = el('tr', { 'data-tokenizer': r.name, class: 'failed' });
          tr.append(
            el('th', { scope: 'row' }, this.label(r.name)),
            el('td', { colspan: '4' }, r.error),
          );
          return tr;
        }
        const tr = el('tr', {
          'data-tokenizer': r.name,
          'aria-current': r.name === this.current ? 'true' : undefined,
          title: `Use ${this.label(r.name)} for the maps`,
        });
        const perUnit = r.units ? r.tokens / r.units : 0;
        tr.append(
          el('th', { scope: 'row' }, this.label(r.name)),
          el('td', {}, number(r.tokens)),
          el('td', {}, r.tokens ? number(bytes / r.tokens, 2) : '–'),
          el('td', {}, number(r.units)),
          el('td', {}, r.units ? number(perUnit, 1) : '–'),
        );
        return tr;
      }),
    );
    this.count.textContent = `(${rows.length})`;
    this.all.disabled = this.builtins.every((n) => this.counted.has(n));
  }
}
