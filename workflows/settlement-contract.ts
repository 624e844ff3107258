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
