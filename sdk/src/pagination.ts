import { PaymentsError } from './errors.js';
import type { HTTPStatusCodes } from './generated/payments.js';

/** The 200 answer of a list operation: a page of objects, each with an `id` (the next cursor). */
export interface ListAnswer {
  status: 200;
  data: { data: ReadonlyArray<{ id: string }>; has_more: boolean };
}

/** Any other answer of a list operation (an error envelope, which `autoPaginate` throws). */
export interface OtherAnswer {
  status: Exclude<HTTPStatusCodes, 200>;
  data: unknown;
}

/**
 * What `autoPaginate` needs of a list call: a page for the given `starting_after`. Its answer is
 * the operation's own union, so that the item type is read from its 200 member.
 */
export type PageFetcher<R extends ListAnswer | OtherAnswer = ListAnswer | OtherAnswer> = (
  startingAfter: string | undefined,
) => Promise<R>;

/** The objects a list operation's 200 answer holds: `Charge` for `listCharges`. */
export type PageItem<R> = R extends { status: 200; data: { data: ReadonlyArray<infer T> } } ? T : never;

/**
 * Iterates over every object of a list, newest first, fetching pages as needed. The item type
 * comes from the list operation (`Charge` below); a call that is not a list is a compile error.
 *
 * ```ts
 * for await (const charge of autoPaginate((after) => payments.listCharges({ limit: 100, starting_after: after }))) { … }
 * ```
 *
 * @throws {PaymentsError} when a page is answered with anything but 200 (the subclass of its error's type).
 */
export async function* autoPaginate<R extends ListAnswer | OtherAnswer>(
  fetchPage: PageFetcher<R>,
): AsyncGenerator<PageItem<R>, void, undefined> {
  let startingAfter: string | undefined;
  for (;;) {
    const response: ListAnswer | OtherAnswer = await fetchPage(startingAfter);
    if (response.status !== 200) throw PaymentsError.from(response.status, response.data);
    const page = response.data;
    // PageItem<R> is exactly the element type of R's 200 member, which `response` was narrowed to.
    yield* page.data as ReadonlyArray<PageItem<R>>;
    if (!page.has_more || page.data.length === 0) return;
    startingAfter = page.data[page.data.length - 1].id;
  }
}
