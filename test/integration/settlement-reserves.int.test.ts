/**
 * Reserves (issue 58, item 4; docs/marketplace.md, "Reserves") against Stripe's API mock behind the recording proxy,
 * with the real API, database, Temporal server and worker, disputes and refunds driven by signed Stripe events as in
 * stripe-payouts.int.test.ts. Stripe withdraws a disputed amount when the dispute opens, and a pending refund is money
 * on its way back: a settlement whose end finds either holds the provider's share back from the payout (a RESERVE
 * item, booked to provider_reserve), and the first settlement after it closed gives it back (RESERVE_RELEASE), the
 * CHARGEBACK or REFUND of a lost dispute or a succeeded refund being taken as before: one chargeback, never two, and
 * nothing held ever paid out. After each test, the tenant's books pass the ledger check (reserves included) against
 * what the proxy's Stripe holds.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, type Platform } from '../support/platform.ts'
import type { StripeMock } from '../support/stripe-mock.ts'
import { startStripeCentres, stripeEvent, type Centre, type StripeCentres } from '../support/stripe-centres.ts'

let centres: StripeCentres
let stripeMock: StripeMock
let platform: Platform

beforeAll(async () => {
  centres = await startStripeCentres('reserves')
  ;({ platform, stripeMock } = centres)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await centres?.stop()
})

afterEach(() => centres.checkBooks())

const ok = (t: Centre, method: string, path: string, body?: unknown, status = 200) =>
  centres.ok(t, method, path, body, status)
const deliver = (event: object) => centres.deliver(event)

/** A centre with a 10% platform fee and a provider whose connected account Stripe enabled for payouts. */
async function newCentre(): Promise<Centre & { providerId: string }> {
  const t = await centres.newCentre(['providers', 'settlements', 'children', 'orders', 'payments'])
  // The onboarding redirects must be on one of the tenant's hosts.
  await centres.registerDomain(t.tenantId, 'centre.example')
  await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
  const providerId = (await ok(t, 'POST', '/v1/providers', { name: 'Gia SLP', timeZone: 'UTC' }, 201)).id as string
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
  expect(await deliver(stripeEvent('account.updated', account))).toBe('applied')
  return { ...t, providerId }
}

/** What Stripe does, told by its signed event: the event must be applied. */
const atStripe = async (type: string, id: string) => expect(await deliver(stripeMock.event(type, id))).toBe('applied')

/** A completed session of the provider on an order of `amount`, paid by card through Stripe. */
const paidSession = (t: Centre & { providerId: string }, amount: number) => centres.paidSession(t, t.providerId, amount)

/** Settles [start, now): its end, its (one) provider's result (none when it found nothing to settle) and totals. */
async function settleFrom(t: Centre, start: Date, until?: Date) {
  const { id, end, run } = await centres.settleFrom(t, start, 'USD', until)
  const [mine] = run.providers as Array<Record<string, unknown> | undefined>
  return { id, end, provider: mine, totals: run.totals as Record<string, unknown> }
}

/** The provider's payable and reserve balances (credit − debit: what the platform owes), the books summing to zero. */
async function owed(t: Centre & { providerId: string }) {
  const body = await ok(t, 'GET', '/v1/marketplace/ledger/balances?currency=USD')
  const data = body.data as Array<{ account: string; balance: number }>
  expect(data.reduce((sum, a) => sum + a.balance, 0)).toBe(0)
  const of = (account: string) => 0 - (data.find((a) => a.account === account)?.balance ?? 0)
  return { payable: of(`provider_payable:${t.providerId}`), reserve: of(`provider_reserve:${t.providerId}`) }
}

