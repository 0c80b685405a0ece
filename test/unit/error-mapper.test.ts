import { expect } from 'chai';
import type { Request } from 'express';
import { ApiError } from '../../src/domain/errors.js';
import { toApiError } from '../../src/http/error-mapper.js';

/** The parts of a request the mapper reads. */
function request(fields: Partial<{ method: string; path: string; headers: Record<string, string>; openapi: object; authFailure: object }> = {}): Request {
  return { method: 'GET', path: '/v1/things', headers: {}, ...fields } as unknown as Request;
}

/** A request-validation failure as express-openapi-validator reports it. */
function invalid(path: string, message: string, errorCode?: string) {
  return { status: 400, errors: [{ path, message, errorCode }] };
}

describe('toApiError', () => {
  describe('validation failures name the parameter in form notation', () => {
    it('a body field', () => {
      const error = toApiError(invalid('/body/amount', 'must be integer', 'type.openapi.validation'), request());
      expect(error).to.include({ code: 'parameter_invalid', status: 400, message: 'Invalid amount: must be integer.' });
      expect(error.details.param).to.equal('amount');
    });

    it('a nested field with brackets, unescaping JSON Pointer', () => {
      const nested = toApiError(invalid('/body/metadata/order', 'must be string', 'type.openapi.validation'), request());
      expect(nested.details.param).to.equal('metadata[order]');
      const escaped = toApiError(invalid('/body/metadata/a~1b~0c', 'must be string', 'type.openapi.validation'), request());
      expect(escaped.details.param).to.equal('metadata[a/b~c]');
    });

    it('a missing field', () => {
      const error = toApiError(invalid('/body/amount', "must have required property 'amount'", 'required.openapi.validation'), request());
      expect(error).to.include({ code: 'parameter_missing', message: 'Missing required param: amount.' });
      expect(error.details.param).to.equal('amount');
    });

    it('an unknown body field', () => {
      const error = toApiError(
        invalid('/body/nickname', 'must NOT have additional properties', 'additionalProperties.openapi.validation'),
        request(),
      );
      expect(error).to.include({ code: 'parameter_unknown', message: 'Received unknown parameter: nickname.' });
      expect(error.details.param).to.equal('nickname');
    });

    it('an unknown query parameter', () => {
      const error = toApiError(invalid('/query/foo', "Unknown query parameter 'foo'"), request());
      expect(error.code).to.equal('parameter_unknown');
      expect(error.details.param).to.equal('foo');
    });

    it('a query parameter', () => {
      const error = toApiError(invalid('/query/limit', 'must be >= 1', 'minimum.openapi.validation'), request());
      expect(error.code).to.equal('parameter_invalid');
      expect(error.details.param).to.equal('limit');
    });

    it('a header, in its canonical capitalisation', () => {
      const error = toApiError(invalid('/headers/idempotency-key', 'must NOT have more than 255 characters'), request());
      expect(error.details.param).to.equal('Idempotency-Key');
    });

    it('the whole body, with no param', () => {
      const error = toApiError(invalid('/body', 'must be object', 'type.openapi.validation'), request());
      expect(error.code).to.equal('body_invalid');
      expect(error.details.param).to.equal(undefined);
    });
  });

  describe('other failures', () => {
    it('keeps an ApiError as it is', () => {
      const original = new ApiError('card_declined', 'Your card was declined.');
      expect(toApiError(original, request())).to.equal(original);
    });

    it('maps the body parser errors', () => {
      expect(toApiError({ status: 413, type: 'entity.too.large' }, request()).code).to.equal('request_too_large');
      expect(toApiError({ status: 400, type: 'entity.parse.failed' }, request()).code).to.equal('body_invalid');
      expect(toApiError({ status: 415, type: 'charset.unsupported' }, request()).code).to.equal('unsupported_media_type');
    });

    it('maps 404, 405 (with Allow) and 415 from the router and validator', () => {
      expect(toApiError({ status: 404 }, request({ path: '/v1/nowhere' }))).to.include({
        code: 'url_not_found',
        message: 'Unrecognized request URL (GET: /v1/nowhere).',
      });
      const notAllowed = toApiError({ status: 405, headers: { Allow: 'GET, POST' } }, request());
      expect(notAllowed.code).to.equal('method_not_allowed');
      expect(notAllowed.details.headers).to.deep.equal({ Allow: 'GET, POST' });
      expect(toApiError({ status: 415 }, request()).code).to.equal('unsupported_media_type');
    });

    it('turns anything unexpected into internal_error without its details', () => {
      for (const thrown of [new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: '23505', detail: 'Key (id)=(x)' }, null, 'boom']) {
        const error = toApiError(thrown, request());
        expect(error).to.include({ code: 'internal_error', status: 500 });
        expect(error.message).to.not.match(/ECONNREFUSED|23505|Key \(id\)|boom/);
      }
    });
  });

  describe('401', () => {
    it("reports the authenticator's verdict", () => {
      const error = toApiError({ status: 401 }, request({ authFailure: { ok: false, code: 'api_key_invalid', message: 'Invalid API key provided: sk_test_***' } }));
      expect(error).to.include({ code: 'api_key_invalid', message: 'Invalid API key provided: sk_test_***' });
    });

    it('without a verdict, tells a missing API key from one of another scheme', () => {
      expect(toApiError({ status: 401 }, request()).code).to.equal('api_key_missing');
      expect(toApiError({ status: 401 }, request({ headers: { authorization: 'Basic eDp5' } })).code).to.equal('api_key_invalid');
    });

    it('without a verdict on an HTTP Basic operation, asks for the admin credentials', () => {
      const admin = { schema: { security: [{ adminBasic: [] }] } };
      expect(toApiError({ status: 401 }, request({ openapi: admin })).code).to.equal('admin_credentials_invalid');
      const withKey = request({ openapi: admin, headers: { authorization: 'Bearer sk_test_abc' } });
      expect(toApiError({ status: 401 }, withKey).code).to.equal('admin_credentials_invalid');
    });
  });
});
