/**
 * Refunds that name their order lines (issue 58, item 2) against Stripe's API mock, the real API, database, Temporal
 * server and worker: an order of two providers' sessions and a product, paid by card and settled; a refund of the
 * product and part of one session, taken in the next settlement from that session's provider only (the other
 * provider's books untouched); a line refunded beyond what it still holds, or one of another order, refused with a
 * problem naming the field; the refund's view carrying its lines.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { Platform } from '../support/platform.ts'
import type { StripeMock } from '../support/stripe-mock.ts'
import { startStripeCentres, type Centre, type StripeCentres } from '../support/stripe-centres.ts'

const SCOPES = ['providers', 'settlements', 'children', 'orders', 'payments']
let centres: StripeCentres
let stripeMock: StripeMock
let platform: Platform

beforeAll(async () => {
  centres = await startStripeCentres('refund_lines')
  ;({ platform, stripeMock } = centres)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await centres?.stop()
})

// After every test, each of its tenants' books hold against what the proxy's Stripe holds.
afterEach(() => centres.checkBooks())

const newCentre = () => centres.newCentre(SCOPES)
const send = (t: Centre, method: string, path: string, body?: unknown) =>
  platform.http.request(method, path, { token: t.token, body, headers: { 'Idempotency-Key': randomUUID() } })
const ok = (t: Centre, method: string, path: string, body?: unknown, status = 200) =>
  centres.ok(t, method, path, body, status)
const deliver = (event: object) => centres.deliver(event)

/** A COMPLETED appointment of `providerId`, written directly (booking is not what is tested here). */
async function completedAppointment(t: Centre, providerId: string): Promise<string> {
  const childId = (
    await ok(t, 'POST', '/v1/children', { firstName: 'Kai', lastName: 'Test', dateOfBirth: '2022-05-01' }, 201)
  ).id as string
  const startsAt = new Date(Date.now() - 3 * 3_600_000)
  const appointmentId = newId('appointment')
  await runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => {
    const location = await tx.location.findFirstOrThrow({ select: { id: true } })
    await tx.appointment.create({
      data: {
        id: appointmentId,
        tenantId: t.tenantId,
        locationId: location.id,
        childId,
        providerId,
        type: 'THERAPY_SESSION',
        status: 'COMPLETED',
        startsAt,
        endsAt: new Date(startsAt.getTime() + 3_600_000),
        completedAt: new Date(startsAt.getTime() + 3_600_000),
        timeZone: 'UTC',
        service: 'SPEECH_THERAPY',
      },
    })
  })
  return appointmentId
}

/** An order of these lines paid in full by card through Stripe; its lines' ids in order, and the payment's id. */
async function paidByCard(t: Centre, lines: unknown[]) {
  const order = await ok(t, 'POST', '/v1/orders', { status: 'OPEN', currency: 'USD', lines }, 201)
  const payment = await ok(
    t,
    'POST',
    '/v1/payments',
    { orderId: order.id, amount: order.total, currency: 'USD', method: 'CARD_ONLINE' },
    201
  )
  stripeMock.setIntentStatus(payment.processorReference as string, 'succeeded')
  expect(await deliver(stripeMock.event('payment_intent.succeeded', payment.processorReference as string))).toBe(
    'applied'
  )
  return { lineIds: (order.lines as Array<{ id: string }>).map((l) => l.id), paymentId: payment.id as string }
}

/** A settlement of everything earned since `start`, run to completion; each provider's result by id. */
async function settleFrom(t: Centre, start: Date) {
  const { end, run } = await centres.settleFrom(t, start)
  const providers = run.providers as Array<Record<string, unknown> & { providerId: string }>
  return { end, of: (providerId: string) => providers.find((p) => p.providerId === providerId) }
}

async function books(t: Centre) {
  const body = await ok(t, 'GET', '/v1/marketplace/ledger/balances?currency=USD')
  const data = body.data as Array<{ account: string; balance: number }>
  expect(data.reduce((sum, a) => sum + a.balance, 0)).toBe(0)
  return (account: string) => data.find((a) => a.account === account)?.balance ?? 0
}

