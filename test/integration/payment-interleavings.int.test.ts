/**
 * A property of one order's money (issue 37): whatever happens to it in whatever order — online and cash payments,
 * voids, refunds through the API and in Stripe's Dashboard, Stripe's events delivered, redelivered and out of order,
 * cancellations, and crashes between our record and Stripe's answer — no order ever loses or gains a cent.
 *
 * fast-check draws the interleavings; each step runs through the real API, worker, Temporal and database against
 * Stripe's own API mock. A crash between our record and Stripe's answer is played by Stripe being unreachable for
 * that one call: what either leaves behind is the same committed record with no answer (the request's later phases
 * never run), which is what the platform must finish or undo by itself. After every step the books must add up
 * (amounts counted once, never beyond the order's total), and once the workflows have finished, every cent Stripe took
 * is either on the order or refunded.
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'
import { deliverStripeEvent } from '../support/stripe-webhooks.ts'

const WEBHOOK_SECRET = 'whsec_interleavings'
const TOTAL = 10_000
let stripeMock: StripeMock
let platform: Platform

beforeAll(async () => {
  stripeMock = await startStripeMock()
  platform = await startPlatform({
    overrides: {
      ONLINE_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripeMock.url,
      REFUND_TAKEOVER_SECONDS: '1',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([platform?.stop(), stripeMock?.stop()])
})

type Step =
  | { kind: 'payOnline'; amount: number; crash: boolean }
  | { kind: 'payCash'; amount: number }
  | { kind: 'void' }
  | { kind: 'refund'; pick: number; amount: number | undefined; crash: boolean }
  | { kind: 'intent'; pick: number; outcome: 'succeeded' | 'payment_failed' | 'canceled' }
  | { kind: 'cancel'; pick: number }
  | { kind: 'redeliver' }
  | { kind: 'dashboardRefund'; pick: number; amount: number }
  | { kind: 'refundEvent'; pick: number; status: 'succeeded' | 'failed' }

const amount = fc.integer({ min: 1, max: 6 }).map((n) => n * 1_000)
const pick = fc.nat({ max: 3 })
/** A crash (Stripe unreachable for the call) in one call of five. */
const crash = fc.integer({ min: 0, max: 4 }).map((n) => n === 0)
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('payOnline' as const), amount, crash }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('payCash' as const), amount }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      pick,
      amount: fc.option(
        fc.integer({ min: 1, max: 4 }).map((n) => n * 500),
        { nil: undefined }
      ),
      crash,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('intent' as const),
      pick,
      outcome: fc.constantFrom(
        'succeeded' as const,
        'succeeded' as const,
        'payment_failed' as const,
        'payment_failed' as const,
        'canceled' as const
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('redeliver' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dashboardRefund' as const), pick, amount }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refundEvent' as const),
      pick,
      status: fc.constantFrom('succeeded' as const, 'failed' as const),
    }),
  }
)

interface Run {
  tenantId: string
  token: string
  orderId: string
  /** Our online payments, in the order they were made, and whether we told the platform Stripe took the money. */
  online: Array<{ id: string; processorReference: string | null; amount: number; succeeded?: boolean }>
  /** Our refunds of online payments, with the intent they refund. */
  refunds: Array<{ id: string; paymentId: string; intentId: string; amount: number }>
  lastEvent?: object
}

let clock = Math.floor(Date.now() / 1000)
const stripeEvent = (type: string, object: object) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  created: ++clock,
  livemode: false,
  data: { object },
})

async function deliver(run: Run, event: object) {
  run.lastEvent = event
  const answer = await deliverStripeEvent(platform.http, event, { secret: WEBHOOK_SECRET })
  // Stripe is always answered 2xx once what happened is recorded.
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
}

/** Runs `call` with Stripe unreachable when `crash`: the request records, and never hears back. */
async function maybeCrashed<T>(crash: boolean, call: () => Promise<T>): Promise<T> {
  if (!crash) return call()
  stripeMock.down = true
  try {
    return await call()
  } finally {
    stripeMock.down = false
  }
}

