/**
 * Online card payments through Stripe against Stripe's own API mock (stripe-mock, behind a recording proxy) and the
 * real API and database: a CARD_ONLINE payment creates a PaymentIntent (our ids in its metadata, an idempotency key
 * per request) and answers its client secret; Stripe's signed webhooks settle it once however often they are
 * redelivered and in whatever order; forged and stale signatures change nothing; refunds go through Stripe Refunds
 * and are undone when Stripe reports them failed; a refund given up after 22 hours is first looked for at Stripe;
 * Stripe unreachable leaves nothing behind; and without Stripe configured, online payments are refused as before.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { giveUpRefund } from '../../domain/payments/online-refunds.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { expectLedgerHolds, ledgerViolationsOf } from '../support/ledger-check.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'
import { deliverStripeEvent, type StripeDelivery } from '../support/stripe-webhooks.ts'
import { recordHistory } from '../replay-histories/record-history.ts'

/** Whether a payment's first refund has SUCCEEDED and is counted in the payment's `amountRefunded`. */
const settledRefund = (p: { amountRefunded: number; refunds: Array<{ status: string; amount: number }> }) =>
  p.refunds[0]?.status === 'SUCCEEDED' && p.amountRefunded >= p.refunds[0].amount

const WEBHOOK_SECRET = 'whsec_platform_test'
const CONNECT_SECRET = 'whsec_connect_test'
/** The expiring platform's pending payments wait this long for their payer (a day by default). */
const EXPIRY_SECONDS = 3
let stripeMock: StripeMock
let platform: Platform
let recordedOnly: Platform
/** The same database and Stripe, with pending payments that expire within seconds. */
let expiring: Platform

beforeAll(async () => {
  stripeMock = await startStripeMock()
  ;[platform, recordedOnly] = await Promise.all([
    startPlatform({
      overrides: {
        ONLINE_PAYMENT_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET,
        STRIPE_API_BASE: stripeMock.url,
        // The refund's workflow takes a call over a second after the request (a minute by default).
        REFUND_TAKEOVER_SECONDS: '1',
      },
    }),
    startPlatform({ withWorker: false }),
  ])
  expiring = await startPlatform({
    overrides: {
      ...platform.workerEnv,
      TEMPORAL_TASK_QUEUE: `${platform.config.TEMPORAL_TASK_QUEUE}-expiring`,
      ONLINE_PAYMENT_EXPIRY_SECONDS: String(EXPIRY_SECONDS),
      LOG_LEVEL: 'silent',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([platform?.stop(), recordedOnly?.stop(), expiring?.stop(), stripeMock?.stop()])
})

/** The tenants a test made: the ledger check runs over each after it. */
const tenantsOfTest: string[] = []
async function freshTenant(on: Platform = platform) {
  const client = await on.newTenant(['orders', 'payments'])
  tenantsOfTest.push(client.tenantId)
  return { ...client, token: await on.token(client) }
}

// After every test, each of its tenants' books hold by the database's own rules (domain/reconciliation/ledger-check.ts;
// these tests drive Stripe's side by hand-made events, so its model is not compared here: payment-faults does that).
afterEach(async () => {
  for (const tenantId of tenantsOfTest.splice(0)) await expectLedgerHolds(platform, tenantId)
})
type Tenant = Awaited<ReturnType<typeof freshTenant>>

async function openOrder(t: Tenant, total: number, on: Platform = platform): Promise<string> {
  const response = await on.http.post('/v1/orders', {
    token: t.token,
    body: {
      status: 'OPEN',
      currency: 'USD',
      lines: [{ kind: 'SESSION_PACKAGE', description: 'Sessions', unitAmount: total }],
    },
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id
}

const payOnline = (t: Tenant, orderId: string, amount: number, key = randomUUID(), on: Platform = platform) =>
  on.http.post('/v1/payments', {
    token: t.token,
    headers: { 'Idempotency-Key': key },
    body: { orderId, amount, currency: 'USD', method: 'CARD_ONLINE' },
  })
const getPayment = async (t: Tenant, id: string) =>
  (await platform.http.get(`/v1/payments/${id}`, { token: t.token })).body
const getOrder = async (t: Tenant, id: string) => (await platform.http.get(`/v1/orders/${id}`, { token: t.token })).body
const succeededEvents = (t: Tenant) =>
  runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) =>
    uow.tx.event.findMany({ where: { type: 'payment.succeeded' } })
  )

/** Delivers a Stripe event to the API as Stripe would: the JSON body signed with the endpoint's secret. */
const deliver = (event: object, options: Partial<StripeDelivery> = {}) =>
  deliverStripeEvent(platform.http, event, { secret: WEBHOOK_SECRET, ...options })

/** Our payment as an event names it: its id, its intent and what it charges. */
interface PaymentRef {
  id: string
  processorReference: string
  amount: number
}

let eventClock = Math.floor(Date.now() / 1000)
/** A Stripe event envelope; each one created a second after the one before, as Stripe's own would be. */
const stripeEvent = (type: string, object: object, extra: object = {}) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  created: ++eventClock,
  livemode: false,
  data: { object },
  ...extra,
})

/** A Stripe event about `payment`'s PaymentIntent, as Stripe builds it from the metadata we set. */
const intentEvent = (type: string, t: Tenant, payment: PaymentRef, extra: object = {}) =>
  stripeEvent(type, {
    id: payment.processorReference,
    object: 'payment_intent',
    amount: payment.amount,
    currency: 'usd',
    metadata: { tenant_id: t.tenantId, payment_id: payment.id },
    ...extra,
  })
const refundEvent = (
  type: string,
  status: string,
  t: Tenant,
  payment: PaymentRef,
  refund: { id: string; amount: number }
) =>
  stripeEvent(type, {
    id: `re_${refund.id}`,
    object: 'refund',
    status,
    amount: refund.amount,
    currency: 'usd',
    payment_intent: payment.processorReference,
    metadata: { tenant_id: t.tenantId, payment_id: payment.id, refund_id: refund.id },
  })

/** A CARD_ONLINE payment Stripe has confirmed. */
async function succeededPayment(t: Tenant, orderId: string, amount: number) {
  const created = await payOnline(t, orderId, amount)
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  // As at Stripe: the intent succeeded (its charge and fee made) before the event says so.
  stripeMock.setIntentStatus((created.body as PaymentRef).processorReference, 'succeeded')
  const answer = await deliver(intentEvent('payment_intent.succeeded', t, created.body))
  expect(answer.body).toEqual({ received: true, outcome: 'applied' })
  return created.body as PaymentRef
}

describe('starting an online payment', () => {
  it('creates a PaymentIntent with our ids and the request key, and answers a PENDING payment with its client secret', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 12_000)
    const key = randomUUID()
    const before = stripeMock.requests.length
    const created = await payOnline(t, orderId, 5_000, key)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({
      status: 'PENDING',
      method: 'CARD_ONLINE',
      processor: 'stripe',
      amount: 5_000,
      processorReference: expect.stringMatching(/^pi_/),
      clientSecret: expect.stringMatching(/^pi_.+_secret_/),
      receivedAt: null,
    })
    const sent = stripeMock.requests.slice(before)
    expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /v1/payment_intents 200'])
    expect(sent[0]!.form).toMatchObject({
      amount: '5000',
      currency: 'usd',
      'metadata[tenant_id]': t.tenantId,
      'metadata[payment_id]': created.body.id,
      'metadata[order_id]': orderId,
    })
    expect(sent[0]!.idempotencyKey).toBe(`payment:${t.tenantId}:${t.client_id}:${key}`)
    // Nothing is paid until Stripe says so; the pending amount is held against the balance.
    expect(await getOrder(t, orderId)).toMatchObject({ amountPaid: 0, balance: 12_000 })
    const overPending = await platform.http.post('/v1/payments', {
      token: t.token,
      body: { orderId, amount: 8_000, currency: 'USD', method: 'CASH' },
    })
    expect(overPending.status).toBe(409)
    expect(overPending.body.code).toBe('amount_exceeds_balance')

    // The same request again (a client retry): the stored answer, one payment, no second intent.
    const again = await payOnline(t, orderId, 5_000, key)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.id).toBe(created.body.id)
    expect(stripeMock.requests.length).toBe(before + 1)
  })

  it('answers 503 when Stripe cannot be reached, keeps the payment (holding nothing), and a retry reuses it', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 3_000)
    const key = randomUUID()
    const before = stripeMock.requests.length
    stripeMock.down = true
    let refused
    try {
      refused = await payOnline(t, orderId, 3_000, key)
    } finally {
      stripeMock.down = false
    }
    expect(refused.status).toBe(503)
    expect(refused.body.code).toBe('dependency_unavailable')
    // Stripe may have made the intent and lost its answer: the payment stays, with the key it sent, and holds nothing
    // of the balance (nobody was given its intent to pay).
    const kept = (await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })).body.data
    expect(kept).toEqual([expect.objectContaining({ status: 'PENDING', processorReference: null })])
    expect(await getOrder(t, orderId)).toMatchObject({ balance: 3_000 })
    const retried = await payOnline(t, orderId, 3_000, key)
    expect(retried.status).toBe(201)
    expect(retried.body).toMatchObject({ id: kept[0].id, status: 'PENDING', processorReference: expect.any(String) })
    // Every try sent the same key with the same payment id: Stripe answers the intent of the first.
    const sent = stripeMock.requests.slice(before)
    expect(new Set(sent.map((r) => r.idempotencyKey))).toEqual(new Set([`payment:${t.tenantId}:${t.client_id}:${key}`]))
    expect(new Set(sent.map((r) => r.form['metadata[payment_id]']))).toEqual(new Set([kept[0].id]))
  })

  // Issue 58, item 6: Stripe's refusal of an amount under its minimum, over its maximum or in a currency the account
  // does not take was answered 503 "retry", which can never succeed.
  it("answers 422 processor_refused naming the amount or currency when Stripe's limits refuse it", async () => {
    const t = await freshTenant()
    const cases = [
      {
        amount: 30,
        error: { code: 'amount_too_small', param: 'amount', message: 'Amount must be at least $0.50 usd' },
        field: 'amount',
        limit: 'amount_too_small',
      },
      {
        amount: 3_000,
        error: { code: 'amount_too_large', param: 'amount', message: 'Amount must be no more than $999,999.99' },
        field: 'amount',
        limit: 'amount_too_large',
      },
      {
        amount: 3_000,
        error: { param: 'currency', message: 'Invalid currency: usd. This account cannot take usd.' },
        field: 'currency',
        limit: 'currency_not_supported',
      },
    ]
    for (const { amount, error, field, limit } of cases) {
      const orderId = await openOrder(t, amount)
      stripeMock.refuseNext('/v1/payment_intents', error)
      const refused = await payOnline(t, orderId, amount, randomUUID())
      expect(refused.status, JSON.stringify(refused.body)).toBe(422)
      expect(refused.body).toMatchObject({
        code: 'processor_refused',
        status: 422,
        errors: [{ path: field, code: limit, message: error.message }],
      })
      expect(refused.body.detail).toContain(error.message)
      expect(refused.headers.get('retry-after')).toBeNull()
      // Nothing holds the order's balance: the payment has no intent for anyone to pay.
      expect(await getOrder(t, orderId)).toMatchObject({ balance: amount })
    }
  })

  it('after a crash between Stripe answering and our commit, a retry reuses its payment and the same Stripe key', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const key = randomUUID()
    // What such a crash leaves (online-payment-service.ts): phase 1 committed, the PENDING payment with the key it
    // sent to Stripe and no intent id (phase 2 never committed), and the request's idempotency claim, whose lease
    // (2 minutes) is over by the time the client retries: here it was simply never written.
    const paymentId = newId('payment')
    await runInUnitOfWork(platform.api.deps.db, t.tenantId, async (uow) => {
      const order = await uow.tx.order.findFirstOrThrow({ where: { id: orderId } })
      await uow.tx.payment.create({
        data: {
          id: paymentId,
          tenantId: t.tenantId,
          orderId,
          locationId: order.locationId,
          clientId: order.clientId,
          amount: 2_000,
          currency: 'USD',
          status: 'PENDING',
          method: 'CARD_ONLINE',
          processor: 'stripe',
          processorIdempotencyKey: `payment:${t.tenantId}:${t.client_id}:${key}`,
        },
      })
    })
    const before = stripeMock.requests.length
    const retried = await payOnline(t, orderId, 2_000, key)
    expect(retried.status, JSON.stringify(retried.body)).toBe(201)
    expect(retried.body).toMatchObject({
      id: paymentId,
      status: 'PENDING',
      processorReference: expect.stringMatching(/^pi_/),
    })
    // Stripe answers a repeated key with the intent it made the first time: no second charge is possible.
    const sent = stripeMock.requests.slice(before)
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`payment:${t.tenantId}:${t.client_id}:${key}`])
    expect(sent[0]!.form['metadata[payment_id]']).toBe(paymentId)
    const listed = await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([paymentId])
  })

  it("refuses a retry once Stripe may have forgotten the request's key, rather than make a second intent", async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_200)
    const key = randomUUID()
    const first = await payOnline(t, orderId, 1_200, key)
    expect(first.status).toBe(201)
    // A day later (its stored answer gone, the payment still PENDING: its expiry was configured longer).
    await inTenant(t, async ({ tx }) => {
      await tx.payment.update({
        where: { id: first.body.id },
        data: { createdAt: new Date(Date.now() - 24 * 3600 * 1000) },
      })
      await tx.idempotencyRecord.deleteMany({ where: { key } })
    })
    const before = stripeMock.requests.length
    const retried = await payOnline(t, orderId, 1_200, key)
    expect(retried.status).toBe(409)
    expect(retried.body.code).toBe('invalid_state_transition')
    expect(stripeMock.requests.length).toBe(before)
    expect((await getPayment(t, first.body.id)).processorReference).toBe(first.body.processorReference)
  })

  it('refuses CARD_ONLINE with a reported failure or a received time: the processor decides those', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_000)
    const response = await platform.http.post('/v1/payments', {
      token: t.token,
      body: { orderId, amount: 1_000, currency: 'USD', method: 'CARD_ONLINE', failure: { code: 'CARD_DECLINED' } },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'failure', code: 'not_allowed' })])
  })
})

