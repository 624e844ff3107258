/**
 * @module One attempt of a delivery, as the delivery workflow's activity runs it: load the delivery, its event and
 * its endpoint (ids only travel through Temporal), sign with every active key, POST outside any transaction, then
 * record the attempt and its consequence in one transaction. Safe to run twice for the same attempt (an activity
 * retried after a crash): an attempt already recorded is answered from the record, and the unique (delivery,
 * number) key refuses a second record.
 */
import type { Db } from '../../infra/db.ts'
import { isUniqueViolation } from '../../infra/db.ts'
import { Prisma } from '../../generated/prisma/client.ts'
import { grantHoldsSql } from '../auth/credential-grants.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { toEnvelope } from '../events/event-envelope.ts'
import { newId } from '../ids.ts'
import { attemptOutcome, type AttemptOutcome } from './attempt-outcome.ts'
import { disableEndpoint, markEndpointFailing, markEndpointHealthy } from './endpoint-status.ts'
import type { PostResult, WebhookPoster } from './post-webhook.ts'
import type { RetryPolicy } from '../../common/webhooks/retry-schedule.ts'
import { signatureHeaders } from './sign-delivery.ts'
import type { WebhookSettings } from './webhook-settings.ts'
import { systemClock, type Clock } from '../../infra/clock.ts'
import type { SecretBox } from '../../infra/secret-box.ts'
import {
  endedReason,
  endpointOfRow,
  eventOfRow,
  signingMaterial,
  type DeliveryEndpoint,
  type DeliveryEvent,
} from './delivery-endpoint.ts'

export interface DeliverOnceDeps {
  db: Db
  poster: WebhookPoster
  settings: Pick<WebhookSettings, 'disableAfterMs'>
  /** Opens the endpoint's secrets and keys, stored sealed (infra/secret-box.ts). */
  secrets: SecretBox
  /** Jitter source; injectable for tests. */
  random?: () => number
  /** "Now" for the attempt, its signature and the retry window (the activities' clock; the system clock by default). */
  now?: Clock
}

export interface DeliverOnceInput {
  tenantId: string
  deliveryId: string
  /** 1 for the first attempt. */
  attempt: number
  /** ms since the epoch of attempt 1, as this activity reported it; absent for attempt 1 itself. */
  firstAttemptAt?: number
  retry: RetryPolicy
}

export type DeliverOnceResult =
  | { outcome: 'SUCCEEDED' | 'FAILED' | 'ABANDONED' }
  /** `firstAttemptAt`: when attempt 1 was made; the retry window runs from there. */
  | { outcome: 'RETRY'; retryInMs: number; firstAttemptAt: number }

/** A delivery with what an attempt needs of its event and endpoint. */
export interface LoadedDelivery {
  id: string
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  attemptCount: number
  nextAttemptAt: Date | null
  endpointId: string
  /** When attempt 1 was made, once it was. */
  firstAttemptAt: Date | null
  event: DeliveryEvent
  /** The endpoint as stored: its secrets and keys sealed (opened only to sign, {@link signingMaterial}). */
  endpoint: DeliveryEndpoint
}

/** One round trip for everything an attempt reads (in the tenant's unit of work: row-level security applies). */
async function loadDelivery(
  db: Db,
  tenantId: string,
  deliveryId: string,
  now: Date
): Promise<LoadedDelivery | undefined> {
  const rows = await runInUnitOfWork(
    db,
    tenantId,
    ({ tx }) =>
      tx.$queryRaw<Array<Record<string, unknown>>>`
      SELECT d.id, d.status::text AS status, d.attempt_count, d.next_attempt_at, d.endpoint_id,
        (SELECT a.attempted_at FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id AND a.number = 1) AS first_attempt_at,
        e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.data AS event_data,
        w.url, w.signing_scheme::text AS signing_scheme, w.secret, w.previous_secret, w.previous_secret_expires_at,
        w.signing_key, w.previous_signing_key, w.enabled, w.failing_since,
        ${grantHoldsSql(Prisma.sql`w.tenant_id`, Prisma.sql`w.created_by`, now, 'webhooks')} AS granted
      FROM webhook_deliveries d
      JOIN events e ON e.id = d.event_id
      JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = ${deliveryId} AND d.tenant_id = ${tenantId}`
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    id: row.id as string,
    status: row.status as LoadedDelivery['status'],
    attemptCount: row.attempt_count as number,
    nextAttemptAt: row.next_attempt_at as Date | null,
    endpointId: row.endpoint_id as string,
    firstAttemptAt: row.first_attempt_at as Date | null,
    event: eventOfRow(row),
    endpoint: endpointOfRow(row),
  }
}

/** What an already recorded state means to the workflow (a re-run after a lost completion, or a finished delivery). */
function fromRecord(delivery: LoadedDelivery, now: number): DeliverOnceResult {
  if (delivery.status === 'SUCCEEDED' || delivery.status === 'FAILED') return { outcome: delivery.status }
  return {
    outcome: 'RETRY',
    retryInMs: Math.max(0, (delivery.nextAttemptAt?.getTime() ?? now) - now),
    firstAttemptAt: delivery.firstAttemptAt?.getTime() ?? now,
  }
}

