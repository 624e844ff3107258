/**
 * @module What the API does with a child's progress follow-up workflow: starts it when the child is registered
 * (through the workflow outbox, in the registration's transaction), tells it when the child is archived, asks it for a
 * summary now (a Temporal update-with-start, so a child whose follow-ups were stopped — or registered before they
 * existed — gets them back; the workflow accepts the period and the API records that report in its own transaction),
 * stops it (cancellation), and shows its state (reports, the open follow-up, the next summary from its query).
 *
 * The request never waits for a workflow activity while its transaction is open: activities need the database too,
 * and a request holding a transaction (and its row locks) while waiting for them could wait for ever.
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import type { Prisma } from '../../generated/prisma/client.ts'
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
import { callWorkflow } from '../workflow-runs/workflow-calls.ts'
import { AppError, invalidStateTransition, notFound } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../common/child-progress/progress-rules.ts'
import {
  DEFAULT_LOOKBACK_DAYS,
  PROGRESS_FOLLOW_UP_NOTIFICATION,
  closeProgressFollowUps,
  recordProgressSummary,
} from './progress-store.ts'

export interface ProgressFollowUpsDeps {
  outbox: WorkflowOutbox
  temporal: Client
  logger: Logger
  taskQueue: string
  intervalDays: number
  /** Length of a day (CARE_WORKFLOW_DAY_MS); tests shorten it. */
  dayMs: number
}

export const REPORT_SORTS = ['periodEnd', 'createdAt'] as const

export interface ReportListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof REPORT_SORTS)[number]>
}

async function activeChild({ tx, tenantId }: UnitOfWork, childId: string) {
  const child = await tx.child.findFirst({ where: { id: childId, tenantId }, select: { id: true, archivedAt: true } })
  if (!child) throw notFound('child', childId)
  return child
}

