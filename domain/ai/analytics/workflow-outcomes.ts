/**
 * @module Workflow outcomes from Temporal visibility: the tenant's executions started in a range, counted per
 * WorkflowKind and execution status. Every query is filtered by the TenantId search attribute (set on every start,
 * domain/workflow-runs/workflow-outbox.ts), so another tenant's runs are never counted. One `count … GROUP BY
 * ExecutionStatus` per catalogued kind plus one for the tenant's total (visibility groups by status only), so the
 * cost does not grow with the number of runs.
 */
import { rethrowIfTransactionHeld } from '../../../infra/network-guard.ts'
import { AGENT_RUN_KIND } from '../../../common/agents/agent-run-contract.ts'
import { ASSESSMENT_REMINDER_KIND } from '../../../common/assessments/assessment-reminder-contract.ts'
import { CHILD_PROGRESS_KIND } from '../../../common/child-progress/child-progress-contract.ts'
import { APPOINTMENT_WORKFLOW_KIND } from '../../../common/appointments/appointment-workflow-contract.ts'
import { EARLY_INTERVENTION_KIND } from '../../../common/early-intervention/early-intervention-contract.ts'
import { KNOWLEDGE_INDEXING_KIND } from '../../../common/knowledge/knowledge-indexing-contract.ts'
import { KNOWLEDGE_REEMBED_KIND } from '../../../common/knowledge/knowledge-reembed-contract.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../../common/provider-onboarding/provider-onboarding-contract.ts'
import { SETTLEMENT_KIND } from '../../../common/settlements/settlement-contract.ts'
import { WEBHOOK_DELIVERY_KIND } from '../../../common/webhooks/webhook-delivery-contract.ts'
import { dependencyUnavailable } from '../../errors.ts'
import { otherKinds, type StatusCounts, type WorkflowCategory } from './ai-analytics-rules.ts'
import type { AnalyticsWorkflowCalls } from './analytics-workflow-calls.ts'

/**
 * The WorkflowKind values the platform starts, with the category each is reported under. `agent-run` is the agent
 * workflows' kind (Trigger → Agent → Action).
 */
export const WORKFLOW_KINDS: ReadonlyArray<{ kind: string; category: WorkflowCategory }> = [
  { kind: AGENT_RUN_KIND, category: 'AGENT' },
  { kind: ASSESSMENT_REMINDER_KIND, category: 'CARE' },
  { kind: EARLY_INTERVENTION_KIND, category: 'CARE' },
  { kind: CHILD_PROGRESS_KIND, category: 'CARE' },
  { kind: PROVIDER_ONBOARDING_KIND, category: 'CARE' },
  { kind: APPOINTMENT_WORKFLOW_KIND, category: 'BOOKING' },
  { kind: KNOWLEDGE_INDEXING_KIND, category: 'PLATFORM' },
  { kind: KNOWLEDGE_REEMBED_KIND, category: 'PLATFORM' },
  { kind: WEBHOOK_DELIVERY_KIND, category: 'PLATFORM' },
  { kind: SETTLEMENT_KIND, category: 'PLATFORM' },
]

export interface KindOutcome extends StatusCounts {
  kind: string
  category: WorkflowCategory
}

export interface WorkflowOutcomes {
  total: StatusCounts
  byKind: KindOutcome[]
  otherKinds: StatusCounts
}

/** A visibility string literal: ids and kinds are plain, but quote-escaping keeps a stray quote from changing the query. */
const literal = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/**
 * Counts the tenant's executions started in [start, end).
 * @param locationId - only executions with this LocationId search attribute
 * @throws AppError `dependency_unavailable` when Temporal does not answer
 */
export async function workflowOutcomes(
  workflow: AnalyticsWorkflowCalls,
  tenantId: string,
  range: { start: Date; end: Date },
  locationId?: string
): Promise<WorkflowOutcomes> {
  const base =
    `TenantId = ${literal(tenantId)} AND StartTime >= ${literal(range.start.toISOString())} AND StartTime < ${literal(range.end.toISOString())}` +
    (locationId ? ` AND LocationId = ${literal(locationId)}` : '')
  const count = (extra: string) => workflow.countByStatus(`${base}${extra}`)
  try {
    const [total, ...kinds] = await Promise.all([
      count(''),
      ...WORKFLOW_KINDS.map((k) => count(` AND WorkflowKind = ${literal(k.kind)}`)),
    ])
    const byKind = WORKFLOW_KINDS.map((k, i) => ({ kind: k.kind, category: k.category, ...kinds[i]! }))
    return { total, byKind, otherKinds: otherKinds(total, kinds) }
  } catch (err) {
    rethrowIfTransactionHeld(err)
    // Only the outcome section depends on Temporal, but a partial answer would read as "zero runs": refuse instead.
    throw dependencyUnavailable('workflow visibility', err)
  }
}
