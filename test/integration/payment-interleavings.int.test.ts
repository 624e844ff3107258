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
 *
 * Issue 46: a run's amounts are drawn either in cents or a million times larger (an order of 10,000,000,000 minor
 * units, past 2^31, as a few orders in IDR or UZS are); and the tenant has two API clients, which now and then send
 * the same Idempotency-Key at the same time, each for a payment (or a refund) of its own: each must be answered with
 * its own record, never the other's. Each run is in one currency drawn from USD, JPY, ISK, MGA, BHD, HUF and KWD, whose Stripe units
 * differ from their ISO minor units in every way (ISK hundredths at Stripe, MGA whole units at Stripe, BHD three
 * decimals): Stripe's events carry Stripe's amounts, our books ISO's. And payers dispute payments (issue 46, item 1):
 * Stripe's dispute events (opened, lost, won, an inquiry closed, funds reinstated), now and then two of one second in
 * any order, must leave the order's `amountChargedBack` exactly what its lost disputes took; the same charge disputed
 * again is a dispute of its own, each counted once (issue 58, item 3).
 *
 * Issue 58, round four: the order has two lines, and a refund may name one (what refunds name of a line never exceeds
 * it); HUF and KWD join the currencies; a bank disputes only what the charge kept, and what was refunded plus what was
 * charged back never exceeds a payment (Stripe refuses to refund a charged-back charge, as the fake does).
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { stripeAmountOf } from '../../adapters/stripe/stripe-currencies.ts'
import { refundableOf } from '../../domain/payments/refund-transitions.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'
import { deliverStripeEvent } from '../support/stripe-webhooks.ts'

const WEBHOOK_SECRET = 'whsec_interleavings'
const TOTAL = 10_000
/** The order's session line; the rest of TOTAL is a product line. */
const SESSIONS = 6_000
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
  | { kind: 'sameKey'; amounts: [number, number]; refund: boolean }
  | { kind: 'cancelMidway'; amount: number }
  | { kind: 'payCash'; amount: number | 'balance' }
  | { kind: 'void' }
  | { kind: 'refund'; pick: number; amount: number | undefined; line: number | undefined; crash: boolean }
  | { kind: 'intent'; pick: number; outcome: 'succeeded' | 'payment_failed' | 'canceled' }
  | { kind: 'cancel'; pick: number }
  | { kind: 'redeliver' }
  | { kind: 'dashboardRefund'; pick: number; amount: number }
  | { kind: 'refundEvent'; pick: number; status: 'succeeded' | 'failed' }
  | { kind: 'dispute'; pick: number; status: DisputeStatus; reinstated: boolean; sameSecond: boolean }

type DisputeStatus = 'needs_response' | 'under_review' | 'lost' | 'won' | 'warning_closed'

/** Amounts in units of the run's scale (1, or a million: amounts past 2^31). */
const amount = fc.integer({ min: 1, max: 6 }).map((n) => n * 1_000)
const pick = fc.nat({ max: 3 })
/** A crash (Stripe unreachable for the call) in one call of five. */
const crash = fc.integer({ min: 0, max: 4 }).map((n) => n === 0)
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('payOnline' as const), amount, crash }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancelMidway' as const), amount }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('sameKey' as const),
      amounts: fc.tuple(amount, amount).map(([a, b]) => [a / 2, b / 2] as [number, number]),
      refund: fc.boolean(),
    }),
  },
  {
    weight: 3,
    // Now and then the whole balance at once: a success that comes afterwards is one the order can no longer take.
    arbitrary: fc.record({
      kind: fc.constant('payCash' as const),
      amount: fc.oneof({ weight: 3, arbitrary: amount }, { weight: 1, arbitrary: fc.constant('balance' as const) }),
    }),
  },
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
      // Now and then the refund names one of the order's two lines (issue 58): the amount is all that line's.
      line: fc.option(fc.nat({ max: 1 }), { nil: undefined, freq: 3 }),
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
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('dispute' as const),
      pick,
      status: fc.constantFrom<DisputeStatus>('needs_response', 'under_review', 'lost', 'lost', 'won', 'warning_closed'),
      reinstated: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      sameSecond: fc.boolean(),
    }),
  }
)

