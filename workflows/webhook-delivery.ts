/**
 * @module The delivery of one event to one endpoint in the earlier design (one workflow per delivery): attempt, and
 * after a failure wait (a durable timer) and attempt again. Nothing starts it any more, and its activity no longer
 * attempts: a run still open hands its delivery to the delivery pumps at its next attempt and ends QUEUED
 * (domain/webhooks/legacy-handover.ts). The code is unchanged so that such runs, and their recorded histories
 * (test/replay-histories/webhookDeliveryWorkflow-delivered.json), replay; workflows/legacy-paths.ts says when it goes.
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
