/** The list envelope every list operation answers with. */
interface ListPage<T> {
  data: T[];
  has_more: boolean;
}

/** What `autoPaginate` needs of a list call: a page for the given `starting_after`. */
export type PageFetcher = (startingAfter: string | undefined) => Promise<{ status: number; data: unknown }>;

/**
 * Iterates over every object of a list, newest first, fetching pages as needed.
 *
 * ```ts
 * for await (const charge of autoPaginate((after) => payments.listCharges({ limit: 100, starting_after: after }))) { … }
 * ```
 */
export async function* autoPaginate<T extends { id: string }>(fetchPage: PageFetcher): AsyncGenerator<T> {
  let startingAfter: string | undefined;
  for (;;) {
    const response = await fetchPage(startingAfter);
    if (response.status !== 200) throw new PaymentsError(response.status, response.data);
    const page = response.data as ListPage<T>;
    yield* page.data;
    if (!page.has_more || page.data.length === 0) return;
    startingAfter = page.data[page.data.length - 1].id;
  }
}

/** A non-2xx answer, with the API's error envelope. */
export class PaymentsError extends Error {
  readonly status: number;
  readonly type?: string;
  readonly code?: string;
  readonly param?: string;
  readonly requestId?: string;

  constructor(status: number, body: unknown) {
    const error = (body as { error?: Record<string, string> } | undefined)?.error ?? {};
    super(error.message ?? `Request failed with status ${status}`);
    this.name = 'PaymentsError';
    this.status = status;
    this.type = error.type;
    this.code = error.code;
    this.param = error.param;
    this.requestId = error.request_id;
  }
}
