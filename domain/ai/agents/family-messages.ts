/**
 * @module Messages to a child's family recorded by agent runs (`message_family`). No e-mail or SMS provider exists, so
 * the row is the message: the centre's staff (or an integrator's messaging system, polling this list) deliver it.
 */
import type { FamilyMessage, Prisma } from '../../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { keysetOrderBy, keysetWhere, parseList, type SortParam, toSortedPage } from '../../listing.ts'

export type { FamilyMessage }

export interface FamilyMessageListQuery {
  limit: number
  cursor?: string
  sort: SortParam<'createdAt'>
  childId?: string
  agentRunId?: string
}

/** A page of the tenant's family messages. */
export async function listFamilyMessages({ tx, tenantId }: UnitOfWork, query: FamilyMessageListQuery) {
  const page = parseList(query)
  const rows = await tx.familyMessage.findMany({
    where: {
      AND: [
        { tenantId },
        ...(query.childId ? [{ childId: query.childId }] : []),
        ...(query.agentRunId ? [{ agentRunId: query.agentRunId }] : []),
        keysetWhere(page) as Prisma.FamilyMessageWhereInput,
      ],
    },
    orderBy: keysetOrderBy(page),
    take: page.limit + 1,
  })
  return toSortedPage(rows, page)
}