/** An answer a client may get: a success, a refusal of the request, or 503 while Stripe is unreachable. */
function expectHandled(answer: { status: number; body: { code?: string } }, crash: boolean) {
  const allowed = [200, 201, 202, 400, 404, 409, ...(crash ? [503] : [])]
  expect(allowed, `${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status)
}

async function perform(run: Run, s: Step): Promise<void> {
  const auth = { token: run.token }
  const nth = <T>(list: T[], i: number) => (list.length ? list[i % list.length] : undefined)
  switch (s.kind) {
    case 'payOnline': {
      const answer = await maybeCrashed(s.crash, () =>
        platform.http.post('/v1/payments', {
          ...auth,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { orderId: run.orderId, amount: s.amount, currency: 'USD', method: 'CARD_ONLINE' },
        })
      )
      expectHandled(answer, s.crash)
      if (answer.status === 201) run.online.push(answer.body)
      return
    }
    case 'payCash': {
      const body = { orderId: run.orderId, amount: s.amount, currency: 'USD', method: 'CASH' }
      return expectHandled(await platform.http.post('/v1/payments', { ...auth, body }), false)
    }
    case 'void':
      return expectHandled(await platform.http.post(`/v1/orders/${run.orderId}/void`, auth), false)
    case 'refund': {
      const payment = nth(
        run.online.filter((p) => p.succeeded),
        s.pick
      )
      if (!payment?.processorReference) return
      const answer = await maybeCrashed(s.crash, () =>
        platform.http.post(`/v1/payments/${payment.id}/refunds`, {
          ...auth,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { reason: 'REQUESTED_BY_CLIENT', ...(s.amount ? { amount: s.amount } : {}) },
        })
      )
      expectHandled(answer, false)
      if (answer.status === 201 || answer.status === 202) {
        run.refunds.push({
          id: answer.body.id,
          paymentId: payment.id,
          intentId: payment.processorReference,
          amount: answer.body.amount,
        })
      }
      return
    }
    case 'intent': {
      const payment = nth(run.online, s.pick)
      if (!payment?.processorReference) return
      const object = {
        id: payment.processorReference,
        object: 'payment_intent',
        amount: payment.amount,
        currency: 'usd',
        metadata: { tenant_id: run.tenantId, payment_id: payment.id },
        ...(s.outcome === 'payment_failed' ? { last_payment_error: { code: 'card_declined' } } : {}),
      }
      if (s.outcome === 'succeeded') payment.succeeded = true
      return deliver(run, stripeEvent(`payment_intent.${s.outcome}`, object))
    }
    case 'cancel': {
      const payment = nth(run.online, s.pick)
      if (!payment) return
      return expectHandled(await platform.http.post(`/v1/payments/${payment.id}/cancel`, auth), false)
    }
    case 'redeliver':
      if (run.lastEvent) await deliver(run, run.lastEvent)
      return
    case 'dashboardRefund': {
      const payment = nth(
        run.online.filter((p) => p.succeeded),
        s.pick
      )
      if (!payment?.processorReference) return
      const refund = {
        id: `re_${randomUUID().slice(0, 12)}`,
        object: 'refund',
        amount: s.amount,
        currency: 'usd',
        status: 'succeeded',
        payment_intent: payment.processorReference,
        metadata: {},
      }
      return deliver(run, stripeEvent('refund.created', refund))
    }
    case 'refundEvent': {
      const refund = nth(run.refunds, s.pick)
      if (!refund) return
      const object = {
        id: `re_${refund.id}`,
        object: 'refund',
        amount: refund.amount,
        currency: 'usd',
        status: s.status,
        payment_intent: refund.intentId,
        metadata: { tenant_id: run.tenantId, payment_id: refund.paymentId, refund_id: refund.id },
      }
      return deliver(run, stripeEvent(s.status === 'failed' ? 'refund.failed' : 'refund.updated', object))
    }
  }
}

/**
 * The order and its payments with their refunds, as stored at one moment: read from one snapshot, since a workflow
 * that records a refund between the two reads would otherwise show the refund without its order's amounts (a full
 * run once failed so while the books held).
 */
const booksOf = (run: Run) =>
  runInUnitOfWork(
    platform.db,
    run.tenantId,
    async ({ tx }) => ({
      order: await tx.order.findFirstOrThrow({ where: { id: run.orderId } }),
      payments: await tx.payment.findMany({ where: { orderId: run.orderId }, include: { refunds: true } }),
    }),
    { snapshot: true }
  )

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

/** What must hold after every step: each amount counted once, nothing beyond what was paid or owed. */
function expectBooksAddUp({ order, payments }: Awaited<ReturnType<typeof booksOf>>) {
  const applied = payments.filter((p) => p.status === 'SUCCEEDED' && !p.unapplied)
  const succeededRefunds = (p: (typeof payments)[number]) =>
    sum(p.refunds.filter((r) => r.status === 'SUCCEEDED').map((r) => r.amount))
  expect(order.amountPaid).toBe(sum(applied.map((p) => p.amount)))
  expect(order.amountRefunded).toBe(sum(applied.map(succeededRefunds)))
  expect(order.amountPaid).toBeLessThanOrEqual(order.total)
  expect(order.balance).toBe(order.total - order.amountPaid)
  for (const p of payments) {
    expect(p.amountRefunded, `payment ${p.id}`).toBe(succeededRefunds(p))
    const held = sum(p.refunds.filter((r) => r.status !== 'FAILED').map((r) => r.amount))
    expect(held, `payment ${p.id}: refunds beyond it`).toBeLessThanOrEqual(p.amount)
    if (p.status !== 'SUCCEEDED') expect(p.refunds.filter((r) => r.status !== 'FAILED')).toEqual([])
  }
}

/** What the runs got to, so a generator that stopped reaching the interesting cases fails the test. */
const reached = { unapplied: 0, refundSucceeded: 0, refundFailedAfterSuccess: 0, refundGaveUp: 0, dashboard: 0 }

it('keeps every cent of an order accounted for, in any interleaving of payments, refunds, events and crashes', async () => {
  const client = await platform.newTenant(['orders', 'payments'])
  const token = await platform.token(client)
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 16 }), async (steps) => {
      const created = await platform.http.post('/v1/orders', {
        token,
        body: {
          status: 'OPEN',
          currency: 'USD',
          lines: [{ kind: 'SESSION_PACKAGE', description: 'Sessions', unitAmount: TOTAL }],
        },
      })
      expect(created.status).toBe(201)
      const run: Run = { tenantId: client.tenantId, token, orderId: created.body.id, online: [], refunds: [] }
      for (const s of steps) {
        await perform(run, s)
        expectBooksAddUp(await booksOf(run))
      }
      // Once the workflows are done (refunds asked for again, unapplied money refunded), nothing is left in flight
      // that only the platform could finish, and every cent Stripe took is on the order or given back.
      const settled = await eventually(async () => {
        const books = await booksOf(run)
        const inFlight = books.payments
          .flatMap((p) => p.refunds)
          .filter((r) => r.status === 'PENDING' && !r.processorReference)
        return inFlight.length === 0 ? books : undefined
      }, 60_000)
      expectBooksAddUp(settled)
      for (const p of settled.payments.filter((x) => x.unapplied)) {
        expect(p.amountRefunded, `unapplied payment ${p.id} refunded in full`).toBe(p.amount)
      }
      const refunds = settled.payments.flatMap((p) => p.refunds)
      if (settled.payments.some((p) => p.unapplied)) reached.unapplied++
      if (refunds.some((r) => r.status === 'SUCCEEDED')) reached.refundSucceeded++
      if (refunds.some((r) => r.status === 'FAILED' && r.processorReference !== null))
        reached.refundFailedAfterSuccess++
      if (refunds.some((r) => r.status === 'FAILED' && r.processorReference === null)) reached.refundGaveUp++
      if (refunds.some((r) => r.origin === 'PROCESSOR')) reached.dashboard++
      const taken = sum(settled.payments.filter((p) => p.status === 'SUCCEEDED').map((p) => p.amount))
      const givenBack = sum(settled.payments.map((p) => p.amountRefunded))
      expect(taken - givenBack).toBe(settled.order.amountPaid - settled.order.amountRefunded)
    }),
    {
      numRuns: Number(process.env.PAYMENT_PROPERTY_RUNS ?? 40),
      // A fixed seed in CI, so the cases reached (checked below) are the same on every run; another to explore.
      seed: Number(process.env.PAYMENT_PROPERTY_SEED ?? 37),
      endOnFailure: true,
    }
  )
  // The fixed seed reaches these; a change of the generator that stops reaching them must not pass unnoticed.
  expect(reached.unapplied, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.refundSucceeded, JSON.stringify(reached)).toBeGreaterThan(0)
}, 600_000)
