/**
 * The SDK's main entry: the client, pagination and the API's types. It needs only `fetch` and
 * Web Crypto, so it runs (and its types compile) in Node, browsers and edge runtimes alike; the
 * Node-only webhook receiver is `@payments-api/sdk/node` (./node.ts).
 */
export { createClient, type ClientCredentialOptions, type ClientOptions, type PaymentsClient } from './client.js';
export {
  createPublishableClient, PUBLISHABLE_OPERATIONS, type PublishableClient, type PublishableClientOptions,
} from './publishable-client.js';
export {
  encodeParams, type RawMethod, type RawParams, type RawParamValue, type RawRequest, type RawRequestOptions, type RawResponse,
} from './raw-request.js';
export { TokenRequestError, type ClientCredentials, type SigningKey } from './credentials.js';
export { autoPaginate, type PageFetcher, type PageItem } from './pagination.js';
export {
  PaymentsError, PaymentsInvalidRequestError, PaymentsCardError, PaymentsAuthenticationError, PaymentsPermissionError,
  PaymentsIdempotencyError, PaymentsRateLimitError, PaymentsApiError, unwrap, type PaymentsErrorObject, type SuccessData,
} from './errors.js';
// The generated layer's types (schemas, parameters, answers), but not its functions: they work
// only through createClient, which hands them the transport's settings.
export type * from './generated/payments.js';
export type { PaymentsEvent, PaymentsEventOf, PaymentsEventType } from './generated/events.js';
// Its enums are plain constant objects, which work anywhere, so they are exported as values too.
export {
  CardBrand, ChargeStatus, RefundReason, RefundStatus, OrderStatus, EventType,
  WebhookEndpointStatus, WebhookReplayParamsStatus, WebhookDeliveryStatus, PaymentIntentStatus,
  CaptureMethod, CancellationReason, PaymentErrorCode, PaymentIntentCancelParamsCancellationReason,
  PaymentIntentAuthenticateParamsOutcome, Scope, ApiKeyType, ApiKeyWithSecretType, OAuthErrorError,
  ErrorType, ErrorCode, DeclineCode, InvalidRequestErrorCode, NotFoundErrorCode, HttpRequestErrorCode,
  AuthenticationErrorCode, IdempotencyErrorCode, PaymentIntentStateErrorCode, RequestLogMethod,
  SignatureHeaderAlias, CardErrorCode, PaymentMethodCardFunding, SetupFutureUsage, TaxExempt, ConfirmationMethod,
  PaymentMethodTypeName, AutomaticPaymentMethodsAllowRedirects, AutomaticPaymentMethodsParamsAllowRedirects,
  PaymentMethodOptionsParamsCardCaptureMethod, CustomerCreateParamsInvoiceSettingsRenderingOptionsAnyOfAmountTaxDisplay,
  CustomerReplaceParamsInvoiceSettingsRenderingOptionsAnyOfAmountTaxDisplay, SetupIntentStatus, SetupIntentUsage,
  SetupIntentCancellationReason, SetupErrorType, SetupErrorCode, ChargeOutcomeNetworkStatus, ChargeOutcomeRiskLevel,
  ChargeOutcomeType, ChargeThreeDSecureAuthenticationFlow, ChargeThreeDSecureElectronicCommerceIndicator,
  ChargeThreeDSecureResult, ChargeThreeDSecureVersion,
} from './generated/payments.js';
