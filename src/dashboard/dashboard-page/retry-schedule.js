/* global document */
/*
 * How this server retries a failed webhook delivery, in words with its figures. The schedule is
 * the server's `WEBHOOK_RETRY_SCHEDULE`, which the page carries in
 * `<meta name="webhook-retry-schedule">` (delays in seconds, comma-separated), so what is said is
 * what the server was started with, not the default.
 */
import { h } from './dom.js';

/** The delays between attempts, in seconds, as the server was configured. */
export function configuredRetrySchedule() {
  const meta = document.querySelector('meta[name="webhook-retry-schedule"]');
  const text = meta ? meta.content.trim() : '';
  return text === '' ? [] : text.split(',').map(Number);
}

/** A paragraph on when a failed delivery shows in this view, and where the schedule is changed. */
export function retryScheduleNote(delays = configuredRetrySchedule()) {
  const setting = h('code', {}, 'WEBHOOK_RETRY_SCHEDULE');
  if (delays.length === 0) {
    return h('p', { class: 'hint retry-schedule' },
      'This server does not try a failed delivery again: it shows here as soon as its first attempt fails. ',
      'The retries are set by ', setting, ' (delays in seconds, comma-separated) in the server\'s environment.');
  }
  const total = delays.reduce((sum, delay) => sum + delay, 0);
  const times = delays.length === 1 ? 'once' : `${delays.length} times`;
  return h('p', { class: 'hint retry-schedule' },
    `A delivery that fails is tried again ${times}, after ${listed(delays.map(shortDuration))} (each ±20%, `,
    'longer when the receiver asks so with Retry-After), so it shows here only once every attempt has failed: ',
    h('strong', { class: 'retry-span' }, `about ${longDuration(total)}`), ' after its first attempt. ',
    'The schedule is ', setting, ' in the server\'s environment (delays in seconds, comma-separated, here ',
    h('code', { class: 'retry-setting' }, delays.join(',')), '); a shorter one, such as ', h('code', {}, '5,60'),
    ', makes failures show sooner.');
}

const UNITS = [
  { seconds: 86_400, short: 'd', long: 'day' },
  { seconds: 3600, short: 'h', long: 'hour' },
  { seconds: 60, short: 'min', long: 'minute' },
  { seconds: 1, short: 's', long: 'second' },
];

/** The largest unit the duration reaches, with at most one decimal: 0.1 s, 5 min, 1.5 h, 3 d. */
function inUnit(seconds) {
  const unit = UNITS.find((candidate) => seconds >= candidate.seconds) ?? UNITS[UNITS.length - 1];
  return { value: Number((seconds / unit.seconds).toFixed(1)), unit };
}

function shortDuration(seconds) {
  const { value, unit } = inUnit(seconds);
  return `${value} ${unit.short}`;
}

function longDuration(seconds) {
  const { value, unit } = inUnit(seconds);
  return `${value} ${unit.long}${value === 1 ? '' : 's'}`;
}

/** "a, b and c". */
function listed(items) {
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
