import type { Request as GraphQLHttpRequest, RequestParams, Response as GraphQLHttpResponse } from 'graphql-http';
import type { Request as ExpressRequest } from 'express';
import type { Queryable } from '../db/database.js';
import type { ApiError } from '../domain/errors.js';
import { findNul, nulError } from '../domain/nul-guard.js';
import { requestIdOf } from '../edge/request-id.js';
import { apiErrorExtensions } from '../operations/error-extensions.js';
import { resolveDocument } from './persisted-documents.js';

type Params = Omit<RequestParams, 'query'> & { query?: string; documentId?: string };

/** A JSON error response in GraphQL's shape, for failures before execution. */
export function graphQLErrorResponse(
  status: number,
  message: string,
  code: string,
  headers: Record<string, string> = {},
  extensions: Record<string, unknown> = { code },
): GraphQLHttpResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions }] }),
    { status, statusText: '', headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/** A service error refusing the request before execution: its status, and the REST code and `param` in `extensions`. */
export function apiErrorResponse(error: ApiError, requestId: string): GraphQLHttpResponse {
  return graphQLErrorResponse(error.status, error.message, error.code, {}, apiErrorExtensions(error.toBody(requestId)));
}

/**
 * Reads a GraphQL request's parameters as graphql-http does (GET query string, or a JSON POST
 * body), except that the document may be absent when the request names a persisted one
 * (`extensions.persistedQuery`, or `documentId`): it is then looked up in the database. A string
 * holding U+0000 anywhere in the parameters (`variables[input][name]`, `documentId`, …) is a 400
 * `parameter_invalid` naming it, as in REST.
 */
export function createRequestParamsParser(options: { db: Queryable; trustedDocumentsOnly: boolean }) {
  return async (req: GraphQLHttpRequest<ExpressRequest, unknown>): Promise<RequestParams | GraphQLHttpResponse> => {
    const params = readParams(req);
    if (!params.ok) return graphQLErrorResponse(params.status, params.message, 'BAD_REQUEST');
    // Before the persisted-document lookup, the first database work: Postgres refuses U+0000.
    const nul = findNul(params.value);
    if (nul) return apiErrorResponse(nulError(nul), requestIdOf(req.raw.res!));
    const resolved = await resolveDocument(options.db, params.value, { trustedOnly: options.trustedDocumentsOnly });
    if (!resolved.ok) return graphQLErrorResponse(resolved.status, resolved.message, resolved.code, resolved.headers);
    const { documentId: _documentId, ...rest } = params.value;
    return { ...rest, query: resolved.query };
  };
}

type ReadResult = { ok: true; value: Params } | { ok: false; status: number; message: string };

function readParams(req: GraphQLHttpRequest<ExpressRequest, unknown>): ReadResult {
  const raw = req.raw;
  let data: Record<string, unknown>;
  if (raw.method === 'GET') {
    const search = new URLSearchParams(raw.url.split('?')[1] ?? '');
    data = {};
    for (const name of ['query', 'operationName', 'documentId'] as const) {
      const value = search.get(name);
      if (value !== null) data[name] = value;
    }
    for (const name of ['variables', 'extensions'] as const) {
      const value = search.get(name);
      if (value === null) continue;
      try {
        data[name] = JSON.parse(value);
      } catch {
        return { ok: false, status: 400, message: `The ${name} parameter is not valid JSON.` };
      }
    }
  } else if (raw.method === 'POST') {
    if (!raw.is('application/json')) {
      return { ok: false, status: 415, message: 'Send the GraphQL request as application/json.' };
    }
    try {
      data = JSON.parse(typeof raw.body === 'string' ? raw.body : '') as Record<string, unknown>;
    } catch {
      return { ok: false, status: 400, message: 'The request body is not valid JSON.' };
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return { ok: false, status: 400, message: 'The request body must be a JSON object (batching is not supported).' };
    }
  } else {
    return { ok: false, status: 405, message: 'Use GET or POST.' };
  }
  const { query, operationName, variables, extensions, documentId } = data;
  if (query != null && typeof query !== 'string') return { ok: false, status: 400, message: 'query must be a string.' };
  if (documentId != null && typeof documentId !== 'string') {
    return { ok: false, status: 400, message: 'documentId must be a string.' };
  }
  if (operationName != null && typeof operationName !== 'string') {
    return { ok: false, status: 400, message: 'operationName must be a string.' };
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return { ok: false, status: 400, message: 'variables must be an object.' };
  }
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    return { ok: false, status: 400, message: 'extensions must be an object.' };
  }
  const persisted = (extensions as { persistedQuery?: unknown } | null)?.persistedQuery;
  if (query == null && documentId == null && persisted == null) {
    return { ok: false, status: 400, message: 'Missing query: send a GraphQL document in query (or a persisted one).' };
  }
  return {
    ok: true,
    value: {
      query: query ?? undefined,
      documentId: documentId ?? undefined,
      operationName: operationName ?? undefined,
      variables: (variables as Record<string, unknown> | null) ?? undefined,
      extensions: (extensions as Record<string, unknown> | null) ?? undefined,
    },
  };
}
