/**
 * @module Centres paying and paid through Stripe's API mock (behind the recording proxy, stripe-mock.ts), for the money
 * tests that drive payments, refunds, disputes and payouts with signed Stripe events: the platform configured for
 * Stripe, a centre per test with its books checked against the proxy's Stripe after it, the calls those tests make,
 * and a settlement run to completion.
 */
import { randomUUID } from 'node:crypto'
import Stripe from 'stripe'
import { expect } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { HttpResponse } from './http.ts'
import { expectLedgerHolds } from './ledger-check.ts'
import { eventually, startPlatform, type Platform } from './platform.ts'
import { startStripeMock, type StripeMock } from './stripe-mock.ts'

/** A response's body, read as the tests read any (http.ts says why it is untyped). */
type Body = HttpResponse['body']

/** A tenant as its tests call it. */
export interface Centre {
  tenantId: string
  token: string
}

/** What a money test file starts once and shares between its tests. */
export interface StripeCentres {
  readonly platform: Platform
  readonly stripeMock: StripeMock
  /** The secrets its two webhook endpoints verify Stripe's signatures with. */
  readonly webhookSecrets: { platform: string; connect: string }
  /** A new tenant holding `scopes`, whose books {@link StripeCentres.checkBooks} checks after the test. */
  newCentre(scopes: readonly string[]): Promise<Centre>
  /** Registers `host` as the tenant's (payout redirects must be on one): a disabled webhook endpoint of its own. */
  registerDomain(tenantId: string, host: string): Promise<void>
  /** A call of the centre's, with an Idempotency-Key, that must answer `status`: its body. */
  ok(t: Centre, method: string, path: string, body?: unknown, status?: number): Promise<Body>
  /** Posts a signed Stripe event to the platform's webhook (or its Connect one): the outcome it answered. */
  deliver(event: object, endpoint?: 'platform' | 'connect'): Promise<string>
  /**
   * A COMPLETED session of `providerId` (written directly) on an order of `amount` in `currency` (USD), with a card
   * payment whose intent waits for its payer (PENDING): the test says when Stripe takes the money.
   */
  sessionAwaitingCard(
    t: Centre,
    providerId: string,
    amount: number,
    currency?: string,
    also?: SessionLine
  ): Promise<{ orderId: string; paymentId: string; intentId: string; lineIds: string[] }>
  /**
   * A COMPLETED session of `providerId` (written directly) on an order of `amount` in `currency` (USD), paid by card;
   * with `also`, a second provider's session is a second line of the same order, paid by the same card.
   */
  paidSession(
    t: Centre,
    providerId: string,
    amount: number,
    currency?: string,
    also?: SessionLine
  ): Promise<{ orderId: string; paymentId: string; intentId: string; lineIds: string[] }>
  /**
   * Settles [start, end) in `currency` (USD) and waits for the run to end: its id, end, and the run's view
   * (COMPLETED). `end` defaults to a moment from now.
   */
  settleFrom(t: Centre, start: Date, currency?: string, end?: Date): Promise<{ id: string; end: Date; run: Body }>
  /** The books of every centre made since the last call hold against what the proxy's Stripe holds (afterEach). */
  checkBooks(): Promise<void>
  stop(): Promise<void>
}

/** Another provider's session on the same order. */
export interface SessionLine {
  providerId: string
  amount: number
}

const SECRET_KEY = 'sk_test_123'
const signer = new Stripe(SECRET_KEY)

/** A Stripe event of `type` about `object`, as Stripe would send it now. */
export const stripeEvent = (type: string, object: object) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  data: { object },
})

/**
 * Starts stripe-mock's proxy and a platform configured to take card payments and send payouts through it.
 * @param name - the file's, in its webhook secrets
 */