describe("Stripe's webhooks", () => {
  // Issue 58: the event does not carry the fee; Stripe's charge does, asked when the success is applied.
  it("book Stripe's processing fee with the payment, so clearing holds what Stripe's balance gained", async () => {
    const t = await freshTenant()
    const before = stripeMock.requests.length
    const payment = await succeededPayment(t, await openOrder(t, 10_000), 10_000)
    const asked = stripeMock.requests.slice(before).filter((r) => r.method === 'GET')
    expect(asked.map((r) => decodeURIComponent(r.path))).toContain(
      `/v1/payment_intents/${payment.processorReference}?expand[0]=latest_charge.balance_transaction`
    )
    const books = await runInUnitOfWork(platform.api.deps.db, t.tenantId, ({ tx }) =>
      tx.ledgerLine.groupBy({ by: ['account'], _sum: { debit: true, credit: true }, orderBy: { account: 'asc' } })
    )
    // The model's fee: 2.9% of 10,000 + 30.
    expect(books.map((b) => [b.account, (b._sum.debit ?? 0) - (b._sum.credit ?? 0)])).toEqual([
      ['clearing', 10_000 - 320],
      ['payer_funds', -10_000],
      ['processor_fees', 320],
    ])
    expect(await getPayment(t, payment.id)).toMatchObject({ status: 'SUCCEEDED', processorFee: 320 })
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })

  // Issue 58, FX: an account whose balance keeps euros; Stripe converts the dollar charge at 0.9 and, the day after,
  // its refund at 0.92.
  it('book a charge and a refund Stripe converted in the currency its balance keeps, through fx_conversion', async () => {
    const client = await platform.newTenant(['orders', 'payments', 'settlements.read'])
    tenantsOfTest.push(client.tenantId)
    const t = { ...client, token: await platform.token(client) }
    let payment: PaymentRef
    stripeMock.settleIn({ currency: 'eur', rate: 0.9 })
    try {
      payment = await succeededPayment(t, await openOrder(t, 10_000), 10_000)
      stripeMock.settleIn({ currency: 'eur', rate: 0.92 })
      const before = stripeMock.requests.length
      const refund = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        body: { amount: 2_500, reason: 'REQUESTED_BY_CLIENT' },
      })
      expect(refund.status, JSON.stringify(refund.body)).toBe(201)
      // The answer to the create does not carry its balance transaction: the refund is read back for it.
      expect(stripeMock.requests.slice(before).map((r) => `${r.method} ${decodeURIComponent(r.path)}`)).toContain(
        `GET /v1/refunds/${refund.body.processorReference}?expand[0]=balance_transaction`
      )
      // The fee Stripe took in euros (2.9% of 9,000 + 30 = 291), as dollars at the charge's rate; what the balance
      // moved, in euros, as its balance transactions say.
      expect(await getPayment(t, payment.id)).toMatchObject({
        processorFee: 323,
        settled: { currency: 'EUR', amount: 9_000, fee: 291 },
        refunds: [expect.objectContaining({ amount: 2_500, settled: { currency: 'EUR', amount: -2_300, fee: 0 } })],
      })
    } finally {
      stripeMock.settleIn(null)
    }
    const books = await runInUnitOfWork(platform.api.deps.db, t.tenantId, ({ tx }) =>
      tx.ledgerLine.groupBy({
        by: ['account', 'currency'],
        _sum: { debit: true, credit: true },
        orderBy: [{ account: 'asc' }, { currency: 'asc' }],
      })
    )
    expect(books.map((b) => [b.account, b.currency, (b._sum.debit ?? 0) - (b._sum.credit ?? 0)])).toEqual([
      // What Stripe's balance holds: 9,000 in, its 291 fee and the refund's 2,300 out.
      ['clearing', 'EUR', 9_000 - 291 - 2_300],
      // Valued at either rate, the 50 EUR the rate's move cost.
      ['fx_conversion', 'EUR', -(9_000 - 2_300)],
      ['fx_conversion', 'USD', 10_000 - 2_500],
      ['payer_funds', 'USD', -(10_000 - 2_500)],
      ['processor_fees', 'EUR', 291],
    ])
    // Clearing equals Stripe's balance transactions in euros, and nothing in dollars.
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
    // The journal shows each line in its own currency: the payment's entry in both.
    const entries = await platform.http.get('/v1/marketplace/ledger/entries?limit=100', { token: t.token })
    expect(entries.status, JSON.stringify(entries.body)).toBe(200)
    const charge = (entries.body.data as Array<{ description: string; lines: Array<Record<string, unknown>> }>).find(
      (e) => e.description === `Payment ${payment.id}`
    )
    expect(charge?.lines.map((l) => [l.account, l.currency, l.debit, l.credit])).toEqual(
      expect.arrayContaining([
        ['payer_funds', 'USD', 0, 10_000],
        ['fx_conversion', 'EUR', 0, 9_000],
        ['clearing', 'EUR', 9_000 - 291, 0],
      ])
    )

    // A dispute of the rest: Stripe withdraws 75.00 USD as 69.00 EUR with its 15.00 EUR fee, as the dispute's
    // balance transactions (embedded in it) say.
    const dispute = stripeMock.addDispute({ paymentIntent: payment.processorReference, amount: 7_500 })
    stripeMock.update(dispute.id, {
      balance_transactions: [{ amount: -6_900, fee: 1_500, net: -8_400, currency: 'eur', exchange_rate: 0.92 }],
    })
    expect((await deliver(stripeMock.event('charge.dispute.created', dispute.id))).body.outcome).toBe('applied')
    expect((await getPayment(t, payment.id)).disputes).toEqual([
      expect.objectContaining({ amount: 7_500, settled: { currency: 'EUR', amount: -6_900, fee: 1_500 } }),
    ])
    const clearing = await runInUnitOfWork(platform.api.deps.db, t.tenantId, ({ tx }) =>
      tx.ledgerLine.groupBy({
        by: ['currency'],
        where: { account: 'clearing' },
        _sum: { debit: true, credit: true },
        orderBy: { currency: 'asc' },
      })
    )
    expect(clearing.map((c) => [c.currency, (c._sum.debit ?? 0) - (c._sum.credit ?? 0)])).toEqual([
      ['EUR', 9_000 - 291 - 2_300 - 6_900 - 1_500],
    ])
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })

  it('settle a payment once, however often the success is delivered, and ignore a late failure', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const created = await payOnline(t, orderId, 5_000)
    const success = intentEvent('payment_intent.succeeded', t, created.body)
    const outcomes = []
    for (let i = 0; i < 3; i++) outcomes.push((await deliver(success)).body.outcome)
    // The same event again is recognised by its id; another event saying the same changes nothing either.
    outcomes.push((await deliver(intentEvent('payment_intent.succeeded', t, created.body))).body.outcome)
    expect(outcomes).toEqual(['applied', 'duplicate', 'duplicate', 'unchanged'])
    const late = intentEvent('payment_intent.payment_failed', t, created.body, {
      last_payment_error: { code: 'card_declined', message: 'Your card was declined.' },
    })
    expect((await deliver(late)).body.outcome).toBe('unchanged')

    expect(await getPayment(t, created.body.id)).toMatchObject({ status: 'SUCCEEDED', receivedAt: expect.any(String) })
    expect(await getOrder(t, orderId)).toMatchObject({ status: 'PAID', amountPaid: 5_000, balance: 0 })
    const events = await succeededEvents(t)
    expect(events).toHaveLength(1)
    expect(events[0]!.data).toMatchObject({ paymentId: created.body.id, amount: 5_000 })
  })

  it('record a failure with its code, and a later success of the same intent', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const created = await payOnline(t, orderId, 2_000)
    const failed = intentEvent('payment_intent.payment_failed', t, created.body, {
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Insufficient funds.' },
    })
    expect((await deliver(failed)).body.outcome).toBe('applied')
    expect(await getPayment(t, created.body.id)).toMatchObject({
      status: 'FAILED',
      failureCode: 'INSUFFICIENT_FUNDS',
      failureMessage: 'Insufficient funds.',
    })
    expect(await getOrder(t, orderId)).toMatchObject({ amountPaid: 0, balance: 2_000 })
    expect(await succeededEvents(t)).toEqual([])

    expect((await deliver(intentEvent('payment_intent.succeeded', t, created.body))).body.outcome).toBe('applied')
    expect(await getPayment(t, created.body.id)).toMatchObject({ status: 'SUCCEEDED', failureCode: null })
    expect(await succeededEvents(t)).toHaveLength(1)
  })

  it('refuse a forged, a stale or a missing signature with nothing changed', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_500)
    const created = await payOnline(t, orderId, 1_500)
    const success = intentEvent('payment_intent.succeeded', t, created.body)
    const forged = await deliver(success, { secret: 'whsec_attacker' })
    const stale = await deliver(success, { timestamp: Math.floor(Date.now() / 1000) - 600 })
    const unsigned = await platform.http.request('POST', '/processor-webhooks/stripe', {
      raw: JSON.stringify(success),
      headers: { 'Content-Type': 'application/json' },
    })
    for (const answer of [forged, stale, unsigned]) {
      expect(answer.status).toBe(400)
      expect(answer.headers.get('content-type')).toContain('application/problem+json')
      expect(answer.body.code).toBe('invalid_signature')
    }
    expect((await getPayment(t, created.body.id)).status).toBe('PENDING')
    expect(await succeededEvents(t)).toEqual([])
  })

  it('never cross tenants: an event naming another tenant settles nothing of this one', async () => {
    const [a, b] = await Promise.all([freshTenant(), freshTenant()])
    const orderId = await openOrder(a, 1_000)
    const created = await payOnline(a, orderId, 1_000)
    // Genuinely signed, but it pairs tenant b with a's payment: b has no such payment.
    const crossed = intentEvent('payment_intent.succeeded', b, created.body)
    expect((await deliver(crossed)).body.outcome).toBe('unknown_record')
    expect((await getPayment(a, created.body.id)).status).toBe('PENDING')
  })
})

