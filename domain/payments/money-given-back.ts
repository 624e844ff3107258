/**
 * @module What an order's money given back holds of its lines, read for the rule of refund-lines.ts: the refunds
 * that hold them (PENDING or SUCCEEDED, of an applied payment; succeeded ones as they succeeded, then pending ones)
 * and the lost disputes of its applied payments whose funds were not reinstated. The refund's check reads it under
 * the order's lock; the order's view reads it for each line's `refundable` (issue 78).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { lineRefundable, type EarlierRefund, type LostDispute } from './refund-lines.ts'

interface MoneyGivenBack {
  refunds: EarlierRefund[]
  lost: LostDispute[]
}

/** The refunds and chargebacks of some orders, by order id (every id answered, empty when none). */
async function moneyGivenBackOf(
  { tx, tenantId }: UnitOfWork,
  orderIds: readonly string[]
): Promise<Map<string, MoneyGivenBack>> {
  const out = new Map<string, MoneyGivenBack>(orderIds.map((id) => [id, { refunds: [], lost: [] }]))
  if (orderIds.length === 0) return out
  const [refunds, disputes] = await Promise.all([
    tx.refund.findMany({
      where: {
        tenantId,
        orderId: { in: [...orderIds] },
        status: { in: ['PENDING', 'SUCCEEDED'] },
        payment: { unapplied: false },
      },
      select: {
        id: true,
        orderId: true,
        amount: true,
        succeededAt: true,
        lines: { select: { orderLineId: true, amount: true }, orderBy: { position: 'asc' } },
      },
      orderBy: [{ succeededAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }],
    }),
    tx.paymentDispute.findMany({
      where: {
        tenantId,
        lostAt: { not: null },
        reinstatedAt: null,
        payment: { orderId: { in: [...orderIds] }, unapplied: false },
      },
      select: { id: true, paymentId: true, amount: true, lostAt: true, payment: { select: { orderId: true } } },
    }),
  ])
  for (const r of refunds) out.get(r.orderId)?.refunds.push(r)
  for (const d of disputes) {
    if (d.lostAt)
      out.get(d.payment.orderId)?.lost.push({ id: d.id, paymentId: d.paymentId, amount: d.amount, lostAt: d.lostAt })
  }
  return out
}

/** An order as {@link refundableByLine} reads it. */
interface OrderLines {
  id: string
  /** Nothing paid: no refund or dispute can hold its lines, and nothing is read for it. */
  amountPaid: number
  lines: ReadonlyArray<{ id: string; position: number; lineTotal: number }>
}

/** What each line of some orders can still give back, by order id then line id (refund-lines.ts's rule). */
export async function refundableByLine(
  uow: UnitOfWork,
  orders: readonly OrderLines[]
): Promise<Map<string, Map<string, number>>> {
  const given = await moneyGivenBackOf(
    uow,
    orders.filter((o) => o.amountPaid > 0).map((o) => o.id)
  )
  return new Map(
    orders.map((o) => {
      const { refunds, lost } = given.get(o.id) ?? { refunds: [], lost: [] }
      const lines = o.lines.map((l) => ({ orderLineId: l.id, position: l.position, lineTotal: l.lineTotal }))
      return [o.id, lineRefundable(lines, refunds, lost)]
    })
  )
}
