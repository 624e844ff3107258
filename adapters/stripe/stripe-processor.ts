/**
 * @module The Stripe adapter behind the online-payment seam (payment-processor.ts; docs/payments.md, "Online
 * payments"), on Stripe's official `stripe` package. Card data never reaches the platform: the payer confirms the
 * PaymentIntent in Stripe's own UI (Stripe.js, Payment Element, mobile SDKs) with the client secret we hand back,
 * which keeps a centre in PCI DSS SAQ A scope. What we learn of the outcome comes from Stripe's signed webhooks.
 *
 * Every object we create carries `tenant_id` and our record's id in its metadata, which is how a webhook (which
 * carries no credential of ours) finds the one tenant and record it is about.
 */
import Stripe from 'stripe'
import type {
  OnlineProcessorEvent,
  OnlinePaymentProcessor,
  ParsedProcessorEvent,
  PaymentFailureCode,
  PayoutProcessor,
  ProcessorDispute,
  ProcessorEventSubject,
  WebhookEndpointKind,
} from './payment-processor.ts'
import { PayoutRefusedError, ProcessorRefusedError, ProcessorSignatureError } from './payment-processor.ts'
import { fromStripeAmount, stripeAmountOf, toStripeAmount } from './stripe-currencies.ts'

export interface StripeSettings {
  secretKey: string
  /**
   * The signing secrets of the platform account's webhook endpoint: several during a rotation (Stripe signs with
   * each of an endpoint's secrets while both are valid), comma-separated in the configuration.
   */
  webhookSecret: string | readonly string[]
  /** The signing secrets of the Connect endpoint (connected accounts' events); unset: that endpoint refuses all. */
  connectWebhookSecret?: string | readonly string[]
  /** Stripe's API origin; unset for Stripe itself (stripe-mock's in the tests). */
  apiBase?: string
  /** A signature older than this is refused (Stripe's own default: 5 minutes). */
  toleranceSeconds?: number
}

/** Longest one Stripe call may take; Stripe's library repeats a failed call twice, with the same idempotency key. */
const CALL_TIMEOUT_MS = 10_000

/** Why a card payment failed, from Stripe's `last_payment_error` (its `decline_code` first, then its `code`). */
export function failureCodeOf(error: { code?: string | null; decline_code?: string | null } | null | undefined) {
  const reasons = [error?.decline_code, error?.code]
  const code: PaymentFailureCode = reasons.includes('insufficient_funds')
    ? 'INSUFFICIENT_FUNDS'
    : reasons.includes('expired_card')
      ? 'EXPIRED_CARD'
      : reasons.some((r) => r === 'card_declined' || r === 'incorrect_cvc' || r === 'incorrect_number')
        ? 'CARD_DECLINED'
        : reasons.includes('payment_intent_authentication_failure')
          ? 'PAYMENT_REJECTED'
          : 'OTHER'
  return code
}

/** Our tenant and payment, from an object's metadata; undefined for an object we did not create. */
function subjectOf(metadata: Stripe.Metadata | null | undefined): ProcessorEventSubject | undefined {
  const tenantId = metadata?.tenant_id
  const paymentId = metadata?.payment_id
  return tenantId && paymentId ? { tenantId, paymentId } : undefined
}

/** An object's metadata; Stripe's types disagree across versions on whether an account always has one. */
const metadataOf = (object: { metadata?: Stripe.Metadata | null }): Stripe.Metadata => object.metadata ?? {}

/** Stripe's currencies are lower case; its amounts are in its own units (stripe-currencies.ts). */
const currencyOf = (currency: string | null | undefined) => (currency ?? '').toUpperCase()
/** A Stripe amount in our minor units of its currency. */
const ours = (amount: number, currency: string | null | undefined) => fromStripeAmount(amount, currencyOf(currency))

/** An id from a field Stripe may send as an id or as the expanded object. */
const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null)

/** A Stripe refund's state, as the platform's refund statuses. */
function refundStatusOf(status: string | null | undefined): 'PENDING' | 'SUCCEEDED' | 'FAILED' {
  if (status === 'succeeded') return 'SUCCEEDED'
  if (status === 'failed' || status === 'canceled') return 'FAILED'
  return 'PENDING'
}

