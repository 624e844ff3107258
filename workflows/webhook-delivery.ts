/**
 * @module The delivery of one event to one endpoint: attempt, and after a failure wait (a durable timer) and attempt
 * again, until a 2xx, a 410, or the end of the retry window. The activity decides each outcome and the next delay
 * (it sees the response and the clock) and records every attempt; the workflow is the durable loop that survives
 * worker crashes between attempts — a killed worker's timers fire on the next one.
 *
 * The attempt is a local activity: it runs inside the workflow task of the worker that holds the workflow, so a
 * successful delivery costs one workflow task and no activity task round trip through the server — half the
 * Temporal work per delivery, which is what sets the throughput at 50 events/s × 20 endpoints (docs/webhooks.md).
 * Its result is recorded in the history like an activity's (a marker), so a replay never posts again; a worker
 * that dies during an attempt has its workflow task retried elsewhere, which makes the attempt again (at least once).
 */
import { proxyLocalActivities, sleep } from '@temporalio/workflow'
import type { WebhookDeliveryInput, WebhookDeliveryOutcome } from '../common/webhooks/webhook-delivery-contract.ts'
import type { WebhookActivities } from '../common/webhooks/webhook-queue-contract.ts'

const { attemptWebhookDelivery } = proxyLocalActivities<WebhookActivities>({
  // The HTTP attempt is bounded at 10 s (WEBHOOK_TIMEOUT_MS); the rest is two short transactions.
  startToCloseTimeout: '1 minute',
  // Only infrastructure failures (the database unreachable) throw; receiver failures are results, not errors.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryOutcome> {
  // The retry window runs from the first attempt actually made, which the first activity reports; it is part of the
  // history from then on, so replays and retries all measure the window from the same instant.
  let firstAttemptAt: number | undefined
  for (let attempt = 1; ; attempt++) {
    const result = await attemptWebhookDelivery({ ...input, attempt, firstAttemptAt })
    if (result.outcome !== 'RETRY') return result.outcome
    firstAttemptAt = result.firstAttemptAt
    await sleep(result.retryInMs)
  }
}
