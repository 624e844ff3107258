/**
 * @module What the payment processor holds for one tenant, as the reconciliation and the ledger check read it
 * (docs/payments.md, "Reconciliation"): its payment intents, refunds, disputes and transfers, each reduced to the
 * amounts, currency, status and ids we compare, and only those whose metadata names the tenant. The source that
 * lists them (adapters/stripe/stripe-reconciliation-source.ts) sits behind {@link ReconciliationSource}, so the
 * comparison is a pure function over plain data and tests can give any snapshot.
 */
import type { SettledMoney } from '../payments/online-processor-events.ts'

/** A `created` window: from (inclusive) to (exclusive). */
export interface CreatedWindow {
  from: Date
  to: Date
}

/** A payment intent (Stripe `pi_...`). */
export interface ProcessorIntent {
  id: string
  /** Minor units. */
  amount: number
  /** ISO 4217, upper case. */
  currency: string
  /** The processor's own status (Stripe: `succeeded`, `canceled`, `requires_payment_method`, `processing`...). */
  status: string
  /** Whether the last attempt to pay it failed (Stripe's `last_payment_error`). */
  lastPaymentError: boolean
  /** Our payment's id, from the metadata we set. */
  paymentId: string | null
  created: Date
  /** The processor's processing fee on its charge (issue 58), in minor units of `currency`; unsaid: not read. */
  fee?: number
  /** What its charge moved on a balance kept in another currency (issue 58); unsaid: none, or not read. */
  settled?: SettledMoney
}

/** A refund (Stripe `re_...`), ours or made at the processor directly (the Dashboard). */
export interface ProcessorRefund {
  id: string
  amount: number
  currency: string
  /** Stripe: `pending`, `requires_action`, `succeeded`, `failed`, `canceled`. */
  status: string
  paymentIntentId: string | null
  /** Our payment's id, from the refund's metadata or its intent's. */
  paymentId: string | null
  /** Our refund's id, from the metadata we set (none for a refund made at the processor). */
  refundId: string | null
  created: Date
  /** What it moved on a balance kept in another currency (its balance transaction, issue 58); unsaid: not read. */
  settled?: SettledMoney
}

/** A dispute (chargeback, Stripe `dp_...`) of a payment. */
export interface ProcessorDispute {
  id: string
  amount: number
  currency: string
  /** Stripe: `won`, `lost`, or one of the open statuses (`needs_response`, `under_review`, `warning_...`). */
  status: string
  paymentIntentId: string | null
  /** Our payment's id, from its intent's metadata. */
  paymentId: string | null
  created: Date
  /** The dispute fee Stripe charged, net of any it gave back (in the dispute's currency), in our minor units. */
  fee?: number
  /** Stripe gave the funds of a lost dispute back (a reinstating balance transaction): ours is WON. */
  fundsReinstated?: boolean
  /** Stripe withdrew the disputed funds (not an inquiry, or one escalated); unsaid: read from `status`. */
  fundsWithdrawn?: boolean
  /** What its balance transactions moved on a balance kept in another currency (issue 58); unsaid: none. */
  settled?: SettledMoney
}

/** A transfer to a connected account (Stripe `tr_...`): a marketplace payout. */
export interface ProcessorTransfer {
  id: string
  amount: number
  /** What the processor took back of it (reversals). */
  amountReversed: number
  currency: string
  /** Our payout transfer's id, from the metadata we set. */
  transferId: string | null
  created: Date
  /** Of `amountReversed`, what the platform took back to recover money a provider owed (issue 46). */
  amountRecovered?: number
}

/** One tenant's objects at the processor. */
export interface ProcessorSnapshot {
  intents: ProcessorIntent[]
  refunds: ProcessorRefund[]
  disputes: ProcessorDispute[]
  transfers: ProcessorTransfer[]
}

