/**
 * @module The marketplace settlement workflow: one run per settlement (`settlement-<settlementId>`), started through
 * the workflow outbox when the API accepts a settlement. It marks the run RUNNING and lists the providers to settle,
 * settles them one at a time (each in its own transaction, each idempotent, so a retry or a worker crash mid-way
 * never pays anyone twice), transfers each provider's payout to their connected account when a payout processor is
 * configured (domain/payouts/payout-transfers.ts), then marks the run COMPLETED. When an activity keeps failing the run is marked FAILED
 * with the reason, which the API reports; asking for the same settlement again starts it anew and it resumes where
 * it stopped (providers already settled answer their recorded outcome).
 */
import { isCancellation, patched, proxyActivities } from '@temporalio/workflow'
import {
  settlementFailureReason,
  type SettlementActivities,
  type SettlementWorkflowInput,
  type SettlementWorkflowOutcome,
} from '../common/settlements/settlement-contract.ts'

const { beginSettlement, settleSettlementProvider, prepareSettlementPayouts, completeSettlement } =
  proxyActivities<SettlementActivities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
  })

/**
 * One call to the payout processor: its client gives up after three tries of 10 s. The activity heartbeats every 3 s,
 * so a worker that dies during it is noticed in 10 s (not at the end of the 40 s), and the transfer is sent again with
 * the same idempotency key.
 */
const { sendSettlementPayout } = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '40 seconds',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
})

const { failSettlement } = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 30 },
})

/** Settles every provider of one run and reports the outcome. */
export async function settlementWorkflow(input: SettlementWorkflowInput): Promise<SettlementWorkflowOutcome> {
  try {
    const providerIds = await beginSettlement(input)
    for (const providerId of providerIds) await settleSettlementProvider({ ...input, providerId })
    // Runs started before payouts existed replay without these steps.
    if (patched('settlement-payouts')) {
      // One transfer at a time: each is recorded before it is sent and sent with its own idempotency key, so a
      // crash at any point resends at most the one in flight, which the processor recognises.
      for (const transferId of await prepareSettlementPayouts(input)) {
        await sendSettlementPayout({ ...input, transferId })
      }
    }
    await completeSettlement(input)
    return { status: 'COMPLETED', providers: providerIds.length }
  } catch (error) {
    // A cancelled run ends cancelled rather than reporting a failure (failSettlement could not be scheduled in the
    // cancelled scope anyway, so the commands are the same as before).
    if (isCancellation(error)) throw error
    const reason = settlementFailureReason(error)
    await failSettlement({ ...input, reason })
    return { status: 'FAILED', providers: 0, reason }
  }
}