export async function startStripeCentres(name: string): Promise<StripeCentres> {
  const secrets = { platform: `whsec_${name}_test`, connect: `whsec_${name}_connect_test` }
  const stripeMock = await startStripeMock()
  const platform = await startPlatform({
    overrides: {
      ONLINE_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: secrets.platform,
      STRIPE_CONNECT_WEBHOOK_SECRET: secrets.connect,
      STRIPE_API_BASE: stripeMock.url,
    },
  }).catch(async (error: unknown) => {
    await stripeMock.stop()
    throw error
  })
  const made: string[] = []

  const ok: StripeCentres['ok'] = async (t, method, path, body, status = 200) => {
    const response = await platform.http.request(method, path, {
      token: t.token,
      body,
      headers: { 'Idempotency-Key': randomUUID() },
    })
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status)
    return response.body
  }

  const deliver: StripeCentres['deliver'] = async (event, endpoint = 'platform') => {
    const payload = JSON.stringify(event)
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: secrets[endpoint] })
    const path = endpoint === 'connect' ? '/processor-webhooks/stripe/connect' : '/processor-webhooks/stripe'
    const answer = await platform.http.request('POST', path, {
      raw: payload,
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
    })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    return answer.body.outcome as string
  }

  const sessionAwaitingCard: StripeCentres['sessionAwaitingCard'] = async (
    t,
    providerId,
    amount,
    currency = 'USD',
    also
  ) => {
    const { id: locationId } = await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.location.findFirstOrThrow({ select: { id: true } })
    )
    const child = { firstName: 'Kai', lastName: 'Test', dateOfBirth: '2022-05-01' }
    const childId = (await ok(t, 'POST', '/v1/children', child, 201)).id as string
    // Booking is not what these tests are about: the session is written as done, three hours ago.
    const startsAt = new Date(Date.now() - 3 * 3_600_000)
    const endsAt = new Date(startsAt.getTime() + 3_600_000)
    const sessions = [{ providerId, amount }, ...(also ? [also] : [])]
    const lines = []
    for (const session of sessions) {
      const appointmentId = newId('appointment')
      await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
        tx.appointment.create({
          data: {
            id: appointmentId,
            tenantId: t.tenantId,
            locationId,
            childId,
            providerId: session.providerId,
            type: 'THERAPY_SESSION',
            status: 'COMPLETED',
            startsAt,
            endsAt,
            completedAt: endsAt,
            timeZone: 'UTC',
            service: 'SPEECH_THERAPY',
          },
        })
      )
      lines.push({ kind: 'SESSION', appointmentId, unitAmount: session.amount })
    }
    const order = await ok(t, 'POST', '/v1/orders', { status: 'OPEN', currency, lines }, 201)
    const pay = { orderId: order.id, amount: order.total, currency, method: 'CARD_ONLINE' }
    const payment = await ok(t, 'POST', '/v1/payments', pay, 201)
    return {
      orderId: order.id as string,
      paymentId: payment.id as string,
      intentId: payment.processorReference as string,
      lineIds: (order.lines as Array<{ id: string }>).map((l) => l.id),
    }
  }

  return {
    platform,
    stripeMock,
    webhookSecrets: secrets,
    async newCentre(scopes) {
      const client = await platform.newTenant([...scopes], 'UTC')
      made.push(client.tenantId)
      return { tenantId: client.tenantId, token: await platform.token(client) }
    },
    // Written directly: registering through the API resolves the host, and the tests' hosts resolve nowhere.
    async registerDomain(tenantId, host) {
      await platform.db.webhookEndpoint.create({
        data: {
          id: newId('webhookEndpoint'),
          tenantId,
          url: `https://${host}/hooks`,
          eventTypes: ['*'],
          enabled: false,
          signingScheme: 'V2',
          secret: 'whsec_dGVzdA==',
        },
      })
    },
    ok,
    deliver,
    async paidSession(t, providerId, amount, currency = 'USD', also) {
      const session = await sessionAwaitingCard(t, providerId, amount, currency, also)
      stripeMock.setIntentStatus(session.intentId, 'succeeded')
      expect(await deliver(stripeMock.event('payment_intent.succeeded', session.intentId))).toBe('applied')
      return session
    },
    sessionAwaitingCard,
    async settleFrom(t, start, currency = 'USD', until?: Date) {
      // Runs of one tenant must not overlap: the next period starts where this one ends, a moment from now.
      if (!until) await new Promise((resolve) => setTimeout(resolve, 20))
      const end = until ?? new Date()
      const period = { currency, periodStart: start.toISOString(), periodEnd: end.toISOString() }
      const { id } = (await ok(t, 'POST', '/v1/marketplace/settlements', period, 202)) as { id: string }
      const run = await eventually(async () => {
        const body = await ok(t, 'GET', `/v1/marketplace/settlements/${id}`)
        return body.status === 'COMPLETED' || body.status === 'FAILED' ? body : undefined
      }, 60_000)
      expect(run.status, JSON.stringify(run)).toBe('COMPLETED')
      return { id, end, run }
    },
    async checkBooks() {
      for (const tenantId of made.splice(0)) await expectLedgerHolds(platform, tenantId, stripeMock)
    },
    async stop() {
      await Promise.allSettled([platform.stop(), stripeMock.stop()])
    },
  }
}
