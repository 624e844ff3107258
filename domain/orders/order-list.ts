/**
 * @module `GET /v1/orders` (spec row 7): the tenant's orders, newest first by default, filtered by status, payer,
 * child, location and creation time, in keyset pages (domain/listing.ts).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import type { OrderStatus } from './order-status.ts'

export const ORDER_SORTS = ['createdAt', 'updatedAt', 'total', 'balance'] as const
export type OrderSortField = (typeof ORDER_SORTS)[number]

export interface ListOrdersQuery {
  limit: number
  cursor?: string
  sort: SortParam<OrderSortField>
  status?: OrderStatus
  clientId?: string
  childId?: string
  locationId?: string
  /** Created at or after this instant. */
  createdFrom?: Date
  /** Created before this instant. */
  createdTo?: Date
}

/** A page of orders with their lines. @throws AppError `validation_error` for a bad cursor */
export async function listOrders({ tx, tenantId }: UnitOfWork, query: ListOrdersQuery) {
  const list = parseList(query)
  const rows = await tx.order.findMany({
    where: {
      AND: [
        {
          tenantId,
          status: query.status,
          clientId: query.clientId,
          childId: query.childId,
          locationId: query.locationId,
          createdAt: { gte: query.createdFrom, lt: query.createdTo },
        },
        keysetWhere(list),
      ],
    },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: { lines: { orderBy: { position: 'asc' } } },
  })
  return toSortedPage(rows, list)
}
