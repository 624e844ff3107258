/**
 * @module The processor's side of the reconciliation, read from Stripe (docs/payments.md, "Reconciliation"). A run
 * asks Stripe for the tenant's objects alone (issue 76, item 2; stripe-tenant-listing.ts): its payment intents by
 * Stripe's Search on the metadata we set, the refunds and disputes of those intents, and the transfers to its
 * connected accounts, all created in the window. Each is still kept only when its metadata names the tenant (refunds
 * made in the Dashboard and disputes carry none of ours: their payment intent's metadata decides, read through
 * `expand`), so an object Stripe answered for another tenant never reaches the comparison.
 *
 * What changed in a window whenever it was created is found in Stripe's events (`GET /v1/events`), which Stripe
 * filters by type and time only, never by metadata or account: they are read here page by page for the whole
 * platform, once per stretch of time, and kept (domain/reconciliation/processor-event-index.ts); each run reads its
 * tenant's from there. Every dispute of a charge we hold disputes of is read in its dispute list
 * (`GET /v1/disputes?payment_intent=`), so a charge disputed again is compared dispute by dispute (issue 58); every
 * reversal of a transfer, past the ten Stripe embeds in it (stripe-transfer-reversals.ts). It only reads: nothing at
 * Stripe changes.
 *
 * Every request first takes the tenant's turn (`pace`, issue 76; the events, the platform's): each tenant's reads have
 * a share of the platform's Stripe rate of their own, so a tenant with many objects waits for its turns while another
 * tenant's run, and the API's payments, do not wait behind it.
 */
import Stripe from 'stripe'
import type {
  CreatedWindow,
  ProcessorChange,
  ListingScope,
  ProcessorDispute,
  ProcessorIntent,
  ProcessorRefund,
  ProcessorSnapshot,
  ProcessorTransfer,
  ReconciliationSource,
} from '../../domain/reconciliation/processor-snapshot.ts'
import { stripeClient, type StripeSettings } from './stripe-client.ts'
import {
  chargeCostOf,
  currencyOf,
  disputeOf,
  idOf,
  metadataOf,
  ours,
  refundSettledOf,
  WITH_PROCESSING_FEE,
} from './stripe-objects.ts'
import { listAll, listTenantObjects, PAGE, secondsOf } from './stripe-tenant-listing.ts'
import { takenBackOf } from './stripe-transfer-reversals.ts'

/** The events that say an object changed, by the kind of object they carry (Stripe keeps events 30 days). */
const CHANGE_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_reinstated',
  'charge.dispute.funds_withdrawn',
  'transfer.reversed',
  'transfer.updated',
]

const instant = (seconds: number) => new Date(seconds * 1000)

const toIntent = (intent: Stripe.PaymentIntent): ProcessorIntent => {
  const charge = chargeCostOf(intent)
  return {
    id: intent.id,
    amount: ours(intent.amount, intent.currency),
    currency: currencyOf(intent.currency),
    status: intent.status,
    lastPaymentError: Boolean(intent.last_payment_error),
    paymentId: intent.metadata.payment_id ?? null,
    created: instant(intent.created),
    // Its charge's processing fee, and what it moved on a balance in another currency (issue 58), when the read
    // expanded it.
    ...(charge && { fee: charge.fee }),
    ...(charge?.settled && { settled: charge.settled }),
  }
}

const toRefund = (refund: Stripe.Refund): ProcessorRefund => {
  const settled = refundSettledOf(refund)
  return {
    id: refund.id,
    amount: ours(refund.amount, refund.currency),
    currency: currencyOf(refund.currency),
    status: refund.status ?? 'pending',
    paymentIntentId: idOf(refund.payment_intent),
    paymentId: refund.metadata?.payment_id ?? metadataOf(refund.payment_intent).payment_id ?? null,
    refundId: refund.metadata?.refund_id ?? null,
    created: instant(refund.created),
    ...(settled && { settled }),
  }
}

const toDispute = (dispute: Stripe.Dispute): ProcessorDispute => {
  // Read as the webhook reads it (its fee, a loss whose funds came back): the same rules, one place.
  const held = disputeOf(dispute)
  return {
    id: dispute.id,
    amount: ours(dispute.amount, dispute.currency),
    currency: currencyOf(dispute.currency),
    status: dispute.status,
    paymentIntentId: idOf(dispute.payment_intent),
    paymentId: metadataOf(dispute.payment_intent).payment_id ?? null,
    created: instant(dispute.created),
    fee: held.fee,
    fundsReinstated: dispute.status === 'lost' && held.status === 'WON',
    fundsWithdrawn: held.fundsWithdrawn,
    ...(held.settled && { settled: held.settled }),
  }
}

/** A transfer as the snapshot holds it; what it recovered is read from all its reversals, listed past the embedded ten. */
const toTransfer = async (stripe: Stripe, transfer: Stripe.Transfer): Promise<ProcessorTransfer> => ({
  id: transfer.id,
  amount: ours(transfer.amount, transfer.currency),
  currency: currencyOf(transfer.currency),
  transferId: transfer.metadata.transfer_id ?? null,
  created: instant(transfer.created),
  ...(await takenBackOf(stripe, transfer)),
})

/** Whose each object is: its own metadata's tenant, else (refunds, disputes) its payment intent's. */
const tenantOf = {
  intent: (o: Stripe.PaymentIntent) => o.metadata.tenant_id,
  refund: (o: Stripe.Refund) => o.metadata?.tenant_id ?? metadataOf(o.payment_intent).tenant_id,
  dispute: (o: Stripe.Dispute) => metadataOf(o.payment_intent).tenant_id,
  transfer: (o: Stripe.Transfer) => o.metadata.tenant_id,
}