describe('a refund that names its lines', () => {
  it("is taken from its lines' providers only, and a line is never refunded beyond what it holds", async () => {
    const t = await newCentre()
    const provider = async (name: string) =>
      (await ok(t, 'POST', '/v1/providers', { name, timeZone: 'UTC' }, 201)).id as string
    const [ana, ben] = [await provider('Ana SLP'), await provider('Ben OT')]
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
    const { lineIds, paymentId } = await paidByCard(t, [
      { kind: 'SESSION', appointmentId: await completedAppointment(t, ana), unitAmount: 10_000 },
      { kind: 'SESSION', appointmentId: await completedAppointment(t, ben), unitAmount: 10_000 },
      { kind: 'PRODUCT', description: 'Workbook', unitAmount: 10_000 },
    ])
    const [anaLine, benLine, productLine] = lineIds as [string, string, string]

    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    expect(first.of(ana)).toMatchObject({ grossAmount: 10_000, feeAmount: 1_000, netAmount: 9_000 })
    expect(first.of(ben)).toMatchObject({ grossAmount: 10_000, feeAmount: 1_000, netAmount: 9_000 })
    const before = await books(t)
    expect(before(`provider_payable:${ana}`)).toBe(0)

    // The workbook and part of Ben's session go back; the amount may be left out: it is the lines' sum.
    const refund = await ok(
      t,
      'POST',
      `/v1/payments/${paymentId}/refunds`,
      {
        reason: 'REQUESTED_BY_CLIENT',
        lines: [
          { orderLineId: productLine, amount: 10_000 },
          { orderLineId: benLine, amount: 4_000 },
        ],
      },
      201
    )
    expect(refund).toMatchObject({
      amount: 14_000,
      status: 'SUCCEEDED',
      lines: [
        { orderLineId: productLine, amount: 10_000 },
        { orderLineId: benLine, amount: 4_000 },
      ],
    })
    expect((await ok(t, 'GET', `/v1/payments/${paymentId}`)).refunds).toEqual([
      expect.objectContaining({ id: refund.id, lines: refund.lines }),
    ])

    // Ben's session holds 6,000 more: 6,001 is refused, naming the line's amount; so is a line of another order.
    const over = await send(t, 'POST', `/v1/payments/${paymentId}/refunds`, {
      amount: 6_001,
      reason: 'REQUESTED_BY_CLIENT',
      lines: [{ orderLineId: benLine, amount: 6_001 }],
    })
    expect(over.status).toBe(400)
    expect(over.body).toMatchObject({
      code: 'validation_error',
      errors: [{ path: 'lines.0.amount', code: 'amount_exceeds_line_refundable' }],
    })
    expect(over.body.errors[0].message).toContain('60.00 USD')
    const elsewhere = await paidByCard(t, [{ kind: 'PRODUCT', description: 'Cards', unitAmount: 1_000 }])
    const foreign = await send(t, 'POST', `/v1/payments/${paymentId}/refunds`, {
      reason: 'REQUESTED_BY_CLIENT',
      lines: [{ orderLineId: elsewhere.lineIds[0], amount: 500 }],
    })
    expect(foreign.status).toBe(400)
    expect(foreign.body).toMatchObject({ errors: [{ path: 'lines.0.orderLineId', code: 'not_found' }] })
    const mismatch = await send(t, 'POST', `/v1/payments/${paymentId}/refunds`, {
      amount: 2_000,
      reason: 'REQUESTED_BY_CLIENT',
      lines: [{ orderLineId: anaLine, amount: 1_000 }],
    })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body).toMatchObject({ errors: [{ path: 'lines', code: 'amount_mismatch' }] })
    expect((await ok(t, 'GET', `/v1/payments/${paymentId}`)).refunds).toHaveLength(1)

    // The next settlement takes 4,000 from Ben with the fee on it (400) returned; Ana's settlement is untouched.
    const second = await settleFrom(t, first.end)
    expect(second.of(ben)).toMatchObject({ refundAmount: 4_000, feeRefundAmount: 400, netAmount: -3_600 })
    expect(second.of(ana)).toBeUndefined()
    const items = await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.settlementItem.findMany({ where: { kind: 'REFUND' }, select: { orderLineId: true, amount: true } })
    )
    expect(items).toEqual([{ orderLineId: benLine, amount: 4_000 }])
    const after = await books(t)
    expect(after(`provider_payable:${ana}`)).toBe(0)
    expect(after(`provider_payable:${ben}`)).toBe(3_600)
  })
})

