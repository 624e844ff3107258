/**
 * @module Reserves in a provider settlement, pure (docs/marketplace.md, "Reserves"; issue 58, item 4).
 *
 * Stripe withdraws a disputed amount from the platform's balance when the dispute opens, and a pending refund is money
 * on its way back to the payer. Paying the provider their share of it in full and taking it back only once the
 * dispute is lost or the refund succeeds leaves the clawback to earnings the provider may never have. So a settlement
 * whose end finds a dispute open or a refund pending holds back, from each of the provider's lines, what the
 * chargeback or refund would take from it then: the line's share `r` (as {@link refundShares} would give it, after
 * everything that counts) less the platform fee it would return `f`; the item keeps `r` and `f`, and holds `r − f`.
 * The first settlement whose end is after the dispute or refund closed gives back exactly what was held (a
 * RESERVE_RELEASE copying the RESERVE), whatever the outcome: the CHARGEBACK or REFUND a lost dispute or a succeeded
 * refund makes is taken by the rules of chargebacks.ts as before, so release plus chargeback is one chargeback, and a
 * provider is never charged twice for one dispute nor paid out what was held.
 *
 * A reserve is made once per dispute or refund and line (its dedupe key), never recomputed: a share that changes
 * while it is held (another refund succeeding meanwhile) is taken at its new value by the real item, and the reserve
 * gives back what it held.
 */
import {
  feeReturned,
  refundShares,
  type OrderRefund,
  type SessionCharge,
  type WeightedLine,
} from './settlement-math.ts'

/** What a reserve is held for: a refund not yet final, or a processor dispute not yet decided. */
export type ReserveSource = 'REFUND' | 'DISPUTE'

/** A refund pending, or a dispute open, at a settlement's end, on a payment its order applied. */
export interface PendingMoney {
  source: ReserveSource
  /** The refund's or the dispute's id. */
  id: string
  /** A dispute's payment. */
  paymentId?: string
  amount: number
  /** When it was recorded (epoch ms): a reserve is not earned before it. */
  openedAt: number
  /** The lines a refund names (issue 58, item 2); none: shared by weight, as a dispute always is. */
  lines?: ReadonlyArray<{ orderLineId: string; amount: number }>
}

/** What a reserve item names: its refund or dispute, the line, the line's share and the fee that share returns. */
interface ReserveLine {
  source: ReserveSource
  sourceId: string
  paymentId?: string
  orderLineId: string
  /** The line's share of the disputed or refunding amount. */
  amount: number
  /** The platform fee that share would return: the provider's part held is amount − fee. */
  fee: number
}

/** A RESERVE a settlement made on a line, and what became of its refund or dispute by this settlement's end. */
export interface HeldReserve extends ReserveLine {
  /** A RESERVE_RELEASE of it exists. */
  released: boolean
  /** When its refund or dispute stopped being pending or open, when that was before the end (epoch ms); else null. */
  closedAt: number | null
}

/** A reserve made or released on one line. */
export interface ReserveMovement extends ReserveLine {
  kind: 'RESERVE' | 'RESERVE_RELEASE'
  /** When it happened: the refund or dispute was recorded (RESERVE), or closed (RESERVE_RELEASE). */
  at: number
}

/** What a reserve item holds from the provider's payable balance (negative for a release). */
export const heldBy = (item: { kind: string; amount: number; feeAmount: number }): number =>
  item.kind === 'RESERVE'
    ? item.amount - item.feeAmount
    : item.kind === 'RESERVE_RELEASE'
      ? -(item.amount - item.feeAmount)
      : 0

/** The dedupe key of a reserve item: one per refund or dispute and line. */
export const reserveKey = (kind: ReserveMovement['kind'], sourceId: string, orderLineId: string) =>
  `${kind}:${sourceId}:${orderLineId}`

/**
 * What a settlement holds back and gives back on the provider's lines of one order.
 *
 * - Each reserve held on a charged line whose refund or dispute closed before the end, and never released: released,
 *   for exactly what it held.
 * - Each refund pending and dispute open at the end: its share of each charged line, computed as if it went back now,
 *   after everything that counts (in the order they were recorded), is held back once, when positive.
 *
 * @param allLines - every line of the order, for the shares
 * @param charges - the provider's charged lines of the order (payable now or settled before), by order line id
 * @param givenBack - the order's refunds and lost disputes that count at the end, capped (chargebacks.ts,
 *   moneyGivenBack)
 * @param pending - the order's refunds pending and disputes open at the end
 * @param held - the RESERVE items settled before on the order's lines
 * @returns releases first, then reserves
 */
export function reserveMovements(
  allLines: readonly WeightedLine[],
  charges: ReadonlyMap<string, SessionCharge>,
  givenBack: readonly OrderRefund[],
  pending: readonly PendingMoney[],
  held: readonly HeldReserve[],
  currency: string
): ReserveMovement[] {
  const out: ReserveMovement[] = []
  for (const h of held) {
    if (h.released || h.closedAt === null || !charges.has(h.orderLineId)) continue
    out.push({
      kind: 'RESERVE_RELEASE',
      source: h.source,
      sourceId: h.sourceId,
      ...(h.paymentId !== undefined ? { paymentId: h.paymentId } : {}),
      orderLineId: h.orderLineId,
      amount: h.amount,
      fee: h.fee,
      at: h.closedAt,
    })
  }
  const reserved = new Set(held.map((h) => reserveKey('RESERVE', h.sourceId, h.orderLineId)))
  const ordered = [...pending].sort((a, b) => a.openedAt - b.openedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  // Never more than the lines still hold after what counts, as for refunds and chargebacks themselves.
  let room = allLines.reduce((sum, l) => sum + l.lineTotal, 0) - givenBack.reduce((sum, r) => sum + r.amount, 0)
  const hypothetical: OrderRefund[] = ordered.flatMap((p) => {
    const amount = Math.min(p.amount, Math.max(room, 0))
    room -= amount
    return amount > 0
      ? [{ refundId: p.id, amount, succeededAt: p.openedAt, ...(p.lines ? { lines: p.lines } : {}) }]
      : []
  })
  const shares = refundShares(allLines, [...givenBack, ...hypothetical])
  for (const p of ordered) {
    for (const share of shares) {
      const charge = charges.get(share.orderLineId)
      if (share.refundId !== p.id || !charge || share.amount <= 0) continue
      if (reserved.has(reserveKey('RESERVE', p.id, share.orderLineId))) continue
      out.push({
        kind: 'RESERVE',
        source: p.source,
        sourceId: p.id,
        ...(p.paymentId !== undefined ? { paymentId: p.paymentId } : {}),
        orderLineId: share.orderLineId,
        amount: share.amount,
        fee: feeReturned(charge, share.before, share.after, currency),
        at: p.openedAt,
      })
    }
  }
  return out
}