describe('refunds through Stripe', () => {
  it('refunds through Stripe Refunds with our ids, never above what was paid', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_000)
    const { id: paymentId } = await succeededPayment(t, orderId, 4_000)
    const before = stripeMock.requests.length
    const key = randomUUID()
    const refund = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      headers: { 'Idempotency-Key': key },
      body: { amount: 1_500, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    expect(refund.body).toMatchObject({
      amount: 1_500,
      status: 'SUCCEEDED',
      processorReference: expect.stringMatching(/^re_/),
    })
    // This payment's calls: Stripe's library repeats a call whose answer it did not get (a CI run saw two), always
    // with the same idempotency key, so Stripe makes one refund of them.
    const intent = (await getPayment(t, paymentId)).processorReference
    const ofThisPayment = () => stripeMock.requests.slice(before).filter((r) => r.form['payment_intent'] === intent)
    const sent = ofThisPayment()
    expect(sent.length).toBeGreaterThanOrEqual(1)
    for (const call of sent) {
      expect(`${call.method} ${call.path} ${call.status}`).toBe('POST /v1/refunds 200')
      expect(call.form).toMatchObject({
        amount: '1500',
        payment_intent: intent,
        'metadata[refund_id]': refund.body.id,
        'metadata[tenant_id]': t.tenantId,
      })
      expect(call.idempotencyKey).toBe(`refund:${t.tenantId}:${t.client_id}:${key}`)
    }
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_500 })

    const tooMuch = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      body: { amount: 3_000, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.code).toBe('amount_exceeds_refundable')
    expect(ofThisPayment()).toHaveLength(sent.length) // refused before Stripe was asked
  })

  it('undoes a refund Stripe reports failed: its amount counts as refundable again', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const payment = await succeededPayment(t, orderId, 2_000)
    const paymentId = payment.id
    const refund = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      body: { reason: 'SERVICE_NOT_PROVIDED' },
    })
    expect(refund.status).toBe(201)
    expect((await getPayment(t, paymentId)).amountRefunded).toBe(2_000)
    const failed = refundEvent('refund.failed', 'failed', t, payment, refund.body)
    const first = await deliver(failed)
    expect(first.body.outcome, JSON.stringify(first.body)).toBe('applied')
    expect((await deliver(failed)).body.outcome).toBe('duplicate')
    const after = await getPayment(t, paymentId)
    expect(after.amountRefunded).toBe(0)
    expect(after.refunds).toEqual([expect.objectContaining({ id: refund.body.id, status: 'FAILED' })])
    expect(await getOrder(t, orderId)).toMatchObject({ status: 'PAID', amountRefunded: 0 })
  })

  it("keeps a refund failed when Stripe's refund.failed overtakes the answer to our own call", async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const payment = await succeededPayment(t, orderId, 2_000)
    const processor = platform.api.deps.onlinePayments!
    const createRefund = processor.createRefund.bind(processor)
    // Stripe makes the refund and answers "succeeded"; its refund.failed is delivered before that answer is read.
    processor.createRefund = async (input) => {
      const answer = await createRefund(input)
      const failed = refundEvent('refund.failed', 'failed', t, payment, { id: input.refundId, amount: input.amount })
      expect((await deliver(failed)).body.outcome).toBe('applied')
      return answer
    }
    try {
      const refund = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        body: { reason: 'SERVICE_NOT_PROVIDED' },
      })
      expect(refund.status, JSON.stringify(refund.body)).toBe(201)
      expect(refund.body.status).toBe('FAILED')
    } finally {
      processor.createRefund = createRefund
    }
    const after = await getPayment(t, payment.id)
    expect(after.amountRefunded).toBe(0)
    expect(after.refunds).toEqual([expect.objectContaining({ status: 'FAILED' })])
    expect(await getOrder(t, orderId)).toMatchObject({ status: 'PAID', amountRefunded: 0 })
  })
})