/** The tenant's reserve, refund and chargeback items, oldest first, each with what it was made for. */
const itemsOf = (t: Centre) =>
  runInUnitOfWork(
    platform.db,
    t.tenantId,
    ({ tx }) =>
      tx.$queryRaw<Array<{ kind: string; source: string; amount: number; fee: number }>>`
        SELECT si.kind::text, COALESCE(d.processor_reference, r.processor_reference) AS source,
               si.amount::float8, si.fee_amount::float8 AS fee
        FROM settlement_items si
        LEFT JOIN payment_disputes d ON d.id = si.dispute_id AND d.tenant_id = si.tenant_id
        LEFT JOIN refunds r ON r.id = si.refund_id AND r.tenant_id = si.tenant_id
        WHERE si.kind::text IN ('RESERVE', 'RESERVE_RELEASE', 'REFUND', 'CHARGEBACK')
        ORDER BY si.created_at, si.kind, si.id`
  )

/** What Stripe transferred to the tenant's providers, in all. */
const transferred = (t: Centre) =>
  stripeMock
    .objects('transfer')
    .filter((o) => o.metadata.tenant_id === t.tenantId)
    .reduce((sum, o) => sum + o.amount - Number(o.amount_reversed ?? 0), 0)

const START = new Date('2026-01-01T00:00:00Z')

describe('a dispute open at a settlement (issue 58, item 4)', () => {
  /** A 10,000 session disputed in full before the first settlement, beside a 4,000 session nobody disputed. */
  async function disputedBeforeSettling() {
    const t = await newCentre()
    const disputed = await paidSession(t, 10_000)
    await paidSession(t, 4_000)
    const dispute = stripeMock.addDispute({ paymentIntent: disputed.intentId })
    await atStripe('charge.dispute.created', dispute.id)

    // Stripe took the 10,000 when the dispute opened: Gia's 9,000 share of it is held back, the 3,600 paid.
    const first = await settleFrom(t, START)
    expect(first.provider).toMatchObject({
      grossAmount: 14_000,
      feeAmount: 1_400,
      refundAmount: 0,
      netAmount: 12_600,
      reserveAmount: 9_000,
      payoutAmount: 3_600,
      balanceAfter: 0,
    })
    expect(first.totals).toMatchObject({ reserveAmount: 9_000, payoutAmount: 3_600 })
    expect(await itemsOf(t)).toEqual([{ kind: 'RESERVE', source: dispute.id, amount: 10_000, fee: 1_000 }])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 9_000 })
    await eventually(async () => (transferred(t) === 3_600 ? true : undefined), 30_000)
    return { t, dispute, first }
  }

  it('holds back the provider’s share while it is open, and gives it back once the centre wins it', async () => {
    const { t, dispute, first } = await disputedBeforeSettling()

    // While it is still open there is nothing to settle: it is held once, and nothing is given back.
    const second = await settleFrom(t, first.end)
    expect(second.provider).toBeUndefined()

    stripeMock.update(dispute.id, { status: 'won' })
    await atStripe('charge.dispute.closed', dispute.id)
    const third = await settleFrom(t, second.end)
    expect(third.provider).toMatchObject({ refundAmount: 0, netAmount: 0, reserveAmount: -9_000, payoutAmount: 9_000 })
    expect(await itemsOf(t)).toEqual([
      { kind: 'RESERVE', source: dispute.id, amount: 10_000, fee: 1_000 },
      { kind: 'RESERVE_RELEASE', source: dispute.id, amount: 10_000, fee: 1_000 },
    ])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    await eventually(async () => (transferred(t) === 12_600 ? true : undefined), 30_000)
  })

  it('nets a lost one to a single chargeback: released and taken in the same settlement, never paid out', async () => {
    const { t, dispute, first } = await disputedBeforeSettling()

    stripeMock.update(dispute.id, { status: 'lost' })
    await atStripe('charge.dispute.closed', dispute.id)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({
      refundAmount: 10_000,
      feeRefundAmount: 1_000,
      netAmount: -9_000,
      reserveAmount: -9_000,
      payoutAmount: 0,
      balanceAfter: 0,
    })
    expect(await itemsOf(t)).toEqual([
      { kind: 'RESERVE', source: dispute.id, amount: 10_000, fee: 1_000 },
      { kind: 'CHARGEBACK', source: dispute.id, amount: 10_000, fee: 1_000 },
      { kind: 'RESERVE_RELEASE', source: dispute.id, amount: 10_000, fee: 1_000 },
    ])
    // Nothing owed either way: Gia was paid 3,600 for the undisputed session, and nothing of the disputed one.
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    // And nothing is left to settle.
    expect((await settleFrom(t, second.end)).provider).toBeUndefined()
    expect(transferred(t)).toBe(3_600)
  })
})

