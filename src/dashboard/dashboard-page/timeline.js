/*
 * A payment's timeline: the events about a payment intent, its charges and their refunds, oldest
 * first. Each object's events come from GET /v1/events?object_id=…, in the order they were
 * recorded. Merged by `created` alone they would tie wherever events of several objects fall in
 * one second, which is the rule rather than the exception (one request records a charge's event
 * and its intent's together), so such a second is read once more from the account's own list of
 * events, which is in recorded order, and that order decides.
 */
import { listAll } from './api.js';

/** `types[]` takes at most 20 types; a second with more tied types is read unfiltered. */
const MAX_TYPES = 20;

/**
 * The events about the objects with these ids, oldest first. Resolves with `{ events, complete }`;
 * `complete` is false when an object had more events than the page reads (the oldest are missing).
 */
export async function timelineOf(objectIds) {
  const lists = await Promise.all(objectIds.map((id) => listAll('/v1/events', { object_id: id })));
  const events = new Map();
  /** An event's place among the events of its second: its object's order, or the account's for a tie. */
  const rank = new Map();
  for (const list of lists) {
    list.data.toReversed().forEach((event, index) => {
      events.set(event.id, event);
      rank.set(event.id, index);
    });
  }
  const ties = [...bySecond(events.values())].filter(([, tied]) => new Set(tied.map(objectIdOf)).size > 1);
  const orders = await Promise.all(ties.map(([second, tied]) => recordedOrder(second, tied)));
  for (const order of orders) order.forEach((id, index) => rank.set(id, index));
  const timeline = [...events.values()].sort((a, b) => a.created - b.created || rank.get(a.id) - rank.get(b.id));
  return { events: timeline, complete: lists.every((list) => list.complete) };
}

function objectIdOf(event) {
  return event.data.object.id;
}

/** The events grouped by their `created` second. */
function bySecond(events) {
  const seconds = new Map();
  for (const event of events) {
    const group = seconds.get(event.created);
    if (group) group.push(event);
    else seconds.set(event.created, [event]);
  }
  return seconds;
}

/**
 * The ids of `tied` (events of one second) in the order they were recorded, oldest first, read
 * from the account's events of that second and of their types. An event not found there (in a
 * second with more of them than listAll reads) keeps its rank within its object, and may then be
 * misplaced within that second.
 */
async function recordedOrder(second, tied) {
  const wanted = new Set(tied.map((event) => event.id));
  const types = [...new Set(tied.map((event) => event.type))];
  const { data } = await listAll('/v1/events', { created: second, types: types.length <= MAX_TYPES ? types : undefined });
  return data
    .map((event) => event.id)
    .filter((id) => wanted.has(id))
    .reverse();
}
