/* global document, Node */
/*
 * Building DOM without markup: every piece of data becomes a text node, never HTML, so nothing an
 * event payload or a webhook receiver sent can become markup or script on this page.
 */

/**
 * An element: `h('td', { class: 'num', dataset: { id } }, 'text', otherNode)`. Attributes named
 * `on<event>` are listeners; strings and numbers among the children become text nodes; null,
 * undefined and false children are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's content. */
export function replaceChildren(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A unix time (seconds) as `YYYY-MM-DD HH:MM:SS` in the browser's time zone; '—' for null. */
export function formatSeconds(seconds) {
  return seconds === null || seconds === undefined ? '—' : formatDate(new Date(seconds * 1000));
}

/** A unix time in milliseconds, as formatSeconds does. */
export function formatMillis(millis) {
  return formatDate(new Date(millis));
}

function formatDate(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A status word styled by its value (`failed`, `succeeded`, `pending`, …). */
export function badge(status) {
  return h('span', { class: `badge badge-${status}` }, status);
}

/** A table with a header row; `rows` are `<tr>` elements. */
export function table(headings, rows, attributes = {}) {
  return h(
    'table',
    attributes,
    h('thead', {}, h('tr', {}, headings.map((heading) => h('th', { scope: 'col' }, heading)))),
    h('tbody', {}, rows),
  );
}


/**
 * Scrolls a panel just opened below a long list to the top of the window and moves the focus to
 * its heading (made focusable), so the person and a screen reader both land on what they opened.
 */
export function bringIntoView(panel) {
  const heading = panel.querySelector('h2, h3') ?? panel;
  heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: true });
  panel.scrollIntoView({ block: 'start' });
}
