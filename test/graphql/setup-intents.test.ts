import { expect } from 'chai';
import { aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { graphql, type GraphQLResult } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';

const SETUP = `id created status usage description metadata paymentMethod paymentMethodTypes cancellationReason
  automaticPaymentMethods { allowRedirects enabled } nextAction { type url } customer { id }
  lastSetupError { type code declineCode message paymentMethod }`;

const CREATE = `mutation ($input: CreateSetupIntentInput, $key: String) { createSetupIntent(input: $input, idempotencyKey: $key) { ${SETUP} } }`;
const UPDATE = `mutation ($id: ID!, $input: UpdateSetupIntentInput!) { updateSetupIntent(id: $id, input: $input) { ${SETUP} } }`;
const CONFIRM = `mutation ($id: ID!, $input: ConfirmSetupIntentInput) { confirmSetupIntent(id: $id, input: $input) { ${SETUP} } }`;
const CANCEL = `mutation ($id: ID!, $reason: SetupIntentCancellationReason) { cancelSetupIntent(id: $id, cancellationReason: $reason) { ${SETUP} } }`;
const RETRIEVE = `query ($id: ID!) { setupIntent(id: $id) { ${SETUP} } node(id: $id) { id ... on SetupIntent { status } } }`;
const LIST = `query ($first: Int, $after: String, $customer: ID, $paymentMethod: ID) {
  setupIntents(first: $first, after: $after, customer: $customer, paymentMethod: $paymentMethod) {
    edges { cursor node { id status } } pageInfo { hasNextPage endCursor }
  }
}`;

forEachDatabase('GraphQL setup intents', (engine) => {
  const server = useTestServer(engine, {}, { per: 'account' });

  const send = (
    document: string,
    variables?: Record<string, unknown>,
    apiKey = server.api.apiKey,
  ) => graphql(server.url, apiKey, document, variables);

  async function data(
    document: string,
    variables?: Record<string, unknown>,
  ): Promise<Record<string, any>> {
    const res = await send(document, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data!;
  }

  function onlyError(res: GraphQLResult, field: string) {
    expect(res.body.data).to.deep.equal({ [field]: null });
    expect(res.body.errors).to.have.length(1);
    return res.body.errors![0];
  }

  it('creates, updates, confirms and reads a setup intent through the same services as REST', async () => {
    const customer = await aCustomer(server.api);
    const { createSetupIntent: created } = await data(CREATE, {
      input: {
        customer: customer.id,
        usage: 'ON_SESSION',
        automaticPaymentMethods: { enabled: true, allowRedirects: 'NEVER' },
        metadata: { plan: 'monthly' },
      },
    });
    expect(created).to.deep.include({
      status: 'REQUIRES_PAYMENT_METHOD',
      usage: 'ON_SESSION',
      automaticPaymentMethods: { allowRedirects: 'NEVER', enabled: true },
      paymentMethodTypes: ['card'],
      customer: { id: customer.id },
      nextAction: null,
    });
    const { updateSetupIntent: updated } = await data(UPDATE, {
      id: created.id,
      input: { description: 'Box', paymentMethod: 'pm_card_visa' },
    });
    expect(updated).to.include({ status: 'REQUIRES_CONFIRMATION', description: 'Box' });
    const { confirmSetupIntent: confirmed } = await data(CONFIRM, { id: created.id });
    expect(confirmed).to.include({ status: 'SUCCEEDED', paymentMethod: updated.paymentMethod });
    const rest = (await server.api.get(`/v1/setup_intents/${created.id}`)).body;
    expect(rest).to.include({
      status: 'succeeded',
      description: 'Box',
      usage: 'on_session',
      payment_method: updated.paymentMethod,
    });
    const read = await data(RETRIEVE, { id: created.id });
    expect(read.setupIntent).to.deep.equal(confirmed);
    expect(read.node).to.deep.equal({ id: created.id, status: 'SUCCEEDED' });
    const listed = await data(LIST, { customer: customer.id });
    expect(listed.setupIntents.edges.map((edge: any) => edge.node.id)).to.deep.equal([created.id]);
    const byCard = await data(LIST, { paymentMethod: updated.paymentMethod });
    expect(byCard.setupIntents.edges.map((edge: any) => edge.node.id)).to.deep.equal([created.id]);
  });

  it('answers a decline as card_declined with the setup intent in its extensions, the setup intent kept with lastSetupError', async () => {
    const res = await send(CREATE, {
      input: { paymentMethod: 'pm_card_chargeDeclinedInsufficientFunds', confirm: true },
    });
    const error = onlyError(res, 'createSetupIntent');
    expect(error.extensions).to.include({
      code: 'card_declined',
      declineCode: 'insufficient_funds',
    });
    const id = error.extensions!.setupIntent as string;
    expect(id).to.match(/^seti_/);
    const { setupIntent } = await data(RETRIEVE, { id });
    expect(setupIntent.status).to.equal('REQUIRES_PAYMENT_METHOD');
    expect(setupIntent.lastSetupError).to.include({
      type: 'card_error',
      code: 'card_declined',
      declineCode: 'insufficient_funds',
    });
    expect(setupIntent.lastSetupError.paymentMethod).to.match(/^pm_/);
  });

  it('waits for authentication with the page in nextAction, cancels, and refuses a move the status does not allow', async () => {
    const { createSetupIntent: waiting } = await data(CREATE, {
      input: { paymentMethod: 'pm_card_authenticationRequired', confirm: true },
    });
    expect(waiting.status).to.equal('REQUIRES_ACTION');
    // The mutation answers as REST's confirmation does: the page's link opens with the client secret.
    expect(waiting.nextAction.type).to.equal('redirect_to_url');
    expect(waiting.nextAction.url).to.match(
      new RegExp(`^${server.url}/authenticate/${waiting.id}\\?client_secret=${waiting.id}_secret_`),
    );
    const { setupIntent: read } = await data(RETRIEVE, { id: waiting.id });
    expect(read.nextAction).to.deep.equal({
      type: 'redirect_to_url',
      url: `${server.url}/authenticate/${waiting.id}`,
    });
    const { cancelSetupIntent: canceled } = await data(CANCEL, {
      id: waiting.id,
      reason: 'REQUESTED_BY_CUSTOMER',
    });
    expect(canceled).to.include({
      status: 'CANCELED',
      cancellationReason: 'REQUESTED_BY_CUSTOMER',
      nextAction: null,
    });
    const error = onlyError(
      await send(CONFIRM, { id: waiting.id, input: { paymentMethod: 'pm_card_visa' } }),
      'confirmSetupIntent',
    );
    expect(error.extensions).to.include({
      code: 'setup_intent_unexpected_state',
      setupIntent: waiting.id,
    });
  });

  it('replays createSetupIntent with its idempotencyKey, and needs setup_intents:read to read', async () => {
    const first = await data(CREATE, {
      input: { paymentMethod: 'pm_card_visa', confirm: true },
      key: 'gql-seti-1',
    });
    const again = await data(CREATE, {
      input: { paymentMethod: 'pm_card_visa', confirm: true },
      key: 'gql-seti-1',
    });
    expect(again).to.deep.equal(first);
    expect((await server.api.get('/v1/setup_intents')).body.data).to.have.length(1);
    const restricted = (await server.api.post('/v1/api_keys', { scopes: ['customers:read'] })).body
      .secret as string;
    const refused = await send(RETRIEVE, { id: first.createSetupIntent.id }, restricted);
    expect(refused.body.errors?.[0].extensions?.code).to.equal('insufficient_scope');
    expect(refused.body.data?.setupIntent).to.equal(null);
  });
});
