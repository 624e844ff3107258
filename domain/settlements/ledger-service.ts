/**
 * @module Reading the marketplace ledger: account balances (a trial balance: debits and credits of every account,
 * which sum to zero because every entry does) and the journal entries with their lines.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'

export const ENTRY_SORTS = ['postedAt'] as const

export interface AccountBalance {
  account: string
  currency: string
  debit: number
  credit: number
  /** debit − credit: positive for assets and expenses, negative for what is owed and earned. */
  balance: number
}

/**
 * Every account's totals, computed in the database.
 * @param filter - one currency and/or accounts starting with a prefix (e.g. `provider_payable:`)
 */
export async function accountBalances(
  { tx, tenantId }: UnitOfWork,
  filter: { currency?: string; accountPrefix?: string }
): Promise<AccountBalance[]> {
  const rows = await tx.ledgerLine.groupBy({
    by: ['account', 'currency'],
    where: {
      tenantId,
      ...(filter.currency ? { currency: filter.currency } : {}),
      ...(filter.accountPrefix ? { account: { startsWith: filter.accountPrefix } } : {}),
    },
    _sum: { debit: true, credit: true },
    orderBy: [{ currency: 'asc' }, { account: 'asc' }],
  })
  return rows.map((r) => {
    const debit = r._sum.debit ?? 0
    const credit = r._sum.credit ?? 0
    return { account: r.account, currency: r.currency, debit, credit, balance: debit - credit }
  })
}

const withLines = {
  lines: { orderBy: [{ debit: 'desc' }, { account: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.LedgerEntryInclude

/** A page of journal entries, optionally of one settlement run, provider or currency. */
export async function listEntries(
  { tx, tenantId }: UnitOfWork,
  query: {
    limit: number
    cursor?: string
    sort: SortParam<(typeof ENTRY_SORTS)[number]>
    settlementId?: string
    providerId?: string
    currency?: string
  }
) {
  const list = parseList(query)
  const filters: Prisma.LedgerEntryWhereInput[] = [
    { tenantId },
    ...(query.currency ? [{ currency: query.currency }] : []),
    ...(query.settlementId ? [{ providerSettlement: { settlementId: query.settlementId } }] : []),
    ...(query.providerId ? [{ providerSettlement: { providerId: query.providerId } }] : []),
  ]
  const rows = await tx.ledgerEntry.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.LedgerEntryWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: { ...withLines, providerSettlement: { select: { settlementId: true, providerId: true } } },
  })
  return toSortedPage(rows, list)
}
