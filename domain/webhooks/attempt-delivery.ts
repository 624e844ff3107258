/**
 * @module One attempt of a queued delivery, as the delivery pump and an endpoint's retry probe make it: sign with
 * every active key, POST (outside any transaction), and decide what the delivery becomes, ready to be recorded with
 * its batch (delivery-queue.ts `recordAttempts`). The rules are the webhooks' own (attempt-outcome.ts): any 2xx
 * succeeds, 410 ends the delivery and disables the endpoint, anything else is retried within the 24-hour window.
 */
import { toEnvelope } from '../events/event-envelope.ts'
import { attemptOutcome } from './attempt-outcome.ts'
import { endedReason, signingMaterial } from './delivery-endpoint.ts'
import type { QueuedDelivery } from './queued-delivery.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { WebhookPoster } from './post-webhook.ts'
import type { RetryPolicy } from '../../common/webhooks/retry-schedule.ts'
import { signatureHeaders } from './sign-delivery.ts'
import type { SecretBox } from '../../infra/secret-box.ts'

export interface AttemptDeps {
  poster: WebhookPoster
  retry: RetryPolicy
  now: () => Date
  /** Opens the endpoint's sealed secrets and keys to sign. */
  secrets: SecretBox
  /** Jitter source; injectable for tests. */
  random?: () => number
}

/** Ends a delivery whose endpoint is disabled, without an attempt. */
export function endedWithoutAttempt(delivery: QueuedDelivery, now: Date, reason: string): AttemptRecord {
  return {
    deliveryId: delivery.id,
    tenantId: delivery.tenantId,
    endpointId: delivery.endpointId,
    number: delivery.attemptCount,
    attempted: false,
    attemptedAt: now,
    firstAttemptAt: delivery.firstAttemptAt ?? now,
    statusCode: null,
    latencyMs: 0,
    error: null,
    succeeded: false,
    status: 'FAILED',
    nextAttemptAt: null,
    lastError: reason,
    gone: false,
  }
}

/**
 * Makes the next attempt of `delivery`. Never throws for a receiver's failure: that is a record like any other.
 * @param body - the event's JSON body when the caller has it already (one event fans out to many endpoints)
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  delivery: QueuedDelivery,
  body = JSON.stringify(toEnvelope(delivery.event))
): Promise<AttemptRecord> {
  if (!delivery.endpoint.enabled) return endedWithoutAttempt(delivery, deps.now(), endedReason(delivery.endpoint))
  const attemptedAt = deps.now()
  // The window runs from the first attempt actually made, not from when the event was recorded.
  const firstAttemptAt = delivery.firstAttemptAt ?? attemptedAt
  const headers = signatureHeaders(signingMaterial(delivery.endpointId, delivery.endpoint, attemptedAt, deps.secrets), {
    eventId: delivery.event.id,
    timestamp: Math.floor(attemptedAt.getTime() / 1000),
    body,
  })
  const result = await deps.poster.post(delivery.endpoint.url, headers, body)
  const now = deps.now()
  const number = delivery.attemptCount + 1
  const outcome = attemptOutcome({
    result,
    attempt: number,
    firstAttemptAt: firstAttemptAt.getTime(),
    now: now.getTime(),
    policy: deps.retry,
    random: (deps.random ?? Math.random)(),
  })
  const record: AttemptRecord = {
    deliveryId: delivery.id,
    tenantId: delivery.tenantId,
    endpointId: delivery.endpointId,
    number,
    attempted: true,
    attemptedAt,
    firstAttemptAt,
    statusCode: result.statusCode ?? null,
    latencyMs: result.latencyMs,
    error: result.error ?? null,
    succeeded: outcome.kind === 'SUCCEEDED',
    status: 'PENDING',
    nextAttemptAt: null,
    lastError: result.error ?? null,
    gone: false,
    retryAfterMs: result.retryAfterMs,
  }
  switch (outcome.kind) {
    case 'SUCCEEDED':
      return { ...record, status: 'SUCCEEDED' }
    case 'GONE':
      return { ...record, status: 'FAILED', gone: true, lastError: 'receiver answered 410 Gone: endpoint disabled' }
    case 'EXHAUSTED':
      return { ...record, status: 'FAILED', lastError: result.error ?? `HTTP ${result.statusCode}; retry window over` }
    case 'RETRY':
      return { ...record, nextAttemptAt: new Date(now.getTime() + outcome.retryInMs) }
  }
}
