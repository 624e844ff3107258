/**
 * @module Reserves at the moment money leaves (issue 78, item 3; docs/marketplace.md, "Reserves"). A settlement holds
 * back the provider's share of the disputes open and refunds pending at its end (reserves.ts); one opened between the
 * settlement and its transfer used to be paid out in full and come back only as a negative balance on a later
 * settlement, from earnings the provider may never have. So the transfer step asks what a settlement made at that
 * moment would take or hold from the provider (the items of settlement-items.ts for their settled sessions: lost
 * disputes and succeeded refunds not yet taken, reserves for those open or pending, releases and reversals of those
 * that closed), and holds back whatever of it the provider's payable balance does not already cover. What is held is
 * carried back to that balance, never sent; the next settlement reserves it while the dispute or refund is open,
 * takes it once lost or succeeded, and pays it when released.
 *
 * Measured against the balance, not per transfer, so it is never held twice: a retry of the same transfer, or the
 * next transfer of the provider, finds what an earlier hold carried on the payable balance already.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { payableBalance } from '../settlements/provider-terms.ts'
import { heldBy } from '../settlements/reserves.ts'
import { NO_FEE } from '../settlements/settlement-math.ts'
import { refundItems, type ItemRow } from '../settlements/settlement-items.ts'

/** What items a settlement would make take from the provider's payable balance, net (negative: they would give). */
export function takenBy(items: ReadonlyArray<Pick<ItemRow, 'kind' | 'amount' | 'feeAmount'>>): number {
  return items.reduce((sum, item) => {
    const net = item.amount - item.feeAmount
    switch (item.kind) {
      case 'REFUND':
      case 'CHARGEBACK':
        return sum + net
      case 'REFUND_REVERSAL':
      case 'CHARGEBACK_REVERSAL':
        return sum - net
      default:
        return sum + heldBy(item)
    }
  }, 0)
}

/**
 * What a transfer of the provider's money in `currency` must hold back at `now`: what a settlement made now would
 * take or hold from them, less what their payable balance holds for it (never below 0).
 * Reads under the provider's row lock, as settlements do, so no settlement of theirs moves the balance meanwhile.
 */
export async function heldAtTransfer(
  uow: UnitOfWork,
  providerId: string,
  currency: string,
  now: Date
): Promise<number> {
  await uow.tx.$queryRaw`SELECT id FROM providers WHERE id = ${providerId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  // Settled sessions only: one not yet settled was never paid, and its own settlement nets its refunds and disputes.
  const items = await refundItems(uow, { providerId, currency, end: now }, [], NO_FEE)
  const taken = takenBy(items)
  if (taken <= 0) return 0
  return Math.max(0, taken - Math.max(0, await payableBalance(uow, providerId, currency)))
}
