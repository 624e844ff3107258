/**
 * @module Staff tasks: what an agent run asks a person at the centre to do. OPEN until someone marks it DONE (and it
 * can be reopened). Created only by the `create_staff_task` action (agent-action-effects.ts), idempotently.
 */
import type { Prisma, StaffTask } from '../../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { notFound } from '../../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, type SortParam, toSortedPage } from '../../listing.ts'

export type { StaffTask }

export interface StaffTaskListQuery {
  limit: number
  cursor?: string
  sort: SortParam<'createdAt'>
  status?: 'OPEN' | 'DONE'
  agentRunId?: string
}

/** A page of the tenant's staff tasks. */
export async function listStaffTasks({ tx, tenantId }: UnitOfWork, query: StaffTaskListQuery) {
  const page = parseList(query)
  const rows = await tx.staffTask.findMany({
    where: {
      AND: [
        { tenantId },
        ...(query.status ? [{ status: query.status }] : []),
        ...(query.agentRunId ? [{ agentRunId: query.agentRunId }] : []),
        keysetWhere(page) as Prisma.StaffTaskWhereInput,
      ],
    },
    orderBy: keysetOrderBy(page),
    take: page.limit + 1,
  })
  return toSortedPage(rows, page)
}

/** Sets a task's status; DONE records when. @throws AppError `not_found` */
export async function setStaffTaskStatus(
  { tx, tenantId }: UnitOfWork,
  id: string,
  status: 'OPEN' | 'DONE'
): Promise<StaffTask> {
  const task = await tx.staffTask.findFirst({ where: { id, tenantId } })
  if (!task) throw notFound('staff task', id)
  if (task.status === status) return task
  return tx.staffTask.update({ where: { id }, data: { status, completedAt: status === 'DONE' ? new Date() : null } })
}
