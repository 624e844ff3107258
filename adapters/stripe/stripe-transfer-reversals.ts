/**
 * @module What Stripe has taken back of a transfer, read from all of its reversals (issue 58). Stripe embeds only a
 * transfer's ten most recent reversals in it (stripe-objects.ts, `embeddedReversals`); when `has_more` says there are
 * more, the rest are listed from `GET /v1/transfers/{id}/reversals`, so a recovery made before the last ten still
 * counts as recovered instead of being owed to the provider again. Read by the reconciliation's source and by the
 * payout seam's `retrieveTransfer`, which a webhook's event that listed only some reversals is settled by.
 */
import type Stripe from 'stripe'
import { embeddedReversals, ours, recoveredAmong } from './stripe-objects.ts'

/** Stripe's largest page. */
const PAGE = 100

/** Every reversal of `transfer`: those it embeds, then (when they are not all) the rest, listed after them. */
export async function allReversalsOf(stripe: Stripe, transfer: Stripe.Transfer): Promise<Stripe.TransferReversal[]> {
  const { reversals, complete } = embeddedReversals(transfer)
  if (complete) return reversals
  const all = [...reversals]
  // Listed newest first, as embedded: the rest start after the last one embedded (all of them when none was).
  const last = reversals.at(-1)
  const rest = stripe.transfers.listReversals(transfer.id, {
    limit: PAGE,
    ...(last ? { starting_after: last.id } : {}),
  })
  for await (const reversal of rest) all.push(reversal)
  return all
}

/**
 * What Stripe has taken back of a transfer so far, in our minor units: all of it (its cumulative `amount_reversed`) and
 * the part the platform reversed to recover what the provider owed (`purpose: recovery`), over all its reversals.
 */
export async function takenBackOf(
  stripe: Stripe,
  transfer: Stripe.Transfer
): Promise<{ amountReversed: number; amountRecovered: number }> {
  return {
    amountReversed: ours(transfer.amount_reversed, transfer.currency),
    amountRecovered: recoveredAmong(await allReversalsOf(stripe, transfer), transfer.currency),
  }
}
