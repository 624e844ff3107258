/**
 * @module The contract of the marketplace settlement workflow, shared by the API (which starts it through the
 * outbox) and the workflow: ids only, never amounts or names.
 */
import { ApplicationFailure } from '@temporalio/common'

export const SETTLEMENT_WORKFLOW = 'settlementWorkflow'
export const SETTLEMENT_KIND = 'marketplace_settlement'

/** One workflow per settlement run; a failed run started again reuses the id (a new run of the same workflow). */
export const settlementWorkflowId = (settlementId: string) => `settlement-${settlementId}`

export interface SettlementWorkflowInput {
  tenantId: string
  settlementId: string
}

export interface SettlementWorkflowOutcome {
  status: 'COMPLETED' | 'FAILED'
  providers: number
  reason?: string
}

/** What a run that gave up records when no activity said why (the database down, retries run out). */
export const SETTLEMENT_GAVE_UP =
  'Settling failed repeatedly (the database was unavailable or a provider could not be settled); request the settlement again to resume it.'

/**
 * The reason recorded when an activity of the run gives up: a business refusal's own message (a non-retryable
 * ApplicationFailure, usually the cause of the ActivityFailure the workflow sees), else {@link SETTLEMENT_GAVE_UP}.
 * The history holds the details; the API shows only this.
 * @param error - what the workflow caught
 */
export function settlementFailureReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof ApplicationFailure ? error.cause : error
  if (cause instanceof ApplicationFailure && cause.nonRetryable) return cause.message
  return SETTLEMENT_GAVE_UP
}

/** What settling one provider of the run answers: settled now, or found settled by an earlier attempt. */
export interface SettledProvider {
  outcome: 'SETTLED' | 'ALREADY_SETTLED'
  providerSettlementId: string
}

/** A payout transfer's status after a send (the `PayoutTransferStatus` enum of prisma/schema.prisma). */
export type PayoutTransferState = 'PENDING' | 'PAID' | 'FAILED' | 'REVERSED' | 'PARTIALLY_REVERSED' | 'BLOCKED'

/**
 * The settlement activities (activities/settlement-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface SettlementActivities {
  /** Marks the run RUNNING and lists the providers to settle, in id order. */
  beginSettlement: (input: SettlementWorkflowInput) => Promise<string[]>
  /** Settles one provider of the run (or answers what was recorded for it). */
  settleSettlementProvider: (input: SettlementWorkflowInput & { providerId: string }) => Promise<SettledProvider>
  /** Records a transfer for every payout of the run and lists those to send; none without a payout processor. */
  prepareSettlementPayouts: (input: SettlementWorkflowInput) => Promise<string[]>
  /** Sends one payout transfer (again, with the same idempotency key, after a crash or a retry). */
  sendSettlementPayout: (input: SettlementWorkflowInput & { transferId: string }) => Promise<PayoutTransferState>
  /** Marks the run COMPLETED. */
  completeSettlement: (input: SettlementWorkflowInput) => Promise<void>
  /** Marks the run FAILED with the reason (unless it completed meanwhile). */
  failSettlement: (input: SettlementWorkflowInput & { reason: string }) => Promise<void>
}