/** A Stripe refund object, as the platform's `refund.updated`. */
function refundEventOf(eventId: string, refund: Stripe.Refund): OnlineProcessorEvent {
  const subject = subjectOf(refund.metadata)
  const refundId = refund.metadata?.refund_id
  return {
    kind: 'refund.updated',
    eventId,
    ...(subject && refundId ? { subject: { ...subject, refundId } } : {}),
    processorRefundId: refund.id,
    intentId: idOf(refund.payment_intent),
    amount: ours(refund.amount, refund.currency),
    currency: currencyOf(refund.currency),
    status: refundStatusOf(refund.status),
    failureMessage: refund.failure_reason ?? null,
  }
}

/**
 * A dispute's status, as the platform's: decided (won, lost), closed without a decision against the centre (an
 * inquiry's `warning_closed`, `charge_refunded`), or still open (every other Stripe status).
 */
export function disputeStatusOf(status: string): 'OPEN' | 'WON' | 'LOST' | 'CLOSED' {
  if (status === 'won') return 'WON'
  if (status === 'lost') return 'LOST'
  if (status === 'warning_closed' || status === 'charge_refunded') return 'CLOSED'
  return 'OPEN'
}

/**
 * A Stripe dispute as the platform holds one. Its balance transactions say what moved: the withdrawal (negative, with
 * the dispute fee) and, when Stripe gave the funds back, the reinstatement (positive). A lost dispute whose funds were
 * reinstated, or one Stripe says reinstated (`charge.dispute.funds_reinstated`), is the centre's again: `WON`.
 */
export function disputeOf(dispute: Stripe.Dispute, reinstated = false): ProcessorDispute {
  // Only what moved in the dispute's own currency is ours to record (a balance in another currency is converted).
  const moves = (
    (dispute.balance_transactions as Array<{ amount: number; fee: number; currency: string }> | undefined) ?? []
  ).filter((t) => t.currency === dispute.currency)
  const status = disputeStatusOf(dispute.status)
  const givenBack = reinstated || moves.some((t) => t.amount > 0)
  return {
    disputeId: dispute.id,
    intentId: idOf(dispute.payment_intent),
    amount: ours(dispute.amount, dispute.currency),
    currency: currencyOf(dispute.currency),
    status: status === 'LOST' && givenBack ? 'WON' : status,
    fee: ours(
      moves.reduce((sum, t) => sum + t.fee, 0),
      dispute.currency
    ),
  }
}

/**
 * The `purpose` in the metadata of a transfer reversal the platform makes to recover money a provider owes (a
 * clawback carried forward): booked as recovered from the provider, never as owed to them again (issue 46).
 */
export const RECOVERY_PURPOSE = 'recovery'

/**
 * What the platform took back of a transfer to recover money (its reversals whose metadata says so), in our minor
 * units. Stripe lists a transfer's first reversals with it; absent when it sends the transfer without them.
 */
export function recoveredOf(transfer: Stripe.Transfer): number {
  const reversals = (transfer.reversals as Stripe.ApiList<Stripe.TransferReversal> | undefined)?.data ?? []
  const recovered = reversals.filter((r) => metadataOf(r).purpose === RECOVERY_PURPOSE)
  return ours(
    recovered.reduce((sum, r) => sum + r.amount, 0),
    transfer.currency
  )
}

