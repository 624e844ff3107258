/**
 * @module The reconciliation workflow (docs/payments.md, "Reconciliation"): one run compares a tenant's payments,
 * refunds, disputes and payout transfers with the processor's over a `created` window and records every difference
 * as a finding. Started daily by the tenant's Temporal Schedule (`reconciliation-<tenantId>`) and on request
 * (`POST /v1/reconciliation/runs`). Orchestration only: the work is one activity, which only reads the processor, so
 * a retry or a crash repeats it harmlessly (a difference found again is the same finding).
 */
import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow'
import {
  describeOutcome,
  type ReconciliationActivities,
  type ReconciliationWorkflowInput,
  type ReconciliationWorkflowOutcome,
} from '../common/reconciliation/reconciliation-contract.ts'

/**
 * Listing a day's objects is a few pages; a large tenant's many. The activity heartbeats after each page, so a dead
 * worker is noticed within two minutes, and a processor that is down is retried for about 40 minutes.
 */
const { reconcileWithProcessor } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
})

/** Reconciles one tenant once and reports what it found. */
export async function reconciliationWorkflow(
  input: ReconciliationWorkflowInput
): Promise<ReconciliationWorkflowOutcome> {
  const outcome = await reconcileWithProcessor({ ...input, runId: workflowInfo().workflowId })
  setCurrentDetails(describeOutcome(outcome))
  return outcome
}
