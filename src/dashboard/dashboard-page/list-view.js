/*
 * What the three views share: a table of one page of a list endpoint, with Newer/Older.
 */
import { h, replaceChildren, table } from './dom.js';
import { createPager } from './pager.js';

/** Rows per page: a screenful. */
export const PAGE_SIZE = 20;

/**
 * A paged table. `fetchPage(cursor)` resolves with the API's list for the cursor; `row(item)`
 * makes a `<tr>`; `empty` is shown for an empty page. Returns the element and the pager's
 * `first()` and `reload()`.
 */
export function pagedTable({ headings, fetchPage, row, empty, view, className }) {
  const holder = h('div', { class: 'table-holder' }, h('p', { class: 'loading' }, 'Loading…'));
  const pager = createPager({
    fetchPage,
    showPage: (list) =>
      replaceChildren(
        holder,
        list.data.length === 0 ? h('p', { class: 'empty' }, empty) : table(headings, list.data.map(row), { class: className }),
      ),
    report: view.report,
  });
  return { element: h('div', { class: 'paged' }, holder, pager.element), first: pager.first, reload: pager.reload };
}
