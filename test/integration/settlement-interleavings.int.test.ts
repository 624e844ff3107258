/**
 * A property of settlements (issue 58, "Measured"): whatever a centre's card sessions go through in whatever order —
 * paid for either of two providers, refunded through the API (in full or in part) or in Stripe's Dashboard (pending,
 * then succeeded or failed), disputed at Stripe (opened, lost, won, its funds reinstated), settled, their payout
 * transfers reversed by Stripe (in full or in part) and retried by an operator, or reversed to recover what a provider
 * owes after a chargeback or refund of money already paid out (a reversal that says so, or one that says nothing while
 * the provider owes), disputed between a settlement's end and its transfer, or — both providers' sessions on one
 * order — refunded by line (issue 78) — in USD, HUF (paid out in whole forints) or KWD (amounts ending in 0), or in USD
 * by an account whose Stripe balance keeps euros (each charge converted at the day's rate, payouts sent in euros at
 * the charges' rate: issue 78, item 1), the books
 * hold, nothing held in a reserve is ever paid out, nothing recovered is owed or sent again, no remainder of a payout
 * rounded down to what Stripe transfers is lost, a dispute opened before a transfer is held back from it, a line is
 * never refunded beyond what the API says it holds, and what settlements took from each line is what the API says
 * it gave back.
 *
 * fast-check draws the steps; each runs through the real API, worker, Temporal and database against Stripe's API mock
 * behind the recording proxy (test/support/stripe-centres.ts), disputes and reversals told by signed Stripe events.
 * After every settlement and at the end of each run:
 *
 * - the tenant's books pass the ledger check against what the proxy's Stripe holds (reserves included);
 * - every transfer Stripe holds for the tenant is an amount Stripe can transfer in its currency, the balance's when it
 *   converts;
 * - the tenant's balances (`GET /v1/marketplace/ledger/balances`) sum to zero;
 * - each provider settlement pays max(0, carriedForward + net − reserveAmount) rounded down to the transferable unit,
 *   the remainder below one unit, its carriedForward is the provider's payable balance just before it and its
 *   balanceAfter the payable balance just after it (a remainder is never lost);
 * - per provider, over every settlement so far: the reserve account holds Σ reserveAmount; the payable balance is
 *   Σ net − Σ reserveAmount − (Σ payout − Σ carried back by retries) + Σ recovered; what Stripe holds as transferred
 *   net of reversals plus what is in transit is Σ payout − Σ carried back − Σ recovered, where Σ recovered is what
 *   the run's recovering reversals took as Stripe holds them (all of a tagged one; of an untagged one, what the
 *   provider owed when it came); and so, whenever the provider owes nothing back,
 *   what Stripe transferred never exceeds what they earned net of fees, refunds and chargebacks less what is held now;
 * - once a run's last settlement finds no dispute open and no refund pending, nothing is held in any reserve.
 *
 * Each run ends with one more settlement. SETTLEMENT_PROPERTY_RUNS (12: about 45 s of wall time for the file on two
 * cores) and SETTLEMENT_PROPERTY_SEED (58) set the runs; SETTLEMENT_PROPERTY_TRACE=1 prints each run's steps.
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { fromStripeAmount, stripeAmountUnit, toStripeAmount } from '../../adapters/stripe/stripe-currencies.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { expectLedgerHolds } from '../support/ledger-check.ts'
import type { Platform } from '../support/platform.ts'
import type { StripeMock } from '../support/stripe-mock.ts'
import { startStripeCentres, stripeEvent, type Centre, type StripeCentres } from '../support/stripe-centres.ts'

let centres: StripeCentres
let stripeMock: StripeMock
let platform: Platform

beforeAll(async () => {
  centres = await startStripeCentres('settlement_interleavings')
  ;({ platform, stripeMock } = centres)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await centres?.stop()
})

type Step =
  | { kind: 'session'; provider: 0 | 1; size: number; pair?: boolean }
  | { kind: 'lineRefund'; pick: number; line: 0 | 1; quarters: number | undefined }
  | { kind: 'refund'; pick: number; quarters: number | undefined }
  | { kind: 'dispute'; pick: number; outcome: 'open' | 'lost' | 'won' }
  | { kind: 'dashboardRefund'; pick: number; quarters: number; succeeds: boolean }
  | { kind: 'settle' }
  | { kind: 'lateDispute'; pick: number }
  | { kind: 'reverse'; pick: number; quarters: number | undefined }
  | { kind: 'retry'; pick: number }
  | { kind: 'recover'; pick: number; quarters: number | undefined; tagged: boolean }

/** Session prices in the currency's major unit times 1,000: 1,234.00 HUF, 1.234 KWD, 123.40 USD (see {@link priceOf}). */
const SIZES = [1_234, 2_345, 987, 5_555] as const
const pick = fc.nat({ max: 3 })
/** A part in quarters, or everything (undefined). */
const quarters = fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined })
const session: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('session' as const),
  provider: fc.constantFrom(0 as const, 1 as const),
  size: fc.nat({ max: SIZES.length - 1 }),
  // Both providers' sessions on one order (issue 78): refunds by line and disputes shared between its lines.
  pair: fc.boolean(),
})
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: session },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick, quarters }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('lineRefund' as const),
      pick,
      line: fc.constantFrom(0 as const, 1 as const),
      // A part of what the line can still give back, or (undefined) a unit more than it can.
      quarters,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('dispute' as const),
      pick,
      outcome: fc.constantFrom('open' as const, 'lost' as const, 'lost' as const, 'won' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('dashboardRefund' as const),
      pick,
      quarters: fc.integer({ min: 1, max: 3 }),
      succeeds: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('settle' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lateDispute' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick, quarters }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('recover' as const), pick, quarters, tagged: fc.boolean() }),
  }
)

