// The code editor: CodeMirror 6 with syntax highlighting by CSS classes (no inline styles, so it
// runs under the page's strict CSP), token boundaries coloured by unit, a hover card per token,
// and "what this token looks at" as highlight intensity.
import { EditorState, StateEffect, Compartment, RangeSetBuilder } from '@codemirror/state';
import {
  EditorView,
  Decoration,
  ViewPlugin,
  keymap,
  lineNumbers,
  hoverTooltip,
  drawSelection,
  highlightActiveLine,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { syntaxHighlighting, bracketMatching, indentOnInput } from '@codemirror/language';
import { classHighlighter } from '@lezer/highlight';
import { python } from '@codemirror/lang-python';
import { javascript } from '@codemirror/lang-javascript';
import { cpp } from '@codemirror/lang-cpp';
import { java } from '@codemirror/lang-java';
import { rust } from '@codemirror/lang-rust';
import { go } from '@codemirror/lang-go';

const LANGUAGES = {
  python: () => python(),
  javascript: () => javascript(),
  typescript: () => javascript({ typescript: true }),
  tsx: () => javascript({ typescript: true, jsx: true }),
  c: () => cpp(),
  cpp: () => cpp(),
  java: () => java(),
  go: () => go(),
  rust: () => rust(),
};

/** Number of unit colours in style.css (.hr-u0 ...) and heat levels (.hr-heat1 ...). */
export const UNIT_COLOURS = 6;
export const HEAT_LEVELS = 9;

/** Heat level (0 .. HEAT_LEVELS) of an attention probability relative to its row maximum: three
 * decades below the maximum map onto the levels. */
export function heatLevel(ratio) {
  return ratio > 0
    ? Math.max(0, Math.min(HEAT_LEVELS, Math.ceil(HEAT_LEVELS * (1 + Math.log10(ratio) / 3))))
    : 0;
}

const setTokens = StateEffect.define();
const setHeat = StateEffect.define();

/** Index of the first token that ends after pos (tokens are sorted and do not overlap). */
function firstTokenAfter(tokens, pos) {
  let lo = 0;
  let hi = tokens.count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens.end[mid] <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Token marks (unit colour, alternate shading) and heat marks for the visible ranges only: the
 * work per keystroke and per new analysis is proportional to what is on screen, not to the file.
 * Between an edit and the next analysis the marks are mapped through the edit.
 */
const tokenDecorations = ViewPlugin.fromClass(
  class {
    constructor() {
      this.tokens = null;
      this.heat = null;
      this.decorations = Decoration.none;
    }

    update(update) {
      let rebuild = update.viewportChanged;
      for (const tr of update.transactions) {
        for (const e of tr.effects) {
          if (e.is(setTokens)) {
            this.tokens = e.value;
            this.heat = null;
            rebuild = true;
          } else if (e.is(setHeat)) {
            this.heat = e.value;
            rebuild = true;
          }
        }
      }
      // Offsets of an analysis of older text would mark the wrong characters: keep mapping the
      // old marks until the analysis of this text arrives.
      if (rebuild && (!this.tokens || this.tokens.length === update.state.doc.length))
        this.decorations = this.build(update.view);
      else if (update.docChanged) this.decorations = this.decorations.map(update.changes);
    }

    build(view) {
      const tokens = this.tokens;
      if (!tokens) return Decoration.none;
      const builder = new RangeSetBuilder();
      const length = view.state.doc.length;
      const heat = this.heat;
      for (const { from: visibleFrom, to: visibleTo } of view.visibleRanges) {
        for (
          let t = firstTokenAfter(tokens, visibleFrom);
          t < tokens.count && tokens.start[t] < visibleTo;
          t++
        ) {
          const from = Math.min(tokens.start[t], length);
          const to = Math.min(tokens.end[t], length);
          if (to <= from) continue;
          let cls = `hr-tok hr-u${tokens.unit[t] % UNIT_COLOURS}${t % 2 ? ' hr-odd' : ''}`;
          if (heat) {
            if (t === heat.query) cls += ' hr-query';
            else if (t < heat.levels.length && heat.levels[t] > 0)
              cls += ` hr-heat${heat.levels[t]}`;
          }
          builder.add(from, to, Decoration.mark({ class: cls }));
        }
      }
      return builder.finish();
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/** Index of the token covering UTF-16 offset pos, or -1. */
export function tokenAt(tokens, pos) {
  const t = firstTokenAfter(tokens, pos);
  return t < tokens.count && tokens.start[t] <= pos ? t : -1;
}

/**
 * Creates the editor. options: { parent, doc, language, onChange(text), describeToken(index) ->
 * [label, value][] } .
 */
export function createEditor({ parent, doc, language, onChange, onSelect, describeToken, label }) {
  const languageSlot = new Compartment();
  let tokens = null;
  const tooltip = hoverTooltip((_view, pos, side) => {
    if (!tokens) return null;
    let index = tokenAt(tokens, pos);
    if (index < 0 && side < 0) index = tokenAt(tokens, pos - 1);
    if (index < 0) return null;
    return {
      pos: tokens.start[index],
      end: tokens.end[index],
      above: true,
      create() {
        const dom = document.createElement('dl');
        dom.className = 'hr-card';
        for (const [name, value] of describeToken(index)) {
          const dt = document.createElement('dt');
          dt.textContent = name;
          const dd = document.createElement('dd');
          dd.textContent = value; // code is only ever rendered as text
          dom.append(dt, dd);
        }
        return { dom };
      },
    };
  });
  // CodeMirror injects its base styles with a <style> element in a document, which the page's
  // CSP forbids; in a shadow root it uses a constructed (adopted) style sheet, which CSP allows.
  const shadow = parent.attachShadow({ mode: 'open' });
  const sheet = document.createElement('link');
  sheet.rel = 'stylesheet';
  sheet.href = new URL('style.css', document.baseURI).href;
  const container = document.createElement('div');
  container.className = 'editor-root';
  shadow.append(sheet, container);
  const view = new EditorView({
    parent: container,
    root: shadow,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(classHighlighter),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        languageSlot.of(LANGUAGES[language]?.() ?? []),
        tokenDecorations,
        tooltip,
        EditorView.contentAttributes.of({ 'aria-label': label || 'Source code' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString(), update);
          else if (update.selectionSet && onSelect) onSelect(update.state.selection.main.head);
        }),
      ],
    }),
  });
  return {
    view,
    get text() {
      return view.state.doc.toString();
    },
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setLanguage(name) {
      view.dispatch({ effects: languageSlot.reconfigure(LANGUAGES[name]?.() ?? []) });
    },
    /** Selects [from, to) and scrolls it into view (the outline's unit click). */
    selectRange(from, to) {
      const length = view.state.doc.length;
      view.dispatch({
        selection: { anchor: Math.min(from, length), head: Math.min(to, length) },
        effects: EditorView.scrollIntoView(Math.min(from, length), { y: 'start', yMargin: 24 }),
      });
    },
    /** tokens: { count, start, end, unit, length } for the text of that length (UTF-16 units). */
    setTokens(value) {
      tokens = value;
      view.dispatch({ effects: setTokens.of(value) });
    },
    /** Highlight intensity per token (levels 0 .. HEAT_LEVELS) and the query token; null clears. */
    setHeat(heat) {
      view.dispatch({ effects: setHeat.of(heat && tokens ? heat : null) });
      if (heat && tokens && heat.query >= 0) {
        // Only the editor's own scroller moves: EditorView.scrollIntoView would scroll the page
        // too, and on a phone (the editor above the maps) take a tapped map off the screen.
        const block = view.lineBlockAt(Math.min(tokens.start[heat.query], view.state.doc.length));
        const scroller = view.scrollDOM;
        scroller.scrollTop = Math.max(
          0,
          block.top + view.documentPadding.top + block.height / 2 - scroller.clientHeight / 2,
        );
      }
    },
  };
}
