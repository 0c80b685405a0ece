/*
 * Deliveries name their event and endpoint by id; the tables show the event's type and the
 * endpoint's URL. Each is fetched once per key: events never change, and an endpoint's URL
 * rarely does (a reload shows a new one).
 */
import { api } from './api.js';

const cache = new Map();

function lookup(path) {
  let pending = cache.get(path);
  if (!pending) {
    pending = api('GET', path);
    // A failed lookup is not remembered, so the next render tries again.
    pending.catch(() => cache.delete(path));
    cache.set(path, pending);
  }
  return pending;
}

/** The event with this id (a promise). */
export function eventById(id) {
  return lookup(`/v1/events/${encodeURIComponent(id)}`);
}

/** The webhook endpoint with this id (a promise). */
export function endpointById(id) {
  return lookup(`/v1/webhook_endpoints/${encodeURIComponent(id)}`);
}

/** Forgets everything fetched, e.g. when another key (another account) is entered. */
export function clearLookups() {
  cache.clear();
}