/** A session's price in the currency's ISO minor units: the platform's 10% fee on it makes fractions of a unit. */
function priceOf(size: number, currency: string): number {
  if (currency === 'HUF') return size * 100 // 1,234.00 HUF: 111,060 for the provider, 1,110 forints transferable
  if (currency === 'KWD') return size * 10 // 1.234 KWD: 1.1106 for the provider, 1.110 transferable
  return size * 10 // 123.40 USD
}

interface Session {
  provider: 0 | 1
  orderId: string
  /** The order's lines: one, or both providers' sessions. */
  lineIds: string[]
  paymentId: string
  intentId: string
  amount: number
  /** The latest dispute Stripe holds of it, as the run left it. */
  dispute?: { id: string; state: 'open' | 'lost' | 'won' }
  /** A refund made in Stripe's Dashboard, pending until a later step says how it ended. */
  dashboardRefund?: { id: string; state: 'pending' | 'succeeded' | 'failed' }
  /** A refund through the API that Stripe answered pending (202). */
  apiRefundPending?: boolean
  /** A settlement of the run has taken it (it was earned before that settlement's end). */
  settled?: boolean
}

/**
 * The transfers Stripe holds for the run's payouts with something left to reverse, with their provider and the
 * provider's payable balance, of the providers whose balance `payableIs` accepts.
 */
async function reversible(run: Run, payableIs: (payable: number) => boolean) {
  const balances = await balancesOf(run)
  const providerOf = new Map(
    (await payoutsOf(run)).flatMap((p) => p.attempts.map((a) => [a.processorReference, p.providerId] as const))
  )
  return stripeTransfers(run).flatMap((transfer) => {
    const providerId = providerOf.get(transfer.id)
    if (providerId === undefined || transfer.amount <= Number(transfer.amount_reversed ?? 0)) return []
    const { payable } = balances(providerId)
    return payableIs(payable) ? [{ transfer, providerId, payable }] : []
  })
}

/** What a provider's settlements said, summed over the run's settlements. */
interface Totals {
  net: number
  reserve: number
  payout: number
}

interface Run {
  t: Centre
  currency: string
  providers: [string, string]
  sessions: Session[]
  settlements: string[]
  lastEnd: Date
  totals: Map<string, Totals>
  /** What the run's recovering reversals took from each provider, as Stripe holds them (ISO minor units). */
  recovered: Map<string, number>
  /** The currency Stripe's balance keeps when it is not the run's (lower case): it converts every charge. */
  keeps?: string
}

/** The day's rate of a converted run's next charge: three, so a settlement's transfer weighs several. */
const RATES = [0.9, 0.92, 0.87] as const

/** What the platform recorded as recovered of the send Stripe holds as `reference`, in the run's currency. */
const recoveredOf = (run: Run, reference: string) =>
  runInUnitOfWork(platform.db, run.t.tenantId, async ({ tx }) => {
    const attempt = await tx.payoutTransferAttempt.findFirst({ where: { processorReference: reference } })
    return attempt?.amountRecovered ?? 0
  })

/** What a reversal of `sentReversed` of an attempt that sent `sent` for `amount` is in the run's currency. */
const shareOf = (sentReversed: number, sent: number, amount: number) =>
  sentReversed >= sent ? amount : Math.round((sentReversed * amount) / sent)

const START = new Date('2026-01-01T00:00:00Z')
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
const nth = <T>(list: T[], i: number) => (list.length ? list[i % list.length] : undefined)

const ok = (t: Centre, method: string, path: string, body?: unknown, status = 200) =>
  centres.ok(t, method, path, body, status)

/** What Stripe does, told by its signed event: the event must be applied. */
const atStripe = async (type: string, id: string) =>
  expect(await centres.deliver(stripeMock.event(type, id)), `${type} ${id}`).toBe('applied')

/** A centre with a 10% platform fee and two providers whose connected accounts Stripe enabled for payouts. */
async function newCentre(): Promise<{ t: Centre; providers: [string, string] }> {
  const t = await centres.newCentre(['providers', 'settlements', 'children', 'orders', 'payments'])
  await centres.registerDomain(t.tenantId, 'centre.example')
  await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
  const providers: string[] = []
  for (const name of ['Gia SLP', 'Ben OT']) {
    const providerId = (await ok(t, 'POST', '/v1/providers', { name, timeZone: 'UTC' }, 201)).id as string
    const linked = await ok(t, 'POST', `/v1/providers/${providerId}/payout-account`, {
      returnUrl: 'https://centre.example/payouts/done',
      refreshUrl: 'https://centre.example/payouts/again',
    })
    const account = {
      id: linked.accountId,
      object: 'account',
      payouts_enabled: true,
      metadata: { tenant_id: t.tenantId, provider_id: providerId },
    }
    expect(await centres.deliver(stripeEvent('account.updated', account))).toBe('applied')
    providers.push(providerId)
  }
  return { t, providers: [providers[0]!, providers[1]!] }
}

/** The tenant's balances in the run's currency (debit − credit), checked to sum to zero. */
async function balancesOf(run: Run) {
  const body = await ok(run.t, 'GET', `/v1/marketplace/ledger/balances?currency=${run.currency}`)
  const data = body.data as Array<{ account: string; balance: number }>
  expect(sum(data.map((a) => a.balance)), 'the balances sum to zero').toBe(0)
  // What the platform owes on an account (credit − debit).
  const owed = (account: string) => 0 - (data.find((a) => a.account === account)?.balance ?? 0)
  return (providerId: string) => ({
    payable: owed(`provider_payable:${providerId}`),
    reserve: owed(`provider_reserve:${providerId}`),
    inTransit: owed(`payouts_in_transit:${providerId}`),
  })
}

