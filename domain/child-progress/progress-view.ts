/**
 * @module A child's progress as the API shows it: the workflow's schedule, the latest report, the open follow-up, and
 * the pages of reports.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { CHILD_PROGRESS_KIND, childProgressWorkflowId } from '../../common/child-progress/child-progress-contract.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { PROGRESS_FOLLOW_UP_NOTIFICATION } from './progress-store.ts'
import { activeChild } from './progress-follow-up-parts.ts'
import type { ProgressWorkflowCalls } from './progress-workflow-calls.ts'

export const REPORT_SORTS = ['periodEnd', 'createdAt'] as const

export interface ReportListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof REPORT_SORTS)[number]>
}

/** The latest report and the open follow-up of a child (one transaction runs one statement at a time). */
export async function progressRecords(uow: UnitOfWork, childId: string) {
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
export async function progressView(calls: Pick<ProgressWorkflowCalls, 'schedule'>, uow: UnitOfWork, childId: string) {
  await activeChild(uow, childId)
  const records = await progressRecords(uow, childId)
  // The database first, then the workflow holding no transaction.
  const state = await uow.release(() => calls.schedule(uow.tenantId, childId))
  return { ...records, state }
}

/** A page of the child's reports. */
export async function listProgressReports(uow: UnitOfWork, childId: string, query: ReportListQuery) {
  await activeChild(uow, childId)
  const list = parseList(query)
  const rows = await uow.tx.childProgressReport.findMany({
    where: { AND: [{ childId, tenantId: uow.tenantId }, keysetWhere(list) as Prisma.ChildProgressReportWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}
