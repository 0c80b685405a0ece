import { expect } from 'chai';
import { compareContracts, hasBreaking } from '../../scripts/api-diff.js';
import { editedSpec, probe, todaysSpec, type SpecEdit } from '../helpers/contract-probes.js';

/**
 * Edits that do not break clients, each on a copy of today's spec (test/helpers/contract-probes.ts):
 * the check passes them and counts them by kind in one line. The breaking ones, and the command, are
 * in api-breaking.test.ts.
 */
describe('REST breaking-change check: compatible edits', function () {
  // Each comparison of the whole spec takes about a second.
  this.timeout(60_000);

  const compatible: Array<[string, SpecEdit, RegExp]> = [
    [
      'adding an optional request field',
      (s) => (s.components.schemas.ChargeCreateParams.properties.nickname = { type: 'string' }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding an optional response field',
      (s) => (s.components.schemas.Charge.properties.nickname = { type: 'string' }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding an operation',
      (s) =>
        (s.paths['/v1/charges/search'] = {
          get: { ...structuredClone(s.paths['/v1/charges'].get), operationId: 'searchCharges' },
        }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'documenting a field next to its $ref',
      (s) =>
        (s.components.schemas.CardError.properties.message.description =
          'Why the card was declined, for people.'),
      /\(0 non-breaking, 0 deprecated, 1 annotation\)/,
    ],
    [
      'deprecating a field',
      (s) => (s.components.schemas.Charge.properties.customer.deprecated = true),
      /\(0 non-breaking, 1 deprecated, 0 annotations\)/,
    ],
    [
      'rewording a description',
      (s) =>
        (s.components.schemas.Charge.properties.captured.description = 'Whether it was captured.'),
      /\(0 non-breaking, 0 deprecated, 1 annotation\)/,
    ],
    [
      'letting a request field be null',
      (s) =>
        (s.components.schemas.ChargeCreateParams.properties.description.type = ['string', 'null']),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding a required response field',
      (s) => {
        s.components.schemas.Customer.properties.nickname = { type: ['string', 'null'] };
        s.components.schemas.Customer.required.push('nickname');
      },
      /\(2 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    // The example is shared (a YAML alias) by lists and events: each place is one annotation.
    [
      'adding a field to an example',
      (s) => (s.components.schemas.Customer.examples[0].nickname = null),
      /\(0 non-breaking, 0 deprecated, [1-9]\d* annotations?\)/,
    ],
    [
      "replacing an operation's summary and a schema's title",
      (s) => {
        s.paths['/v1/charges'].get.summary = 'All the charges';
        s.components.schemas.Customer.title = 'A customer';
      },
      /\(0 non-breaking, 0 deprecated, 2 annotations\)/,
    ],
    [
      'adding externalDocs and documentation extensions',
      (s) => {
        s.paths['/v1/charges'].get.externalDocs = { url: 'https://payments-api.invalid/charges' };
        s.paths['/v1/charges'].get['x-codeSamples'] = [
          { lang: 'shell', source: 'curl /v1/charges' },
        ];
        s.components.schemas.Customer['x-internal-note'] = { owner: 'billing' };
      },
      /\(0 non-breaking, 0 deprecated, 3 annotations\)/,
    ],
  ];
  for (const [change, edit, counts] of compatible) {
    it(`does not report ${change} as breaking, and counts it in one line`, () => {
      const { diff, report } = probe(edit);
      expect(hasBreaking(diff), report).to.equal(false);
      expect(report).to.match(
        /^REST contract: no breaking change against published\.yaml \(.*\)\.$/,
      );
      expect(report).to.match(counts);
    });
  }

  it('finds the same changes when it leaves out what is the same on both sides as when it compares everything', () => {
    // An edit that one operation shows, and one that a schema most operations reach shows.
    const edits: SpecEdit[] = [
      (s) => delete s.paths['/v1/charges'].get,
      (s) => (s.components.schemas.Customer.properties.nickname = { type: 'string' }),
    ];
    for (const edit of edits) {
      const copy = editedSpec(edit);
      const whole = compareContracts(structuredClone(todaysSpec) as never, copy as never, {
        whole: true,
      });
      expect(whole.groups).to.not.deep.equal([]);
      expect(compareContracts(structuredClone(todaysSpec) as never, copy as never)).to.deep.equal(
        whole,
      );
    }
  });
});
