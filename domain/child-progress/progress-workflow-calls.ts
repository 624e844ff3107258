/**
 * @module What the API asks of a child's progress follow-up workflow (the shape every domain file that calls Temporal
 * has: docs/workflows.md, "Calls into Temporal"): a signal after the child is archived, the workflow's schedule, a
 * summary now (an update-with-start, so a child whose follow-ups were stopped gets them back), and its cancellation.
 * Each call is bounded (`callWorkflow`: 503 `dependency_unavailable` when Temporal cannot answer) and made holding no
 * transaction.
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import type { Logger } from '../../infra/logger.ts'
import { rethrowIfTransactionHeld } from '../../infra/network-guard.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  CHILD_PROGRESS_KIND,
  CHILD_PROGRESS_WORKFLOW,
  childProgressChangedSignal,
  childProgressStateQuery,
  childProgressWorkflowId,
  requestProgressSummaryUpdate,
  type ChildProgressInput,
  type ChildProgressState,
} from '../../common/child-progress/child-progress-contract.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { AppError } from '../errors.ts'
import { callWorkflow } from '../workflow-runs/workflow-calls.ts'

export interface ProgressWorkflowCallsDeps {
  temporal: Client
  logger: Logger
  taskQueue: string
}

/** How a run is started when a summary starts it: its input and what the Temporal UI shows of it. */
export interface ProgressRunStart {
  input: ChildProgressInput
  summary: string
  details: string
}

/** Creates the calls over a Temporal client. */
export function createProgressWorkflowCalls({ temporal, logger, taskQueue }: ProgressWorkflowCallsDeps) {
  const handleOf = (tenantId: string, childId: string) =>
    temporal.workflow.getHandle(childProgressWorkflowId(tenantId, childId))

  return {
    /** In the archive's unit of work: the workflow re-reads the child after commit and ends. */
    childArchived(uow: UnitOfWork, childId: string): void {
      uow.afterCommit(async () => {
        await callWorkflow(temporal, 'progress follow-up', () =>
          handleOf(uow.tenantId, childId).signal(childProgressChangedSignal)
        ).catch((error: unknown) => logger.warn({ childId, err: error }, 'progress follow-up not told of the archive'))
      })
    },

    /** The workflow's own view of its schedule; null when Temporal cannot say right now. */
    async schedule(
      tenantId: string,
      childId: string
    ): Promise<(ChildProgressState & { running: true }) | { running: false } | null> {
      try {
        const handle = handleOf(tenantId, childId)
        const described = await temporal.withDeadline(Date.now() + 3000, () => handle.describe())
        if (described.status.name !== 'RUNNING') return { running: false }
        const state = await temporal.withDeadline(Date.now() + 3000, () => handle.query(childProgressStateQuery))
        return { ...state, running: true }
      } catch (error) {
        rethrowIfTransactionHeld(error)
        if (error instanceof WorkflowNotFoundError) return { running: false }
        logger.warn({ childId, err: error }, 'progress follow-up state unavailable')
        return null
      }
    },

    /** A summary of the last interval, made now by the workflow, started when it is not running. */
    summarizeNow(tenantId: string, childId: string, run: ProgressRunStart) {
      const start = new WithStartWorkflowOperation(CHILD_PROGRESS_WORKFLOW, {
        workflowId: childProgressWorkflowId(tenantId, childId),
        taskQueue,
        args: [run.input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: new TypedSearchAttributes([
          { key: searchAttributeKeys.TenantId, value: tenantId },
          { key: searchAttributeKeys.WorkflowKind, value: CHILD_PROGRESS_KIND },
          { key: searchAttributeKeys.ChildId, value: childId },
        ]),
        staticSummary: run.summary,
        staticDetails: run.details,
      })
      return callWorkflow(temporal, 'progress follow-up', () =>
        temporal.workflow.executeUpdateWithStart(requestProgressSummaryUpdate, { startWorkflowOperation: start })
      )
    },

    /** Cancels the run; one not running (never started, stopped, closed) is stopped already. */
    async cancel(tenantId: string, childId: string): Promise<void> {
      await callWorkflow(temporal, 'progress follow-up', () => handleOf(tenantId, childId).cancel()).catch(
        (error: unknown) => {
          if (!(error instanceof AppError && error.code === 'invalid_state_transition')) throw error
        }
      )
    },
  }
}

export type ProgressWorkflowCalls = ReturnType<typeof createProgressWorkflowCalls>
