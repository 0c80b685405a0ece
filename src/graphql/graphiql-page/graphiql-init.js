/* global window, document, fetch, setTimeout, clearTimeout, React, ReactDOM, GraphiQL, graphqlWs */
/*
 * GraphiQL at GET /graphql. A file of its own rather than an inline script, so that the page runs
 * under helmet's Content-Security-Policy (script-src 'self'). The UMD builds loaded before it
 * define the globals React, ReactDOM, GraphiQL and graphqlWs.
 *
 * Queries and mutations are POSTed to /graphql; subscriptions go over graphql-ws to the same path.
 * Both carry the headers typed in GraphiQL's headers editor: as HTTP headers, and as the WebSocket's
 * `connection_init` payload, where the server looks for `Authorization`.
 */

const ENDPOINT = '/graphql';

/** What the headers editor holds until someone puts their key in; recognised so it is never sent. */
const KEY_TEMPLATE = 'Bearer sk_test_…';

const DEFAULT_HEADERS = JSON.stringify({ Authorization: KEY_TEMPLATE }, null, 2);

const DEFAULT_QUERY = `# payments-api over GraphQL: the same accounts,
# objects and errors as the REST API.
#
# Every request needs an API key: put yours in the
# Headers tab below, in place of sk_test_…
# The dev account's key is printed at the server's
# first start and saved in data/dev-api-key
# (cat data/dev-api-key). This browser keeps the
# headers, so you type the key only once.
#
# Run with Ctrl-Enter (Cmd-Enter on a Mac).
# Subscriptions stream over a WebSocket with the
# same headers until you press stop, e.g.
#   subscription { events { id type } }

{
  charges(first: 5) {
    edges {
      node {
        id
        amount
        currency
        state
        customer {
          email
        }
      }
    }
  }
}
`;

/** How long the headers editor must be still before a changed key re-reads the schema. */
const REINTROSPECT_DELAY_MS = 500;

/**
 * The `Authorization` value of the headers editor's text: a string, null when there is none, or
 * undefined while the text is not a JSON object (someone is typing).
 */
function authorizationOf(headersText) {
  let headers;
  try {
    headers = JSON.parse(headersText || '{}');
  } catch {
    return undefined;
  }
  if (headers === null || typeof headers !== 'object') return undefined;
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'authorization');
  return name === undefined ? null : String(headers[name]);
}

/** A result for GraphiQL to show instead of sending the key template, which the server would refuse. */
function keyTemplateResult() {
  return {
    errors: [
      {
        message:
          'Put your API key in the Headers tab in place of sk_test_… ' +
          '(the dev key is printed at the first start and saved in data/dev-api-key).',
      },
    ],
  };
}

/**
 * Whether the operation about to run is a subscription. Decided from the text being sent, parsed
 * with the graphql-js that GraphiQL bundles: GraphiQL's own parse of the editor lags edits by 100 ms.
 * A document that does not parse goes by POST, so that the server reports the syntax error.
 */
function isSubscription(params) {
  let document;
  try {
    document = GraphiQL.GraphQL.parse(params.query);
  } catch {
    return false;
  }
  const operation = GraphiQL.GraphQL.getOperationAST(document, params.operationName);
  return operation !== null && operation.operation === 'subscription';
}

/** Runs a query or mutation by POST; a body that is not JSON becomes an error GraphiQL can show. */
async function post(params, headers) {
  const response = await fetch(ENDPOINT, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
      ...headers,
    },
    body: JSON.stringify(params),
  });
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return { errors: [{ message: `HTTP ${response.status}: ${text}` }] };
  }
}

/** ws:// or wss:// to this page's host, so the page works wherever the server is reached. */
function webSocketUrl() {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${ENDPOINT}`;
}

/** graphql-ws reports a closed socket as a CloseEvent; GraphiQL shows an Error's message. */
function describeSocketError(error) {
  if (error && typeof error === 'object' && 'code' in error && 'reason' in error) {
    return new Error(`The WebSocket closed: ${error.code} ${error.reason || ''}`.trim());
  }
  return error;
}

/**
 * Runs a subscription as an observable (GraphiQL shows each result as it comes and its stop button
 * unsubscribes). Each subscription has its own connection, authenticated by these headers, and
 * closes it when it ends: a changed key is always the one used, and nothing is left open.
 * No reconnection: events sent while a socket was down would be missed without a sign.
 */
function subscribe(params, headers) {
  return {
    subscribe(observer) {
      const client = graphqlWs.createClient({
        url: webSocketUrl(),
        connectionParams: headers,
        retryAttempts: 0,
      });
      const unsubscribe = client.subscribe(params, {
        next: (result) => observer.next(result),
        error: (error) => {
          observer.error(describeSocketError(error));
          client.dispose();
        },
        complete: () => {
          observer.complete();
          client.dispose();
        },
      });
      return {
        unsubscribe() {
          unsubscribe();
          client.dispose();
        },
      };
    },
  };
}

/**
 * A GraphiQL fetcher. It remembers the `Authorization` its last schema introspection was sent with,
 * so that the page can tell when a new key deserves a fresh schema.
 */
function createFetcher() {
  const fetcher = (params, options) => {
    const headers = (options && options.headers) || {};
    const authorization = authorizationOf(JSON.stringify(headers));
    if (params.operationName === 'IntrospectionQuery') fetcher.introspectedWith = authorization;
    if (authorization === KEY_TEMPLATE) return Promise.resolve(keyTemplateResult());
    return isSubscription(params) ? subscribe(params, headers) : post(params, headers);
  };
  fetcher.introspectedWith = undefined;
  return fetcher;
}

/**
 * GraphiQL with the key template, a working first query and headers kept in localStorage. GraphiQL
 * reads the schema only when its fetcher changes, so a new fetcher is made once a changed key has
 * been still for a moment: the docs and autocompletion then follow the key just typed.
 */
function GraphiQLPage() {
  const [fetcher, setFetcher] = React.useState(createFetcher);
  const currentFetcher = React.useRef(fetcher);
  currentFetcher.current = fetcher;
  const pendingReintrospection = React.useRef(undefined);
  const onEditHeaders = React.useCallback((headersText) => {
    clearTimeout(pendingReintrospection.current);
    pendingReintrospection.current = setTimeout(() => {
      const authorization = authorizationOf(headersText);
      // Other edits (a new header, a half-typed key) are not worth reading the schema again.
      if (authorization === undefined || authorization === currentFetcher.current.introspectedWith)
        return;
      setFetcher(() => createFetcher());
    }, REINTROSPECT_DELAY_MS);
  }, []);
  return React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultHeaders: DEFAULT_HEADERS,
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
    onEditHeaders,
  });
}

ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQLPage));
