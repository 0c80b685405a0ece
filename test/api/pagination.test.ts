import { expect } from 'chai';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { aCharge, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** Creates `count` charges one after the other; returns their ids newest first, as lists show them. */
async function createCharges(api: ApiClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await aCharge(api, { amount: 100 + i })).id);
  return ids.reverse();
}

function idsOf(res: ApiResponse): string[] {
  return res.body.data.map((o: any) => o.id);
}

/** A page that must succeed; also checks the rule that `has_more` never comes with no data. */
async function page(api: ApiClient, query: string): Promise<ApiResponse> {
  const res = await api.get(`/v1/charges${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body).to.include({ object: 'list', url: '/v1/charges' });
  if (res.body.has_more) expect(res.body.data, `has_more with empty data for ${query}`).to.have.length.above(0);
  return res;
}

/** Follows `starting_after` from the first page to the last; returns every page. */
async function walkForward(api: ApiClient, limit: number): Promise<ApiResponse[]> {
  const pages = [await page(api, `?limit=${limit}`)];
  while (pages.at(-1)!.body.has_more) {
    const last = idsOf(pages.at(-1)!).at(-1);
    pages.push(await page(api, `?limit=${limit}&starting_after=${last}`));
    expect(pages.length, 'pagination does not end').to.be.below(100);
  }
  return pages;
}

forEachDatabase('pagination', (engine) => {
  const server = useTestServer(engine);

  describe('limit', () => {
    it('defaults to 10, newest first', async () => {
      const ids = await createCharges(server.api, 25);
      const res = await page(server.api, '');
      expect(idsOf(res)).to.deep.equal(ids.slice(0, 10));
      expect(res.body.has_more).to.equal(true);
    });

    it('accepts 1 and 100', async () => {
      const ids = await createCharges(server.api, 25);
      const one = await page(server.api, '?limit=1');
      expect(idsOf(one)).to.deep.equal([ids[0]]);
      expect(one.body.has_more).to.equal(true);
      const hundred = await page(server.api, '?limit=100');
      expect(idsOf(hundred)).to.deep.equal(ids);
      expect(hundred.body.has_more).to.equal(false);
    });

    it('says has_more exactly when objects remain', async () => {
      const ids = await createCharges(server.api, 25);
      expect((await page(server.api, '?limit=24')).body.has_more).to.equal(true);
      const all = await page(server.api, '?limit=25');
      expect(idsOf(all)).to.deep.equal(ids);
      expect(all.body.has_more).to.equal(false);
    });

    for (const value of ['0', '101', '-1']) {
      it(`refuses limit=${value} naming limit`, async () => {
        expectError(await server.api.get(`/v1/charges?limit=${value}`), 400, 'parameter_invalid', 'limit');
      });
    }

    for (const value of ['1.5', 'ten', '']) {
      it(`refuses the non-integer limit=${JSON.stringify(value)} naming limit`, async () => {
        expectError(await server.api.get(`/v1/charges?limit=${value}`), 400, 'parameter_invalid', 'limit');
      });
    }

    it('has the same bounds on every list', async () => {
      for (const path of ['/v1/customers', '/v1/refunds', '/v1/users', '/v1/events']) {
        for (const value of ['0', '101']) {
          expectError(await server.api.get(`${path}?limit=${value}`), 400, 'parameter_invalid', 'limit');
        }
        expect((await server.api.get(`${path}?limit=100`)).status).to.equal(200);
      }
    });
  });

  describe('starting_after', () => {
    it('pages newest first through 25 charges with no gaps or repeats', async () => {
      const ids = await createCharges(server.api, 25);
      const pages = await walkForward(server.api, 10);
      expect(pages.map((p) => p.body.data.length)).to.deep.equal([10, 10, 5]);
      expect(pages.map((p) => p.body.has_more)).to.deep.equal([true, true, false]);
      expect(pages.flatMap(idsOf)).to.deep.equal(ids);
    });

    for (const limit of [1, 5, 7, 24]) {
      it(`walks every charge once with limit=${limit}, has_more false only on the last page`, async () => {
        const ids = await createCharges(server.api, 25);
        const pages = await walkForward(server.api, limit);
        expect(pages).to.have.length(Math.ceil(25 / limit));
        expect(pages.flatMap(idsOf)).to.deep.equal(ids);
        for (const p of pages.slice(0, -1)) expect(p.body.data).to.have.length(limit);
      });
    }

    it('answers an empty last page after the oldest object, with has_more false', async () => {
      const ids = await createCharges(server.api, 3);
      const res = await page(server.api, `?starting_after=${ids.at(-1)}`);
      expect(res.body.data).to.deep.equal([]);
      expect(res.body.has_more).to.equal(false);
    });

    it('answers an empty list with has_more false when there is nothing', async () => {
      const res = await page(server.api, '');
      expect(res.body.data).to.deep.equal([]);
      expect(res.body.has_more).to.equal(false);
    });
  });

  describe('ending_before', () => {
    it('pages back from the last page to the first, with the same pages', async () => {
      const ids = await createCharges(server.api, 25);
      const forward = await walkForward(server.api, 10);
      const backward = [forward.at(-1)!];
      while (backward.length < forward.length) {
        const first = idsOf(backward.at(-1)!)[0];
        backward.push(await page(server.api, `?limit=10&ending_before=${first}`));
      }
      expect(backward.map(idsOf).reverse()).to.deep.equal(forward.map(idsOf));
      // Going back, has_more says whether newer objects remain.
      expect(backward.slice(1).map((p) => p.body.has_more)).to.deep.equal([true, false]);
      const before = await page(server.api, `?ending_before=${ids[0]}`);
      expect(before.body.data).to.deep.equal([]);
      expect(before.body.has_more).to.equal(false);
    });

    it('returns the objects just newer than the cursor, newest first', async () => {
      const ids = await createCharges(server.api, 25);
      const res = await page(server.api, `?limit=3&ending_before=${ids[10]}`);
      expect(idsOf(res)).to.deep.equal([ids[7], ids[8], ids[9]]);
      expect(res.body.has_more).to.equal(true);
    });
  });

  describe('cursors', () => {
    it('refuses an unknown starting_after id naming it', async () => {
      await createCharges(server.api, 2);
      expectError(await server.api.get('/v1/charges?starting_after=ch_doesnotexist'), 400, 'parameter_invalid', 'starting_after');
    });

    it('refuses an unknown ending_before id naming it', async () => {
      expectError(await server.api.get('/v1/charges?ending_before=ch_doesnotexist'), 400, 'parameter_invalid', 'ending_before');
    });

    it('refuses starting_after and ending_before together', async () => {
      const ids = await createCharges(server.api, 3);
      const res = await server.api.get(`/v1/charges?starting_after=${ids[0]}&ending_before=${ids[2]}`);
      const error = expectError(res, 400, 'parameter_invalid');
      expect(error.param).to.be.oneOf(['starting_after', 'ending_before']);
    });

    it("refuses another account's id as a cursor, as if it did not exist", async () => {
      await createCharges(server.api, 3);
      const theirs = await aCharge(server.otherApi);
      expectError(await server.api.get(`/v1/charges?starting_after=${theirs.id}`), 400, 'parameter_invalid', 'starting_after');
      expectError(await server.api.get(`/v1/charges?ending_before=${theirs.id}`), 400, 'parameter_invalid', 'ending_before');
    });

    it("combine with a filter: a customer's charges page without the others'", async () => {
      const customer = (await server.api.post('/v1/customers', { email: 'jenny@example.com' })).body;
      const mine: string[] = [];
      for (let i = 0; i < 7; i++) {
        mine.unshift((await aCharge(server.api, { customer: customer.id })).id);
        await aCharge(server.api);
      }
      const path = `/v1/customers/${customer.id}/charges?limit=3`;
      const seen: string[] = [];
      let res = await server.api.get(path);
      for (;;) {
        expect(res.status).to.equal(200);
        seen.push(...idsOf(res));
        if (!res.body.has_more) break;
        res = await server.api.get(`${path}&starting_after=${seen.at(-1)}`);
      }
      expect(seen).to.deep.equal(mine);
    });

    it('stay valid while charges are inserted: the next page continues where the previous ended', async () => {
      const ids = await createCharges(server.api, 25);
      const first = await page(server.api, '?limit=10');
      expect(idsOf(first)).to.deep.equal(ids.slice(0, 10));
      const newer = await createCharges(server.api, 3);
      const second = await page(server.api, `?limit=10&starting_after=${idsOf(first).at(-1)}`);
      expect(idsOf(second)).to.deep.equal(ids.slice(10, 20));
      expect(second.body.has_more).to.equal(true);
      await createCharges(server.api, 2);
      const third = await page(server.api, `?limit=10&starting_after=${idsOf(second).at(-1)}`);
      expect(idsOf(third)).to.deep.equal(ids.slice(20));
      expect(third.body.has_more).to.equal(false);
      // Paging back from the second page now finds the newer charges beyond the first page.
      const back = await page(server.api, `?limit=10&ending_before=${idsOf(second)[0]}`);
      expect(idsOf(back)).to.deep.equal(ids.slice(0, 10));
      expect(back.body.has_more).to.equal(true);
      const newest = await page(server.api, `?limit=10&ending_before=${ids[0]}`);
      expect(idsOf(newest).slice(-3)).to.deep.equal(newer);
    });
  });
});
