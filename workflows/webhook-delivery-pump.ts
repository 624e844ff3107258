/**
 * @module A webhook delivery pump (docs/webhooks.md, "Delivery"): a workflow that keeps the pump activity running,
 * one after another, so the queue always has a supervised worker on it. Each activity runs for a few minutes and
 * heartbeats; a worker that dies stops heartbeating, and the activity runs again on another worker. The history
 * grows by a handful of events per activity and is continued as new long before it is large. Temporal work per
 * delivery: none.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow'
import type { DeliveryPumpInput, WebhookActivities } from '../common/webhooks/webhook-queue-contract.ts'

/** How long one pump activity runs before the workflow starts the next. */
export const PUMP_RUN_MS = 5 * 60_000
/** Activities per run of the workflow before it continues as new. */
const RUNS_PER_HISTORY = 100

const { runWebhookDeliveryPump } = proxyActivities<WebhookActivities>({
  // The run plus the time to finish what is in flight when it ends.
  startToCloseTimeout: '7 minutes',
  // How soon a dead worker's pump is noticed and run elsewhere. Recorded heartbeats (one about every 8 s) are billed
  // actions on Temporal Cloud: ~10,800 a day per pump, a fixed cost traded against noticing a dead worker sooner.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
})

export async function webhookDeliveryPumpWorkflow(input: DeliveryPumpInput): Promise<void> {
  for (let run = 0; run < RUNS_PER_HISTORY; run++) {
    const result = await runWebhookDeliveryPump({ partition: input.partition, runForMs: PUMP_RUN_MS })
    if (result.retired) return
  }
  await continueAsNew<typeof webhookDeliveryPumpWorkflow>(input)
}