/**
 * Makes attempt `input.attempt` of a delivery and records it.
 * @returns what the workflow does next
 */
export async function deliverOnce(deps: DeliverOnceDeps, input: DeliverOnceInput): Promise<DeliverOnceResult> {
  const { db, poster } = deps
  const clock = deps.now ?? systemClock
  const loaded = await loadDelivery(db, input.tenantId, input.deliveryId, clock())
  // Deleted with its endpoint (or event): there is nobody left to deliver to.
  if (!loaded) return { outcome: 'ABANDONED' }
  if (loaded.status !== 'PENDING' || loaded.attemptCount >= input.attempt) return fromRecord(loaded, clock().getTime())

  if (!loaded.endpoint.enabled) {
    await runInUnitOfWork(db, input.tenantId, ({ tx }) =>
      tx.webhookDelivery.updateMany({
        where: { id: loaded.id, status: 'PENDING' },
        data: { status: 'FAILED', completedAt: clock(), nextAttemptAt: null, lastError: endedReason(loaded.endpoint) },
      })
    )
    return { outcome: 'FAILED' }
  }

  const attemptedAt = clock()
  // The window runs from the first attempt actually made, not from when the workflow was scheduled.
  const firstAttemptAt = input.firstAttemptAt ?? attemptedAt.getTime()
  const body = JSON.stringify(toEnvelope(loaded.event))
  const headers = signatureHeaders(signingMaterial(loaded.endpointId, loaded.endpoint, attemptedAt, deps.secrets), {
    eventId: loaded.event.id,
    timestamp: Math.floor(attemptedAt.getTime() / 1000),
    body,
  })
  const result = await poster.post(loaded.endpoint.url, headers, body)
  const now = clock().getTime()
  const outcome = attemptOutcome({
    result,
    attempt: input.attempt,
    firstAttemptAt,
    now,
    policy: input.retry,
    random: (deps.random ?? Math.random)(),
  })
  try {
    return await runInUnitOfWork(db, input.tenantId, (uow) =>
      recordAttempt(uow, {
        delivery: loaded,
        attempt: input.attempt,
        attemptedAt,
        firstAttemptAt,
        result,
        outcome,
        deps,
      })
    )
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    // Another execution of this very attempt recorded it first; its record decides.
    const current = await loadDelivery(db, input.tenantId, input.deliveryId, clock())
    return current ? fromRecord(current, clock().getTime()) : { outcome: 'ABANDONED' }
  }
}

interface RecordInput {
  delivery: LoadedDelivery
  attempt: number
  attemptedAt: Date
  firstAttemptAt: number
  result: PostResult
  outcome: AttemptOutcome
  deps: DeliverOnceDeps
}

async function recordAttempt(uow: UnitOfWork, input: RecordInput): Promise<DeliverOnceResult> {
  const { delivery, attempt, attemptedAt, result, outcome } = input
  const clock = input.deps.now ?? systemClock
  const { tx, tenantId } = uow
  await tx.webhookDeliveryAttempt.create({
    data: {
      id: newId('webhookAttempt'),
      tenantId,
      deliveryId: delivery.id,
      number: attempt,
      attemptedAt,
      statusCode: result.statusCode ?? null,
      latencyMs: result.latencyMs,
      error: result.error ?? null,
      succeeded: outcome.kind === 'SUCCEEDED',
    },
  })
  const last = { attemptCount: attempt, lastStatusCode: result.statusCode ?? null, lastError: result.error ?? null }
  const finish = (status: 'SUCCEEDED' | 'FAILED', lastError = last.lastError) =>
    tx.webhookDelivery.update({
      where: { id: delivery.id },
      data: { ...last, lastError, status, completedAt: clock(), nextAttemptAt: null },
    })

  switch (outcome.kind) {
    case 'SUCCEEDED':
      await finish('SUCCEEDED')
      // A healthy endpoint (the usual case) needs no write: its row stays untouched by a busy stream of successes.
      if (delivery.endpoint.failingSince !== null) await markEndpointHealthy(uow, delivery.endpointId)
      return { outcome: 'SUCCEEDED' }
    case 'GONE':
      await finish('FAILED', 'receiver answered 410 Gone: endpoint disabled')
      await disableEndpoint(uow, delivery.endpointId, 'GONE', attemptedAt)
      return { outcome: 'FAILED' }
    case 'EXHAUSTED':
      await finish('FAILED', last.lastError ?? `HTTP ${result.statusCode}; retry window over`)
      await markEndpointFailing(uow, delivery.endpointId, attemptedAt, input.deps.settings.disableAfterMs)
      return { outcome: 'FAILED' }
    case 'RETRY': {
      if (await markEndpointFailing(uow, delivery.endpointId, attemptedAt, input.deps.settings.disableAfterMs)) {
        await finish('FAILED', 'endpoint disabled after failing for too long')
        return { outcome: 'FAILED' }
      }
      await tx.webhookDelivery.update({
        where: { id: delivery.id },
        data: { ...last, nextAttemptAt: new Date(clock().getTime() + outcome.retryInMs) },
      })
      return { outcome: 'RETRY', retryInMs: outcome.retryInMs, firstAttemptAt: input.firstAttemptAt }
    }
  }
}
