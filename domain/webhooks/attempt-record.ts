/**
 * @module What one attempt of a delivery did, as the attempt decides it (attempt-delivery.ts) and the record writes
 * it (record-batch.ts): the data passed from the one step of a delivery's walk to the next, so neither imports the
 * other (docs/webhooks.md, "The walk of a delivery").
 */

/** The recorded outcome of one attempt (or of a delivery ended without one: its endpoint is disabled). */
export interface AttemptRecord {
  deliveryId: string
  tenantId: string
  endpointId: string
  /** The attempt's number; for a delivery ended without an attempt, the attempts made before. */
  number: number
  /** Whether an HTTP attempt was made (false: the endpoint was disabled, the delivery fails without one). */
  attempted: boolean
  attemptedAt: Date
  firstAttemptAt: Date
  statusCode: number | null
  latencyMs: number
  error: string | null
  succeeded: boolean
  /** What the delivery becomes. */
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  nextAttemptAt: Date | null
  lastError: string | null
  /** The receiver answered 410 Gone: the endpoint is to be disabled. */
  gone: boolean
  /** What a 429 or 503 asked for with Retry-After, in ms. */
  retryAfterMs?: number
}
