/**
 * @module What the analytics ask of Temporal (the shape every domain file that calls Temporal has: docs/workflows.md,
 * "Calls into Temporal"): a visibility count of executions, grouped by execution status. Building the query, and
 * keeping it to one tenant, is workflow-outcomes.ts's.
 */
import type { Client } from '@temporalio/client'
import { toStatusCounts, type StatusCounts } from './ai-analytics-rules.ts'

/** Creates the calls over a Temporal client. */
export function createAnalyticsWorkflowCalls({ temporal }: { temporal: Client }) {
  return {
    /** The executions a visibility query matches, by execution status. */
    countByStatus: async (query: string): Promise<StatusCounts> =>
      toStatusCounts(await temporal.workflow.count(`${query} GROUP BY ExecutionStatus`)),
  }
}

export type AnalyticsWorkflowCalls = ReturnType<typeof createAnalyticsWorkflowCalls>
