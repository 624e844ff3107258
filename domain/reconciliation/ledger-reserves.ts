/**
 * @module The ledger check's rule on reserves (ledger-check.ts, rule 8; docs/marketplace.md, "Reserves"): what each
 * provider's reserve account holds is what their reserves not yet released hold, never less than nothing, and every
 * release gives back exactly what its reserve held. A release of more, or a reserve released twice, would pay the
 * provider money the processor took; a reserve booked and never released would keep their money for good.
 */
import type { LedgerViolation } from './ledger-check.ts'

/** A RESERVE or RESERVE_RELEASE item, with the provider and currency of its settlement. */
export interface ReserveItemFact {
  kind: 'RESERVE' | 'RESERVE_RELEASE'
  /** Its refund's or dispute's id. */
  sourceId: string
  orderLineId: string
  providerId: string
  currency: string
  amount: number
  fee: number
}

/** The sums of the lines of one `provider_reserve:<provider>` account in one currency. */
export interface ReserveAccountFact {
  providerId: string
  currency: string
  debit: number
  credit: number
}

export interface ReserveFacts {
  items: ReserveItemFact[]
  accounts: ReserveAccountFact[]
}

/** The violations of the reserve rule. Pure. */
export function reserveViolations({ items, accounts }: ReserveFacts): LedgerViolation[] {
  const violations: LedgerViolation[] = []
  const key = (i: { sourceId: string; orderLineId: string }) => `${i.sourceId}:${i.orderLineId}`
  const reserves = new Map<string, ReserveItemFact[]>()
  const releases = new Map<string, ReserveItemFact[]>()
  for (const item of items) {
    const into = item.kind === 'RESERVE' ? reserves : releases
    into.set(key(item), [...(into.get(key(item)) ?? []), item])
  }
  for (const [k, released] of releases) {
    const [reserve, ...more] = reserves.get(k) ?? []
    const [release] = released
    if (
      !reserve ||
      more.length > 0 ||
      released.length > 1 ||
      release!.amount !== reserve.amount ||
      release!.fee !== reserve.fee
    ) {
      violations.push({
        rule: 'reserve_release',
        subject: k,
        detail:
          `${released.length} release(s) of ${release!.amount} (fee ${release!.fee}) against ` +
          `${reserve ? `${1 + more.length} reserve(s) of ${reserve.amount} (fee ${reserve.fee})` : 'no reserve'}.`,
      })
    }
  }
  const holding = new Map<string, number>()
  for (const [k, [reserve]] of reserves) {
    if (!reserve || releases.has(k)) continue
    const account = `${reserve.providerId}:${reserve.currency}`
    holding.set(account, (holding.get(account) ?? 0) + reserve.amount - reserve.fee)
  }
  const balances = new Map(accounts.map((a) => [`${a.providerId}:${a.currency}`, a.credit - a.debit]))
  for (const account of new Set([...holding.keys(), ...balances.keys()])) {
    const held = holding.get(account) ?? 0
    const balance = balances.get(account) ?? 0
    if (balance !== held || balance < 0) {
      violations.push({
        rule: 'reserve_balance',
        subject: `provider_reserve:${account}`,
        detail: `The account holds ${balance}; its reserves not released hold ${held}.`,
      })
    }
  }
  return violations
}
