/**
 * Online card payments through Stripe against Stripe's own API mock (stripe-mock, behind a recording proxy) and the
 * real API and database: a CARD_ONLINE payment creates a PaymentIntent (our ids in its metadata, an idempotency key
 * per request) and answers its client secret; Stripe's signed webhooks settle it once however often they are
 * redelivered and in whatever order; forged and stale signatures change nothing; refunds go through Stripe Refunds
 * and are undone when Stripe reports them failed; Stripe unreachable leaves nothing behind; and without Stripe
 * configured, online payments are refused as before.
 */
import { randomUUID } from 'node:crypto'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'

const WEBHOOK_SECRET = 'whsec_platform_test'
let stripeMock: StripeMock
let platform: Platform
let recordedOnly: Platform
const signer = new Stripe('sk_test_123')

beforeAll(async () => {
  stripeMock = await startStripeMock()
  ;[platform, recordedOnly] = await Promise.all([
    startPlatform({
      withWorker: false,
      overrides: {
        ONLINE_PAYMENT_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE: stripeMock.url,
      },
    }),
    startPlatform({ withWorker: false }),
  ])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([platform?.stop(), recordedOnly?.stop(), stripeMock?.stop()])
})

async function freshTenant(on: Platform = platform) {
  const client = await on.newTenant(['orders', 'payments'])
  return { ...client, token: await on.token(client) }
}
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
async function deliver(event: object, options: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event)
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  })
  return platform.http.request('POST', '/processor-webhooks/stripe', {
    raw: payload,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
  })
}

/** A Stripe event about PaymentIntent `intentId` of our `paymentId`, as Stripe builds it from the metadata we set. */
const intentEvent = (type: string, t: Tenant, paymentId: string, intentId: string, extra: object = {}) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  created: Math.floor(Date.now() / 1000),
  data: {
    object: {
      id: intentId,
      object: 'payment_intent',
      metadata: { tenant_id: t.tenantId, payment_id: paymentId },
      ...extra,
    },
  },
})
const refundEvent = (type: string, status: string, t: Tenant, paymentId: string, refundId: string) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  data: {
    object: {
      id: `re_${refundId}`,
      object: 'refund',
      status,
      metadata: { tenant_id: t.tenantId, payment_id: paymentId, refund_id: refundId },
    },
  },
})

/** A CARD_ONLINE payment Stripe has confirmed. */
async function succeededPayment(t: Tenant, orderId: string, amount: number) {
  const created = await payOnline(t, orderId, amount)
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const answer = await deliver(
    intentEvent('payment_intent.succeeded', t, created.body.id, created.body.processorReference)
  )
  expect(answer.body).toEqual({ received: true, outcome: 'applied' })
  return created.body.id as string
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
    expect(sent[0]!.idempotencyKey).toBe(`payment:${t.tenantId}:${key}`)
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

  it('leaves no payment behind and answers 503 when Stripe cannot be reached, and works once it is back', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 3_000)
    const key = randomUUID()
    stripeMock.down = true
    let refused
    try {
      refused = await payOnline(t, orderId, 3_000, key)
    } finally {
      stripeMock.down = false
    }
    expect(refused.status).toBe(503)
    expect(refused.body.code).toBe('dependency_unavailable')
    expect((await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })).body.data).toEqual([])
    const retried = await payOnline(t, orderId, 3_000, key)
    expect(retried.status).toBe(201)
    expect(retried.body.status).toBe('PENDING')
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
          processorIdempotencyKey: `payment:${t.tenantId}:${key}`,
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
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`payment:${t.tenantId}:${key}`])
    expect(sent[0]!.form['metadata[payment_id]']).toBe(paymentId)
    const listed = await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([paymentId])
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
  it('settle a payment once, however often the success is delivered, and ignore a late failure', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const created = await payOnline(t, orderId, 5_000)
    const intentId = created.body.processorReference as string
    const success = intentEvent('payment_intent.succeeded', t, created.body.id, intentId)
    const outcomes = []
    for (let i = 0; i < 3; i++) outcomes.push((await deliver(success)).body.outcome)
    expect(outcomes).toEqual(['applied', 'unchanged', 'unchanged'])
    const late = intentEvent('payment_intent.payment_failed', t, created.body.id, intentId, {
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
    const intentId = created.body.processorReference as string
    const failed = intentEvent('payment_intent.payment_failed', t, created.body.id, intentId, {
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

    expect((await deliver(intentEvent('payment_intent.succeeded', t, created.body.id, intentId))).body.outcome).toBe(
      'applied'
    )
    expect(await getPayment(t, created.body.id)).toMatchObject({ status: 'SUCCEEDED', failureCode: null })
    expect(await succeededEvents(t)).toHaveLength(1)
  })

  it('refuse a forged, a stale or a missing signature with nothing changed', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_500)
    const created = await payOnline(t, orderId, 1_500)
    const success = intentEvent('payment_intent.succeeded', t, created.body.id, created.body.processorReference)
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
    const crossed = intentEvent('payment_intent.succeeded', b, created.body.id, created.body.processorReference)
    expect((await deliver(crossed)).body.outcome).toBe('unknown_record')
    expect((await getPayment(a, created.body.id)).status).toBe('PENDING')
  })
})

describe('refunds through Stripe', () => {
  it('refunds through Stripe Refunds with our ids, never above what was paid', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_000)
    const paymentId = await succeededPayment(t, orderId, 4_000)
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
    const sent = stripeMock.requests.slice(before)
    expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /v1/refunds 200'])
    expect(sent[0]!.form).toMatchObject({
      amount: '1500',
      payment_intent: (await getPayment(t, paymentId)).processorReference,
      'metadata[refund_id]': refund.body.id,
      'metadata[tenant_id]': t.tenantId,
    })
    expect(sent[0]!.idempotencyKey).toBe(`refund:${t.tenantId}:${key}`)
    expect(await getOrder(t, orderId)).toMatchObject({ amountRefunded: 1_500 })

    const tooMuch = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      body: { amount: 3_000, reason: 'REQUESTED_BY_CLIENT' },
    })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.code).toBe('amount_exceeds_refundable')
    expect(stripeMock.requests.length).toBe(before + 1) // refused before Stripe was asked
  })

  it('undoes a refund Stripe reports failed: its amount counts as refundable again', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const paymentId = await succeededPayment(t, orderId, 2_000)
    const refund = await platform.http.post(`/v1/payments/${paymentId}/refunds`, {
      token: t.token,
      body: { reason: 'SERVICE_NOT_PROVIDED' },
    })
    expect(refund.status).toBe(201)
    expect((await getPayment(t, paymentId)).amountRefunded).toBe(2_000)
    const failed = refundEvent('refund.failed', 'failed', t, paymentId, refund.body.id)
    const first = await deliver(failed)
    expect(first.body.outcome, JSON.stringify(first.body)).toBe('applied')
    expect((await deliver(failed)).body.outcome).toBe('unchanged')
    const payment = await getPayment(t, paymentId)
    expect(payment.amountRefunded).toBe(0)
    expect(payment.refunds).toEqual([expect.objectContaining({ id: refund.body.id, status: 'FAILED' })])
    expect(await getOrder(t, orderId)).toMatchObject({ status: 'PAID', amountRefunded: 0 })
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
