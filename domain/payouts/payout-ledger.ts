/**
 * @module The books of a payout transfer (docs/marketplace.md, "The ledger"): with a payout processor, a settlement
 * moves a provider's payout from `provider_payable:<provider>` to `payouts_in_transit:<provider>`, and the money leaves
 * the platform's `clearing` account only when an attempt of the transfer is paid, in an entry of its own linked to the
 * transfer; a reversal brings it back, owed to the provider again, in transit, unless the platform made it to recover
 * what the provider owed (a recovery: it settles their payable balance). Append-only, like every entry.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { postEntry } from '../settlements/post-entry.ts'
import { inTransitAccount, transferLines, type SentMoney, type TransferMovement } from '../settlements/journal.ts'

export interface TransferForBooks {
  id: string
  providerId: string
  providerSettlementId: string
  currency: string
}

/**
 * Whether the settlement posted this transfer's payout in transit (so its money moving is booked here). A settlement
 * posted without a payout processor, or before transfers were booked, moved the payout out of clearing at once.
 */
async function postedInTransit({ tx, tenantId }: UnitOfWork, transfer: TransferForBooks): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ one: number }>>`
    SELECT 1 AS one FROM settlement_items si
    JOIN ledger_lines ll ON ll.settlement_item_id = si.id AND ll.tenant_id = si.tenant_id
    WHERE si.tenant_id = ${tenantId} AND si.dedupe_key = ${`PAYOUT:${transfer.providerSettlementId}`}
      AND ll.account = ${inTransitAccount(transfer.providerId)}
    LIMIT 1`
  return rows.length > 0
}

/**
 * Books money moving for a transfer: `PAID` (an attempt arrived), `REVERSED` (the processor took some back, owed
 * again), `RECOVERED` (taken back to recover what the provider owed) or `CARRIED` (below the processor's transferable
 * unit: back to the provider's payable balance for their next settlement).
 * @param amount - positive minor units
 * @param reference - the processor's transfer, for the entry's description
 * @param sent - what moved on a balance kept in another currency (a converted transfer's PAID, REVERSED, RECOVERED)
 */
export async function bookTransferMoney(
  uow: UnitOfWork,
  transfer: TransferForBooks,
  movement: TransferMovement,
  amount: number,
  reference: string,
  now: Date,
  sent?: SentMoney
): Promise<void> {
  if (amount <= 0 || !(await postedInTransit(uow, transfer))) return
  await postEntry(
    uow,
    {
      currency: transfer.currency,
      providerSettlementId: transfer.providerSettlementId,
      payoutTransferId: transfer.id,
      description: `Payout transfer ${transfer.id}: ${movement.toLowerCase()} (${reference})`,
      postedAt: now,
    },
    transferLines(movement, transfer.providerId, amount, sent)
  )
}
