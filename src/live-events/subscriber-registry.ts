import { toEventResource } from '../resources/events/events.mapper.js';
import type { EventRow } from '../resources/events/events.repo.js';
import { EventSubscription } from './event-subscription.js';

/**
 * The subscribers of one process, by account, and the fan-out of committed event rows to them.
 * Both stream implementations share it; they differ only in how they learn of new rows.
 */
export class SubscriberRegistry {
  private readonly byAccount = new Map<string, Set<EventSubscription>>();
  private count = 0;

  /**
   * @param bufferLimit how many undelivered events one subscriber may have before it is dropped
   * @param onEmpty called when the last subscriber leaves (the SQLite poller then stops)
   */
  constructor(
    private readonly bufferLimit: number,
    private readonly onEmpty: () => void = () => undefined,
  ) {}

  /** How many subscriptions are open in this process. */
  get size(): number {
    return this.count;
  }

  /** A new subscription of this account to these types (every type when null or empty). */
  add(accountId: string, types: readonly string[] | null): EventSubscription {
    const wanted = types && types.length > 0 ? new Set(types) : null;
    const subscription = new EventSubscription(accountId, wanted, this.bufferLimit, (s) => this.remove(s));
    let subscribers = this.byAccount.get(accountId);
    if (!subscribers) this.byAccount.set(accountId, (subscribers = new Set()));
    subscribers.add(subscription);
    this.count++;
    return subscription;
  }

  /** Whether anyone here wants events of this account and type (so whether fetching one is worth it). */
  wants(accountId: string, type: string): boolean {
    for (const subscription of this.byAccount.get(accountId) ?? []) if (subscription.wants(type)) return true;
    return false;
  }

  /** The accounts that have at least one subscriber here. */
  accountIds(): string[] {
    return [...this.byAccount.keys()];
  }

  /**
   * Hands each row to the subscribers of its account that want its type and that it is not older
   * than (by `position`, in the stream's own order), in the order given, which is commit order.
   * A row is parsed once, whoever receives it.
   */
  deliver(entries: ReadonlyArray<{ row: EventRow; position: number }>): void {
    for (const { row, position } of entries) {
      const subscribers = this.byAccount.get(row.account_id);
      if (!subscribers) continue;
      let event: ReturnType<typeof toEventResource> | undefined;
      // A copy: a subscriber dropped for being slow leaves the set while we walk it.
      for (const subscription of [...subscribers]) {
        if (!subscription.wants(row.type) || position <= subscription.startAfter) continue;
        event ??= toEventResource(row);
        subscription.push(event);
      }
    }
  }

  /** Every open subscription. */
  all(): EventSubscription[] {
    return [...this.byAccount.values()].flatMap((subscribers) => [...subscribers]);
  }

  /** Ends every subscription (they complete normally). */
  endAll(): void {
    for (const subscription of this.all()) subscription.end();
  }

  private remove(subscription: EventSubscription): void {
    const subscribers = this.byAccount.get(subscription.accountId);
    if (!subscribers?.delete(subscription)) return;
    if (subscribers.size === 0) this.byAccount.delete(subscription.accountId);
    if (--this.count === 0) this.onEmpty();
  }
}