type PayoutView = {
  id: string
  providerId: string
  status: string
  amount: number
  amountCarried: number
  amountHeld: number
  sent: { currency: string } | null
  attempts: Array<{ processorReference: string | null; amount: number; sent: { amount: number | null } | null }>
}

/** Every payout transfer of the run's settlements. */
async function payoutsOf(run: Run): Promise<PayoutView[]> {
  const all: PayoutView[] = []
  for (const id of run.settlements) {
    all.push(...((await ok(run.t, 'GET', `/v1/marketplace/settlements/${id}/payouts`)).data as PayoutView[]))
  }
  return all
}

/** The transfers Stripe holds for the tenant. */
const stripeTransfers = (run: Run) =>
  stripeMock.objects('transfer').filter((o) => o.metadata.tenant_id === run.t.tenantId)

/** The tenant's settlement items of the kinds the property wants to reach. */
const itemKinds = (run: Run) =>
  runInUnitOfWork(
    platform.db,
    run.t.tenantId,
    ({ tx }) =>
      tx.$queryRaw<Array<{ kind: string; refund: boolean }>>`
      SELECT kind::text, refund_id IS NOT NULL AS refund FROM settlement_items`
  )

/** What the runs got to, so a generator that stopped reaching the interesting cases fails the test. */
const reached = {
  reserve: 0,
  reserveRelease: 0,
  chargeback: 0,
  chargebackReversal: 0,
  refund: 0,
  hufPayout: 0,
  kwdPayout: 0,
  carriedRemainder: 0,
  retryCarried: 0,
  reversed: 0,
  owedBack: 0,
  disputeLost: 0,
  pendingRefundReserve: 0,
  recovered: 0,
  untaggedRecovered: 0,
  heldAtTransfer: 0,
  lineRefund: 0,
  lineRefused: 0,
  lineAgreesWithSettlements: 0,
  convertedPayout: 0,
  convertedReversal: 0,
}

/** The invariants that hold at any moment between steps (after a settlement, and at the end of a run). */
async function expectInvariants(run: Run): Promise<void> {
  await expectLedgerHolds(platform, run.t.tenantId, stripeMock)
  const transfers = stripeTransfers(run)
  for (const tr of transfers) {
    const currency = tr.currency.toUpperCase()
    expect(currency, `transfer ${tr.id} from the balance's currency`).toBe((run.keeps ?? run.currency).toUpperCase())
    const ours = fromStripeAmount(tr.amount, tr.currency)
    expect(toStripeAmount(ours, currency, 'transfer'), `transfer ${tr.id} of ${ours} ${currency}`).toEqual({
      amount: tr.amount,
    })
    const unit = stripeAmountUnit(currency, 'transfer')
    expect(ours % unit, `transfer ${tr.id} of ${ours} ${currency} in whole transferable units`).toBe(0)
  }
  const balances = await balancesOf(run)
  const payouts = await payoutsOf(run)
  // What Stripe holds of a send, net of reversals, in the run's currency: a converted one's reversals are their share.
  const sends = new Map(payouts.flatMap((p) => p.attempts.map((a) => [a.processorReference, a] as const)))
  const netOf = (tr: (typeof transfers)[number]) => {
    const send = sends.get(tr.id)
    const reversed = Number(tr.amount_reversed ?? 0)
    if (!send?.sent?.amount) return fromStripeAmount(tr.amount - reversed, tr.currency)
    return send.amount - shareOf(reversed, send.sent.amount, send.amount)
  }
  for (const providerId of run.providers) {
    const totals = run.totals.get(providerId) ?? { net: 0, reserve: 0, payout: 0 }
    const { payable, reserve, inTransit } = balances(providerId)
    const mine = payouts.filter((p) => p.providerId === providerId)
    const carriedBack = sum(mine.map((p) => p.amountCarried))
    const references = new Set(mine.flatMap((p) => p.attempts.map((a) => a.processorReference)))
    const atStripe = sum(transfers.filter((tr) => references.has(tr.id)).map(netOf))
    const paidOut = totals.payout - carriedBack
    const recovered = run.recovered.get(providerId) ?? 0
    const where = `provider ${providerId} ${JSON.stringify({ totals, payable, reserve, inTransit, carriedBack, atStripe, recovered })}`
    // What reserves hold is on the reserve account, never below nothing.
    expect(reserve, `${where}: the reserve account holds what its settlements held`).toBe(totals.reserve)
    expect(reserve, where).toBeGreaterThanOrEqual(0)
    // What was earned and not held is either paid out or still owed (the remainders included): nothing lost. What a
    // recovery took back settles what the provider owed.
    expect(payable, `${where}: payable = earned − held − paid out + recovered`).toBe(
      totals.net - totals.reserve - paidOut + recovered
    )
    // What was paid out is at Stripe, or owed again after a reversal, in transit; what was recovered is neither.
    expect(atStripe + inTransit, `${where}: paid out = at Stripe + in transit + recovered`).toBe(paidOut - recovered)
    expect(inTransit, where).toBeGreaterThanOrEqual(0)
    // Nothing held is paid out: unless the provider owes money back (paid before it was held), what Stripe
    // transferred to them is at most what they earned net of fees, refunds and chargebacks less what is held now.
    if (payable >= 0)
      expect(atStripe, `${where}: transferred beyond earned − held`).toBeLessThanOrEqual(totals.net - reserve)
    else reached.owedBack++
  }
}

