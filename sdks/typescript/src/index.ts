/**
 * @module @therapy-care/sdk: a typed client of the Therapy Care Platform API and webhook verification.
 */
export { TherapyCareClient, createClient, type ClientOptions, type ResponseWithData } from './client.ts'
export { ApiConnectionError, ApiError, type ErrorCode, type FieldError } from './errors.ts'
export { PageIterator } from './pagination.ts'
export type { ResourceMethods, ListQuery } from './resources.ts'
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts'
export type { RetryEvent } from './transport.ts'
export type { AccessTokenProvider, TokenResponse } from './credentials.ts'
export type {
  ApiPath,
  CallOptions,
  HttpMethod,
  ListItem,
  ListPaths,
  Page,
  PathParams,
  PathsWith,
  QueryParams,
  RequestBody,
  RequestOptions,
  ResponseData,
} from './typed-paths.ts'
export type { components, paths } from './openapi.generated.ts'
export { verifyWebhook } from './webhooks/verify.ts'
export { verifyWebhookV1, parseV1SignatureHeader, V1_SIGNATURE_HEADER } from './webhooks/verify-v1.ts'
export { verifyWebhookV2, parseV2SignatureHeader, type V2Keys } from './webhooks/verify-v2.ts'
export type { VerifyOptions, WebhookEnvelope, WebhookEvent, WebhookHeaders } from './webhooks/delivery-parts.ts'
export type { RawBody } from './webhooks/bytes.ts'
export { WebhookVerificationError, type WebhookVerificationCode } from './webhooks/verification-error.ts'
export { SDK_VERSION } from './version.ts'

/** A schema of the description by name: `Schema<'Appointment'>`. */
export type Schema<Name extends keyof import('./openapi.generated.ts').components['schemas']> =
  import('./openapi.generated.ts').components['schemas'][Name]