describe('a refund Stripe reports succeeded after it failed', () => {
  it('counts again when the payment has room for it, and is reported when another refund took that room', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 3_000)
    const payment = await succeededPayment(t, orderId, 3_000)
    const refundOf = async (amount: number) =>
      (
        await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
          token: t.token,
          body: { amount, reason: 'REQUESTED_BY_CLIENT' },
        })
      ).body
    const first = await refundOf(1_000)
    expect((await deliver(refundEvent('refund.failed', 'failed', t, payment, first))).body.outcome).toBe('applied')
    expect((await deliver(refundEvent('refund.updated', 'succeeded', t, payment, first))).body.outcome).toBe('applied')
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_000 })

    const second = await refundOf(1_500)
    expect((await deliver(refundEvent('refund.failed', 'failed', t, payment, second))).body.outcome).toBe('applied')
    // The room the failed refund gave back is taken by another one before Stripe's later word comes.
    expect((await refundOf(2_000)).status).toBe('SUCCEEDED')
    const late = await deliver(refundEvent('refund.updated', 'succeeded', t, payment, second))
    expect(late.body.outcome).toBe('mismatch')
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 3_000 })
    expect(await findings(t)).toEqual([
      expect.objectContaining({ kind: 'EVENT_MISMATCH', objectType: 'REFUND', objectId: second.id }),
    ])
  })
})

describe("a refund's events in Stripe's order (issue 46, item 7)", () => {
  it('never revives a refund Stripe failed with an older success delivered late in the same second', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_000)
    const payment = await succeededPayment(t, orderId, 4_000)
    const refund = (
      await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        body: { amount: 1_500, reason: 'REQUESTED_BY_CLIENT' },
      })
    ).body
    expect(refund).toMatchObject({ status: 'SUCCEEDED', processorReference: expect.stringMatching(/^re_/) })
    const object = {
      id: refund.processorReference,
      object: 'refund',
      amount: 1_500,
      currency: 'usd',
      payment_intent: payment.processorReference,
      metadata: { tenant_id: t.tenantId, payment_id: payment.id, refund_id: refund.id },
    }
    // At Stripe the refund succeeded, then failed, within one second; the failure is delivered first, then the
    // older refund.created that said succeeded. Whole seconds cannot order them: the refund's own states do.
    stripeMock.setRefundStatus(refund.processorReference, 'failed')
    const second = ++eventClock
    const failed = stripeEvent('refund.failed', { ...object, status: 'failed' }, { created: second })
    const older = stripeEvent('refund.created', { ...object, status: 'succeeded' }, { created: second })
    expect((await deliver(failed)).body.outcome).toBe('applied')
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 0 })
    expect((await deliver(older)).body.outcome).toBe('unchanged')
    expect((await getPayment(t, payment.id)).refunds).toEqual([expect.objectContaining({ status: 'FAILED' })])
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 0, status: 'PAID' })
  })

  // Issue 58, item 5: a Dashboard refund first seen failed was ignored, so its older success, delivered after, counted.
  it('records a Dashboard refund first seen failed, so its older success delivered after it moves no money', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const payment = await succeededPayment(t, orderId, 5_000)
    // Made in the Dashboard (none of our metadata), it succeeded and then failed at Stripe a second later.
    const made = stripeMock.addRefund({ paymentIntent: payment.processorReference, amount: 2_000, status: 'failed' })
    const object = {
      id: made.id,
      object: 'refund',
      amount: 2_000,
      currency: 'usd',
      payment_intent: payment.processorReference,
      metadata: {},
    }
    // Stripe creates them in that order, a second apart (stripeEvent); the failure is delivered first.
    const older = stripeEvent('refund.created', { ...object, status: 'succeeded' })
    const failed = stripeEvent('refund.failed', { ...object, status: 'failed' })
    const outcomes = [(await deliver(failed)).body.outcome, (await deliver(older)).body.outcome]
    const after = await getPayment(t, payment.id)
    expect(after.amountRefunded).toBe(0)
    expect(after.refunds).toEqual([
      expect.objectContaining({ origin: 'PROCESSOR', status: 'FAILED', amount: 2_000, processorReference: made.id }),
    ])
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 0, status: 'PAID' })
    expect(outcomes).toEqual(['applied', 'unchanged'])
  })
})

describe("a dispute's events in its own order (issue 46, items 1 and 7)", () => {
  const disputeOf = (payment: PaymentRef, status: string, extra: object = {}) => ({
    id: `dp_${randomUUID().replaceAll('-', '')}`,
    object: 'dispute',
    amount: payment.amount,
    currency: 'usd',
    payment_intent: payment.processorReference,
    status,
    ...extra,
  })

  it('never reopens a decided dispute with an older event of the same second, and asks Stripe before undoing a loss', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_200)
    const payment = await succeededPayment(t, orderId, 4_200)
    const held = stripeMock.addDispute({ paymentIntent: payment.processorReference, status: 'lost' })
    const dispute = { ...disputeOf(payment, 'lost'), id: held.id }
    const second = ++eventClock
    const lost = stripeEvent('charge.dispute.closed', dispute, { created: second })
    const review = stripeEvent('charge.dispute.updated', { ...dispute, status: 'under_review' }, { created: second })
    expect((await deliver(lost)).body.outcome).toBe('applied')
    // Stripe's whole seconds cannot order these two; the dispute's own states can: a decided one never reopens.
    expect((await deliver(review)).body.outcome).toBe('unchanged')
    expect(await getPayment(t, payment.id)).toMatchObject({ dispute: { status: 'LOST', amountLost: 4_200 } })
    expect(await getOrder(t, orderId)).toMatchObject({ amountChargedBack: 4_200 })

    // A later word that it was won: Stripe, asked, still holds it lost, so nothing is given back.
    const won = stripeEvent('charge.dispute.updated', { ...dispute, status: 'won' })
    expect((await deliver(won)).body.outcome).toBe('unchanged')
    expect(stripeMock.requests.some((r) => r.method === 'GET' && r.path.startsWith(`/v1/disputes/${held.id}`))).toBe(
      true
    )
    expect(await getPayment(t, payment.id)).toMatchObject({ dispute: { status: 'LOST' } })
  })

  it('closes an inquiry that Stripe closed (warning_closed) and a dispute whose charge was refunded', async () => {
    const t = await freshTenant()
    const [first, second] = [await openOrder(t, 1_000), await openOrder(t, 2_000)]
    const inquiry = await succeededPayment(t, first, 1_000)
    const refunded = await succeededPayment(t, second, 2_000)
    const warning = disputeOf(inquiry, 'warning_needs_response')
    expect((await deliver(stripeEvent('charge.dispute.created', warning))).body.outcome).toBe('applied')
    expect(
      (await deliver(stripeEvent('charge.dispute.closed', { ...warning, status: 'warning_closed' }))).body.outcome
    ).toBe('applied')
    const chargeRefunded = disputeOf(refunded, 'charge_refunded')
    expect((await deliver(stripeEvent('charge.dispute.closed', chargeRefunded))).body.outcome).toBe('applied')
    for (const [payment, orderId] of [
      [inquiry, first],
      [refunded, second],
    ] as const) {
      expect(await getPayment(t, payment.id)).toMatchObject({ dispute: { status: 'CLOSED', amountLost: 0 } })
      expect(await getOrder(t, orderId)).toMatchObject({ amountChargedBack: 0, status: 'PAID' })
    }
  })

  // Issue 58: nothing capped what a payment's disputes lost in all, so a second loss of the same charge was taken again.
  it('never charges back more than the payment kept, nor refunds what was charged back: a second loss is a mismatch', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 3_000)
    const payment = await succeededPayment(t, orderId, 3_000)
    const first = stripeMock.addDispute({ paymentIntent: payment.processorReference, amount: 3_000, status: 'lost' })
    expect((await deliver(stripeMock.event('charge.dispute.closed', first.id))).body.outcome).toBe('applied')
    expect(await getOrder(t, orderId)).toMatchObject({ amountChargedBack: 3_000 })
    // Nor is the money the bank took refunded as well: nothing is left of the charge to give back (Stripe would
    // refuse it too, `charge_disputed`), so the payer is not paid back twice.
    const refund = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
      token: t.token,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { amount: 1_000, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(refund.status, JSON.stringify(refund.body)).toBe(409)
    expect(refund.body).toMatchObject({
      code: 'invalid_state_transition',
      detail: expect.stringContaining('charged back'),
    })

    const second = stripeMock.addDispute({ paymentIntent: payment.processorReference, amount: 3_000, status: 'lost' })
    expect((await deliver(stripeMock.event('charge.dispute.closed', second.id))).body.outcome).toBe('mismatch')
    expect(await getOrder(t, orderId)).toMatchObject({ amountChargedBack: 3_000 })
    expect((await getPayment(t, payment.id)).disputes).toEqual([
      expect.objectContaining({ processorReference: first.id, status: 'LOST', amountLost: 3_000 }),
    ])
    expect(await findings(t)).toEqual([
      expect.objectContaining({ kind: 'EVENT_MISMATCH', objectType: 'DISPUTE', processorReference: second.id }),
    ])
  })
})

