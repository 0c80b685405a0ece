/*
 * "Newer" and "Older" over a list the API returns newest first. The API's cursors are object ids:
 * `starting_after` the last row shown gives the next older page, `ending_before` the first row
 * shown gives the next newer one, and `has_more` says whether more lie in the direction asked.
 */
import { h } from './dom.js';

/**
 * `fetchPage(cursor)` fetches one page for a cursor (`{}`, `{starting_after}` or `{ending_before}`),
 * `showPage(list)` shows it, `report(error)` says why fetching failed. Only the page asked for last
 * is shown: an answer overtaken by a later request (a filter changed meanwhile) is dropped.
 */
export function createPager({ fetchPage, showPage, report }) {
  let cursor = {};
  let latestRequest = 0;
  let firstId;
  let lastId;
  const newer = h('button', { type: 'button', class: 'newer', disabled: true }, '← Newer');
  const older = h('button', { type: 'button', class: 'older', disabled: true }, 'Older →');
  // Shown only when there is another page to go to: a list that fits on one page has no pager.
  const element = h('div', { class: 'pager', hidden: true }, newer, older);
  const settle = () => {
    element.hidden = newer.disabled && older.disabled;
  };
  // Past the newest rows there is nothing: an empty page (rows deleted meanwhile) starts over.
  newer.addEventListener('click', () => go(firstId ? { ending_before: firstId } : {}));
  older.addEventListener('click', () => go({ starting_after: lastId }));

  async function go(target) {
    const request = ++latestRequest;
    const before = [newer.disabled, older.disabled];
    newer.disabled = older.disabled = true;
    let list;
    try {
      list = await fetchPage(target);
    } catch (error) {
      if (request !== latestRequest) return;
      [newer.disabled, older.disabled] = before;
      settle();
      report(error);
      return;
    }
    if (request !== latestRequest) return;
    showPage(list);
    cursor = target;
    firstId = list.data.length > 0 ? list.data[0].id : undefined;
    lastId = list.data.length > 0 ? list.data[list.data.length - 1].id : undefined;
    const goingNewer = 'ending_before' in target;
    const goingOlder = 'starting_after' in target;
    // Having moved one way, the pages we came from lie the other way.
    newer.disabled = goingNewer ? !list.has_more : !goingOlder;
    older.disabled = goingOlder ? !list.has_more || !lastId : goingNewer ? !lastId : !list.has_more;
    settle();
  }

  return {
    element,
    /** Shows the newest page (on opening, or after a filter changed). */
    first: () => go({}),
    /** Shows the current page again (after a retry or a replay changed rows). */
    reload: () => go(cursor),
  };
}