interface Run {
  tenantId: string
  token: string
  /** The two clients' tokens: requests `by` a caller go with its client's token. */
  tokens: [string, string]
  /** Amounts of this run are drawn amounts times this. */
  scale: number
  /** The order's two lines: a refund may name one. */
  lineIds: [string, string]
  /** The order's currency; Stripe's events carry its amounts in Stripe's units (adapters/stripe/stripe-currencies.ts). */
  currency: string
  /** How many times both clients sent one key at once. */
  sharedKeys: number
  orderId: string
  /** Our online payments, in the order they were made, and whether we told the platform Stripe took the money. */
  online: Array<{ id: string; processorReference: string | null; amount: number; succeeded?: boolean }>
  /** Our refunds of online payments, with the intent they refund. */
  refunds: Array<{ id: string; paymentId: string; intentId: string; amount: number }>
  /** The latest dispute Stripe holds of each disputed payment, by payment id. */
  disputes: Map<string, string>
  /** How many disputes were opened of a charge whose inquiry had closed. */
  secondDisputes: number
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

/**
 * An answer a client may get: a success, a refusal of the request (422: its key on another request of its own), or
 * 503 while Stripe is unreachable.
 */
function expectHandled(answer: { status: number; body: { code?: string } }, crash: boolean) {
  const allowed = [200, 201, 202, 400, 404, 409, 422, ...(crash ? [503] : [])]
  expect(allowed, `${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status)
}

async function perform(run: Run, s: Step): Promise<void> {
  const auth = { token: run.token }
  const nth = <T>(list: T[], i: number) => (list.length ? list[i % list.length] : undefined)
  switch (s.kind) {
    case 'payOnline': {
      const amount = s.amount * run.scale
      const answer = await maybeCrashed(s.crash, () =>
        platform.http.post('/v1/payments', {
          ...auth,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { orderId: run.orderId, amount, currency: run.currency, method: 'CARD_ONLINE' },
        })
      )
      expectHandled(answer, s.crash)
      if (answer.status === 201) run.online.push(answer.body)
      return
    }
    case 'cancelMidway': {
      // Cancelled while Stripe is making its intent (issue 46): the request is refused and the intent cancelled at
      // Stripe; the intent joins the run's payments, so a later step may still report it paid (refunded in full).
      stripeMock.holding = '/v1/payment_intents'
      let starting: Promise<{ status: number; body: { code?: string } }> | undefined
      let paymentId: string | undefined
      try {
        const before = new Set((await listPayments(run)).map((p) => p.id))
        starting = platform.http.post('/v1/payments', {
          ...auth,
          headers: { 'Idempotency-Key': randomUUID() },
          body: { orderId: run.orderId, amount: s.amount * run.scale, currency: run.currency, method: 'CARD_ONLINE' },
        })
        // The payment appears once recorded; a request refused before that (the balance is held or paid) is answered.
        // Widened on purpose: the callbacks below set it, which TypeScript's narrowing cannot see.
        let answered = false as boolean
        void starting.then(
          () => (answered = true),
          () => (answered = true)
        )
        for (let i = 0; i < 200 && !answered && !paymentId; i++) {
          paymentId = (await listPayments(run)).find((p) => !before.has(p.id))?.id
          if (!paymentId) await new Promise((resolve) => setTimeout(resolve, 50))
        }
        if (paymentId) expectHandled(await platform.http.post(`/v1/payments/${paymentId}/cancel`, auth), false)
      } finally {
        stripeMock.release()
      }
      const started = await starting
      expectHandled(started, false)
      if (!paymentId) return
      const intent = stripeMock
        .objects('payment_intent')
        .find((i) => (i.metadata as { payment_id?: string }).payment_id === paymentId)
      if (intent) run.online.push({ id: paymentId, processorReference: intent.id, amount: s.amount * run.scale })
      return
    }
    case 'sameKey': {
      // Both clients at once, one key (issue 46): each answered with a record of its own asking, never the other's.
      const key = randomUUID()
      const target = s.refund ? run.online.find((p) => p.succeeded) : undefined
      if (s.refund && !target) return
      const answers = await Promise.all(
        s.amounts.map((n, client) =>
          platform.http.post(target ? `/v1/payments/${target.id}/refunds` : '/v1/payments', {
            token: run.tokens[client]!,
            headers: { 'Idempotency-Key': key },
            body: target
              ? { reason: 'REQUESTED_BY_CLIENT', amount: n * run.scale }
              : { orderId: run.orderId, amount: n * run.scale, currency: run.currency, method: 'CARD_ONLINE' },
          })
        )
      )
      answers.forEach((answer, client) => {
        expectHandled(answer, false)
        if (answer.status !== 201 && answer.status !== 202) return
        expect(answer.body.amount, `client ${client}'s own amount`).toBe(s.amounts[client]! * run.scale)
        if (target) {
          expect(answer.body.paymentId).toBe(target.id)
          run.refunds.push({
            id: answer.body.id,
            paymentId: target.id,
            intentId: target.processorReference!,
            amount: answer.body.amount,
          })
        } else run.online.push(answer.body)
      })
      const ids = answers.filter((a) => a.status === 201 || a.status === 202).map((a) => a.body.id as string)
      expect(new Set(ids).size, 'one record per client').toBe(ids.length)
      if (ids.length === 2) run.sharedKeys++
      return
    }
    case 'payCash': {
      const balance = async () => (await platform.http.get(`/v1/orders/${run.orderId}`, auth)).body.balance as number
      const cash = s.amount === 'balance' ? await balance() : s.amount * run.scale
      if (cash <= 0) return
      const body = { orderId: run.orderId, amount: cash, currency: run.currency, method: 'CASH' }
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
          body: {
            reason: 'REQUESTED_BY_CLIENT',
            ...(s.amount ? { amount: s.amount * run.scale } : {}),
            ...(s.amount && s.line !== undefined
              ? { lines: [{ orderLineId: run.lineIds[s.line], amount: s.amount * run.scale }] }
              : {}),
          },
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
        amount: stripeAmountOf(payment.amount, run.currency),
        currency: run.currency.toLowerCase(),
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
        amount: stripeAmountOf(s.amount * run.scale, run.currency),
        currency: run.currency.toLowerCase(),
        status: 'succeeded',
        payment_intent: payment.processorReference,
        metadata: {},
      }
      return deliver(run, stripeEvent('refund.created', refund))
    }
    case 'dispute': {
      // The payer's bank disputes a payment Stripe took; Stripe holds the dispute as the step leaves it, and says so.
      const payment = nth(
        run.online.filter((p) => p.succeeded),
        s.pick
      )
      if (!payment?.processorReference) return
      // The payer's bank may dispute the same charge again: once its dispute closed (an inquiry) or was decided, and
      // now and then while one is open (Stripe holds one open dispute at a time; the books must not care): another
      // dispute, of its own (issue 58).
      const current = run.disputes.get(payment.id)
      const decided = ['warning_closed', 'won', 'lost'].includes(String(current && stripeMock.get(current).status))
      const again = current !== undefined && (decided || s.sameSecond)
      let id = current
      if (current === undefined || again) {
        // A bank disputes what the charge kept: never what Stripe has refunded, or is refunding, of it.
        const intent = stripeMock.get(payment.processorReference)
        const refunded = stripeMock
          .objects('refund')
          .filter((r) => r.payment_intent === intent.id && ['succeeded', 'pending'].includes(String(r.status)))
        const kept = Number(intent.amount) - sum(refunded.map((r) => Number(r.amount)))
        if (kept <= 0) return
        id = stripeMock.addDispute({ paymentIntent: intent.id, amount: kept }).id
      }
      if (id === undefined) return
      if (again) run.secondDisputes++
      run.disputes.set(payment.id, id)
      const amount = Number(stripeMock.get(id).amount)
      const currency = run.currency.toLowerCase()
      const withdrawn = { id: 'txn_withdrawn', amount: -amount, fee: 0, currency }
      const back = { id: 'txn_reinstated', amount, fee: 0, currency }
      stripeMock.update(id, {
        status: s.reinstated ? 'lost' : s.status,
        balance_transactions: s.reinstated ? [withdrawn, back] : [withdrawn],
      })
      const type = s.reinstated
        ? 'charge.dispute.funds_reinstated'
        : ['lost', 'won', 'warning_closed'].includes(s.status)
          ? 'charge.dispute.closed'
          : 'charge.dispute.updated'
      // Now and then in the same second as the event before: only the dispute's own states can order the two.
      return deliver(run, { ...stripeMock.event(type, id), created: s.sameSecond ? clock : ++clock })
    }
    case 'refundEvent': {
      const refund = nth(run.refunds, s.pick)
      if (!refund) return
      const object = {
        id: `re_${refund.id}`,
        object: 'refund',
        amount: stripeAmountOf(refund.amount, run.currency),
        currency: run.currency.toLowerCase(),
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
      payments: await tx.payment.findMany({
        where: { orderId: run.orderId },
        include: { refunds: { include: { lines: true } }, disputes: true },
      }),
      lines: await tx.orderLine.findMany({ where: { orderId: run.orderId } }),
    }),
    { snapshot: true }
  )

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)