describe('a dispute opened after the payout (issue 58, item 4)', () => {
  it("holds back the provider's next earnings while it is open, and pays them once it is won", async () => {
    const t = await newCentre()
    const session = await paidSession(t, 10_000)
    const first = await settleFrom(t, START)
    expect(first.provider).toMatchObject({ netAmount: 9_000, reserveAmount: 0, payoutAmount: 9_000 })

    // Disputed once paid out; meanwhile Gia earns 3,600 more. The 9,000 is held from it: nothing paid, 5,400 owed.
    const dispute = stripeMock.addDispute({ paymentIntent: session.intentId })
    await atStripe('charge.dispute.created', dispute.id)
    await paidSession(t, 4_000)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({
      netAmount: 3_600,
      reserveAmount: 9_000,
      payoutAmount: 0,
      balanceAfter: -5_400,
    })
    expect(await owed(t)).toEqual({ payable: -5_400, reserve: 9_000 })

    stripeMock.update(dispute.id, { status: 'won' })
    await atStripe('charge.dispute.closed', dispute.id)
    const third = await settleFrom(t, second.end)
    expect(third.provider).toMatchObject({ carriedForward: -5_400, reserveAmount: -9_000, payoutAmount: 3_600 })
    expect(await itemsOf(t)).toEqual([
      { kind: 'RESERVE', source: dispute.id, amount: 10_000, fee: 1_000 },
      { kind: 'RESERVE_RELEASE', source: dispute.id, amount: 10_000, fee: 1_000 },
    ])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    await eventually(async () => (transferred(t) === 12_600 ? true : undefined), 30_000)
  })
})

describe('an inquiry open at a settlement (issue 58, item 4)', () => {
  // An inquiry (`warning_needs_response`) withdraws nothing, yet it was held back like a chargeback: the provider was
  // paid 9,000 less for money Stripe never took. Only its escalation, when Stripe takes the funds, is held back.
  it('holds nothing back while Stripe has taken nothing, and the share once it escalates to a chargeback', async () => {
    const t = await newCentre()
    const disputed = await paidSession(t, 10_000)
    await paidSession(t, 4_000)
    const inquiry = stripeMock.addDispute({ paymentIntent: disputed.intentId, status: 'warning_needs_response' })
    await atStripe('charge.dispute.created', inquiry.id)

    const first = await settleFrom(t, START)
    expect(first.provider).toMatchObject({ netAmount: 12_600, reserveAmount: 0, payoutAmount: 12_600 })
    expect(await itemsOf(t)).toEqual([])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    await eventually(async () => (transferred(t) === 12_600 ? true : undefined), 30_000)

    // The issuer turns it into a chargeback: Stripe takes the 10,000 (and its 1,500 fee, the centre's cost).
    stripeMock.update(inquiry.id, {
      status: 'needs_response',
      balance_transactions: [{ id: 'txn_escalated', amount: -11_500, fee: 1_500, currency: 'usd' }],
    })
    await atStripe('charge.dispute.funds_withdrawn', inquiry.id)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({ netAmount: 0, reserveAmount: 9_000, payoutAmount: 0, balanceAfter: -9_000 })
    expect(await itemsOf(t)).toEqual([{ kind: 'RESERVE', source: inquiry.id, amount: 10_000, fee: 1_000 }])
    expect(await owed(t)).toEqual({ payable: -9_000, reserve: 9_000 })
  })
})

