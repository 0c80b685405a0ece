/**
 * What a process learns when another one commits an event: enough to decide whether anyone here
 * wants it (account, type) and to fetch it (id). The body stays in the table: a Postgres
 * notification payload is limited to 8,000 bytes, and this one is about a hundred.
 */
export interface EventNotice {
  accountId: string;
  eventId: string;
  type: string;
}

/** The payload: a JSON array, short and unambiguous whatever characters the fields hold. */
export function encodeEventNotice(notice: EventNotice): string {
  return JSON.stringify([notice.accountId, notice.eventId, notice.type]);
}

/** The notice in a payload, or `null` for a payload this version does not understand. */
export function decodeEventNotice(payload: string | undefined): EventNotice | null {
  try {
    const value: unknown = JSON.parse(payload ?? '');
    if (!Array.isArray(value) || value.length !== 3 || !value.every((part) => typeof part === 'string')) return null;
    const [accountId, eventId, type] = value as string[];
    return { accountId, eventId, type };
  } catch {
    return null;
  }
}