/** Maps a verified Stripe event to what the platform acts on. */
export function toProcessorEvent(event: Stripe.Event): OnlineProcessorEvent {
  const ignored = { kind: 'ignored' as const, eventId: event.id, type: event.type }
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled': {
      const intent = event.data.object
      const subject = subjectOf(intent.metadata)
      if (!subject) return ignored
      if (event.type === 'payment_intent.canceled') {
        return { kind: 'payment.canceled', eventId: event.id, intentId: intent.id, ...subject }
      }
      const money = { amount: ours(intent.amount, intent.currency), currency: currencyOf(intent.currency) }
      if (event.type === 'payment_intent.succeeded') {
        return { kind: 'payment.succeeded', eventId: event.id, intentId: intent.id, ...money, ...subject }
      }
      return {
        kind: 'payment.failed',
        eventId: event.id,
        intentId: intent.id,
        ...money,
        failureCode: failureCodeOf(intent.last_payment_error),
        failureMessage: intent.last_payment_error?.message?.slice(0, 500) ?? null,
        ...subject,
      }
    }
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated': {
      const reinstated = event.type === 'charge.dispute.funds_reinstated'
      return { kind: 'dispute.updated', eventId: event.id, ...disputeOf(event.data.object, reinstated) }
    }
    case 'account.updated': {
      const account = event.data.object
      const { tenant_id: tenantId, provider_id: providerId } = metadataOf(account)
      if (!tenantId || !providerId) return ignored
      return {
        kind: 'account.updated',
        eventId: event.id,
        tenantId,
        providerId,
        accountId: account.id,
        payoutsEnabled: account.payouts_enabled === true,
      }
    }
    case 'payout.failed': {
      // A connected account's payout to the provider's bank: the event comes from that account (Connect endpoint).
      const payout = event.data.object
      if (!event.account) return ignored
      return {
        kind: 'payout.failed',
        eventId: event.id,
        accountId: event.account,
        payoutId: payout.id,
        amount: ours(payout.amount, payout.currency),
        currency: currencyOf(payout.currency),
        failureCode: payout.failure_code ?? null,
        failureMessage: payout.failure_message ?? null,
      }
    }
    case 'transfer.reversed': {
      const transfer = event.data.object
      const { tenant_id: tenantId, transfer_id: transferId } = metadataOf(transfer)
      if (!tenantId || !transferId) return ignored
      return {
        kind: 'transfer.reversed',
        eventId: event.id,
        tenantId,
        transferId,
        processorReference: transfer.id,
        // Cumulative for this Stripe transfer; a partial reversal leaves the rest paid.
        amountReversed:
          typeof transfer.amount_reversed === 'number' ? ours(transfer.amount_reversed, transfer.currency) : 0,
        amountRecovered: recoveredOf(transfer),
      }
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      return refundEventOf(event.id, event.data.object)
    case 'charge.refunded': {
      // Stripe sends `refund.created` for each refund too; a charge's event adds nothing when its refunds are not
      // listed in it, and each refund listed is applied like its own event (by the refund's id, once).
      const refunds = event.data.object.refunds?.data ?? []
      const [latest] = [...refunds].sort((a, b) => b.created - a.created)
      return latest ? refundEventOf(event.id, latest) : ignored
    }
    default:
      return ignored
  }
}

/** Stripe's client, pointed at `apiBase` when one is given. */
export function stripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : undefined
  return new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: CALL_TIMEOUT_MS,
    appInfo: { name: 'therapy-care-platform' },
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  })
}

/** The envelope of a verified Stripe event: what is checked before anything in it is applied. */
function envelopeOf(event: Stripe.Event) {
  const object = event.data.object as { id?: unknown }
  return {
    eventId: event.id,
    type: event.type,
    livemode: event.livemode,
    account: event.account ?? null,
    // Stripe always sends `created`; an event without one is ordered as if it happened on arrival.
    occurredAt: Number.isFinite(event.created) ? new Date(event.created * 1000) : new Date(),
    objectId: typeof object.id === 'string' ? object.id : null,
  }
}

const secretsOf = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value

/** Stripe's answer to cancelling an intent that is already past cancelling. */
const isUnexpectedState = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'payment_intent_unexpected_state'

