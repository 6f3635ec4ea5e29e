// The attention playground's link: the state written into the hash once the typing pauses (a
// history entry per discrete choice), the long-link line with its link without the code, the
// mode link to Model mode, and Back and Forward.
import { el } from '../dom.js';
import { $, showLinkNotice, writeHash, bindModeLink } from '../shell.js';
import { normalizeState, encodeState, readStateLink } from '../../shared/playground-state.js';
import { MODEL_DEFAULTS } from '../../shared/model-state.js';
import { LINK_UNREADABLE, linkWithoutCode, LONG_LINK, linkSizeText } from '../../shared/wording.js';
import { SAMPLES, LANGUAGE_NAMES } from '../../shared/samples.js';

/** The notice for a link that could not be read or was made without its code ('' for none). */
export const linkNotice = (l) =>
  l.unreadable
    ? LINK_UNREADABLE
    : l.codeOmitted
      ? linkWithoutCode(LANGUAGE_NAMES[l.state.language] ?? l.state.language)
      : '';
export function createLinks(pg) {
  let urlTimer = 0;
  // A tokenizer.json of the person's own stays in the page: the link names the default. The code
  // is the snapshot's own (a choice's earlier state is written after the choice changed the code).
  const linkState = (snapshot) => ({
    ...snapshot,
    tokenizer: pg.info.tokenizers.includes(snapshot.tokenizer) ? snapshot.tokenizer : 'lexical',
  });
  // A discrete choice (preset, menu, checkbox, sample, file) adds a history entry, so that Back
  // undoes it; typing and numbers replace the entry. The entry waits (pending) until the typing
  // pauses, as compressing the code into the URL costs time; the writes keep their order.
  let pending = null; // { snapshot, push }: the entry the timer will write
  let writes = Promise.resolve();
  function write(entry) {
    writes = writes.then(async () => {
      const hash = await encodeState(linkState(entry.snapshot));
      writeHash(hash, entry.push);
      showLinkSize(hash, entry.snapshot);
    });
  }
  function flush() {
    clearTimeout(urlTimer);
    if (pending) write(pending);
    pending = null;
  }
  // snapshot: the state a run computed. A run of a state since changed (its result arrived after
  // a choice or an edit) writes nothing: the run of the newer state writes, and the choice's
  // entry (pushNext) is kept for it.
  function writeURL(snapshot) {
    if (JSON.stringify(snapshot) !== JSON.stringify(normalizeState(pg.state))) return;
    clearTimeout(urlTimer);
    pending = { snapshot, push: Boolean(pending?.push || pg.pushNext) };
    pg.pushNext = false;
    urlTimer = setTimeout(flush, Math.max(150, pg.lastEdit + 1000 - performance.now()));
  }
  /**
   * Called before a discrete choice changes pg.state: the state before it is written now (a new
   * entry when it came from an earlier choice), so that a second choice made before the first
   * one's entry was written (a menu, then another within a second) does not merge into it, and
   * Back undoes one choice at a time.
   */
  pg.choose = () => {
    pending = {
      snapshot: normalizeState(pg.state),
      push: Boolean(pending?.push || pg.pushNext),
    };
    flush();
    pg.pushNext = true;
  };

  // A link long enough to be cut by chat apps (the code is in it) offers one without the code.
  const linkSize = el('p', { id: 'link-size', class: 'link-size', hidden: true });
  const linkSizeText_ = el('span');
  const shortLink = el(
    'button',
    {
      type: 'button',
      class: 'small',
      id: 'copy-short-link',
      title:
        "Copy a link to this view that leaves the code out: it opens the language's sample with these settings",
    },
    'Copy link without the code',
  );
  linkSize.append(linkSizeText_, ' ', shortLink);
  $('timings').after(linkSize);
  let linkSnapshot = null;
  let linkHash = '';
  const linkField = el('input', {
    type: 'text',
    readonly: true,
    class: 'link-field',
    hidden: true,
    'aria-label': 'Link without the code',
  });
  linkSize.append(' ', linkField);
  function showLinkSize(hash, snapshot) {
    linkSnapshot = snapshot;
    const long = hash.length > LONG_LINK && snapshot.code !== null;
    if (long) linkSizeText_.textContent = linkSizeText(hash.length);
    linkSize.hidden = !long;
    if (hash !== linkHash) {
      // The view changed: a link copied before is not this view's.
      linkHash = hash;
      shortLink.textContent = 'Copy link without the code';
      linkField.hidden = true;
    }
  }
  shortLink.addEventListener('click', async () => {
    const hash = await encodeState(linkState(linkSnapshot ?? normalizeState(pg.state)), {
      withoutCode: true,
    });
    const url = `${location.origin}${location.pathname}${location.search}${hash}`;
    shortLink.dataset.link = url;
    try {
      await navigator.clipboard.writeText(url);
      shortLink.textContent = `Copied (${url.length.toLocaleString('en')} characters)`;
    } catch {
      // No clipboard (permission, an insecure origin): the link is shown to copy by hand.
      linkField.value = url;
      linkField.hidden = false;
      linkField.select();
    }
  });

  // The mode link carries the code and language to Model mode.
  bindModeLink('mode-model', 'model.html', MODEL_DEFAULTS, () => pg.state);

  // Back and Forward (and a hash edited by hand) restore the state their entry holds.
  window.addEventListener('popstate', async () => {
    clearTimeout(urlTimer); // a write pending for the entry just left must not land on this one
    pending = null;
    pg.pushNext = false;
    const read = await readStateLink(location.hash);
    showLinkNotice(linkNotice(read), $('story'));
    const next = read.state;
    pg.supersedeModels(); // a model reading still on its way no longer sets the shared settings
    const code = next.code ?? SAMPLES[next.language] ?? '';
    pg.state = next;
    pg.editor.setLanguage(pg.state.language);
    if (code !== pg.editor.text) pg.editor.setText(code);
    pg.state.code = next.code;
    pg.zoom = null;
    pg.syncControls();
    pg.schedule();
  });

  return { writeURL };
}
