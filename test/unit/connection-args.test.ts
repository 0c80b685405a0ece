import { expect } from 'chai';
import { toPageParams, type ConnectionArgs } from '../../src/graphql/connections.js';
import { ApiError } from '../../src/domain/errors.js';

describe('Relay connection arguments as page parameters (toPageParams)', () => {
  const pages: Array<[string, ConnectionArgs, ReturnType<typeof toPageParams>]> = [
    ['nothing: the first page of 10', {}, { limit: 10, starting_after: undefined, backward: false }],
    ['first and after: forward from the cursor', { first: 5, after: 'ch_1' }, { limit: 5, starting_after: 'ch_1', backward: false }],
    ['last and before: backward from the cursor', { last: 5, before: 'ch_1' }, { limit: 5, ending_before: 'ch_1', backward: true }],
    ['last alone: the last page, the oldest objects', { last: 5 }, { limit: 5, from_oldest: true, backward: true }],
    ['before alone: backward with the default size', { before: 'ch_1' }, { limit: 10, ending_before: 'ch_1', backward: true }],
  ];
  for (const [name, args, expected] of pages) {
    it(name, () => expect(toPageParams(args)).to.deep.equal(expected));
  }

  const refusals: Array<[string, ConnectionArgs, string]> = [
    ['first and last', { first: 1, last: 1 }, 'last'],
    ['after and before', { after: 'ch_1', before: 'ch_2' }, 'before'],
    ['last with after', { last: 1, after: 'ch_1' }, 'after'],
    ['first with before', { first: 1, before: 'ch_1' }, 'before'],
    ['first above 100', { first: 101 }, 'first'],
    ['last below 1', { last: 0 }, 'last'],
  ];
  for (const [name, args, param] of refusals) {
    it(`refuses ${name}, naming ${param}`, () => {
      let error: unknown;
      try {
        toPageParams(args);
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ApiError);
      expect((error as ApiError).code).to.equal('parameter_invalid');
      expect((error as ApiError).details.param).to.equal(param);
    });
  }
});