describe("Stripe's currency rules, at the boundary only (issue 46, item 2)", () => {
  async function orderIn(t: Tenant, total: number, currency: string) {
    const response = await platform.http.post('/v1/orders', {
      token: t.token,
      body: {
        status: 'OPEN',
        currency,
        lines: [{ kind: 'SESSION_PACKAGE', description: 'Sessions', unitAmount: total }],
      },
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return response.body.id as string
  }
  const payIn = (t: Tenant, orderId: string, amount: number, currency: string) =>
    platform.http.post('/v1/payments', {
      token: t.token,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { orderId, amount, currency, method: 'CARD_ONLINE' },
    })
  const sentFor = (paymentId: string) =>
    stripeMock.requests.filter((r) => r.path === '/v1/payment_intents' && r.form['metadata[payment_id]'] === paymentId)

  it('charges ISK in hundredths, MGA in whole ariary, and refuses what Stripe cannot take before any intent exists', async () => {
    const t = await freshTenant()

    // 5,000 ISK (ISO: no minor unit) is 500000 at Stripe; its success and its refund come back as 5,000 and 1,000.
    const isk = await orderIn(t, 5_000, 'ISK')
    const paid = await payIn(t, isk, 5_000, 'ISK')
    expect(paid.status, JSON.stringify(paid.body)).toBe(201)
    // (Stripe's client may send a slow request again, with the same key: one intent whatever the count.)
    expect(new Set(sentFor(paid.body.id).map((r) => `${r.form.amount} ${r.form.currency}`))).toEqual(
      new Set(['500000 isk'])
    )
    const succeeded = stripeEvent('payment_intent.succeeded', {
      id: paid.body.processorReference,
      object: 'payment_intent',
      amount: 500_000,
      currency: 'isk',
      metadata: { tenant_id: t.tenantId, payment_id: paid.body.id },
    })
    stripeMock.setIntentStatus(paid.body.processorReference, 'succeeded')
    expect((await deliver(succeeded)).body.outcome).toBe('applied')
    expect(await getOrder(t, isk)).toMatchObject({ amountPaid: 5_000, status: 'PAID' })
    const before = stripeMock.requests.length
    const refund = await platform.http.post(`/v1/payments/${paid.body.id}/refunds`, {
      token: t.token,
      body: { amount: 1_000, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    expect(refund.body).toMatchObject({ amount: 1_000, currency: 'ISK', status: 'SUCCEEDED' })
    const refundSent = stripeMock.requests.slice(before).filter((r) => r.path === '/v1/refunds')
    expect(new Set(refundSent.map((r) => `${r.form.amount} ${r.idempotencyKey}`)).size).toBe(1)
    expect(refundSent[0]!.form.amount).toBe('100000')
    expect(await getOrder(t, isk)).toMatchObject({ amountRefunded: 1_000 })

    // MGA is two-decimal in ISO and zero-decimal at Stripe: 1,500.00 MGA is 1500 there, 1,500.50 cannot be charged.
    const mga = await orderIn(t, 300_050, 'MGA')
    const requests = stripeMock.requests.length
    const refused = await payIn(t, mga, 150_050, 'MGA')
    expect(refused.status, JSON.stringify(refused.body)).toBe(400)
    expect(refused.body.code).toBe('validation_error')
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        path: 'amount',
        code: 'amount_not_chargeable',
        message: expect.stringContaining('1500.50 MGA'),
      }),
    ])
    expect(stripeMock.requests.length).toBe(requests) // nothing asked of Stripe
    expect((await platform.http.get(`/v1/payments?orderId=${mga}`, { token: t.token })).body.data).toEqual([])
    const whole = await payIn(t, mga, 150_000, 'MGA')
    expect(whole.status, JSON.stringify(whole.body)).toBe(201)
    expect(new Set(sentFor(whole.body.id).map((r) => r.form.amount))).toEqual(new Set(['1500']))

    // Three-decimal BHD: Stripe takes amounts ending in 0.
    const bhd = await orderIn(t, 5_000, 'BHD')
    const odd = await payIn(t, bhd, 1_005, 'BHD')
    expect(odd.status).toBe(400)
    expect(odd.body.errors).toEqual([expect.objectContaining({ code: 'amount_not_chargeable' })])
    const even = await payIn(t, bhd, 1_010, 'BHD')
    expect(even.status).toBe(201)
    expect(new Set(sentFor(even.body.id).map((r) => r.form.amount))).toEqual(new Set(['1010']))

    // Reconciliation reads Stripe's amounts back in ISO minor units: the books and Stripe agree.
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })
})

describe('without Stripe configured', () => {
  it('refuses CARD_ONLINE as before, and has no Stripe webhook', async () => {
    const t = await freshTenant(recordedOnly)
    const orderId = await openOrder(t, 1_000, recordedOnly)
    const refused = await payOnline(t, orderId, 1_000, randomUUID(), recordedOnly)
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'method', code: 'method_not_available' })])
    const webhook = await recordedOnly.http.request('POST', '/processor-webhooks/stripe', {
      raw: '{}',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(webhook.status).toBe(404)
  })
})

const inTenant = <T>(t: Tenant, work: Parameters<typeof runInUnitOfWork<T>>[2]) =>
  runInUnitOfWork(platform.api.deps.db, t.tenantId, work)
const findings = (t: Tenant) =>
  inTenant(t, ({ tx }) => tx.reconciliationFinding.findMany({ orderBy: { createdAt: 'asc' } }))
const eventsOf = (t: Tenant, type: string) =>
  inTenant(t, ({ tx }) => tx.event.findMany({ where: { type }, orderBy: { createdAt: 'asc' } }))
const payCash = (t: Tenant, orderId: string, amount: number) =>
  platform.http.post('/v1/payments', { token: t.token, body: { orderId, amount, currency: 'USD', method: 'CASH' } })