/** The pace key of the reads made for the whole platform (the events), beside each tenant's own. */
export const PLATFORM_READS = 'platform'

/** What the index keeps of an event: the object it is about, whose (our metadata), and its payment intent. */
function changeOf(event: Stripe.Event): ProcessorChange[] {
  const object = event.data.object as {
    id?: string
    object?: string
    metadata?: Stripe.Metadata | null
    payment_intent?: unknown
  }
  if (typeof object.id !== 'string' || typeof object.object !== 'string') return []
  const intent =
    object.object === 'refund' || object.object === 'dispute'
      ? idOf(object.payment_intent as string | { id: string } | null | undefined)
      : null
  return [
    {
      eventId: event.id,
      created: instant(event.created),
      objectType: object.object,
      objectId: object.id,
      tenantId: object.metadata?.tenant_id ?? null,
      paymentIntentId: intent,
    },
  ]
}

/** Waits for a tenant's next turn at Stripe (infra/pacer.ts, keyed by tenant). */
export type StripePace = (tenantId: string) => Promise<void>

/** Each of `items` mapped by `to`, one after the other (never a burst of calls at Stripe). */
async function inTurn<T, U>(items: T[], to: (item: T) => Promise<U>): Promise<U[]> {
  const mapped: U[] = []
  for (const item of items) mapped.push(await to(item))
  return mapped
}

/** Reads one object; undefined when Stripe has no such object. */
async function retrieveOrNone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return undefined
    throw error
  }
}

/**
 * The reconciliation source over Stripe's API.
 * @param pace - waits for the tenant's turn before each request; none by default (tests of the source alone)
 */
export function stripeReconciliationSource(
  settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>,
  pace: StripePace = async () => undefined
): ReconciliationSource {
  const stripe = stripeClient(settings)
  return {
    name: 'stripe',

    async list(
      tenantId: string,
      window: CreatedWindow,
      scope: ListingScope,
      onPage?: () => void
    ): Promise<ProcessorSnapshot> {
      const turn = () => pace(tenantId)
      const { intents, refunds, disputes, transfers } = await listTenantObjects(
        stripe,
        tenantId,
        secondsOf(window),
        scope,
        turn,
        onPage
      )
      return {
        intents: intents.filter((o) => tenantOf.intent(o) === tenantId).map(toIntent),
        refunds: refunds.filter((o) => tenantOf.refund(o) === tenantId).map(toRefund),
        disputes: disputes.filter((o) => tenantOf.dispute(o) === tenantId).map(toDispute),
        // Ours only, one at a time: a transfer with more reversals than it embeds is one more list to read.
        transfers: await inTurn(
          transfers.filter((o) => tenantOf.transfer(o) === tenantId),
          async (o) => {
            await turn()
            return toTransfer(stripe, o)
          }
        ),
      }
    },

    async eachEventPage(window: CreatedWindow, onPage: (changes: ProcessorChange[]) => Promise<void>): Promise<void> {
      // Account-wide: Stripe cannot filter events by metadata or account. Read once for the whole platform, at the
      // platform's own pace, and kept (domain/reconciliation/processor-event-index.ts).
      const created = secondsOf(window)
      let startingAfter: string | undefined
      for (;;) {
        await pace(PLATFORM_READS)
        const page = await stripe.events.list({
          created,
          types: CHANGE_EVENTS,
          limit: PAGE,
          starting_after: startingAfter,
        })
        await onPage(page.data.flatMap(changeOf))
        const last = page.data.at(-1)
        if (!page.has_more || !last) return
        startingAfter = last.id
      }
    },

    async retrieve(tenantId, references): Promise<ProcessorSnapshot> {
      const turn = () => pace(tenantId)
      const expand = ['payment_intent']
      // Each charge's disputes, all pages, but those already read by their id.
      const disputesOfCharges = async (intentIds: string[], read: ProcessorDispute[]) => {
        const found: ProcessorDispute[] = [...read]
        for (const intentId of intentIds) {
          const listed = await listAll(
            turn,
            (after) =>
              stripe.disputes.list({
                payment_intent: intentId,
                limit: PAGE,
                starting_after: after,
                expand: ['data.payment_intent'],
              }),
            undefined
          )
          const seen = new Set(found.map((d) => d.id))
          found.push(...listed.filter((o) => tenantOf.dispute(o) === tenantId && !seen.has(o.id)).map(toDispute))
        }
        return found
      }
      const read = async <T, U>(
        ids: string[],
        get: (id: string) => Promise<T>,
        whose: (o: T) => string | undefined,
        to: (o: T) => U | Promise<U>
      ): Promise<U[]> => {
        const found: U[] = []
        for (const id of ids) {
          await turn()
          const object = await retrieveOrNone(() => get(id))
          if (object !== undefined && whose(object) === tenantId) found.push(await to(object))
        }
        return found
      }
      return {
        intents: await read(
          references.intents,
          (id) => stripe.paymentIntents.retrieve(id, { expand: WITH_PROCESSING_FEE }),
          tenantOf.intent,
          toIntent
        ),
        refunds: await read(
          references.refunds,
          (id) => stripe.refunds.retrieve(id, { expand: [...expand, 'balance_transaction'] }),
          tenantOf.refund,
          toRefund
        ),
        disputes: await disputesOfCharges(
          references.disputedIntents ?? [],
          await read(references.disputes, (id) => stripe.disputes.retrieve(id, { expand }), tenantOf.dispute, toDispute)
        ),
        transfers: await read(
          references.transfers,
          (id) => stripe.transfers.retrieve(id),
          tenantOf.transfer,
          (o) => toTransfer(stripe, o)
        ),
      }
    },
  }
}
