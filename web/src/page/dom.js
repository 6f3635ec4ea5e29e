// Small DOM helpers shared by the page, its views and the element. Text always goes in through
// textContent, so nothing from the code is ever parsed as HTML.

/** An element with attributes (undefined and false are left out, true is an empty value) and text. */
export function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A colour legend: left label, a gradient bar, right label and an optional note. */
export function legend(gradient, left, right, note) {
  const box = el('div', { class: 'legend' });
  const bar = el('span', { class: 'legend-bar' });
  bar.style.background = gradient; // CSSOM, which the CSP allows
  box.append(el('span', {}, left), bar, el('span', {}, right));
  if (note) box.append(el('span', { class: 'legend-note' }, note));
  return box;
}

/** Saves a blob as a file through a temporary link. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
