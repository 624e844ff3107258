/**
 * @module A failing endpoint's retry workflow (docs/webhooks.md, "Failing endpoints"): while the endpoint's circuit
 * breaker is open, this one workflow holds its retry schedule on one durable timer, whatever the number of deliveries
 * waiting. Each probe is one activity that tries the oldest held delivery; a success closes the breaker and the
 * pumps drain the backlog at the endpoint's pace. Between probes it also wakes when the oldest held delivery's
 * 24-hour window ends, to mark it failed on time. Its cost is set by the schedule, not by the event rate.
 *
 * Started, or woken, with signal-with-start: a delivery held while the workflow was deciding to end wakes it before
 * it can complete, so no delivery is left without a workflow.
 */
import { continueAsNew, defineSignal, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow'
import { probeDelayMs } from '../common/webhooks/retry-schedule.ts'
import {
  WAKE_ENDPOINT_RETRY_SIGNAL,
  type EndpointRetryInput,
  type EndpointRetryOutcome,
  type WebhookActivities,
} from '../common/webhooks/webhook-queue-contract.ts'

export const wakeEndpointRetry = defineSignal(WAKE_ENDPOINT_RETRY_SIGNAL)

const { webhookEndpointRetryStep } = proxyActivities<WebhookActivities>({
  // One HTTP attempt (10 s at most) and a few short statements.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

export async function webhookEndpointRetryWorkflow(input: EndpointRetryInput): Promise<EndpointRetryOutcome> {
  // An object, not a local: the handler sets it between awaits, where a local's narrowing would not see it.
  const wake = { pending: false }
  setHandler(wakeEndpointRetry, () => {
    wake.pending = true
  })
  let failures = input.failures ?? 0
  let nextProbeAt = Date.now() + probeDelayMs(failures + 1, input.retry, Math.random())
  let expiryAt: number | undefined
  for (;;) {
    await sleep(Math.max(0, Math.min(nextProbeAt, expiryAt ?? Infinity) - Date.now()))
    const probe = Date.now() >= nextProbeAt
    const step = await webhookEndpointRetryStep({ tenantId: input.tenantId, endpointId: input.endpointId, probe })
    if (step.state === 'closed' || step.state === 'disabled') return step.state
    if (step.state === 'idle') {
      if (!wake.pending) return 'idle'
      // Deliveries were held after this workflow found none: go on with the schedule.
      wake.pending = false
      expiryAt = undefined
      nextProbeAt = Date.now() + probeDelayMs(failures + 1, input.retry, Math.random())
      continue
    }
    wake.pending = false
    expiryAt = step.nextExpiryAt
    if (probe) {
      failures++
      nextProbeAt = Date.now() + probeDelayMs(failures + 1, input.retry, Math.random(), step.retryAfterMs)
    }
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof webhookEndpointRetryWorkflow>({ ...input, failures })
    }
  }
}
