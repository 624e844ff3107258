/**
 * @module Why a webhook delivery was not accepted. Answer such deliveries with a 4xx and do not act on them; the
 * `code` tells a forged or tampered request (`signature_mismatch`) from a stale or replayed one
 * (`timestamp_out_of_tolerance`) and from one that is not a delivery at all (`missing_signature`).
 */

export type WebhookVerificationCode =
  'missing_signature' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_payload'

export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationCode

  constructor(code: WebhookVerificationCode, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
    this.code = code
  }
}
