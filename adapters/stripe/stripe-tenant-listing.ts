/**
 * @module The reads of the reconciliation's listing at Stripe, each scoped to one tenant at Stripe's side (issue 76,
 * item 2): a run asks Stripe for that tenant's objects alone, so its cost follows the tenant's own business, never the
 * whole platform account's, and another tenant's objects are not even sent to it.
 *
 * - Payment intents: Stripe's Search API (`GET /v1/payment_intents/search`) on the `tenant_id` metadata we set on
 *   every intent, and the `created` window. Search is eventually consistent (Stripe: data is searchable usually
 *   under a minute after a change, longer in an outage); a scheduled window ends `SETTLING_MS` (30 minutes) before
 *   the run, and an intent Search has not caught up with yet is still read by its id when ours hold it
 *   (compare.ts, `unmatchedReferences`).
 * - Refunds and disputes: those of each intent found that has, or had, a charge (`payment_intent=`), created in the
 *   window. A refund or dispute created in the window on an intent created before it is not among them: it is found
 *   as before by Stripe's events of the window (`changed`) and by the ids our records hold, both read one by one.
 * - Transfers: those to each of the tenant's connected accounts (`destination=`), created in the window.
 *
 * Every request first takes the tenant's turn, and every page answered is told to `onPage` (the activity's
 * heartbeat).
 */
import type Stripe from 'stripe'
import { idPattern } from '../../domain/id-schema.ts'
import type { CreatedWindow, ListingScope } from '../../domain/reconciliation/processor-snapshot.ts'
import { WITH_PROCESSING_FEE } from './stripe-objects.ts'

/** Stripe's largest page. */
export const PAGE = 100

/** A window as Stripe's `created` filters take it: Unix seconds, `gte` inclusive, `lt` exclusive. */
export interface CreatedSeconds {
  gte: number
  lt: number
}

/** Stripe's `created` is in whole seconds: the window's seconds that hold any of its instants. */
export const secondsOf = (window: CreatedWindow): CreatedSeconds => ({
  gte: Math.floor(window.from.getTime() / 1000),
  lt: Math.ceil(window.to.getTime() / 1000),
})

/** Every page of one list endpoint, oldest request first; `starting_after` is the last object of the page before. */
export async function listAll<T extends { id: string }>(
  turn: () => Promise<void>,
  page: (startingAfter: string | undefined) => Promise<Stripe.ApiList<T>>,
  onPage: (() => void) | undefined
): Promise<T[]> {
  const all: T[] = []
  let startingAfter: string | undefined
  for (;;) {
    await turn()
    const answer = await page(startingAfter)
    all.push(...answer.data)
    onPage?.()
    const last = answer.data.at(-1)
    if (!answer.has_more || !last) return all
    startingAfter = last.id
  }
}

/** Every page of one search; a search pages by the opaque `next_page` token it answers, not by an object's id. */
async function searchAll<T>(
  turn: () => Promise<void>,
  page: (token: string | undefined) => Promise<Stripe.ApiSearchResult<T>>,
  onPage: (() => void) | undefined
): Promise<T[]> {
  const all: T[] = []
  let token: string | undefined
  for (;;) {
    await turn()
    const answer = await page(token)
    all.push(...answer.data)
    onPage?.()
    if (!answer.has_more || !answer.next_page) return all
    token = answer.next_page
  }
}

/** Our tenant ids (`ten_` and 32 hex digits): nothing in them can end a quoted value or start another clause. */
const TENANT_ID = idPattern('tenant')

/**
 * The search of one tenant's intents created in the window. The tenant id goes into Stripe's query language, so any
 * value but one of our own tenant ids is refused rather than escaped: a value that could close the quotes would
 * widen the search to other tenants' intents.
 * @throws when `tenantId` is not a tenant id, or the bounds are not whole seconds
 */
export function tenantSearchQuery(tenantId: string, created: CreatedSeconds): string {
  if (!TENANT_ID.test(tenantId))
    throw new Error(`Not a tenant id, not searched for at Stripe: ${JSON.stringify(tenantId)}`)
  if (!Number.isSafeInteger(created.gte) || !Number.isSafeInteger(created.lt)) {
    throw new Error(`Not a window of whole seconds: ${JSON.stringify(created)}`)
  }
  return `metadata['tenant_id']:'${tenantId}' AND created>=${created.gte} AND created<${created.lt}`
}

/** An intent's statuses once a charge of it succeeded, or may yet: only such a charge is refunded or disputed. */
const CHARGED = new Set(['succeeded', 'processing', 'requires_capture'])

/** Whether an intent can have refunds or disputes: a canceled one too when it had a charge (its hold was refunded). */
const mayHaveCharge = (intent: Stripe.PaymentIntent) =>
  CHARGED.has(intent.status) || (intent.status === 'canceled' && intent.latest_charge !== null)

/** The tenant's objects as Stripe sends them, before they are read as the snapshot's. */
export interface TenantObjects {
  intents: Stripe.PaymentIntent[]
  refunds: Stripe.Refund[]
  disputes: Stripe.Dispute[]
  transfers: Stripe.Transfer[]
}

/**
 * Every object of the tenant created in the window, each request scoped to the tenant (see the module's comment).
 * @param turn - waits for the tenant's turn at Stripe
 */
export async function listTenantObjects(
  stripe: Stripe,
  tenantId: string,
  created: CreatedSeconds,
  scope: ListingScope,
  turn: () => Promise<void>,
  onPage: (() => void) | undefined
): Promise<TenantObjects> {
  const query = tenantSearchQuery(tenantId, created)
  const intents = await searchAll(
    turn,
    (page) =>
      stripe.paymentIntents.search({
        query,
        limit: PAGE,
        ...(page === undefined ? {} : { page }),
        expand: WITH_PROCESSING_FEE.map((field) => `data.${field}`),
      }),
    onPage
  )
  const refunds: Stripe.Refund[] = []
  const disputes: Stripe.Dispute[] = []
  // Only the intents whose metadata names the tenant lead to more reads, whatever the search answered.
  for (const intent of intents.filter((o) => o.metadata.tenant_id === tenantId && mayHaveCharge(o))) {
    const ofIntent = { payment_intent: intent.id, created, limit: PAGE }
    refunds.push(
      // With what each moved on the balance, when it keeps another currency (issue 58).
      ...(await listAll(
        turn,
        (after) =>
          stripe.refunds.list({
            ...ofIntent,
            starting_after: after,
            expand: ['data.payment_intent', 'data.balance_transaction'],
          }),
        onPage
      ))
    )
    disputes.push(
      ...(await listAll(
        turn,
        (after) => stripe.disputes.list({ ...ofIntent, starting_after: after, expand: ['data.payment_intent'] }),
        onPage
      ))
    )
  }
  const transfers: Stripe.Transfer[] = []
  for (const destination of scope.connectedAccounts) {
    transfers.push(
      ...(await listAll(
        turn,
        (after) => stripe.transfers.list({ destination, created, limit: PAGE, starting_after: after }),
        onPage
      ))
    )
  }
  return { intents, refunds, disputes, transfers }
}