/** Ids of objects to read one by one (ours, which a listing did not show). */
export interface ProcessorReferences {
  intents: string[]
  refunds: string[]
  disputes: string[]
  transfers: string[]
  /**
   * Payment intents whose every dispute is read (Stripe: `GET /v1/disputes?payment_intent=`): a charge can be
   * disputed more than once (an inquiry closed, then a chargeback), and each of its disputes is compared with its row.
   */
  disputedIntents?: string[]
  /**
   * Of `refunds` and `disputes`, those that carry none of our metadata (a refund made in the Dashboard, every
   * dispute), by the payment intent each belongs to: kept only when that intent is one of the tenant's payments
   * ({@link keepTenantsChanges}), so a run reads one by one no other tenant's refund or dispute (issue 76).
   */
  intentOf?: Record<string, string>
}

/**
 * What of `changed` is the tenant's: every object our metadata gave the tenant, and those without it whose payment
 * intent is one of `tenantIntents`.
 */
export function keepTenantsChanges(
  changed: ProcessorReferences,
  tenantIntents: ReadonlySet<string>
): ProcessorReferences {
  const { intentOf = {} } = changed
  const ours = (id: string) => {
    const intent = intentOf[id]
    return intent === undefined || tenantIntents.has(intent)
  }
  return { ...changed, refunds: changed.refunds.filter(ours), disputes: changed.disputes.filter(ours), intentOf: {} }
}

/**
 * Whose objects a listing asks the processor for, beyond the tenant's own metadata: the processor cannot find a
 * transfer by the metadata we set, only by the connected account it went to.
 */
export interface ListingScope {
  /** The processor's ids of the tenant's connected accounts (Stripe `acct_...`): the destinations of its transfers. */
  connectedAccounts: string[]
}

/**
 * Where the processor's objects come from. Implementations answer only the tenant's objects (those whose metadata,
 * or whose payment intent's metadata, names `tenantId`): another tenant's never leave the source.
 */
export interface ReconciliationSource {
  /** The processor's name, as payments record it (`stripe`). */
  readonly name: string
  /**
   * Every object of the tenant created in the window, all pages, asked of the processor for this tenant alone
   * (issue 76): never a listing of the whole platform account.
   * @param scope - the tenant's connected accounts, whose transfers are listed
   * @param onPage - told after each page (an activity heartbeats)
   */
  list(tenantId: string, window: CreatedWindow, scope: ListingScope, onPage?: () => void): Promise<ProcessorSnapshot>
  /**
   * The given objects, read one by one, and every dispute of each of `disputedIntents`; those the processor does not
   * have, or not for this tenant, are left out.
   */
  retrieve(tenantId: string, references: ProcessorReferences): Promise<ProcessorSnapshot>
  /**
   * The processor's events created in the window, the whole account's, page by page (each page handled before the
   * next is asked for): what changed whenever it was created (a refund that failed days later, a transfer reversed, a
   * dispute decided). Read once for the platform and kept (processor-event-index.ts), never once per tenant.
   */
  eachEventPage?(window: CreatedWindow, onPage: (changes: ProcessorChange[]) => Promise<void>): Promise<void>
}

/** One event of the processor, as the index keeps it: the object it is about and whose it is. */
export interface ProcessorChange {
  eventId: string
  created: Date
  /** The object's kind (Stripe: `payment_intent`, `refund`, `dispute`, `transfer`). */
  objectType: string
  objectId: string
  /** The tenant our metadata names; null when the object carries none of ours (a Dashboard refund, a dispute). */
  tenantId: string | null
  /** Of a refund or dispute, the payment intent it belongs to. */
  paymentIntentId: string | null
}

/**
 * A snapshot with nothing in it, new each time: a shared constant's arrays, spread into a snapshot and pushed to,
 * carried one test's objects into the next (files share their module cache).
 */
export const emptySnapshot = (): ProcessorSnapshot => ({ intents: [], refunds: [], disputes: [], transfers: [] })

/** Both snapshots, each object once (the first seen wins). */
export function mergeSnapshots(a: ProcessorSnapshot, b: ProcessorSnapshot): ProcessorSnapshot {
  const merge = <T extends { id: string }>(x: T[], y: T[]) => {
    const seen = new Set(x.map((o) => o.id))
    return [...x, ...y.filter((o) => !seen.has(o.id))]
  }
  return {
    intents: merge(a.intents, b.intents),
    refunds: merge(a.refunds, b.refunds),
    disputes: merge(a.disputes, b.disputes),
    transfers: merge(a.transfers, b.transfers),
  }
}