/** A provider's result in a settlement's view (what the property reads of it). */
interface ProviderResult {
  providerId: string
  netAmount: number
  carriedForward: number
  reserveAmount: number
  payoutAmount: number
  payoutRemainder: number
  balanceAfter: number
}

/**
 * Settles from the last settlement's end to `until` (a moment from now without it), and checks what it paid.
 * @returns the settlement's provider results
 */
async function settle(run: Run, until?: Date): Promise<ProviderResult[]> {
  const before = await balancesOf(run)
  const payableBefore = new Map(run.providers.map((p) => [p, before(p).payable]))
  const { id, end, run: view } = await centres.settleFrom(run.t, run.lastEnd, run.currency, until)
  run.lastEnd = end
  run.settlements.push(id)
  for (const session of run.sessions) session.settled = true
  const unit = stripeAmountUnit(run.currency, 'transfer')
  const after = await balancesOf(run)
  // What its transfers held back went back to the payable balance (issue 78): all they carried yet.
  const transfers = (await ok(run.t, 'GET', `/v1/marketplace/settlements/${id}/payouts`)).data as PayoutView[]
  const held = new Map(transfers.map((p) => [p.providerId, p.amountCarried]))
  // A converted run's transfers are sent from the balance's currency (issue 78, item 1).
  if (run.keeps && transfers.some((p) => p.sent?.currency === run.keeps!.toUpperCase())) reached.convertedPayout++
  for (const ps of view.providers as ProviderResult[]) {
    const where = `settlement ${id}: ${JSON.stringify(ps)}`
    const available = ps.carriedForward + ps.netAmount - ps.reserveAmount
    // The remainder of a payout rounded down to what Stripe transfers is carried, below one unit, never lost.
    expect(ps.carriedForward, `${where}: carried forward the payable balance`).toBe(payableBefore.get(ps.providerId))
    expect(ps.payoutAmount % unit, where).toBe(0)
    expect(ps.payoutAmount, where).toBe(Math.max(0, Math.floor(available / unit) * unit))
    expect(ps.payoutRemainder, where).toBe(Math.max(0, available) - ps.payoutAmount)
    expect(ps.payoutRemainder, where).toBeLessThan(unit)
    expect(ps.balanceAfter, where).toBe(available - ps.payoutAmount)
    expect(after(ps.providerId).payable, `${where}: the payable balance after it`).toBe(
      ps.balanceAfter + (held.get(ps.providerId) ?? 0)
    )
    const totals = run.totals.get(ps.providerId) ?? { net: 0, reserve: 0, payout: 0 }
    run.totals.set(ps.providerId, {
      net: totals.net + ps.netAmount,
      reserve: totals.reserve + ps.reserveAmount,
      payout: totals.payout + ps.payoutAmount,
    })
    if (ps.payoutRemainder > 0) reached.carriedRemainder++
    if (ps.payoutAmount > 0 && run.currency === 'HUF') reached.hufPayout++
    if (ps.payoutAmount > 0 && run.currency === 'KWD') reached.kwdPayout++
  }
  await expectInvariants(run)
  return view.providers as ProviderResult[]
}

/** The platform's 10% fee on a session's amount, rounded half up (settlement-math.ts, feeOf). */
const feeOn = (amount: number) => Math.floor((amount * 1_000 + 5_000) / 10_000)

/**
 * A dispute opened after a settlement's period ended and before its transfer (issue 78, item 3): the settlement cannot
 * see it, its transfer must. When the disputed session is alone on its order, first paid by that settlement, and
 * nothing was refunded of it, the provider's share of it net of the fee it returns, less what their payable balance keeps, is held back from
 * the transfer (as much of it as the payout holds): none of it leaves to come back as a chargeback.
 */
async function lateDispute(run: Run, s: Extract<Step, { kind: 'lateDispute' }>): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20))
  const end = new Date()
  await new Promise((resolve) => setTimeout(resolve, 20))
  const session = nth(
    run.sessions.filter((x) => x.dispute === undefined),
    s.pick
  )
  // One line: the whole dispute is that provider's share (a pair's is shared by weight with the other provider).
  const fresh =
    session !== undefined && session.lineIds.length === 1 && !session.settled && keptOf(session) === session.amount
  if (session && keptOf(session) > 0) {
    const opened = stripeMock.addDispute({ paymentIntent: session.intentId, amount: keptOf(session) })
    disputeMoves(run, opened.id)
    await atStripe('charge.dispute.created', opened.id)
    session.dispute = { id: opened.id, state: 'open' }
  }
  const results = await settle(run, end)
  const mine = (await ok(run.t, 'GET', `/v1/marketplace/settlements/${run.settlements.at(-1)!}/payouts`))
    .data as PayoutView[]
  for (const p of mine) if (p.amountHeld > 0) reached.heldAtTransfer++
  if (!fresh) return
  const providerId = run.providers[session.provider]
  const result = results.find((r) => r.providerId === providerId)
  const payout = mine.find((p) => p.providerId === providerId)
  if (!result || !payout) return
  const share = session.amount - feeOn(session.amount) - Math.max(0, result.balanceAfter)
  expect(
    payout.amountHeld,
    `transfer ${payout.id}: held back of the session disputed before it ${JSON.stringify({ payout, result })}`
  ).toBeGreaterThanOrEqual(Math.min(payout.amount, share))
}

/**
 * A converted run's dispute as Stripe's balance holds it: the disputed amount withdrawn in the balance's currency at
 * the day's rate, and given back the same way when the funds are reinstated (`reinstated`).
 */