/** Creates the API side of the progress follow-ups. */
export function createProgressFollowUps(deps: ProgressFollowUpsDeps) {
  const inputOf = (tenantId: string, childId: string): ChildProgressInput => ({
    tenantId,
    childId,
    intervalDays: deps.intervalDays,
    ...(deps.dayMs !== 86_400_000 ? { dayMs: deps.dayMs } : {}),
  })
  const summaryOf = (childId: string) => `Child progress follow-up: child ${childId}`
  const detailsOf = (tenantId: string, childId: string) =>
    [
      `Progress summary of child \`${childId}\` (tenant \`${tenantId}\`) every ${deps.intervalDays} days from signed SOAP`,
      'notes and assessments, and a follow-up when an active goal stalls. Figures live in the database only.',
      '',
      `State: \`GET /v1/children/${childId}/progress\` · reports: \`…/progress/reports\``,
    ].join('\n')

  /** In the registration's unit of work: the child's follow-ups start after commit. */
  async function childRegistered(uow: UnitOfWork, childId: string): Promise<void> {
    await deps.outbox.enqueue(uow, {
      workflowType: CHILD_PROGRESS_WORKFLOW,
      workflowId: childProgressWorkflowId(uow.tenantId, childId),
      args: [inputOf(uow.tenantId, childId)],
      searchAttributes: { TenantId: uow.tenantId, WorkflowKind: CHILD_PROGRESS_KIND, ChildId: childId },
      summary: summaryOf(childId),
      details: detailsOf(uow.tenantId, childId),
    })
  }

  /** In the archive's unit of work: the workflow re-reads the child after commit and ends. */
  function childArchived(uow: UnitOfWork, childId: string): void {
    uow.afterCommit(async () => {
      await callWorkflow(deps.temporal, 'progress follow-up', () =>
        deps.temporal.workflow
          .getHandle(childProgressWorkflowId(uow.tenantId, childId))
          .signal(childProgressChangedSignal)
      ).catch((error: unknown) =>
        deps.logger.warn({ childId, err: error }, 'progress follow-up not told of the archive')
      )
    })
  }

  /**
   * A summary of the last interval, made now by the workflow (started if it is not running).
   * @returns the recorded report (none when the workflow refused)
   * @throws AppError `not_found`, `invalid_state_transition` (archived), `dependency_unavailable`
   */
  async function requestSummary(uow: UnitOfWork, childId: string, now: Date) {
    const child = await activeChild(uow, childId)
    if (child.archivedAt) throw invalidStateTransition('The child is archived.')
    const workflowId = childProgressWorkflowId(uow.tenantId, childId)
    const start = new WithStartWorkflowOperation(CHILD_PROGRESS_WORKFLOW, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [inputOf(uow.tenantId, childId)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: new TypedSearchAttributes([
        { key: searchAttributeKeys.TenantId, value: uow.tenantId },
        { key: searchAttributeKeys.WorkflowKind, value: CHILD_PROGRESS_KIND },
        { key: searchAttributeKeys.ChildId, value: childId },
      ]),
      staticSummary: summaryOf(childId),
      staticDetails: detailsOf(uow.tenantId, childId),
    })
    // Holding no transaction while the workflow answers; the report is then written in the unit's next one.
    const accepted = await uow.release(() =>
      callWorkflow(deps.temporal, 'progress follow-up', () =>
        deps.temporal.workflow.executeUpdateWithStart(requestProgressSummaryUpdate, { startWorkflowOperation: start })
      )
    )
    // The workflow decided the period; the report is recorded here (the workflow's own recording is then a no-op).
    const outcome = await recordProgressSummary(
      uow,
      {
        childId,
        trigger: accepted.trigger,
        periodStart: accepted.periodStart,
        periodEnd: accepted.periodEnd,
        lookbackMs: DEFAULT_LOOKBACK_DAYS * deps.dayMs,
        policy: DEFAULT_PROGRESS_POLICY,
      },
      now
    )
    const report = outcome.reportId
      ? await uow.tx.childProgressReport.findFirst({ where: { id: outcome.reportId, tenantId: uow.tenantId } })
      : null
    if (!report) throw invalidStateTransition('The summary was not recorded.')
    return report
  }

  /**
   * Stops the periodic summaries: cancels the workflow and the open follow-up (reports stay). Idempotent.
   * @returns the child's progress afterwards (as `view`)
   */
  async function stop(uow: UnitOfWork, childId: string, now: Date) {
    await activeChild(uow, childId)
    // Both Temporal calls in one release, before the writes: the writes then commit with the request's records.
    const state = await uow.release(async () => {
      await callWorkflow(deps.temporal, 'progress follow-up', () =>
        deps.temporal.workflow.getHandle(childProgressWorkflowId(uow.tenantId, childId)).cancel()
      ).catch((error: unknown) => {
        // Not running (never started, already stopped or closed): stopped is what was asked for.
        if (!(error instanceof AppError && error.code === 'invalid_state_transition')) throw error
      })
      return schedule(uow.tenantId, childId)
    })
    await closeProgressFollowUps(uow, childId, now)
    return { ...(await progressRecords(uow, childId)), state }
  }

  /** The workflow's own view of its schedule; null when it is not running (or Temporal cannot say right now). */
  async function schedule(
    tenantId: string,
    childId: string
  ): Promise<(ChildProgressState & { running: true }) | { running: false } | null> {
    try {
      const handle = deps.temporal.workflow.getHandle(childProgressWorkflowId(tenantId, childId))
      const described = await deps.temporal.withDeadline(Date.now() + 3000, () => handle.describe())
      if (described.status.name !== 'RUNNING') return { running: false }
      const state = await deps.temporal.withDeadline(Date.now() + 3000, () => handle.query(childProgressStateQuery))
      return { ...state, running: true }
    } catch (error) {
      rethrowIfTransactionHeld(error)
      if (error instanceof WorkflowNotFoundError) return { running: false }
      deps.logger.warn({ childId, err: error }, 'progress follow-up state unavailable')
      return null
    }
  }

  /** The latest report and the open follow-up of a child (one transaction runs one statement at a time). */
  async function progressRecords(uow: UnitOfWork, childId: string) {
    const latest = await uow.tx.childProgressReport.findFirst({
      where: { childId, tenantId: uow.tenantId },
      orderBy: [{ periodEnd: 'desc' }, { id: 'desc' }],
    })
    const followUp = await uow.tx.careNotification.findFirst({
      where: {
        tenantId: uow.tenantId,
        childId,
        workflowKind: CHILD_PROGRESS_KIND,
        kind: PROGRESS_FOLLOW_UP_NOTIFICATION,
        status: 'OPEN',
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    })
    return { childId, workflowId: childProgressWorkflowId(uow.tenantId, childId), latest, followUp }
  }

  /** The child's progress: the workflow's schedule, the latest report and the open follow-up. */
  async function view(uow: UnitOfWork, childId: string) {
    await activeChild(uow, childId)
    const records = await progressRecords(uow, childId)
    // The database first, then the workflow holding no transaction.
    const state = await uow.release(() => schedule(uow.tenantId, childId))
    return { ...records, state }
  }

  /** A page of the child's reports. */
  async function listReports(uow: UnitOfWork, childId: string, query: ReportListQuery) {
    await activeChild(uow, childId)
    const list = parseList(query)
    const rows = await uow.tx.childProgressReport.findMany({
      where: { AND: [{ childId, tenantId: uow.tenantId }, keysetWhere(list) as Prisma.ChildProgressReportWhereInput] },
      orderBy: keysetOrderBy(list),
      take: list.limit + 1,
    })
    return toSortedPage(rows, list)
  }

  return { childRegistered, childArchived, requestSummary, stop, view, listReports }
}

export type ProgressFollowUps = ReturnType<typeof createProgressFollowUps>
