/**
 * @module Posting one journal entry of the marketplace ledger (journal.ts): the entry and its lines, in the unit's
 * transaction, where the database checks that they balance at commit. Every posting goes through here: settlements,
 * payout transfers, money moving for payments, refunds and disputes.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import type { JournalLine } from './journal.ts'

/** What an entry says besides its lines: one of its links, when it has one, names what it records. */
export interface EntryOf {
  currency: string
  description: string
  postedAt: Date
  providerSettlementId?: string
  payoutTransferId?: string
  collectionOf?: string
}

/** Posts one entry with its lines (none when there is no line). @returns the entry's id, or null when nothing moved */
export async function postEntry(
  { tx, tenantId }: UnitOfWork,
  entry: EntryOf,
  lines: Array<JournalLine & { settlementItemId?: string }>
): Promise<string | null> {
  if (lines.length === 0) return null
  const entryId = newId('ledgerEntry')
  await tx.ledgerEntry.create({ data: { id: entryId, tenantId, ...entry } })
  await tx.ledgerLine.createMany({
    data: lines.map((line) => ({
      id: newId('ledgerLine'),
      tenantId,
      entryId,
      ...line,
      currency: line.currency ?? entry.currency,
    })),
  })
  return entryId
}