function disputeMoves(run: Run, disputeId: string, reinstated = false) {
  if (!run.keeps) return
  const dispute = stripeMock.get(disputeId)
  const moved = Math.round(Number(dispute.amount) * RATES[0])
  const move = (amount: number) => ({ amount, fee: 0, net: amount, currency: run.keeps, exchange_rate: RATES[0] })
  stripeMock.update(disputeId, {
    balance_transactions: reinstated ? [move(-moved), move(moved)] : [move(-moved)],
  })
}

/** What Stripe kept of a session's charge: its amount less what Stripe refunded or is refunding of it. */
function keptOf(session: Session): number {
  const refunded = stripeMock
    .objects('refund')
    .filter((r) => r.payment_intent === session.intentId && ['succeeded', 'pending'].includes(String(r.status)))
  return Number(stripeMock.get(session.intentId).amount) - sum(refunded.map((r) => Number(r.amount)))
}

/** What each line of an order can still give back, as the API shows it (OrderLine.refundable). */
async function refundableOf(
  run: Run,
  orderId: string
): Promise<Array<{ id: string; lineTotal: number; refundable: number }>> {
  return (await ok(run.t, 'GET', `/v1/orders/${orderId}`)).lines as Array<{
    id: string
    lineTotal: number
    refundable: number
  }>
}

/**
 * A refund through the API naming one line of a two-line order (issue 78, item 2): a part of what the line can still
 * give back is taken (or refused as the payment's rules refuse any refund), a unit more than it is refused naming the
 * line's amount.
 */
async function lineRefund(run: Run, s: Extract<Step, { kind: 'lineRefund' }>): Promise<void> {
  const session = nth(
    run.sessions.filter((x) => x.lineIds.length === 2),
    s.pick
  )
  if (!session) return
  const chargeUnit = stripeAmountUnit(run.currency, 'charge')
  const line = (await refundableOf(run, session.orderId))[s.line]!
  const amount =
    s.quarters === undefined
      ? line.refundable + chargeUnit
      : Math.floor((line.refundable * s.quarters) / 4 / chargeUnit) * chargeUnit
  if (amount <= 0) return
  const answer = await platform.http.request('POST', `/v1/payments/${session.paymentId}/refunds`, {
    token: run.t.token,
    headers: { 'Idempotency-Key': randomUUID() },
    body: { reason: 'REQUESTED_BY_CLIENT', lines: [{ orderLineId: line.id, amount }] },
  })
  const where = `${answer.status} ${JSON.stringify(answer.body)}`
  if (s.quarters === undefined) {
    // More than the line holds: refused for the line, unless the payment refuses any refund of that size first.
    expect([400, 409], where).toContain(answer.status)
    if (answer.status === 400) {
      expect(answer.body.errors, where).toEqual([
        expect.objectContaining({ path: 'lines.0.amount', code: 'amount_exceeds_line_refundable' }),
      ])
      reached.lineRefused++
    }
    return
  }
  // Within the line: taken, or refused when nothing (or not that much) is left of the payment or the bank holds it.
  expect([201, 202, 409], where).toContain(answer.status)
  if (answer.status === 202) session.apiRefundPending = true
  if (answer.status !== 409) reached.lineRefund++
}

