import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface WebhookEndpointRow {
  seq: number;
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types, or `["*"]`. */
  enabled_events: string;
  status: 'enabled' | 'disabled';
  metadata: string;
  /** JSON array of the other names its signature header is sent under; null: the server's default. */
  signature_header_aliases: string | null;
  /** Sealed, as `previous_secret` (shared/sealed-secrets.ts). */
  secret: string;
  previous_secret: string | null;
  /** Unix milliseconds after which `previous_secret` no longer signs. */
  previous_secret_expires_at: number | null;
  failing_since?: number | null;
  /** The API version named at creation, as given; null when none was. */
  api_version: string | null;
  created: number;
}

export type WebhookEndpointFields = Pick<
  WebhookEndpointRow,
  'url' | 'description' | 'enabled_events' | 'status' | 'metadata' | 'signature_header_aliases'
>;

export async function insertWebhookEndpoint(db: Queryable, row: Omit<WebhookEndpointRow, 'seq'>): Promise<WebhookEndpointRow> {
  const [inserted] = await db.all<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (id, account_id, url, description, enabled_events, status, metadata,
       signature_header_aliases, secret, previous_secret, previous_secret_expires_at, api_version, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [
      row.id, row.account_id, row.url, row.description, row.enabled_events, row.status, row.metadata,
      row.signature_header_aliases, row.secret, row.previous_secret, row.previous_secret_expires_at, row.api_version,
      row.created,
    ],
  );
  return inserted;
}

export function findWebhookEndpoint(db: Queryable, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.one<WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE account_id = ? AND id = ?', [accountId, id]);
}

export function updateWebhookEndpointRow(
  db: Queryable,
  accountId: string,
  id: string,
  fields: WebhookEndpointFields,
): Promise<WebhookEndpointRow | undefined> {
  return db.one<WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET url = ?, description = ?, enabled_events = ?, status = ?, metadata = ?,
       signature_header_aliases = ?
     WHERE account_id = ? AND id = ? RETURNING *`,
    [
      fields.url, fields.description, fields.enabled_events, fields.status, fields.metadata,
      fields.signature_header_aliases, accountId, id,
    ],
  );
}

export function rotateSecretRow(
  db: Queryable,
  accountId: string,
  id: string,
  secrets: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
): Promise<WebhookEndpointRow | undefined> {
  return db.one<WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_secret_expires_at = ?
     WHERE account_id = ? AND id = ? RETURNING *`,
    [secrets.secret, secrets.previous_secret, secrets.previous_secret_expires_at, accountId, id],
  );
}

export async function deleteWebhookEndpointRow(db: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?', [accountId, id])) === 1;
}

export function listWebhookEndpointRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<WebhookEndpointRow>(db, { table: 'webhook_endpoints', accountId }, page);
}
