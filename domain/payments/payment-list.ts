/**
 * @module `GET /v1/payments` (spec row 9, and its deprecated alias `/v0/payments`): the tenant's payments, newest
 * first by default, filtered by order, status, method, payer, location and creation time, in keyset pages.
 */
import type { PaymentMethod, PaymentStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { withRefunds } from './payment-service.ts'

export const PAYMENT_SORTS = ['createdAt', 'amount'] as const
export type PaymentSortField = (typeof PAYMENT_SORTS)[number]

export interface ListPaymentsQuery {
  limit: number
  cursor?: string
  sort: SortParam<PaymentSortField>
  orderId?: string
  status?: PaymentStatus
  method?: PaymentMethod
  clientId?: string
  locationId?: string
  createdFrom?: Date
  createdTo?: Date
}

/** A page of payments with their refunds. @throws AppError `validation_error` for a bad cursor */
export async function listPayments({ tx, tenantId }: UnitOfWork, query: ListPaymentsQuery) {
  const list = parseList(query)
  const rows = await tx.payment.findMany({
    where: {
      AND: [
        {
          tenantId,
          orderId: query.orderId,
          status: query.status,
          method: query.method,
          clientId: query.clientId,
          locationId: query.locationId,
          createdAt: { gte: query.createdFrom, lt: query.createdTo },
        },
        keysetWhere(list),
      ],
    },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: withRefunds,
  })
  return toSortedPage(rows, list)
}
