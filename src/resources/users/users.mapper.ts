import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { UserRow } from './users.repo.js';

export type User = components['schemas']['User'];
export type UserCreateParams = components['schemas']['UserCreateParams'];
export type UserUpdateParams = components['schemas']['UserUpdateParams'];

export function toUserResource(row: UserRow): User {
  return {
    id: row.id,
    object: 'user',
    created: row.created,
    livemode: false,
    email: row.email,
    name: row.name,
    metadata: parseMetadata(row.metadata),
  };
}
