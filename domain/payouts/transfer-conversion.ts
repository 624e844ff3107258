/**
 * @module Payouts from a balance the processor converted (issue 78, item 1; docs/marketplace.md, "Payouts from a
 * converted balance"). A tenant whose Stripe balance keeps another currency than its payers pay in has each charge
 * settled in that currency (the payment's `settled_currency` and `settled_amount`, from its balance transaction), and
 * Stripe transfers only from what the balance holds: a transfer in the charged currency is refused. A settlement stays
 * in the charged currency (what providers earn and owe is priced there); its transfer is sent in the balance's
 * currency at the rate of the charges that paid its sessions, with no outside rate source. Pure, but for the loader.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { transferableOf } from '../settlements/settlement-totals.ts'

/** What a transfer sends in: the balance's currency and minor units of it per minor unit of the settlement's. */
export interface Conversion {
  currency: string
  rate: number
}

/** A session the settlement paid: its order and its gross, the weight of its order's rate. */
export interface SessionWeight {
  orderId: string
  amount: number
}

/** A succeeded payment of one of those orders, as the processor settled it (null: in its own currency). */
export interface ChargeSettled {
  orderId: string
  amount: number
  settledCurrency: string | null
  settledAmount: number | null
}

/**
 * How a settlement in `currency` is sent: each session valued at the rate of the charges that paid its order (their
 * settled amount over their amount, per balance currency), weighted by its gross. The balance currency most of the
 * sessions' value was settled in decides; the rate is over the sessions settled in it. Undefined when that is the
 * settlement's own currency, or no session was paid through the processor: sent as it is.
 */
export function conversionOf(
  currency: string,
  sessions: readonly SessionWeight[],
  charges: readonly ChargeSettled[]
): Conversion | undefined {
  // Per order and balance currency: what was charged and what the balance kept.
  const byOrder = new Map<string, Map<string, { charged: number; kept: number }>>()
  for (const charge of charges) {
    if (charge.amount <= 0) continue
    const kept = charge.settledCurrency ?? currency
    const perCurrency = byOrder.get(charge.orderId) ?? new Map<string, { charged: number; kept: number }>()
    const sum = perCurrency.get(kept) ?? { charged: 0, kept: 0 }
    sum.charged += charge.amount
    sum.kept += charge.settledCurrency === null ? charge.amount : (charge.settledAmount ?? 0)
    perCurrency.set(kept, sum)
    byOrder.set(charge.orderId, perCurrency)
  }
  // Per balance currency: the sessions' value settled in it, and that value at its orders' rates.
  const weights = new Map<string, { value: number; converted: number }>()
  for (const session of sessions) {
    const perCurrency = byOrder.get(session.orderId)
    if (!perCurrency || session.amount <= 0) continue
    const charged = [...perCurrency.values()].reduce((sum, s) => sum + s.charged, 0)
    for (const [kept, sum] of perCurrency) {
      // An order paid in two balance currencies (two cards, the account's setting changed) splits by what each paid.
      const value = (session.amount * sum.charged) / charged
      const weight = weights.get(kept) ?? { value: 0, converted: 0 }
      weight.value += value
      weight.converted += (value * sum.kept) / sum.charged
      weights.set(kept, weight)
    }
  }
  const [top] = [...weights.entries()].sort(([a, x], [b, y]) => y.value - x.value || a.localeCompare(b))
  if (!top || top[0] === currency || top[1].converted <= 0) return undefined
  return { currency: top[0], rate: top[1].converted / top[1].value }
}

/**
 * What to send for `amount` of the settlement's currency: at the transfer's rate to the nearest minor unit, then
 * rounded down to what the processor transfers in the balance's currency (never more than owed). The part lost to the
 * rounding stays in the balance; the books show it in `fx_conversion`.
 */
export const sentAmountOf = (amount: number, conversion: Conversion, unit: number): number =>
  transferableOf(Math.max(0, Math.round(amount * conversion.rate)), unit)

/**
 * What the processor taking back `sentReversed` of an attempt that sent `sent` for `amount` is in the settlement's
 * currency: the same share of it, all of it when all was taken.
 */
export function reversedShareOf(sentReversed: number, sent: number, amount: number): number {
  if (sentReversed >= sent) return amount
  return Math.min(amount, Math.round((sentReversed * amount) / sent))
}

const CHARGE = { orderId: true, amount: true, settledCurrency: true, settledAmount: true } as const

/**
 * Reads what {@link conversionOf} weighs for a provider settlement: its sessions and their orders' charges. A
 * settlement none of whose sessions was charged through the processor (adjustments, a balance carried, sessions paid
 * in cash) follows the tenant's latest charge in its currency: where Stripe keeps that currency now, at its rate.
 */
export async function loadConversion(
  { tx, tenantId }: UnitOfWork,
  providerSettlementId: string,
  currency: string
): Promise<Conversion | undefined> {
  const items = await tx.settlementItem.findMany({
    where: { tenantId, providerSettlementId, kind: 'SESSION', orderId: { not: null } },
    select: { orderId: true, amount: true },
  })
  const sessions = items.map((i) => ({ orderId: i.orderId!, amount: i.amount }))
  const charged = { tenantId, status: 'SUCCEEDED' as const, currency, processor: { not: 'recorded' } }
  const charges =
    sessions.length === 0
      ? []
      : await tx.payment.findMany({
          where: { ...charged, orderId: { in: [...new Set(sessions.map((s) => s.orderId))] } },
          select: CHARGE,
        })
  if (charges.length > 0) return conversionOf(currency, sessions, charges)
  const latest = await tx.payment.findFirst({ where: charged, select: CHARGE, orderBy: { createdAt: 'desc' } })
  return latest ? conversionOf(currency, [latest], [latest]) : undefined
}

/**
 * Of `amount` owed (the settlement's currency), what can be sent: rounded down to the processor's unit in it, and none
 * when a converted transfer of it would send nothing in the balance's currency (the rest is carried).
 */
export function sendableOf(
  amount: number,
  unit: (currency: string) => number,
  currency: string,
  conversion: Conversion | undefined
): number {
  const sendable = transferableOf(amount, unit(currency))
  return conversion && sentAmountOf(sendable, conversion, unit(conversion.currency)) === 0 ? 0 : sendable
}

/** A transfer's conversion, as its row records it. */
export const conversionOfTransfer = (transfer: {
  sentCurrency: string | null
  sentRate: number | null
}): Conversion | undefined =>
  transfer.sentCurrency === null || transfer.sentRate === null
    ? undefined
    : { currency: transfer.sentCurrency, rate: transfer.sentRate }