async function perform(run: Run, s: Step): Promise<void> {
  const chargeUnit = stripeAmountUnit(run.currency, 'charge')
  switch (s.kind) {
    case 'session': {
      const amount = priceOf(SIZES[s.size]!, run.currency)
      const other = s.provider === 0 ? 1 : 0
      const also = s.pair
        ? { providerId: run.providers[other], amount: priceOf(SIZES[(s.size + 1) % SIZES.length]!, run.currency) }
        : undefined
      if (run.keeps) stripeMock.settleIn({ currency: run.keeps, rate: RATES[run.sessions.length % RATES.length]! })
      const session = await centres.paidSession(run.t, run.providers[s.provider], amount, run.currency, also)
      run.sessions.push({
        provider: s.provider,
        orderId: session.orderId,
        lineIds: session.lineIds,
        paymentId: session.paymentId,
        intentId: session.intentId,
        amount: amount + (also?.amount ?? 0),
      })
      return
    }
    case 'lineRefund':
      return lineRefund(run, s)
    case 'refund': {
      const session = nth(run.sessions, s.pick)
      if (!session) return
      const amount =
        s.quarters === undefined ? undefined : Math.floor((session.amount * s.quarters) / 4 / chargeUnit) * chargeUnit
      const answer = await platform.http.request('POST', `/v1/payments/${session.paymentId}/refunds`, {
        token: run.t.token,
        headers: { 'Idempotency-Key': randomUUID() },
        body: { reason: 'REQUESTED_BY_CLIENT', ...(amount === undefined ? {} : { amount }) },
      })
      // Refused when nothing (or not that much) is left to refund, or when the bank holds the charge.
      expect([201, 202, 409], `${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status)
      if (answer.status === 202) session.apiRefundPending = true
      return
    }
    case 'dispute': {
      // `open`: the payer's bank disputes a session not disputed yet. `lost`/`won`: one of the open disputes is
      // decided; with none open, a won step reinstates a lost one (Stripe gives the funds back), and otherwise a dispute
      // is opened for a later step to decide.
      const open = run.sessions.filter((x) => x.dispute?.state === 'open')
      const lost = run.sessions.filter((x) => x.dispute?.state === 'lost')
      const decided = s.outcome === 'open' ? undefined : nth(open, s.pick)
      if (decided?.dispute) {
        stripeMock.update(decided.dispute.id, { status: s.outcome })
        if (s.outcome === 'won') disputeMoves(run, decided.dispute.id, true)
        await atStripe('charge.dispute.closed', decided.dispute.id)
        decided.dispute.state = s.outcome
        if (s.outcome === 'lost') reached.disputeLost++
        return
      }
      const reinstated = s.outcome === 'won' ? nth(lost, s.pick) : undefined
      if (reinstated?.dispute) {
        stripeMock.update(reinstated.dispute.id, { status: 'won' })
        disputeMoves(run, reinstated.dispute.id, true)
        await atStripe('charge.dispute.funds_reinstated', reinstated.dispute.id)
        reinstated.dispute.state = 'won'
        return
      }
      const session = nth(
        run.sessions.filter((x) => x.dispute === undefined),
        s.pick
      )
      if (!session) return
      // A bank disputes what the charge kept: never what Stripe refunded, or is refunding, of it.
      const kept = keptOf(session)
      if (kept <= 0) return
      const opened = stripeMock.addDispute({ paymentIntent: session.intentId, amount: kept })
      disputeMoves(run, opened.id)
      await atStripe('charge.dispute.created', opened.id)
      session.dispute = { id: opened.id, state: 'open' }
      return
    }
    case 'dashboardRefund': {
      // A refund made in Stripe's Dashboard, pending (told by refund.created); a later step on the same session says
      // how it ended (refund.updated or refund.failed).
      const pending = nth(
        run.sessions.filter((x) => x.dashboardRefund?.state === 'pending'),
        s.pick
      )
      if (pending?.dashboardRefund) {
        const status = s.succeeds ? 'succeeded' : 'failed'
        stripeMock.setRefundStatus(pending.dashboardRefund.id, status)
        await atStripe(s.succeeds ? 'refund.updated' : 'refund.failed', pending.dashboardRefund.id)
        pending.dashboardRefund.state = status
        return
      }
      const session = nth(
        run.sessions.filter((x) => x.dashboardRefund === undefined && x.dispute === undefined),
        s.pick
      )
      if (!session) return
      const amount = Math.floor((keptOf(session) * s.quarters) / 4 / chargeUnit) * chargeUnit
      if (amount <= 0) return
      const refund = stripeMock.addRefund({ paymentIntent: session.intentId, amount, status: 'pending' })
      await atStripe('refund.created', refund.id)
      session.dashboardRefund = { id: refund.id, state: 'pending' }
      return
    }
    case 'settle':
      await settle(run)
      return
    case 'lateDispute':
      return lateDispute(run, s)
    case 'reverse': {
      // Stripe takes back (part of) a transfer, saying nothing of why: owed to the provider again, in transit. Only
      // while the provider owes nothing back, so that none of it is a recovery (the 'recover' step's case).
      const found = nth(await reversible(run, (payable) => payable >= 0), s.pick)
      if (!found) return
      const { transfer } = found
      const left = transfer.amount - Number(transfer.amount_reversed ?? 0)
      // A reversal is not held to whole forints (Stripe's charge unit only: KWD ending in 0): a part of one is a few
      // units short of a quarter, so a retry of it in HUF has a remainder to carry.
      const part = (q: number) => (Math.floor((left * q) / 4 / chargeUnit) - 5) * chargeUnit
      const amount = s.quarters === undefined ? left : part(s.quarters)
      if (amount <= 0) return
      stripeMock.reverseTransfer(transfer.id, amount)
      expect(await centres.deliver(stripeMock.event('transfer.reversed', transfer.id))).toBe('applied')
      reached.reversed++
      if (run.keeps) reached.convertedReversal++
      return
    }
    case 'recover': {
      // The centre takes back (part of) a transfer to a provider who owes it money (a chargeback or refund of what was
      // already paid out), in Stripe's Dashboard: tagged `purpose: recovery`, or saying nothing, when the platform
      // takes it as a recovery up to what the provider owes then and owes them the rest again.
      const found = nth(await reversible(run, (payable) => payable < 0), s.pick)
      if (!found) return
      const { transfer, providerId } = found
      const owes = -found.payable
      const left = transfer.amount - Number(transfer.amount_reversed ?? 0)
      // Either may take more than the provider owes: a tagged one is a recovery all the same (the provider is owed the
      // excess, paid by their next settlement), an untagged one only up to what they owe (the rest is in transit).
      const amount = s.quarters === undefined ? left : Math.floor((left * s.quarters) / 4 / chargeUnit) * chargeUnit
      if (amount <= 0) return
      const before = await recoveredOf(run, transfer.id)
      stripeMock.reverseTransfer(transfer.id, amount, s.tagged ? { purpose: 'recovery' } : {})
      expect(await centres.deliver(stripeMock.event('transfer.reversed', transfer.id))).toBe('applied')
      const taken = fromStripeAmount(amount, transfer.currency)
      // A converted send's recovery is its share of the send's amount, as the platform recorded it (the rule's own
      // unit test: test/unit/domain/payouts/transfer-conversion.test.ts); the books are held to it all the same.
      const recovered = run.keeps
        ? (await recoveredOf(run, transfer.id)) - before
        : s.tagged
          ? taken
          : Math.min(taken, owes)
      run.recovered.set(providerId, (run.recovered.get(providerId) ?? 0) + recovered)
      if (run.keeps) reached.convertedReversal++
      reached.recovered++
      if (!s.tagged) reached.untaggedRecovered++
      return
    }
    case 'retry': {
      const payouts = (await payoutsOf(run)).filter((p) => ['REVERSED', 'PARTIALLY_REVERSED'].includes(p.status))
      const payout = nth(payouts, s.pick)
      if (!payout) return
      const retried = await ok(run.t, 'POST', `/v1/marketplace/payouts/${payout.id}/retry`)
      if (Number(retried.amountCarried) > 0) reached.retryCarried++
      return
    }
  }
}

/**
 * One rule for a line (issue 78, item 2): once nothing is pending or open and everything is settled, what the
 * settlements took from each line (refunds and chargebacks, net of those given back) is exactly what the API says the
 * line gave back (its total less its `refundable`).
 */
async function expectLinesAgreeWithSettlements(run: Run): Promise<void> {
  const taken = await runInUnitOfWork(
    platform.db,
    run.t.tenantId,
    ({ tx }) =>
      tx.$queryRaw<Array<{ line: string; net: number }>>`
        SELECT order_line_id AS line,
               SUM(CASE WHEN kind::text IN ('REFUND', 'CHARGEBACK') THEN amount ELSE -amount END)::float8 AS net
        FROM settlement_items
        WHERE kind::text IN ('REFUND', 'CHARGEBACK', 'REFUND_REVERSAL', 'CHARGEBACK_REVERSAL')
        GROUP BY order_line_id`
  )
  const takenOf = new Map(taken.map((row) => [row.line, row.net]))
  for (const session of run.sessions) {
    for (const line of await refundableOf(run, session.orderId)) {
      expect(line.refundable, `line ${line.id}: refundable within its total`).toBeGreaterThanOrEqual(0)
      expect(takenOf.get(line.id) ?? 0, `line ${line.id}: taken by settlements = given back by the API's rule`).toBe(
        line.lineTotal - line.refundable
      )
    }
    if (session.lineIds.length === 2) reached.lineAgreesWithSettlements++
  }
}