describe('a payment the order can no longer take (issue 37, defect 1)', () => {
  it('refuses to void an order while an online payment awaits its payer; cancelling the payment lets it void', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_500)
    const created = await payOnline(t, orderId, 2_500)
    const refused = await platform.http.post(`/v1/orders/${orderId}/void`, { token: t.token })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('invalid_state_transition')
    expect(refused.body.detail).toContain(created.body.id)

    const before = stripeMock.requests.length
    const cancelled = await platform.http.post(`/v1/payments/${created.body.id}/cancel`, { token: t.token })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body).toMatchObject({ status: 'CANCELED', expiresAt: null })
    expect(stripeMock.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v1/payment_intents/${created.body.processorReference}/cancel`,
    ])
    const voided = await platform.http.post(`/v1/orders/${orderId}/void`, { token: t.token })
    expect(voided.status).toBe(200)
    expect(voided.body.status).toBe('VOID')
    // A success Stripe reports for a cancelled intent afterwards changes nothing.
    expect((await deliver(intentEvent('payment_intent.succeeded', t, created.body))).body.outcome).toBe('unchanged')
  })

  it('records a success for a voided order as an unapplied payment, refunds it durably and tells an operator', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 3_000)
    const created = await payOnline(t, orderId, 3_000)
    // The payer's first card is declined (the payment no longer holds the balance), the centre voids the order, then
    // the payer retries the same intent with another card and Stripe confirms it.
    const declined = intentEvent('payment_intent.payment_failed', t, created.body, {
      last_payment_error: { code: 'card_declined' },
    })
    expect((await deliver(declined)).body.outcome).toBe('applied')
    expect((await platform.http.post(`/v1/orders/${orderId}/void`, { token: t.token })).status).toBe(200)
    const confirmed = await deliver(intentEvent('payment_intent.succeeded', t, created.body))
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(confirmed.body.outcome).toBe('applied')

    expect(await getOrder(t, orderId)).toMatchObject({ status: 'VOID', amountPaid: 0, amountRefunded: 0 })
    const refunded = await eventually(async () => {
      const payment = await getPayment(t, created.body.id)
      return settledRefund(payment) ? payment : undefined
    })
    expect(refunded).toMatchObject({ status: 'SUCCEEDED', unapplied: true, amountRefunded: 3_000 })
    expect(refunded.refunds).toEqual([
      expect.objectContaining({
        amount: 3_000,
        origin: 'AUTOMATIC',
        processorReference: expect.stringMatching(/^re_/),
      }),
    ])
    const sent = stripeMock.requests.filter(
      (r) => r.path === '/v1/refunds' && r.form.payment_intent === created.body.processorReference
    )
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`refund:${t.tenantId}:auto:${created.body.id}`])
    expect(await findings(t)).toEqual([
      expect.objectContaining({ kind: 'UNAPPLIED_PAYMENT', objectType: 'PAYMENT', objectId: created.body.id }),
    ])
    expect(await eventsOf(t, 'reconciliation.mismatch')).toHaveLength(1)
    expect(await eventsOf(t, 'payment.succeeded')).toEqual([])
  })

  /** A card payment declined, then the order paid in cash: a success of the card now is money the order cannot take. */
  async function paidAnotherWay(t: Tenant, amount: number) {
    const orderId = await openOrder(t, amount)
    const created = await payOnline(t, orderId, amount)
    const declined = intentEvent('payment_intent.payment_failed', t, created.body, { last_payment_error: {} })
    expect((await deliver(declined)).body.outcome).toBe('applied')
    expect((await payCash(t, orderId, amount)).status).toBe(201)
    return { orderId, created }
  }

  it('refunds a success for an order paid another way meanwhile, never taking it beyond its total', async () => {
    const t = await freshTenant()
    const { orderId, created } = await paidAnotherWay(t, 2_000)
    const confirmed = await deliver(intentEvent('payment_intent.succeeded', t, created.body))
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(await getOrder(t, orderId)).toMatchObject({ status: 'PAID', amountPaid: 2_000, balance: 0 })
    const payment = await eventually(async () => {
      const p = await getPayment(t, created.body.id)
      return p.amountRefunded === 2_000 ? p : undefined
    })
    expect(payment).toMatchObject({ unapplied: true, status: 'SUCCEEDED' })
  })

  // Stripe refuses to refund a charged-back charge; the bank holds the money meanwhile. When the dispute is won the
  // money is the centre's again, though it was never the centre's to keep: it is refunded then (issue 58).
  it('refunds unapplied money the bank held, once the dispute that held it is won', async () => {
    const t = await freshTenant()
    const { orderId, created } = await paidAnotherWay(t, 2_000)
    const intent = created.body.processorReference as string
    const withdrawn = { id: 'txn_withdrawn', amount: -2_000, fee: 0, currency: 'usd' }
    const held = stripeMock.addDispute({ paymentIntent: intent })
    stripeMock.update(held.id, { balance_transactions: [withdrawn] })
    expect((await deliver(intentEvent('payment_intent.succeeded', t, created.body))).body.outcome).toBe('applied')
    const refused = await eventually(async () => {
      const p = await getPayment(t, created.body.id)
      return p.refunds[0]?.status === 'FAILED' ? p : undefined
    })
    expect(refused).toMatchObject({ unapplied: true, amountRefunded: 0 })
    expect(refused.refunds[0].failureMessage).toContain('charged back')
    expect((await deliver(stripeMock.event('charge.dispute.created', held.id))).body.outcome).toBe('applied')

    const back = { id: 'txn_reinstated', amount: 2_000, fee: 0, currency: 'usd' }
    stripeMock.update(held.id, { status: 'won', balance_transactions: [withdrawn, back] })
    expect((await deliver(stripeMock.event('charge.dispute.closed', held.id))).body.outcome).toBe('applied')
    const refunded = await eventually(async () => {
      const p = await getPayment(t, created.body.id)
      return p.amountRefunded === 2_000 ? p : undefined
    })
    expect(refunded.refunds).toEqual([
      expect.objectContaining({ status: 'FAILED', origin: 'AUTOMATIC' }),
      expect.objectContaining({ status: 'SUCCEEDED', origin: 'AUTOMATIC', amount: 2_000 }),
    ])
    expect(await getOrder(t, orderId)).toMatchObject({ amountPaid: 2_000, amountRefunded: 0, amountChargedBack: 0 })
  })
})

describe('refunds move the money once (issue 37, defects 2 and 8)', () => {
  it('answers 202 while Stripe is down, replays it, and counts the refund once when its workflow gets through', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    const { id: paymentId } = await succeededPayment(t, orderId, 10_000)
    const key = randomUUID()
    const ask = () =>
      platform.http.post(`/v1/payments/${paymentId}/refunds`, {
        token: t.token,
        headers: { 'Idempotency-Key': key },
        body: { amount: 4_000, reason: 'REQUESTED_BY_CLIENT' },
      })
    stripeMock.down = true
    let first
    let replayed
    try {
      first = await ask()
      replayed = await ask()
      // Nothing counts until Stripe says so, and the pending refund holds its amount.
      expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 0, status: 'PAID' })
      const tooMuch = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
        token: t.token,
        body: { amount: 7_000, reason: 'REQUESTED_BY_CLIENT' },
      })
      expect(tooMuch.body.code).toBe('amount_exceeds_refundable')
    } finally {
      stripeMock.down = false
    }
    expect(first.status, JSON.stringify(first.body)).toBe(202)
    expect(first.body).toMatchObject({ status: 'PENDING', amount: 4_000, processorReference: null })
    expect(replayed.status).toBe(202)
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    expect(replayed.body.id).toBe(first.body.id)

    const settled = await eventually(async () => {
      const payment = await getPayment(t, paymentId)
      return settledRefund(payment) ? payment : undefined
    })
    expect(settled.amountRefunded).toBe(4_000)
    expect(settled.refunds).toHaveLength(1)
    const refundRun = platform.temporal.workflow.getHandle(`refund-${first.body.id}`)
    await refundRun.result()
    await recordHistory(refundRun, 'refundWorkflow-answered-after-an-outage')
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 4_000, status: 'PARTIALLY_REFUNDED' })
    // The same request once more: still the one refund, still counted once.
    expect((await ask()).body.id).toBe(first.body.id)
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 4_000 })
    const keys = stripeMock.requests.filter(
      (r) => r.path === '/v1/refunds' && r.form['metadata[payment_id]'] === paymentId
    )
    expect(new Set(keys.map((r) => r.idempotencyKey))).toEqual(new Set([`refund:${t.tenantId}:${t.client_id}:${key}`]))
  })

  it('finishes a refund whose request crashed after recording it: its workflow asks Stripe with the stored key', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const { id: paymentId } = await succeededPayment(t, orderId, 5_000)
    // What such a crash leaves: the PENDING refund with its key and the outbox row of its workflow, committed
    // together before Stripe was called; nothing after.
    const refundId = newId('refund')
    await inTenant(t, async (uow) => {
      await uow.tx.refund.create({
        data: {
          id: refundId,
          tenantId: t.tenantId,
          paymentId,
          orderId,
          amount: 1_200,
          currency: 'USD',
          reason: 'DUPLICATE',
          method: 'CARD_ONLINE',
          status: 'PENDING',
          processorIdempotencyKey: `refund:${t.tenantId}:${refundId}`,
        },
      })
      await platform.api.deps.paymentFlows.enqueueRefund(uow, refundId, new Date())
    })
    const settled = await eventually(async () => {
      const payment = await getPayment(t, paymentId)
      return settledRefund(payment) ? payment : undefined
    })
    expect(settled.amountRefunded).toBe(1_200)
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_200 })
    const sent = stripeMock.requests.filter((r) => r.form['metadata[refund_id]'] === refundId)
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`refund:${t.tenantId}:${refundId}`])
  })

  // Issue 46, item 6: a refund sent again more than 24 hours after it was recorded (its first answer lost, its
  // workflow delayed) reused a key Stripe may have forgotten, and could refund twice.
  it("asks Stripe for the intent's refunds before sending one again past the idempotency window", async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const payment = await succeededPayment(t, orderId, 5_000)
    // Recorded 25 hours ago; Stripe made it then (with our ids in its metadata), and its answer never reached us.
    const refundId = newId('refund')
    const made = stripeMock.addRefund({
      paymentIntent: payment.processorReference,
      amount: 1_300,
      metadata: { tenant_id: t.tenantId, payment_id: payment.id, refund_id: refundId },
    })
    const before = stripeMock.requests.length
    await inTenant(t, async (uow) => {
      await uow.tx.refund.create({
        data: {
          id: refundId,
          tenantId: t.tenantId,
          paymentId: payment.id,
          orderId,
          amount: 1_300,
          currency: 'USD',
          reason: 'DUPLICATE',
          method: 'CARD_ONLINE',
          status: 'PENDING',
          processorIdempotencyKey: `refund:${t.tenantId}:${refundId}`,
          createdAt: new Date(Date.now() - 25 * 3_600_000),
        },
      })
      await platform.api.deps.paymentFlows.enqueueRefund(uow, refundId, new Date())
    })
    const settled = await eventually(async () => {
      const p = await getPayment(t, payment.id)
      return settledRefund(p) ? p : undefined
    })
    expect(settled.refunds).toEqual([
      expect.objectContaining({ id: refundId, status: 'SUCCEEDED', processorReference: made.id }),
    ])
    // Stripe was asked for the intent's refunds and sent nothing: one refund there, counted once here.
    const asked = stripeMock.requests.slice(before).filter((r) => r.path.startsWith('/v1/refunds'))
    expect(asked.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /v1/refunds'])
    expect(asked[0]!.path).toContain(`payment_intent=${payment.processorReference}`)
    expect(
      stripeMock.objects('refund').filter((r) => (r.metadata as { refund_id?: string }).refund_id === refundId)
    ).toHaveLength(1)
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_300 })
  })

  // Issue 58, item 5: a refund whose workflow gave up after 22 hours was marked FAILED ("Refund the payment again")
  // without asking Stripe, which may have made it with only its answer lost: the payer would be refunded twice.
  it('asks Stripe before giving a refund up: the one Stripe made is recorded SUCCEEDED, counted once', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const payment = await succeededPayment(t, orderId, 5_000)
    /** A PENDING refund whose workflow has asked Stripe for 22 hours, every answer lost (the workflow is not run). */
    const pendingRefund = async (amount: number) => {
      const id = newId('refund')
      await inTenant(t, ({ tx }) =>
        tx.refund.create({
          data: {
            id,
            tenantId: t.tenantId,
            paymentId: payment.id,
            orderId,
            amount,
            currency: 'USD',
            reason: 'REQUESTED_BY_CLIENT',
            method: 'CARD_ONLINE',
            status: 'PENDING',
            processorIdempotencyKey: `refund:${t.tenantId}:${id}`,
            createdAt: new Date(Date.now() - 22 * 3_600_000),
          },
        })
      )
      return id
    }
    const giveUp = (refundId: string) =>
      giveUpRefund(
        platform.api.deps.db,
        t.tenantId,
        refundId,
        platform.api.deps.onlinePayments!,
        'Stripe could not be reached for 22 hours.',
        () => new Date()
      )
    // Stripe made the first (our ids in its metadata); the second never reached it.
    const madeId = await pendingRefund(1_300)
    const made = stripeMock.addRefund({
      paymentIntent: payment.processorReference,
      amount: 1_300,
      metadata: { tenant_id: t.tenantId, payment_id: payment.id, refund_id: madeId },
    })
    const lostId = await pendingRefund(700)
    const before = stripeMock.requests.length

    await giveUp(madeId)
    await giveUp(lostId)
    const after = await getPayment(t, payment.id)
    expect(after.refunds).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: madeId, status: 'SUCCEEDED', processorReference: made.id }),
        expect.objectContaining({
          id: lostId,
          status: 'FAILED',
          processorReference: null,
          failureMessage: 'Stripe could not be reached for 22 hours.',
        }),
      ])
    )
    expect(after.amountRefunded).toBe(1_300)
    // Stripe was asked for the intent's refunds, once per refund, and nothing was sent.
    const asked = stripeMock.requests.slice(before).filter((r) => r.path.startsWith('/v1/refunds'))
    expect(asked.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /v1/refunds', 'GET /v1/refunds'])

    // Stripe's own event about it, coming after, counts nothing again; and what is left to refund is what Stripe kept.
    expect((await deliver(stripeMock.event('refund.updated', made.id))).body.outcome).toBe('unchanged')
    const again = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
      token: t.token,
      body: { amount: 5_000, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(again.body.code).toBe('amount_exceeds_refundable')
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_300, status: 'PARTIALLY_REFUNDED' })
  })
})

describe("Idempotency-Keys are each caller's own (issue 46, items 9 and 10)", () => {
  /** Another API client of the same tenant, with its own token. */
  async function secondClient(t: Tenant): Promise<Tenant> {
    const tenant = await platform.db.tenant.findUniqueOrThrow({ where: { id: t.tenantId } })
    const client = await provisionClient(platform.db, { tenantName: tenant.name, scopes: ['orders', 'payments'] })
    expect(client.tenantId).toBe(t.tenantId)
    return { ...client, token: await platform.token(client) }
  }
  const refundWith = (t: Tenant, paymentId: string, key: string, amount: number) =>
    platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      headers: { 'Idempotency-Key': key },
      body: { amount, reason: 'REQUESTED_BY_CLIENT' },
    })

  it("never answers one client's request with another's payment or refund, though both sent the same key", async () => {
    const a = await freshTenant()
    const b = await secondClient(a)
    const [orderA, orderB] = [await openOrder(a, 10_000), await openOrder(b, 10_000)]
    const key = randomUUID()
    const before = stripeMock.requests.length
    const paidA = await payOnline(a, orderA, 4_000, key)
    const paidB = await payOnline(b, orderB, 6_000, key)
    expect(paidA.status, JSON.stringify(paidA.body)).toBe(201)
    expect(paidB.status, JSON.stringify(paidB.body)).toBe(201)
    expect(paidB.body).toMatchObject({ orderId: orderB, amount: 6_000, status: 'PENDING' })
    expect(paidB.body.id).not.toBe(paidA.body.id)
    expect(paidB.body.clientSecret).not.toBe(paidA.body.clientSecret)
    const keys = stripeMock.requests.slice(before).map((r) => r.idempotencyKey)
    expect(keys).toEqual([`payment:${a.tenantId}:${a.client_id}:${key}`, `payment:${a.tenantId}:${b.client_id}:${key}`])

    // Both paid; each client refunds its own payment with the same key.
    for (const paid of [paidA, paidB]) {
      expect((await deliver(intentEvent('payment_intent.succeeded', a, paid.body))).body.outcome).toBe('applied')
    }
    const refundKey = randomUUID()
    const refundA = await refundWith(a, paidA.body.id, refundKey, 1_000)
    const refundB = await refundWith(b, paidB.body.id, refundKey, 2_000)
    expect(refundA.status, JSON.stringify(refundA.body)).toBe(201)
    expect(refundB.status, JSON.stringify(refundB.body)).toBe(201)
    expect(refundB.body).toMatchObject({ paymentId: paidB.body.id, amount: 2_000, status: 'SUCCEEDED' })
    expect(refundB.body.id).not.toBe(refundA.body.id)
    expect(await getOrder(b, orderB)).toMatchObject({ amountPaid: 6_000, amountRefunded: 2_000 })
    expect(await getOrder(a, orderA)).toMatchObject({ amountPaid: 4_000, amountRefunded: 1_000 })
  })

  it('refuses a key reused on another payment or order once its stored answer lapsed: 422, never 500', async () => {
    const t = await freshTenant()
    const [first, second] = [await openOrder(t, 5_000), await openOrder(t, 5_000)]
    const payments: PaymentRef[] = []
    for (const orderId of [first, second]) payments.push(await succeededPayment(t, orderId, 5_000))
    const key = randomUUID()
    expect((await refundWith(t, payments[0]!.id, key, 1_000)).status).toBe(201)
    const paymentKey = randomUUID()
    const third = await openOrder(t, 3_000)
    expect((await payOnline(t, third, 3_000, paymentKey)).status).toBe(201)

    // A day later the API's idempotency records have lapsed: only the keys stored on our records remain.
    await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) => tx.idempotencyRecord.deleteMany({}))
    const reusedRefund = await refundWith(t, payments[1]!.id, key, 1_000)
    expect(reusedRefund.status, JSON.stringify(reusedRefund.body)).toBe(422)
    expect(reusedRefund.body.code).toBe('idempotency_key_reused')
    const fourth = await openOrder(t, 2_000)
    const reusedPayment = await payOnline(t, fourth, 2_000, paymentKey)
    expect(reusedPayment.status, JSON.stringify(reusedPayment.body)).toBe(422)
    expect(reusedPayment.body.code).toBe('idempotency_key_reused')
    expect((await getPayment(t, payments[1]!.id)).refunds).toEqual([])
    expect(await getOrder(t, fourth)).toMatchObject({ amountPaid: 0, balance: 2_000 })
  })

  it('a retry across the upgrade finds its payment by the key stored before keys named their caller', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const key = randomUUID()
    const paymentId = newId('payment')
    const legacyKey = `payment:${t.tenantId}:${key}`
    await runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => {
      const order = await tx.order.findFirstOrThrow({ where: { id: orderId } })
      await tx.payment.create({
        data: {
          id: paymentId,
          tenantId: t.tenantId,
          orderId,
          locationId: order.locationId,
          amount: 2_000,
          currency: 'USD',
          status: 'PENDING',
          method: 'CARD_ONLINE',
          processor: 'stripe',
          processorIdempotencyKey: legacyKey,
        },
      })
    })
    const before = stripeMock.requests.length
    const retried = await payOnline(t, orderId, 2_000, key)
    expect(retried.status, JSON.stringify(retried.body)).toBe(201)
    expect(retried.body.id).toBe(paymentId)
    expect(stripeMock.requests.slice(before).map((r) => r.idempotencyKey)).toEqual([legacyKey])
  })
})

describe('a payment cancelled while its intent is being created (issue 46, item 5)', () => {
  it('cancels the intent at Stripe, never hands out its client secret, and refunds a success that came anyway', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_000)
    const listed = async () =>
      (await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })).body.data as PaymentRef[]
    // Stripe is slow to answer the intent: meanwhile the centre cancels the payment, which has no intent yet.
    stripeMock.holding = '/v1/payment_intents'
    let starting: ReturnType<typeof payOnline> | undefined
    let paymentId: string
    try {
      starting = payOnline(t, orderId, 4_000)
      paymentId = (await eventually(async () => (await listed())[0], 10_000)).id
      const cancelled = await platform.http.post(`/v1/payments/${paymentId}/cancel`, { token: t.token })
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
      expect(cancelled.body.status).toBe('CANCELED')
    } finally {
      stripeMock.release()
    }
    const started = await starting
    expect(started.status, JSON.stringify(started.body)).toBe(409)
    expect(started.body.code).toBe('invalid_state_transition')
    expect(JSON.stringify(started.body)).not.toContain('_secret_')
    const [intent] = stripeMock
      .objects('payment_intent')
      .filter((i) => (i.metadata as { payment_id?: string }).payment_id === paymentId)
    expect(intent).toMatchObject({ status: 'canceled' })

    // Had the payer paid it before the cancellation reached Stripe, the money is recorded and given back in full.
    stripeMock.setIntentStatus(intent!.id, 'succeeded')
    const paid = await deliver(
      intentEvent('payment_intent.succeeded', t, { id: paymentId, processorReference: intent!.id, amount: 4_000 })
    )
    expect(paid.body.outcome).toBe('applied')
    const payment = await eventually(async () => {
      const p = await getPayment(t, paymentId)
      return settledRefund(p) ? p : undefined
    }, 30_000)
    expect(payment).toMatchObject({ status: 'SUCCEEDED', unapplied: true, amountRefunded: 4_000 })
    expect(payment.refunds).toEqual([expect.objectContaining({ origin: 'AUTOMATIC', amount: 4_000 })])
    expect(await getOrder(t, orderId)).toMatchObject({ amountPaid: 0, balance: 4_000, status: 'OPEN' })
  })
})

describe("Stripe's events, checked and stored once (issue 37, defects 5 and 6)", () => {
  it('refuses an event whose amount, currency or mode disagrees with our payment, and reports it', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_000)
    const created = await payOnline(t, orderId, 1_000)
    const wrongAmount = intentEvent('payment_intent.succeeded', t, { ...created.body, amount: 100 })
    expect((await deliver(wrongAmount)).body.outcome).toBe('mismatch')
    const wrongCurrency = intentEvent('payment_intent.succeeded', t, created.body, { currency: 'eur' })
    expect((await deliver(wrongCurrency)).body.outcome).toBe('mismatch')
    const live = stripeEvent('payment_intent.succeeded', intentEvent('x', t, created.body).data.object, {
      livemode: true,
    })
    expect((await deliver(live)).body.outcome).toBe('mismatch')
    const fromAccount = stripeEvent('payment_intent.succeeded', intentEvent('x', t, created.body).data.object, {
      account: 'acct_someone',
    })
    expect((await deliver(fromAccount)).body.outcome).toBe('mismatch')
    expect((await getPayment(t, created.body.id)).status).toBe('PENDING')
    expect(await findings(t)).toEqual([expect.objectContaining({ kind: 'EVENT_MISMATCH', objectId: created.body.id })])
    // Every event is stored once, with what was done with it.
    const stored = await platform.db.processorEvent.findMany({
      where: { eventId: { in: [wrongAmount.id, wrongCurrency.id, live.id, fromAccount.id] } },
    })
    expect(stored.map((e) => e.outcome).sort()).toEqual(['mismatch', 'mismatch', 'mismatch', 'mismatch'])
  })

  it("releases a cancelled intent's hold, so the balance can be paid another way", async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_800)
    const created = await payOnline(t, orderId, 1_800)
    expect((await payCash(t, orderId, 1_800)).body.code).toBe('amount_exceeds_balance')
    expect((await deliver(intentEvent('payment_intent.canceled', t, created.body))).body.outcome).toBe('applied')
    expect((await getPayment(t, created.body.id)).status).toBe('CANCELED')
    expect((await payCash(t, orderId, 1_800)).status).toBe(201)
  })

  it('records a refund made in the Stripe Dashboard as a refund of the order', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 6_000)
    const payment = await succeededPayment(t, orderId, 6_000)
    const dashboard = stripeEvent('refund.created', {
      id: `re_${randomUUID().slice(0, 8)}`,
      object: 'refund',
      amount: 2_500,
      currency: 'usd',
      status: 'succeeded',
      payment_intent: payment.processorReference,
      metadata: {},
    })
    expect((await deliver(dashboard)).body.outcome).toBe('applied')
    expect((await deliver(dashboard)).body.outcome).toBe('duplicate')
    const after = await getPayment(t, payment.id)
    expect(after.amountRefunded).toBe(2_500)
    expect(after.refunds).toEqual([
      expect.objectContaining({ origin: 'PROCESSOR', status: 'SUCCEEDED', amount: 2_500 }),
    ])
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 2_500, status: 'PARTIALLY_REFUNDED' })
  })

  it('marks a disputed payment, records what a lost dispute took, and emits payment.disputed', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_200)
    const payment = await succeededPayment(t, orderId, 4_200)
    const dispute = {
      id: 'dp_1',
      object: 'dispute',
      amount: 4_200,
      currency: 'usd',
      payment_intent: payment.processorReference,
    }
    const opened = stripeEvent('charge.dispute.created', { ...dispute, status: 'needs_response' })
    const lost = stripeEvent('charge.dispute.closed', { ...dispute, status: 'lost' })
    // Out of order: the closing event first; the opening one, older, changes nothing after it.
    expect((await deliver(lost)).body.outcome).toBe('applied')
    expect((await deliver(opened)).body.outcome).toBe('unchanged')
    expect(await getPayment(t, payment.id)).toMatchObject({
      status: 'SUCCEEDED',
      dispute: { status: 'LOST', processorReference: 'dp_1', amount: 4_200, amountLost: 4_200 },
    })
    const emitted = await eventsOf(t, 'payment.disputed')
    expect(emitted.map((e) => e.data)).toEqual([expect.objectContaining({ paymentId: payment.id, status: 'LOST' })])
  })

  // Issue 46: the ledger check compared payments and transfers with Stripe, not refunds nor disputes.
  it('has the ledger check compare refunds and disputes with what Stripe holds', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_200)
    const payment = await succeededPayment(t, orderId, 4_200)
    const refund = (
      await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        body: { amount: 1_000, reason: 'REQUESTED_BY_CLIENT' },
      })
    ).body
    expect(refund.status).toBe('SUCCEEDED')
    const dispute = stripeMock.addDispute({ paymentIntent: payment.processorReference, amount: 3_200, status: 'lost' })
    const lost = stripeEvent('charge.dispute.closed', {
      id: dispute.id,
      object: 'dispute',
      amount: 3_200,
      currency: 'usd',
      status: 'lost',
      payment_intent: payment.processorReference,
    })
    expect((await deliver(lost)).body.outcome).toBe('applied')
    stripeMock.setIntentStatus(payment.processorReference, 'succeeded')
    expect(await ledgerViolationsOf(platform, t.tenantId, stripeMock)).toEqual([])

    // Stripe's side moves on without a word to us: the refund failed there, the dispute was won after all.
    stripeMock.setRefundStatus(refund.processorReference, 'failed')
    stripeMock.update(dispute.id, { status: 'won' })
    const violations = await ledgerViolationsOf(platform, t.tenantId, stripeMock)
    // The money Stripe gave back (the refund's and the won dispute's) is on its balance and not in the books' clearing.
    expect(violations.map((v) => `${v.rule} ${v.subject}`).sort()).toEqual(
      [`dispute_not_at_processor ${payment.id}`, `refund_not_at_processor ${refund.id}`, 'clearing_balance USD'].sort()
    )
  })

  it("verifies Connect events with the Connect endpoint's own secret", async () => {
    const account = stripeEvent(
      'account.updated',
      { id: 'acct_unknown', object: 'account', payouts_enabled: true, metadata: {} },
      { account: 'acct_unknown' }
    )
    const connect = { path: '/processor-webhooks/stripe/connect', secret: CONNECT_SECRET }
    expect((await deliver(account, connect)).status).toBe(200)
    const withPlatformSecret = await deliver(account, { path: connect.path })
    expect(withPlatformSecret.status).toBe(400)
    expect(withPlatformSecret.body.code).toBe('invalid_signature')
    expect((await deliver(account, { secret: CONNECT_SECRET })).status).toBe(400)
  })
})

describe('pending payments expire (issue 37, defect 7)', () => {
  it("cancels an intent its payer never completed at its expiry, releasing the order's balance", async () => {
    const t = await freshTenant(expiring)
    const orderId = await openOrder(t, 900, expiring)
    const created = await payOnline(t, orderId, 900, randomUUID(), expiring)
    expect(created.body.expiresAt).not.toBeNull()
    const expired = await eventually(async () => {
      const payment = (await expiring.http.get(`/v1/payments/${created.body.id}`, { token: t.token })).body
      return payment.status === 'CANCELED' ? payment : undefined
    })
    expect(expired.expiresAt).toBeNull()
    const expiry = expiring.temporal.workflow.getHandle(`payment-expiry-${created.body.id}`)
    expect(await expiry.result()).toBe('CANCELED')
    await recordHistory(expiry, 'paymentExpiryWorkflow-canceled')
    expect(stripeMock.requests.map((r) => r.path)).toContain(
      `/v1/payment_intents/${created.body.processorReference}/cancel`
    )
    const cash = await expiring.http.post('/v1/payments', {
      token: t.token,
      body: { orderId, amount: 900, currency: 'USD', method: 'CASH' },
    })
    expect(cash.status).toBe(201)
  })

  // Issue 58, item 5: the expiry applied Stripe's "succeeded" without the amount check its webhook has.
  it('applies no success Stripe answers at the expiry for another amount than ours, and reports it', async () => {
    const t = await freshTenant(expiring)
    const orderId = await openOrder(t, 900, expiring)
    const created = await payOnline(t, orderId, 900, randomUUID(), expiring)
    const intentId: string = created.body.processorReference
    // At Stripe the intent succeeded for 800 before the expiry came, so Stripe refuses to cancel it, as it does.
    stripeMock.update(intentId, { amount: 800 })
    stripeMock.setIntentStatus(intentId, 'succeeded')
    stripeMock.refuseNext(`/v1/payment_intents/${intentId}/cancel`, {
      code: 'payment_intent_unexpected_state',
      message: 'You cannot cancel this PaymentIntent because it has a status of succeeded.',
    })
    const expiry = expiring.temporal.workflow.getHandle(`payment-expiry-${created.body.id}`)
    // Started through the outbox: the handle finds its run once the outbox has started it.
    const outcome = await eventually(() => expiry.result())
    // Read with its charge's balance transaction expanded, for the processing fee (issue 58).
    expect(stripeMock.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toContain(
      `GET /v1/payment_intents/${intentId}`
    )
    const payment = (await expiring.http.get(`/v1/payments/${created.body.id}`, { token: t.token })).body
    expect(payment).toMatchObject({ status: 'PENDING', receivedAt: null })
    const order = (await expiring.http.get(`/v1/orders/${orderId}`, { token: t.token })).body
    expect(order).toMatchObject({ amountPaid: 0, status: 'OPEN' })
    expect(await findings(t)).toEqual([
      expect.objectContaining({
        kind: 'EVENT_MISMATCH',
        objectType: 'PAYMENT',
        objectId: created.body.id,
        processorReference: intentId,
      }),
    ])
    expect(outcome).toBe('MISMATCH')
  })
})

describe('client secrets (issue 37, defect 9)', () => {
  it('keeps the stored answer of an online payment sealed, and a replay answers the same client secret', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 700)
    const key = randomUUID()
    const created = await payOnline(t, orderId, 700, key)
    const [record] = await inTenant(t, ({ tx }) => tx.idempotencyRecord.findMany({ where: { key } }))
    expect(record!.responseBody).toMatch(/^sealed:v1:/)
    expect(record!.responseBody).not.toContain(created.body.clientSecret)
    const replay = await payOnline(t, orderId, 700, key)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.clientSecret).toBe(created.body.clientSecret)
  })
})