/** The Stripe processor: online payments, and marketplace payouts through Connect. */
export function stripeProcessor(settings: StripeSettings): OnlinePaymentProcessor & PayoutProcessor {
  const stripe = stripeClient(settings)
  const secrets: Record<WebhookEndpointKind, readonly string[]> = {
    platform: secretsOf(settings.webhookSecret),
    connect: secretsOf(settings.connectWebhookSecret),
  }
  return {
    name: 'stripe',
    livemode: settings.secretKey.startsWith('sk_live_') || settings.secretKey.startsWith('rk_live_'),
    async cancelPaymentIntent({ intentId, idempotencyKey }) {
      try {
        const intent = await stripe.paymentIntents.cancel(
          intentId,
          { cancellation_reason: 'abandoned' },
          { idempotencyKey }
        )
        return intent.status === 'succeeded' ? 'succeeded' : 'canceled'
      } catch (error) {
        if (!isUnexpectedState(error)) throw error
        // Already succeeded (the payer finished just before), or already cancelled: Stripe's own word on which.
        const intent = await stripe.paymentIntents.retrieve(intentId)
        if (intent.status === 'succeeded') return 'succeeded'
        if (intent.status === 'canceled') return 'canceled'
        throw error
      }
    },
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
    async createPaymentIntent(input) {
      const intent = await stripe.paymentIntents.create(
        {
          amount: stripeAmountOf(input.amount, input.currency),
          currency: input.currency.toLowerCase(),
          automatic_payment_methods: { enabled: true },
          metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, order_id: input.orderId },
        },
        { idempotencyKey: input.idempotencyKey }
      )
      if (!intent.client_secret) throw new Error(`Stripe returned PaymentIntent ${intent.id} without a client secret`)
      return { id: intent.id, clientSecret: intent.client_secret }
    },
    unchargeable(amount, currency) {
      const sent = toStripeAmount(amount, currency)
      return 'refused' in sent ? sent.refused : undefined
    },
    async createRefund(input) {
      const sent = toStripeAmount(input.amount, input.currency)
      if ('refused' in sent) throw new ProcessorRefusedError(sent.refused)
      let refund: Stripe.Refund
      try {
        refund = await stripe.refunds.create(
          {
            payment_intent: input.intentId,
            amount: sent.amount,
            metadata: { tenant_id: input.tenantId, payment_id: input.paymentId, refund_id: input.refundId },
          },
          { idempotencyKey: input.idempotencyKey }
        )
      } catch (error) {
        // Stripe's own refusal (already refunded, amount above what is left): final. Anything else is retried.
        if (error instanceof Stripe.errors.StripeInvalidRequestError) throw new ProcessorRefusedError(error.message)
        throw error
      }
      return { id: refund.id, status: refundStatusOf(refund.status), failureMessage: refund.failure_reason ?? null }
    },
    async retrieveAccount(accountId) {
      const account = await stripe.accounts.retrieve(accountId)
      return { payoutsEnabled: account.payouts_enabled === true }
    },
    async retrieveDispute(disputeId) {
      return disputeOf(await stripe.disputes.retrieve(disputeId))
    },
    async retrieveRefund(processorRefundId) {
      const refund = await stripe.refunds.retrieve(processorRefundId)
      return { id: refund.id, status: refundStatusOf(refund.status), failureMessage: refund.failure_reason ?? null }
    },
    async findRefund({ intentId, refundId }) {
      // Every refund of the intent, ours told apart by the id we put in its metadata.
      for await (const refund of stripe.refunds.list({ payment_intent: intentId, limit: 100 })) {
        if (metadataOf(refund).refund_id === refundId) {
          return { id: refund.id, status: refundStatusOf(refund.status), failureMessage: refund.failure_reason ?? null }
        }
      }
      return undefined
    },
    parseWebhook(rawBody, signature, endpoint = 'platform'): ParsedProcessorEvent {
      // Every secret of the endpoint is tried (a rotation); none configured verifies nothing.
      let lastError: unknown = new Error(`No signing secret is configured for the ${endpoint} endpoint.`)
      for (const secret of secrets[endpoint]) {
        try {
          const event = stripe.webhooks.constructEvent(rawBody, signature ?? '', secret, settings.toleranceSeconds)
          return { envelope: envelopeOf(event), event: toProcessorEvent(event) }
        } catch (error) {
          lastError = error
        }
      }
      throw new ProcessorSignatureError(lastError instanceof Error ? lastError.message : String(lastError))
    },
  }
}
