import { expect } from 'chai';
import type { ApiClient } from './api-client.js';

/** Creates a customer through the API and returns it. */
export async function aCustomer(api: ApiClient, params: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/v1/customers', { email: 'jenny@example.com', name: 'Jenny Rosen', ...params });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Creates a charge through the API (200 or 402) and returns the body. */
export async function aCharge(api: ApiClient, params: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa', ...params });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Creates a user through the API and returns it. */
export async function aUser(api: ApiClient, params: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/v1/users', { email: 'ada@example.com', name: 'Ada', ...params });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** Asserts the error envelope (docs/conventions.md#errors) and returns its `error` object. */
export function expectError(
  res: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
  param?: string,
): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  const error = res.body.error;
  expect(error.code).to.equal(code);
  expect(error.request_id).to.equal(res.headers.get('request-id'));
  if (param !== undefined) expect(error.param).to.equal(param);
  return error;
}
