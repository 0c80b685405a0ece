import { expect } from 'chai';

/**
 * An answer with the `client_secret` of the payment intent (or of each intent of a list page)
 * left out, after checking it is the intent's own: so that it compares with the same intent in
 * events, error bodies and expansions, which carry none (test/api/client-secrets.test.ts covers
 * where it is).
 */
export function withoutClientSecret(body: any): any {
  const strip = (object: any) => {
    if (object?.object !== 'payment_intent') return object;
    expect(object.client_secret).to.match(new RegExp(`^${object.id}_secret_`));
    const { client_secret: _secret, ...rest } = object;
    return rest;
  };
  return body?.object === 'list' ? { ...body, data: body.data.map(strip) } : strip(body);
}
