/** A GraphQL response as the tests read it. */
export interface GraphQLResult {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, any> | null;
    errors?: Array<{ message: string; path?: string[]; extensions?: Record<string, any> }>;
  };
}

/** POSTs a GraphQL request to `<url>/graphql` with an API key, as any GraphQL client would. */
export async function graphql(
  url: string,
  apiKey: string | undefined,
  query: string | undefined,
  variables?: Record<string, unknown>,
  options: { headers?: Record<string, string>; extensions?: Record<string, unknown>; documentId?: string } = {},
): Promise<GraphQLResult> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/graphql-response+json, application/json',
    ...options.headers,
  };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables, extensions: options.extensions, documentId: options.documentId }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

/** The first error's code, for short assertions. */
export function firstErrorCode(result: GraphQLResult): string | undefined {
  return result.body.errors?.[0]?.extensions?.code;
}
