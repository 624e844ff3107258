/**
 * @module One step of a failing endpoint's retry workflow (docs/webhooks.md, "Failing endpoints"): end the held
 * deliveries whose 24-hour window is over, and, when the schedule says so, probe the endpoint with its oldest held
 * delivery. A success closes the breaker (record-batch.ts), which releases the held deliveries to the pumps; a
 * failure leaves it open for the next step. The window of a delivery held without any attempt runs from when it was
 * created: it was held because its endpoint was failing.
 */
import type { Db } from '../../infra/db.ts'
import type { EndpointRetryStepInput, EndpointRetryStepResult } from '../../common/webhooks/webhook-queue-contract.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { attemptDelivery } from './attempt-delivery.ts'
import { claimOldestHeld } from './delivery-queue.ts'
import type { WebhookPoster } from './post-webhook.ts'
import { recordBatch, type AttemptObserver } from './record-batch.ts'
import type { WebhookSettings } from './webhook-settings.ts'
import type { SecretBox } from '../../infra/secret-box.ts'

export interface EndpointRetryDeps {
  db: Db
  poster: WebhookPoster
  settings: WebhookSettings
  now: () => Date
  /** Opens the endpoint's sealed secrets and keys to sign. */
  secrets: SecretBox
  random?: () => number
  observe?: AttemptObserver
}

/** Runs one step. */
export async function endpointRetryStep(
  deps: EndpointRetryDeps,
  input: EndpointRetryStepInput
): Promise<EndpointRetryStepResult> {
  const { db, settings } = deps
  const windowMs = settings.retry.windowMs
  const now = deps.now()
  const cutoff = new Date(now.getTime() - windowMs)
  const state = await runInUnitOfWork(db, input.tenantId, async ({ tx }) => {
    await tx.$executeRaw`
      UPDATE webhook_deliveries
      SET status = 'FAILED', completed_at = ${now}, next_attempt_at = NULL, dispatch_lease_until = NULL,
        last_error = COALESCE(last_error || '; ', '') || 'retry window over'
      WHERE endpoint_id = ${input.endpointId} AND status = 'PENDING' AND workflow_started_at IS NULL
        AND COALESCE(first_attempt_at, created_at) <= ${cutoff}`
    return tx.webhookEndpoint.findFirst({
      where: { id: input.endpointId },
      select: { enabled: true, circuitOpenedAt: true },
    })
  })
  if (!state || !state.enabled) return { state: 'disabled' }
  if (!state.circuitOpenedAt) return { state: 'closed' }

  let retryAfterMs: number | undefined
  if (input.probe) {
    const delivery = await claimOldestHeld(db, input.endpointId, now, settings.pump.leaseMs)
    if (!delivery) return { state: 'idle' }
    const record = await attemptDelivery(
      { poster: deps.poster, retry: settings.retry, now: deps.now, secrets: deps.secrets, random: deps.random },
      delivery
    )
    await recordBatch(
      { db, circuitFailures: settings.circuitFailures, disableAfterMs: settings.disableAfterMs, observe: deps.observe },
      [record],
      deps.now()
    )
    if (record.succeeded) return { state: 'closed' }
    if (record.gone || !record.attempted) return { state: 'disabled' }
    retryAfterMs = record.retryAfterMs
  }
  const oldest = await runInUnitOfWork(
    db,
    input.tenantId,
    ({ tx }) =>
      tx.$queryRaw<Array<{ started: Date | null; enabled: boolean }>>`
      SELECT min(COALESCE(d.first_attempt_at, d.created_at)) AS started, bool_and(w.enabled) AS enabled
      FROM webhook_endpoints w
      LEFT JOIN webhook_deliveries d ON d.endpoint_id = w.id AND d.status = 'PENDING' AND d.workflow_started_at IS NULL
      WHERE w.id = ${input.endpointId}`
  )
  if (oldest[0] && !oldest[0].enabled) return { state: 'disabled' }
  const started = oldest[0]?.started
  if (!started) return { state: 'idle' }
  return { state: 'failing', retryAfterMs, nextExpiryAt: started.getTime() + windowMs }
}