const listPayments = async (run: Run) =>
  (await platform.http.get(`/v1/payments?orderId=${run.orderId}&limit=100`, { token: run.token })).body.data as Array<{
    id: string
  }>

/** What must hold after every step: each amount counted once, nothing beyond what was paid or owed. */
function expectBooksAddUp({ order, payments, lines }: Awaited<ReturnType<typeof booksOf>>) {
  const applied = payments.filter((p) => p.status === 'SUCCEEDED' && !p.unapplied)
  const succeededRefunds = (p: (typeof payments)[number]) =>
    sum(p.refunds.filter((r) => r.status === 'SUCCEEDED').map((r) => r.amount))
  expect(order.amountPaid).toBe(sum(applied.map((p) => p.amount)))
  expect(order.amountRefunded).toBe(sum(applied.map(succeededRefunds)))
  expect(order.amountPaid).toBeLessThanOrEqual(order.total)
  expect(order.balance).toBe(order.total - order.amountPaid)
  // What lost disputes took back shows on the order, once each, and only for a payment the order applied.
  const lost = (p: (typeof payments)[number]) =>
    sum(p.disputes.filter((d) => d.status === 'LOST').map((d) => d.amountLost))
  expect(order.amountChargedBack).toBe(sum(applied.map(lost)))
  // A refund that names lines gives back exactly what it names, and what refunds name of a line never exceeds it.
  const held = payments.flatMap((p) => p.refunds).filter((r) => r.status !== 'FAILED')
  for (const r of held.filter((x) => x.lines.length > 0)) {
    expect(sum(r.lines.map((l) => l.amount)), `refund ${r.id}: its lines`).toBe(r.amount)
  }
  for (const line of lines) {
    const named = sum(
      held
        .flatMap((r) => r.lines)
        .filter((l) => l.orderLineId === line.id)
        .map((l) => l.amount)
    )
    expect(named, `line ${line.id}: refunds naming it beyond it`).toBeLessThanOrEqual(line.lineTotal)
  }
  for (const p of payments) {
    expect(p.amountRefunded, `payment ${p.id}`).toBe(succeededRefunds(p))
    // What was given back and what the bank took are each money out of the one charge: never more than it together.
    expect(p.amountRefunded + lost(p), `payment ${p.id}: refunded and charged back beyond it`).toBeLessThanOrEqual(
      p.amount
    )
    const held = sum(p.refunds.filter((r) => r.status !== 'FAILED').map((r) => r.amount))
    expect(held, `payment ${p.id}: refunds beyond it`).toBeLessThanOrEqual(p.amount)
    if (p.status !== 'SUCCEEDED') expect(p.refunds.filter((r) => r.status !== 'FAILED')).toEqual([])
    for (const d of p.disputes) {
      expect(d.amountLost, `dispute ${d.id}: lost beyond the dispute`).toBeLessThanOrEqual(d.amount)
      expect(d.amount, `dispute ${d.id}: disputed beyond its payment`).toBeLessThanOrEqual(p.amount)
      expect(d.amountLost > 0, `dispute ${d.id}: lost exactly when LOST`).toBe(d.status === 'LOST')
    }
  }
}

