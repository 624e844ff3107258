/**
 * @module The payout processor's seam (docs/marketplace.md, "Payouts"): what the platform asks of the processor that
 * pays providers (Stripe Connect, adapters/stripe/stripe-connect.ts), and its refusal of a transfer.
 */

/**
 * Marketplace payouts through the processor (Stripe Connect): a connected account per provider, onboarded on the
 * processor's own pages, and a transfer per provider settlement (docs/marketplace.md, "Payouts").
 */
export interface PayoutProcessor {
  readonly name: string
  createConnectedAccount(input: { tenantId: string; providerId: string; idempotencyKey: string }): Promise<{
    accountId: string
  }>
  /** A connected account as the processor holds it now (asked when two of its events cannot be ordered). */
  retrieveAccount(accountId: string): Promise<{ payoutsEnabled: boolean }>
  /**
   * What the processor has taken back of one of its transfers so far, read from the transfer and all of its reversals
   * (asked when an event about it listed only some): all of it, cumulative, and the part reversed to recover what the
   * provider owed, in minor units of the transfer's currency.
   */
  retrieveTransfer(processorReference: string): Promise<{ amountReversed: number; amountRecovered: number }>
  /** A one-time link to the processor's onboarding pages for the account (it expires within minutes). */
  createOnboardingLink(input: { accountId: string; refreshUrl: string; returnUrl: string }): Promise<{
    url: string
    expiresAt: Date
  }>
  /**
   * The smallest amount of `currency` (ISO minor units) the processor transfers; every transfer is a multiple of it
   * (Stripe: 100 for HUF and TWD, whole units; 10 for BHD; 1 for most). Payouts are rounded down to it and the rest is
   * carried to the provider's next settlement, so a transfer is never refused for its amount's last digits.
   */
  transferUnit(currency: string): number
  /**
   * @throws PayoutRefusedError when the processor refuses the transfer itself (retrying the same request cannot help)
   */
  createTransfer(input: {
    tenantId: string
    transferId: string
    /** Which attempt of the transfer this is (in the processor's metadata, for {@link PayoutProcessor.findTransfer}). */
    attempt: number
    settlementId: string
    providerId: string
    accountId: string
    amount: number
    currency: string
    idempotencyKey: string
  }): Promise<{ id: string }>
  /**
   * The processor's transfer made for one attempt of ours, if any: asked before an attempt is sent again after the
   * processor may have forgotten its idempotency key (24 hours), so that a transfer it made is never made twice.
   */
  findTransfer(input: {
    transferId: string
    attempt: number
    settlementId: string
  }): Promise<{ id: string; amount: number; amountReversed: number } | undefined>
}

/** A transfer the processor refused (no funds, account unable to receive): final for this attempt. */
export class PayoutRefusedError extends Error {}
