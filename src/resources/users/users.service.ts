import { unixSeconds } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';
import { deleteUserRow, findUser, insertUser, listUserRows, updateUserRow, type UserFields, type UserRow } from './users.repo.js';
import { toUserResource, type User, type UserCreateParams, type UserUpdateParams } from './users.mapper.js';

export async function createUser(ctx: RequestContext, params: UserCreateParams): Promise<User> {
  const row = await insertUser(ctx.db, {
    id: newId('user'),
    account_id: ctx.accountId,
    ...replacementFields(params),
    created: unixSeconds(ctx.clock),
  });
  const user = toUserResource(row);
  await recordEvent(ctx, 'user.created', user);
  return user;
}

/** Loads a user of this account, or throws 404 (another account's id included). */
export async function requireUser(ctx: RequestContext, id: string): Promise<UserRow> {
  const row = await findUser(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('user', id);
  return row;
}

export async function retrieveUser(ctx: RequestContext, id: string): Promise<User> {
  return toUserResource(await requireUser(ctx, id));
}

export function replaceUser(ctx: RequestContext, id: string, params: UserCreateParams): Promise<User> {
  return writeUpdate(ctx, id, () => replacementFields(params));
}

export function updateUser(ctx: RequestContext, id: string, params: UserUpdateParams): Promise<User> {
  const { email, name, metadata, ...unread } = params;
  allParamsRead(unread);
  return writeUpdate(ctx, id, (current) => ({
    email: email ?? current.email,
    name: name === undefined ? current.name : name,
    metadata: updatedMetadata(current.metadata, metadata),
  }));
}

export async function deleteUser(ctx: RequestContext, id: string) {
  const existing = await requireUser(ctx, id);
  if (!(await deleteUserRow(ctx.db, ctx.accountId, id))) throw notFound('user', id);
  await recordEvent(ctx, 'user.deleted', toUserResource(existing));
  return { id, object: 'user' as const, deleted: true as const };
}

export async function listUsers(ctx: RequestContext, query: PageParams) {
  return listOf('/v1/users', await readMayLag(ctx, (db) => listUserRows(db, ctx.accountId, query)), toUserResource);
}

function replacementFields(params: UserCreateParams): UserFields {
  const { email, name, metadata, ...unread } = params;
  allParamsRead(unread);
  return { email, name: name ?? null, metadata: initialMetadata(metadata) };
}

async function writeUpdate(ctx: RequestContext, id: string, fieldsFrom: (current: UserRow) => UserFields): Promise<User> {
  const current = await requireUser(ctx, id);
  const updated = await updateUserRow(ctx.db, ctx.accountId, id, fieldsFrom(current));
  if (!updated) throw notFound('user', id);
  const after = toUserResource(updated);
  const changed = previousAttributes(toUserResource(current), after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'user.updated', after, changed);
  return after;
}