describe('a refund pending at a settlement (issue 58, item 4)', () => {
  /** A 10,000 session with 4,000 of it refunded from Stripe's Dashboard, still pending at the first settlement. */
  async function refundingBeforeSettling() {
    const t = await newCentre()
    const session = await paidSession(t, 10_000)
    const refund = stripeMock.addRefund({ paymentIntent: session.intentId, amount: 4_000, status: 'pending' })
    await atStripe('refund.created', refund.id)
    expect((await ok(t, 'GET', `/v1/payments/${session.paymentId}`)).refunds).toEqual([
      expect.objectContaining({ status: 'PENDING', amount: 4_000 }),
    ])

    const first = await settleFrom(t, START)
    expect(first.provider).toMatchObject({ netAmount: 9_000, reserveAmount: 3_600, payoutAmount: 5_400 })
    expect(await itemsOf(t)).toEqual([{ kind: 'RESERVE', source: refund.id, amount: 4_000, fee: 400 }])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 3_600 })
    return { t, refund, first }
  }

  it('takes the refund once it succeeds, with the reserve released in the same settlement', async () => {
    const { t, refund, first } = await refundingBeforeSettling()
    stripeMock.setRefundStatus(refund.id, 'succeeded')
    await atStripe('refund.updated', refund.id)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({
      refundAmount: 4_000,
      feeRefundAmount: 400,
      reserveAmount: -3_600,
      payoutAmount: 0,
      balanceAfter: 0,
    })
    expect(await itemsOf(t)).toEqual([
      { kind: 'RESERVE', source: refund.id, amount: 4_000, fee: 400 },
      { kind: 'REFUND', source: refund.id, amount: 4_000, fee: 400 },
      { kind: 'RESERVE_RELEASE', source: refund.id, amount: 4_000, fee: 400 },
    ])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    await eventually(async () => (transferred(t) === 5_400 ? true : undefined), 30_000)
  })

  it('gives the reserve back when the refund fails, and pays it out', async () => {
    const { t, refund, first } = await refundingBeforeSettling()
    stripeMock.setRefundStatus(refund.id, 'failed')
    await atStripe('refund.failed', refund.id)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({ refundAmount: 0, reserveAmount: -3_600, payoutAmount: 3_600 })
    expect(await itemsOf(t)).toEqual([
      { kind: 'RESERVE', source: refund.id, amount: 4_000, fee: 400 },
      { kind: 'RESERVE_RELEASE', source: refund.id, amount: 4_000, fee: 400 },
    ])
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
    await eventually(async () => (transferred(t) === 9_000 ? true : undefined), 30_000)
  })
})

describe('a dispute opened between a settlement and its transfer (issue 78, item 3)', () => {
  it('is held back from the transfer, carried to the next settlement and taken there once lost', async () => {
    const t = await newCentre()
    const disputed = await paidSession(t, 10_000)
    await paidSession(t, 4_000)
    // The period ends before the dispute opens, so the settlement cannot see it; its transfer, made after, does.
    await new Promise((resolve) => setTimeout(resolve, 20))
    const end = new Date()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const dispute = stripeMock.addDispute({ paymentIntent: disputed.intentId })
    await atStripe('charge.dispute.created', dispute.id)
    const first = await settleFrom(t, START, end)
    expect(first.provider).toMatchObject({ netAmount: 12_600, reserveAmount: 0, payoutAmount: 12_600 })
    // Gia's 9,000 share of the disputed session stays: 3,600 leaves, the rest goes back to her payable balance.
    expect(transferred(t)).toBe(3_600)
    const payouts = (await ok(t, 'GET', `/v1/marketplace/settlements/${first.id}/payouts`)).data as unknown[]
    expect(payouts).toEqual([
      expect.objectContaining({ amount: 12_600, amountCarried: 9_000, amountHeld: 9_000, status: 'PAID' }),
    ])
    expect(await owed(t)).toEqual({ payable: 9_000, reserve: 0 })

    // Lost: the next settlement takes the chargeback from what was held back. Nothing paid out had to come back.
    stripeMock.update(dispute.id, { status: 'lost' })
    await atStripe('charge.dispute.closed', dispute.id)
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({
      refundAmount: 10_000,
      feeRefundAmount: 1_000,
      netAmount: -9_000,
      carriedForward: 9_000,
      payoutAmount: 0,
      balanceAfter: 0,
    })
    expect(transferred(t)).toBe(3_600)
    expect(await owed(t)).toEqual({ payable: 0, reserve: 0 })
  })
})
