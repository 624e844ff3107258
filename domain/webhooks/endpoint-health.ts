/**
 * @module What a batch of delivery attempts (attempt-record.ts) says about the endpoints it touched: the circuit
 * breaker's arithmetic over them (docs/webhooks.md, "Delivery"). Pure; delivery-queue.ts records a batch
 * with it in one statement.
 */
import type { AttemptRecord } from './attempt-record.ts'

/** What a batch did to the endpoints it touched. */
export interface EndpointChange {
  endpointId: string
  tenantId: string
  /** Start of the endpoint's current run of failures (null: it is healthy). */
  failingSince: Date | null
  /** The circuit breaker opened with this batch. */
  opened: boolean
  /** The circuit breaker closed with this batch (a success): its held deliveries are due again. */
  closed: boolean
}

/** The breaker arithmetic of a batch for one endpoint, in the order its attempts ended. */
export interface EndpointHealth {
  endpointId: string
  /** A success came in the batch: the endpoint's run of failures restarts from `failures`. */
  reset: boolean
  /** Failures after the last success (or all of them, without one). */
  failures: number
  /** When the first of those failures was made. */
  failedAt: Date | null
}

/** Sums a batch's attempts per endpoint, in the order given (the order they ended). */
export function endpointHealth(records: AttemptRecord[]): EndpointHealth[] {
  const byEndpoint = new Map<string, EndpointHealth>()
  for (const record of records) {
    if (!record.attempted) continue
    const health = byEndpoint.get(record.endpointId) ?? {
      endpointId: record.endpointId,
      reset: false,
      failures: 0,
      failedAt: null,
    }
    if (record.succeeded) Object.assign(health, { reset: true, failures: 0, failedAt: null })
    else {
      health.failures++
      health.failedAt ??= record.attemptedAt
    }
    byEndpoint.set(record.endpointId, health)
  }
  return [...byEndpoint.values()]
}
