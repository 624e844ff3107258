/**
 * @module What an online processor's signed events say, as the platform reads them (docs/payments.md, "Processor
 * events"): the kinds the books take (payments, refunds, disputes, connected accounts, payouts, transfer reversals),
 * the envelope every event carries, and a verified webhook. The adapter maps the processor's own events to these
 * (adapters/stripe/stripe-events.ts); processor-events.ts applies them.
 */
import type { PaymentFailureCode } from './payment-processor.ts'

/** Whose payment or refund a processor's event is about: what we put in the processor's metadata. */
export interface ProcessorEventSubject {
  tenantId: string
  paymentId: string
}

/**
 * What a processor's balance moved for a charge or a dispute when it keeps another currency than the object's (it
 * converted the money, issue 58): from the balance transactions, in minor units of `currency` (upper case). `amount`
 * is what came in (negative: went out), `fee` what the processor charged.
 */
export interface SettledMoney {
  currency: string
  amount: number
  fee: number
}

/** The processor's cost of a charge: its fee in the charge's currency, and what its balance moved if it converted. */
export interface ChargeCost {
  fee: number
  settled: SettledMoney | null
}

/**
 * A dispute (chargeback) as the processor holds it. `WON` also when it was lost and the processor gave the funds back
 * (reinstated); `CLOSED` for an inquiry closed without a chargeback, or a dispute closed by a refund of the charge.
 */
export interface ProcessorDispute {
  disputeId: string
  intentId: string | null
  amount: number
  currency: string
  status: 'OPEN' | 'WON' | 'LOST' | 'CLOSED'
  /** The processor's dispute fee, net of any fee it gave back, in minor units of `currency`: the centre's cost. */
  fee: number
  /**
   * The processor has withdrawn the disputed funds: a chargeback. An inquiry withdraws none (until it escalates), so
   * no reserve holds the provider's share back for it (docs/marketplace.md, "Reserves").
   */
  fundsWithdrawn: boolean
  /** What its balance transactions moved, when the balance keeps another currency (none read: unsaid). */
  settled?: SettledMoney
}

/** A processor's signed notification that an intent or a refund settled, mapped to what the platform acts on. */
export type OnlineProcessorEvent =
  | ({
      kind: 'payment.succeeded'
      eventId: string
      intentId: string
      /** What the processor received, in minor units of `currency` (checked against our payment). */
      amount: number
      currency: string
      /**
       * The processor's processing fee on it (issue 58): not in the event, asked of the processor before it is applied
       * (paymentAsHeld); null when the processor does not say.
       */
      fee?: number | null
      /** What the processor's balance moved for it when it converted the charge (issue 58), asked with the fee. */
      settled?: SettledMoney | null
    } & ProcessorEventSubject)
  | ({
      kind: 'payment.failed'
      eventId: string
      intentId: string
      amount: number
      currency: string
      failureCode: PaymentFailureCode
      failureMessage: string | null
    } & ProcessorEventSubject)
  /** The intent was cancelled at the processor (by us, by the processor, or in its dashboard): it can no longer pay. */
  | ({ kind: 'payment.canceled'; eventId: string; intentId: string } & ProcessorEventSubject)
  /**
   * A refund's state at the processor: one of ours (its id in the metadata), or one made in the processor's dashboard
   * (no id of ours: recorded as a refund of the payment its intent paid).
   */
  | {
      kind: 'refund.updated'
      eventId: string
      /** Ours, from the metadata; absent for a refund made at the processor directly. */
      subject?: ProcessorEventSubject & { refundId: string }
      processorRefundId: string
      intentId: string | null
      amount: number
      currency: string
      status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
      failureMessage: string | null
      /** What it moved on a balance kept in another currency (issue 58), when the processor's word carried it. */
      settled?: SettledMoney
    }
  /** A dispute (chargeback) of a payment opened, changed or closed. */
  | ({ kind: 'dispute.updated'; eventId: string } & ProcessorDispute)
  /** A provider's connected account changed: whether it can receive payouts now. */
  | {
      kind: 'account.updated'
      eventId: string
      tenantId: string
      providerId: string
      accountId: string
      payoutsEnabled: boolean
    }
  /**
   * A payout from a provider's connected account to their bank failed (Stripe's `payout.failed`): the money went back
   * to the account's balance, and the provider has not received it.
   */
  | {
      kind: 'payout.failed'
      eventId: string
      accountId: string
      payoutId: string
      amount: number
      currency: string
      failureCode: string | null
      failureMessage: string | null
    }
  /** A payout transfer the processor took back, in part or whole. */
  | {
      kind: 'transfer.reversed'
      eventId: string
      tenantId: string
      transferId: string
      processorReference: string
      /** Everything taken back of this processor transfer so far (cumulative: Stripe's `amount_reversed`). */
      amountReversed: number
      /**
       * The part of it the platform took back to recover what the provider owed (cumulative: its reversals whose
       * metadata says `purpose: recovery`): a recovery, not money owed to the provider again.
       */
      amountRecovered: number
      /**
       * The event did not list all of the transfer's reversals (Stripe's carries its ten most recent), so
       * `amountRecovered` counts only those it did: the transfer is read back from the processor, all its reversals,
       * and applied instead (transferAsHeld, processor-connect-events.ts).
       */
      reversalsUnlisted?: boolean
    }
  /** Signed and genuine, but nothing the platform acts on (another event type, or not one of our objects). */
  | { kind: 'ignored'; eventId: string; type: string }

/** Our two processor webhook endpoints: the platform account's events, and connected accounts' (Connect). */
export type WebhookEndpointKind = 'platform' | 'connect'

/** What every processor event carries besides what it is about: checked before anything is applied. */
export interface ProcessorEventEnvelope {
  eventId: string
  /** The processor's event type (Stripe: `payment_intent.succeeded`). */
  type: string
  livemode: boolean
  /** The connected account it came from (Connect); null for the platform account's own events. */
  account: string | null
  /** When the processor created the event. */
  occurredAt: Date
  /** The processor's id of the object it is about. */
  objectId: string | null
}

/** A verified webhook: its envelope and what it means to the platform. */
export interface ParsedProcessorEvent {
  envelope: ProcessorEventEnvelope
  event: OnlineProcessorEvent
}
