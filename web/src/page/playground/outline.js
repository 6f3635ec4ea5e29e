// The units outline under the editor: every unit with its kinds, name, token range and statements;
// clicking one selects its code and outlines it on the maps.
import { el } from '../dom.js';
import { $ } from '../shell.js';
import { statementsPerUnit } from '../../shared/counts.js';
import { plural, unitKinds } from '../../shared/wording.js';
import { LANGUAGE_NAMES } from '../../shared/samples.js';

/** renderOutline(analysis) fills #outline; markUnit(u) marks a unit there and on the maps. */
export function createOutline(pg) {
  let outlineItems = [];
  let outlineStructure = '';
  function renderOutline(a) {
    const list = $('outline');
    const first = new Int32Array(a.units.length).fill(-1);
    const last = new Int32Array(a.units.length).fill(-1);
    for (let t = 0; t < a.count; t++) {
      const u = a.unit[t];
      if (u < 0 || u >= a.units.length) continue;
      if (first[u] < 0) first[u] = t;
      last[u] = t;
    }
    // No tokens (an empty editor, only spaces): no unit to list, though the parse has its root.
    if (!a.count) {
      outlineStructure = '';
      outlineItems = [];
      list.replaceChildren(
        el('li', { class: 'outline-empty' }, 'No units: the code has no tokens yet.'),
      );
      $('outline-count').textContent = '(0)';
      return;
    }
    // Counted where each statement starts, so that they add up to the status's count.
    const statements = statementsPerUnit(a);
    const tokens = (u) =>
      first[u] < 0
        ? 'no tokens'
        : first[u] === last[u]
          ? `token ${first[u]}`
          : `tokens ${first[u]}–${last[u]}`;
    const meta = (u) => `${tokens(u)} · ${plural(statements[u], 'statement')}`;
    const structure = JSON.stringify(
      a.units.map((unit) => [unit.kind, unit.languageKind, unit.name]),
    );
    // Typing inside a unit moves token ranges, not units: update the numbers in place.
    if (structure === outlineStructure) {
      outlineItems.forEach((li, u) => {
        li.querySelector('.outline-meta').textContent = meta(u);
        li.range = first[u] >= 0 ? { from: first[u], to: last[u] + 1 } : null;
        li.unit = a.units[u];
      });
      return;
    }
    outlineStructure = structure;
    outlineItems = a.units.map((unit, u) => {
      const li = el('li', { class: `outline-item hr-u${u % 6}-edge`, 'data-unit': String(u) });
      const button = el('button', { type: 'button', class: 'outline-unit' });
      // HiRoPE's kind of unit, then the language's own word for it where that says more (a Rust
      // struct and its impl are both class units).
      const { kind, own } = unitKinds(unit);
      button.append(el('span', { class: 'outline-kind' }, kind), document.createTextNode(' '));
      if (own)
        button.append(
          el(
            'span',
            {
              class: 'outline-own',
              title: `${LANGUAGE_NAMES[a.language] ?? a.language}'s own kind: ${own}`,
            },
            own,
          ),
          document.createTextNode(' '),
        );
      button.append(el('span', { class: 'outline-name' }, unit.name || '(unnamed)'));
      li.append(button, el('span', { class: 'outline-meta' }, meta(u)));
      li.unit = unit;
      button.addEventListener('click', () => {
        pg.editor.selectRange(li.unit.start, li.unit.end);
        markUnit(u, true);
      });
      li.range = first[u] >= 0 ? { from: first[u], to: last[u] + 1 } : null;
      return li;
    });
    list.replaceChildren(...outlineItems);
    $('outline-count').textContent = `(${a.units.length})`;
  }

  function markUnit(u, fromOutline) {
    let range = null;
    for (const li of outlineItems) {
      const on = Number(li.dataset.unit) === u;
      if (on) {
        li.setAttribute('aria-current', 'true');
        range = li.range;
        if (!fromOutline) li.scrollIntoView({ block: 'nearest' });
      } else li.removeAttribute('aria-current');
    }
    for (const h of Object.values(pg.heatmaps)) h.setHighlight(range);
  }
  return { renderOutline, markUnit };
}
