/**
 * @module The contract of the marketplace settlement workflow, shared by the API (which starts it through the
 * outbox) and the workflow: ids only, never amounts or names.
 */

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