/** A run: a session or two paid first (every other step acts on them), then 2 to 6 steps of any kind. */
const steps = fc
  .tuple(fc.array(session, { minLength: 1, maxLength: 2 }), fc.array(step, { minLength: 2, maxLength: 6 }))
  .map(([first, then]) => [...first, ...then])

it('never pays out what a reserve holds, nor loses a remainder, in any interleaving of sessions, refunds, disputes, settlements and reversals', async () => {
  // `USD/EUR`: US families pay in dollars into a Stripe balance that keeps euros (issue 78, item 1).
  const currency = fc.constantFrom('USD', 'HUF', 'KWD', 'USD/EUR')
  await fc.assert(
    fc.asyncProperty(steps, currency, async (steps, drawn) => {
      const [currency, keeps] = drawn.split('/') as [string, string | undefined]
      const { t, providers } = await newCentre()
      const run: Run = {
        t,
        currency,
        ...(keeps && { keeps: keeps.toLowerCase() }),
        providers,
        sessions: [],
        settlements: [],
        lastEnd: START,
        totals: new Map(),
        recovered: new Map(),
      }
      if (process.env.SETTLEMENT_PROPERTY_TRACE) console.info(drawn, steps.map((x) => JSON.stringify(x)).join(' '))
      // Each run's balance keeps what it draws: a converted run sets the day's rate before each charge.
      stripeMock.settleIn(null)
      for (const s of steps) await perform(run, s)
      // At the end of the run, as the steps left it; then settled once more, so what they decided is settled too.
      await expectInvariants(run)
      await settle(run)
      // Nothing open or pending any more: every reserve was given back.
      const undecided = run.sessions.some(
        (x) => x.dispute?.state === 'open' || x.dashboardRefund?.state === 'pending' || x.apiRefundPending
      )
      if (!undecided) {
        const balances = await balancesOf(run)
        for (const providerId of run.providers) {
          expect(balances(providerId).reserve, `provider ${providerId}: held once nothing is open`).toBe(0)
        }
        await expectLinesAgreeWithSettlements(run)
      }
      const items = await itemKinds(run)
      const kinds = new Set(items.map((i) => i.kind))
      if (items.some((i) => i.kind === 'RESERVE' && i.refund)) reached.pendingRefundReserve++
      if (kinds.has('RESERVE')) reached.reserve++
      if (kinds.has('RESERVE_RELEASE')) reached.reserveRelease++
      if (kinds.has('CHARGEBACK')) reached.chargeback++
      if (kinds.has('CHARGEBACK_REVERSAL')) reached.chargebackReversal++
      if (kinds.has('REFUND')) reached.refund++
    }),
    {
      numRuns: Number(process.env.SETTLEMENT_PROPERTY_RUNS ?? 12),
      // A fixed seed in CI, so the cases reached (checked below) are the same on every run; another to explore.
      seed: Number(process.env.SETTLEMENT_PROPERTY_SEED ?? 58),
      examples: [
        // USD into a balance kept in euros: two charges at different rates settled and sent in euros at their
        // weighted rate, a reversal in euros retried, a chargeback after the payout recovered by a reversal that says
        // nothing, a line refund and a dispute opened before a transfer, with Stripe's balance converted throughout.
        [
          [
            { kind: 'session', provider: 0, size: 3 },
            { kind: 'session', provider: 1, size: 1, pair: true },
            { kind: 'settle' },
            { kind: 'reverse', pick: 0, quarters: 2 },
            { kind: 'retry', pick: 0 },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'session', provider: 0, size: 0 },
            { kind: 'settle' },
            { kind: 'recover', pick: 0, quarters: undefined, tagged: false },
            { kind: 'lineRefund', pick: 0, line: 1, quarters: 2 },
            { kind: 'lateDispute', pick: 1 },
          ],
          'USD/EUR',
        ],
        // A HUF session disputed before a settlement (held), lost before the next (released and charged back), beside
        // sessions whose payouts leave remainders below a forint.
        [
          [
            { kind: 'session', provider: 0, size: 0 },
            { kind: 'session', provider: 0, size: 1 },
            { kind: 'session', provider: 1, size: 0 },
            { kind: 'dispute', pick: 0, outcome: 'open' },
            { kind: 'settle' },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'settle' },
          ],
          'HUF',
        ],
        // HUF: a transfer reversed in part (0.45 HUF short of a quarter), retried in whole forints, 0.45 carried.
        [
          [
            { kind: 'session', provider: 1, size: 2 },
            { kind: 'settle' },
            { kind: 'reverse', pick: 0, quarters: 2 },
            { kind: 'retry', pick: 0 },
            { kind: 'session', provider: 1, size: 1 },
            { kind: 'settle' },
          ],
          'HUF',
        ],
        // USD: a chargeback settled, then the funds reinstated (the dispute won after all) and given back; and a
        // refund pending in Stripe's Dashboard at a settlement (held), failed before the next (released).
        [
          [
            { kind: 'session', provider: 0, size: 3 },
            { kind: 'session', provider: 1, size: 1 },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'dashboardRefund', pick: 0, quarters: 2, succeeds: true },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'settle' },
            { kind: 'dispute', pick: 0, outcome: 'won' },
            { kind: 'dashboardRefund', pick: 0, quarters: 2, succeeds: false },
          ],
          'USD',
        ],
        // USD: a refund of a session already paid out (the provider owes its share), recovered by a reversal tagged
        // as a recovery that takes more than owed (the excess is the provider's again, on their payable balance);
        // then a chargeback after the payout, recovered by a reversal that says nothing and takes more than owed (the
        // excess in transit, sent again by a retry).
        [
          [
            { kind: 'session', provider: 0, size: 3 },
            { kind: 'session', provider: 0, size: 2 },
            { kind: 'settle' },
            { kind: 'refund', pick: 1, quarters: undefined },
            { kind: 'settle' },
            { kind: 'recover', pick: 0, quarters: 1, tagged: true },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'session', provider: 0, size: 0 },
            { kind: 'settle' },
            { kind: 'recover', pick: 0, quarters: undefined, tagged: false },
            { kind: 'retry', pick: 0 },
          ],
          'USD',
        ],
        // HUF: a dispute opened after a period's end and before its transfer (held back), lost before the next
        // settlement (taken from what was held); another won after its hold (paid by the next settlement).
        [
          [
            { kind: 'session', provider: 0, size: 3 },
            { kind: 'session', provider: 1, size: 1 },
            { kind: 'lateDispute', pick: 0 },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'session', provider: 1, size: 2 },
            { kind: 'lateDispute', pick: 1 },
            { kind: 'dispute', pick: 0, outcome: 'won' },
            { kind: 'settle' },
          ],
          'HUF',
        ],
        // USD: both providers' sessions on one order, a refund naming one line for a unit more than it can give back
        // (refused), then for half of it, settled; a second order of the pair disputed and lost, then a line of it
        // named beyond what the chargeback left (refused), settled: the API's refundable agrees with the settlements.
        [
          [
            { kind: 'session', provider: 0, size: 1, pair: true },
            { kind: 'lineRefund', pick: 0, line: 1, quarters: undefined },
            { kind: 'lineRefund', pick: 0, line: 1, quarters: 2 },
            { kind: 'settle' },
            { kind: 'session', provider: 1, size: 3, pair: true },
            { kind: 'dispute', pick: 1, outcome: 'lost' },
            { kind: 'dispute', pick: 0, outcome: 'lost' },
            { kind: 'lineRefund', pick: 0, line: 0, quarters: undefined },
            { kind: 'settle' },
          ],
          'USD',
        ],
        // KWD: a partial refund, a settlement paying amounts ending in 0, a partial reversal retried.
        [
          [
            { kind: 'session', provider: 0, size: 0 },
            { kind: 'session', provider: 1, size: 3 },
            { kind: 'refund', pick: 1, quarters: 1 },
            { kind: 'settle' },
            { kind: 'reverse', pick: 0, quarters: 1 },
            { kind: 'retry', pick: 0 },
          ],
          'KWD',
        ],
      ],
      endOnFailure: true,
    }
  )
  // The fixed seed (and the examples) reach these; a change of the generator that stops reaching them must not pass.
  const seen = JSON.stringify(reached)
  expect(reached.reserve, seen).toBeGreaterThan(0)
  expect(reached.reserveRelease, seen).toBeGreaterThan(0)
  expect(reached.chargeback, seen).toBeGreaterThan(0)
  expect(reached.hufPayout, seen).toBeGreaterThan(0)
  expect(reached.kwdPayout, seen).toBeGreaterThan(0)
  expect(reached.carriedRemainder, seen).toBeGreaterThan(0)
  expect(reached.retryCarried, seen).toBeGreaterThan(0)
  expect(reached.chargebackReversal, seen).toBeGreaterThan(0)
  expect(reached.pendingRefundReserve, seen).toBeGreaterThan(0)
  expect(reached.recovered, seen).toBeGreaterThan(0)
  expect(reached.untaggedRecovered, seen).toBeGreaterThan(0)
  expect(reached.heldAtTransfer, seen).toBeGreaterThan(0)
  expect(reached.lineRefund, seen).toBeGreaterThan(0)
  expect(reached.convertedPayout, seen).toBeGreaterThan(0)
  expect(reached.convertedReversal, seen).toBeGreaterThan(0)
  expect(reached.lineRefused, seen).toBeGreaterThan(0)
  expect(reached.lineAgreesWithSettlements, seen).toBeGreaterThan(0)
  console.info(`settlement interleavings reached ${seen}`)
}, 300_000)