/** What the runs got to, so a generator that stopped reaching the interesting cases fails the test. */
const reached = {
  unapplied: 0,
  refundSucceeded: 0,
  refundFailedAfterSuccess: 0,
  refundGaveUp: 0,
  dashboard: 0,
  past2to31: 0,
  sharedKey: 0,
  otherCurrency: 0,
  chargedBack: 0,
  reinstated: 0,
  secondDispute: 0,
  lineRefund: 0,
}

it('keeps every cent of an order accounted for, in any interleaving of payments, refunds, events and crashes', async () => {
  const client = await platform.newTenant(['orders', 'payments'])
  const token = await platform.token(client)
  const tenant = await platform.db.tenant.findUniqueOrThrow({ where: { id: client.tenantId } })
  const other = await provisionClient(platform.db, { tenantName: tenant.name, scopes: ['orders', 'payments'] })
  const tokens: [string, string] = [token, await platform.token(other)]
  const scale = fc.constantFrom(1, 1_000_000)
  const currency = fc.constantFrom('USD', 'USD', 'JPY', 'ISK', 'MGA', 'BHD', 'HUF', 'KWD')
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 4, maxLength: 16 }),
      scale,
      currency,
      async (steps, scale, currency) => {
        const created = await platform.http.post('/v1/orders', {
          token,
          body: {
            status: 'OPEN',
            currency,
            lines: [
              { kind: 'SESSION_PACKAGE', description: 'Sessions', unitAmount: SESSIONS * scale },
              { kind: 'PRODUCT', description: 'Workbook', unitAmount: (TOTAL - SESSIONS) * scale },
            ],
          },
        })
        expect(created.status).toBe(201)
        const run: Run = {
          tenantId: client.tenantId,
          token,
          tokens,
          scale,
          currency,
          sharedKeys: 0,
          orderId: created.body.id,
          lineIds: [created.body.lines[0].id, created.body.lines[1].id],
          online: [],
          refunds: [],
          disputes: new Map(),
          secondDisputes: 0,
        }
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
          // Given back in full, or what is not is with the payer's bank (a chargeback Stripe refuses to refund).
          expect(refundableOf(p), `unapplied payment ${p.id} refunded in full`).toBe(0)
        }
        const refunds = settled.payments.flatMap((p) => p.refunds)
        if (settled.payments.some((p) => p.unapplied)) reached.unapplied++
        if (refunds.some((r) => r.status === 'SUCCEEDED')) reached.refundSucceeded++
        if (refunds.some((r) => r.status === 'FAILED' && r.processorReference !== null))
          reached.refundFailedAfterSuccess++
        if (refunds.some((r) => r.status === 'FAILED' && r.processorReference === null)) reached.refundGaveUp++
        if (refunds.some((r) => r.origin === 'PROCESSOR')) reached.dashboard++
        if (settled.order.amountPaid > 2 ** 31) reached.past2to31++
        if (run.sharedKeys > 0) reached.sharedKey++
        if (currency !== 'USD' && settled.order.amountPaid > 0) reached.otherCurrency++
        if (settled.order.amountChargedBack > 0) reached.chargedBack++
        if (settled.payments.some((p) => p.disputes.some((d) => d.status === 'WON' && d.reinstatedAt !== null)))
          reached.reinstated++
        if (run.secondDisputes > 0) reached.secondDispute++
        if (refunds.some((r) => r.status === 'SUCCEEDED' && r.lines.length > 0)) reached.lineRefund++
        const taken = sum(settled.payments.filter((p) => p.status === 'SUCCEEDED').map((p) => p.amount))
        const givenBack = sum(settled.payments.map((p) => p.amountRefunded))
        // Of unapplied money, what was not given back is with the payer's bank (checked above): never the centre's.
        const withBank = sum(settled.payments.filter((p) => p.unapplied).map((p) => p.amount - p.amountRefunded))
        expect(taken - givenBack - withBank).toBe(settled.order.amountPaid - settled.order.amountRefunded)
      }
    ),
    {
      numRuns: Number(process.env.PAYMENT_PROPERTY_RUNS ?? 40),
      // A fixed seed in CI, so the cases reached (checked below) are the same on every run; another to explore.
      seed: Number(process.env.PAYMENT_PROPERTY_SEED ?? 37),
      // Cases the seeded runs reach rarely, or only by timing, reached on every run. A chargeback: the seed's one lost
      // dispute races a refund its workflow finishes after a crash; here a charge is taken, then lost to the bank.
      examples: [
        [
          [
            { kind: 'payOnline', amount: 2_000, crash: false },
            { kind: 'intent', pick: 0, outcome: 'succeeded' },
            { kind: 'dispute', pick: 0, status: 'lost', reinstated: false, sameSecond: false },
          ],
          1,
          'JPY',
        ],
        // Refunds naming the product line, the second while Stripe is unreachable, until a third would exceed it.
        [
          [
            { kind: 'payOnline', amount: 6_000, crash: false },
            { kind: 'intent', pick: 0, outcome: 'succeeded' },
            { kind: 'refund', pick: 0, amount: 2_000, line: 1, crash: false },
            { kind: 'refund', pick: 0, amount: 2_000, line: 1, crash: true },
            { kind: 'refund', pick: 0, amount: 2_000, line: 1, crash: false },
          ],
          1_000_000,
          'HUF',
        ],
      ],
      endOnFailure: true,
    }
  )
  // The fixed seed reaches these; a change of the generator that stops reaching them must not pass unnoticed.
  expect(reached.unapplied, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.refundSucceeded, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.past2to31, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.sharedKey, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.otherCurrency, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.chargedBack, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.secondDispute, JSON.stringify(reached)).toBeGreaterThan(0)
  expect(reached.lineRefund, JSON.stringify(reached)).toBeGreaterThan(0)
}, 600_000)
