/**
 * @module Marketplace payouts through Stripe Connect (docs/marketplace.md, "Payouts"): an Express connected account
 * per provider (Stripe hosts its onboarding and the provider's dashboard), a one-time onboarding link, the account read
 * back, and a transfer per provider settlement, found again by the metadata we gave it and read back with all its
 * reversals.
 */
import Stripe from 'stripe'
import { PayoutRefusedError, type PayoutProcessor } from '../../domain/payouts/payout-processor.ts'
import { stripeAmountUnit, toStripeAmount } from './stripe-currencies.ts'
import { metadataOf, ours } from './stripe-objects.ts'
import { takenBackOf } from './stripe-transfer-reversals.ts'

/** What of the payout seam these calls fill (the rest is the processor's name). */
export type StripeConnect = Omit<PayoutProcessor, 'name'>

/** Connected accounts and transfers over `stripe`. */
export function stripeConnect(stripe: Stripe): StripeConnect {
  return {
    async createConnectedAccount({ tenantId, providerId, idempotencyKey }) {
      // Express: Stripe hosts onboarding and the provider's dashboard; the platform only transfers to it.
      const account = await stripe.accounts.create(
        {
          type: 'express',
          capabilities: { transfers: { requested: true } },
          metadata: { tenant_id: tenantId, provider_id: providerId },
        },
        { idempotencyKey }
      )
      return { accountId: account.id }
    },
    async createOnboardingLink({ accountId, refreshUrl, returnUrl }) {
      const link = await stripe.accountLinks.create({
        account: accountId,
        refresh_url: refreshUrl,
        return_url: returnUrl,
        type: 'account_onboarding',
      })
      return { url: link.url, expiresAt: new Date(link.expires_at * 1000) }
    },
    async retrieveAccount(accountId) {
      const account = await stripe.accounts.retrieve(accountId)
      return { payoutsEnabled: account.payouts_enabled === true }
    },
    async retrieveTransfer(processorReference) {
      return takenBackOf(stripe, await stripe.transfers.retrieve(processorReference))
    },
    transferUnit: (currency) => stripeAmountUnit(currency, 'transfer'),
    async createTransfer(input) {
      const sent = toStripeAmount(input.amount, input.currency, 'transfer')
      if ('refused' in sent) throw new PayoutRefusedError(sent.refused)
      try {
        const transfer = await stripe.transfers.create(
          {
            amount: sent.amount,
            currency: input.currency.toLowerCase(),
            destination: input.accountId,
            transfer_group: input.settlementId,
            metadata: {
              tenant_id: input.tenantId,
              transfer_id: input.transferId,
              attempt: String(input.attempt),
              provider_id: input.providerId,
            },
          },
          { idempotencyKey: input.idempotencyKey }
        )
        return { id: transfer.id }
      } catch (error) {
        // Stripe's own refusal of this request (balance too low, account cannot receive): the same request would be
        // refused again. Connection errors, rate limits and Stripe's 5xx are thrown as they are, to be retried.
        if (
          error instanceof Stripe.errors.StripeInvalidRequestError ||
          error instanceof Stripe.errors.StripePermissionError
        ) {
          throw new PayoutRefusedError(error.message)
        }
        throw error
      }
    },
    async findTransfer({ transferId, attempt, settlementId }) {
      // Every transfer of a settlement carries it as its transfer group; ours are told apart by their metadata.
      for await (const transfer of stripe.transfers.list({ transfer_group: settlementId, limit: 100 })) {
        const metadata = metadataOf(transfer)
        if (metadata.transfer_id === transferId && metadata.attempt === String(attempt)) {
          return {
            id: transfer.id,
            amount: ours(transfer.amount, transfer.currency),
            amountReversed: ours(transfer.amount_reversed, transfer.currency),
          }
        }
      }
      return undefined
    },
  }
}