describe("a line's refundable amount after a lost dispute (issue 78)", () => {
  /** A card payment of `amount` towards the order, succeeded at Stripe: its id and its intent's. */
  async function cardPayment(t: Centre, orderId: string, amount: number) {
    const payment = await ok(
      t,
      'POST',
      '/v1/payments',
      { orderId, amount, currency: 'USD', method: 'CARD_ONLINE' },
      201
    )
    const intentId = payment.processorReference as string
    stripeMock.setIntentStatus(intentId, 'succeeded')
    expect(await deliver(stripeMock.event('payment_intent.succeeded', intentId))).toBe('applied')
    return { paymentId: payment.id as string, intentId }
  }
  const atStripe = async (type: string, id: string) => expect(await deliver(stripeMock.event(type, id))).toBe('applied')
  const refundableOf = async (t: Centre, orderId: string) =>
    ((await ok(t, 'GET', `/v1/orders/${orderId}`)).lines as Array<{ refundable: number }>).map((l) => l.refundable)

  it("is the line's total less its refunds and its share of the chargeback, in the refund's check, the order and the settlement", async () => {
    const t = await newCentre()
    const provider = async (name: string) =>
      (await ok(t, 'POST', '/v1/providers', { name, timeZone: 'UTC' }, 201)).id as string
    const [ana, ben] = [await provider('Ana SLP'), await provider('Ben OT')]
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
    // The order: A = B = 100.00, paid by two cards of 100.00; the first is disputed in full and lost.
    const order = await ok(
      t,
      'POST',
      '/v1/orders',
      {
        status: 'OPEN',
        currency: 'USD',
        lines: [
          { kind: 'SESSION', appointmentId: await completedAppointment(t, ana), unitAmount: 10_000 },
          { kind: 'SESSION', appointmentId: await completedAppointment(t, ben), unitAmount: 10_000 },
        ],
      },
      201
    )
    const [anaLine, benLine] = (order.lines as Array<{ id: string; refundable: number }>).map((l) => l.id)
    expect((order.lines as Array<{ refundable: number }>).map((l) => l.refundable)).toEqual([10_000, 10_000])
    const first = await cardPayment(t, order.id as string, 10_000)
    const second = await cardPayment(t, order.id as string, 10_000)
    const dispute = stripeMock.addDispute({ paymentIntent: first.intentId })
    await atStripe('charge.dispute.created', dispute.id)
    stripeMock.update(dispute.id, { status: 'lost' })
    await atStripe('charge.dispute.closed', dispute.id)

    // The chargeback took 50.00 of each line: naming A for 100.00 would leave B's provider 50.00 the payer got back.
    expect(await refundableOf(t, order.id as string)).toEqual([5_000, 5_000])
    const over = await send(t, 'POST', `/v1/payments/${second.paymentId}/refunds`, {
      reason: 'REQUESTED_BY_CLIENT',
      lines: [{ orderLineId: anaLine, amount: 10_000 }],
    })
    expect(over.status).toBe(400)
    expect(over.body).toMatchObject({ errors: [{ path: 'lines.0.amount', code: 'amount_exceeds_line_refundable' }] })
    expect(over.body.errors[0].message).toContain('50.00 USD')
    const refund = await ok(
      t,
      'POST',
      `/v1/payments/${second.paymentId}/refunds`,
      {
        reason: 'REQUESTED_BY_CLIENT',
        lines: [
          { orderLineId: anaLine, amount: 5_000 },
          { orderLineId: benLine, amount: 5_000 },
        ],
      },
      201
    )
    expect(refund).toMatchObject({ amount: 10_000, status: 'SUCCEEDED' })
    expect(await refundableOf(t, order.id as string)).toEqual([0, 0])

    // Each provider gives back all of their session, with the fee on it returned: nobody keeps what the payer got back.
    const settled = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    for (const providerId of [ana, ben]) {
      expect(settled.of(providerId)).toMatchObject({
        grossAmount: 10_000,
        feeAmount: 1_000,
        refundAmount: 10_000,
        feeRefundAmount: 1_000,
        netAmount: 0,
      })
    }
  })
})
