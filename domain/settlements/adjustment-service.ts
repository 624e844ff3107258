/**
 * @module Payout adjustments (`/v1/marketplace/adjustments`): a signed amount a provider is owed (a bonus, a
 * correction) or owes back (a chargeback), paid by the first settlement of its currency whose period ends after it
 * was recorded. Never edited or deleted: a wrong adjustment is corrected by another one, so the books keep both.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { PayoutAdjustmentReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { isCurrency } from '../pricing/currencies.ts'
import { MAX_AMOUNT } from '../pricing/money.ts'

export const ADJUSTMENT_REASONS = [
  'BONUS',
  'CORRECTION',
  'CHARGEBACK',
  'EXPENSE_REIMBURSEMENT',
  'OTHER',
] as const satisfies readonly PayoutAdjustmentReason[]
export const ADJUSTMENT_SORTS = ['createdAt'] as const

export interface AdjustmentInput {
  providerId: string
  amount: number
  currency: string
  reason: PayoutAdjustmentReason
  description?: string
}

const withSettlement = (tenantId: string, ids: string[]) => ({
  tenantId,
  dedupeKey: { in: ids.map((id) => `ADJUSTMENT:${id}`) },
})

/** Adjustments with the provider settlement that paid each (null until one has). */
async function withSettledBy<T extends { id: string }>({ tx, tenantId }: UnitOfWork, rows: T[]) {
  const items = await tx.settlementItem.findMany({
    where: withSettlement(
      tenantId,
      rows.map((r) => r.id)
    ),
    select: { adjustmentId: true, providerSettlementId: true },
  })
  const paidBy = new Map(items.map((i) => [i.adjustmentId!, i.providerSettlementId]))
  return rows.map((row) => ({ ...row, providerSettlementId: paidBy.get(row.id) ?? null }))
}

/**
 * Records an adjustment.
 * @throws AppError `validation_error` (unknown provider or currency, zero or too large an amount)
 */
export async function createAdjustment(uow: UnitOfWork, input: AdjustmentInput) {
  const { tx, tenantId } = uow
  const errors: FieldError[] = []
  if (!isCurrency(input.currency))
    errors.push({ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' })
  if (input.amount === 0)
    errors.push({ path: 'amount', code: 'zero_amount', message: 'An adjustment moves money: not 0.' })
  if (Math.abs(input.amount) > MAX_AMOUNT)
    errors.push({ path: 'amount', code: 'amount_too_large', message: `At most ${MAX_AMOUNT} minor units either way.` })
  if ((await tx.provider.count({ where: { tenantId, id: input.providerId } })) === 0) {
    errors.push({ path: 'providerId', code: 'not_found', message: 'No provider with this id.' })
  }
  if (errors.length) throw validationError(errors)
  const row = await tx.payoutAdjustment.create({
    data: { id: newId('payoutAdjustment'), tenantId, ...input, description: input.description ?? null },
  })
  return { ...row, providerSettlementId: null }
}

/** One adjustment. @throws AppError `not_found` */
export async function getAdjustment(uow: UnitOfWork, id: string) {
  const row = await uow.tx.payoutAdjustment.findFirst({ where: { id, tenantId: uow.tenantId } })
  if (!row) throw notFound('adjustment', id)
  return (await withSettledBy(uow, [row]))[0]!
}

/** A page of the tenant's adjustments. */
export async function listAdjustments(
  uow: UnitOfWork,
  query: {
    limit: number
    cursor?: string
    sort: SortParam<(typeof ADJUSTMENT_SORTS)[number]>
    providerId?: string
    currency?: string
  }
) {
  const list = parseList(query)
  const filters: Prisma.PayoutAdjustmentWhereInput[] = [
    { tenantId: uow.tenantId },
    ...(query.providerId ? [{ providerId: query.providerId }] : []),
    ...(query.currency ? [{ currency: query.currency }] : []),
  ]
  const rows = await uow.tx.payoutAdjustment.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.PayoutAdjustmentWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  const page = toSortedPage(rows, list)
  return { data: await withSettledBy(uow, page.data), nextCursor: page.nextCursor }
}
