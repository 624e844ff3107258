/**
 * Payments over HTTP against the real API and database: partial payments up to PAID, overpayment refused, failed
 * attempts that move no money, partial and full refunds as their own records, `payment.succeeded` in the same
 * transaction, concurrent payments and refunds on one order that cannot together exceed it, GET /v1/payments pages
 * and filters, and tenant isolation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { expectLedgerHolds } from '../support/ledger-check.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { walkPages } from '../support/walk-pages.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** The tenants a test made: the ledger check runs over each after it. */
const tenantsOfTest: string[] = []

/** A tenant of its own (one USD location), so lists and events hold exactly what the test made. */
async function freshTenant(scopes = ['orders', 'payments']) {
  const client = await platform.newTenant(scopes)
  tenantsOfTest.push(client.tenantId)
  return { ...client, token: await platform.token(client) }
}

// After every test, each of its tenants' books hold by the ledger check (domain/reconciliation/ledger-check.ts).
afterEach(async () => {
  for (const tenantId of tenantsOfTest.splice(0)) await expectLedgerHolds(platform, tenantId)
})

type Tenant = Awaited<ReturnType<typeof freshTenant>>

/** An OPEN order of `total` minor units. */
async function openOrder(t: Tenant, total: number, currency = 'USD'): Promise<string> {
  const response = await platform.http.post('/v1/orders', {
    token: t.token,
    body: {
      status: 'OPEN',
      currency,
      lines: [{ kind: 'SESSION_PACKAGE', description: '10 sessions', unitAmount: total }],
    },
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id
}

const pay = (t: Tenant, orderId: string, amount: number, extra: Record<string, unknown> = {}) =>
  platform.http.post('/v1/payments', {
    token: t.token,
    body: { orderId, amount, currency: 'USD', method: 'CASH', ...extra },
  })
const refund = (t: Tenant, paymentId: string, body: Record<string, unknown> = {}) =>
  platform.http.post(`/v1/payments/${paymentId}/refunds`, {
    token: t.token,
    body: { reason: 'REQUESTED_BY_CLIENT', ...body },
  })
const order = async (t: Tenant, id: string) => (await platform.http.get(`/v1/orders/${id}`, { token: t.token })).body

async function paid(t: Tenant, orderId: string, amount: number, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await pay(t, orderId, amount, extra)
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id
}

const succeededEvents = (t: Tenant) =>
  runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) =>
    uow.tx.event.findMany({ where: { type: 'payment.succeeded' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
  )

describe('paying an order', () => {
  it('takes partial payments until PAID, with a payment.succeeded event for each', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    const first = await pay(t, orderId, 4_000, { reference: 'R-1001' })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      orderId,
      locationId: t.locationId,
      amount: 4_000,
      currency: 'USD',
      status: 'SUCCEEDED',
      method: 'CASH',
      processor: 'recorded',
      reference: 'R-1001',
      failureCode: null,
      amountRefunded: 0,
      refunds: [],
    })
    expect(first.body.id).toMatch(/^pay_/)
    expect(first.body.receivedAt).toMatch(/Z$/)
    expect(first.headers.get('location')).toBe(`/v1/payments/${first.body.id}`)
    expect(await order(t, orderId)).toMatchObject({
      status: 'PARTIALLY_PAID',
      amountPaid: 4_000,
      balance: 6_000,
      paidAt: null,
    })

    const second = await paid(t, orderId, 6_000, { method: 'CARD_TERMINAL', receivedAt: '2026-01-05T09:30:00-06:00' })
    const after = await order(t, orderId)
    expect(after).toMatchObject({ status: 'PAID', amountPaid: 10_000, balance: 0 })
    expect(after.paidAt).toMatch(/Z$/)
    const read = await platform.http.get(`/v1/payments/${second}`, { token: t.token })
    expect(read.body).toMatchObject({ method: 'CARD_TERMINAL', receivedAt: '2026-01-05T15:30:00.000Z' })

    const events = await succeededEvents(t)
    expect(events.map((e) => e.data)).toEqual([
      { paymentId: first.body.id, orderId, amount: 4_000, currency: 'USD' },
      { paymentId: second, orderId, amount: 6_000, currency: 'USD' },
    ])
    expect(events[0]!.id).toMatch(/^evt_/)
  })

  it('refuses an overpayment whole, with a clear code, leaving the order and the books unchanged', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    await paid(t, orderId, 4_000)
    const over = await pay(t, orderId, 6_001)
    expect(over.status).toBe(409)
    expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(over.body).toMatchObject({ code: 'amount_exceeds_balance', status: 409 })
    expect(over.body.detail).toContain('60.00 USD')
    expect(await order(t, orderId)).toMatchObject({ status: 'PARTIALLY_PAID', amountPaid: 4_000, balance: 6_000 })
    const payments = await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })
    expect(payments.body.data).toHaveLength(1)
    expect(await succeededEvents(t)).toHaveLength(1)

    await paid(t, orderId, 6_000)
    const onPaid = await pay(t, orderId, 1)
    expect(onPaid.status).toBe(409)
    expect(onPaid.body.code).toBe('invalid_state_transition')
  })

  it('takes no payment on a DRAFT or VOID order, nor in another currency', async () => {
    const t = await freshTenant()
    const draft = await platform.http.post('/v1/orders', {
      token: t.token,
      body: { lines: [{ kind: 'PRODUCT', unitAmount: 500 }] },
    })
    const onDraft = await pay(t, draft.body.id, 100)
    expect(onDraft.status).toBe(409)
    expect(onDraft.body.code).toBe('invalid_state_transition')
    expect(onDraft.body.detail).toContain('finalize')

    const voided = await openOrder(t, 500)
    await platform.http.post(`/v1/orders/${voided}/void`, { token: t.token })
    expect((await pay(t, voided, 100)).body.code).toBe('invalid_state_transition')

    const open = await openOrder(t, 500)
    const euros = await pay(t, open, 100, { currency: 'EUR' })
    expect(euros.status).toBe(400)
    expect(euros.body.errors[0]).toMatchObject({ path: 'currency', code: 'currency_mismatch' })
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ amount: 0 }, 'amount'],
      [{ amount: 10.5 }, 'amount'],
      [{ method: 'BITCOIN' }, 'method'],
      [{ orderId: newId('order') }, 'orderId'],
      [{ currency: 'ZZZ' }, 'currency'],
      [{ receivedAt: '2999-01-01T00:00:00Z' }, 'receivedAt'],
    ]
    for (const [body, path] of refused) {
      const response = await platform.http.post('/v1/payments', {
        token: t.token,
        body: { orderId: open, amount: 100, currency: 'USD', method: 'CASH', ...body },
      })
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.errors[0].path).toBe(path)
    }
    // None of the refused payments touched the order.
    expect(await order(t, open)).toMatchObject({ status: 'OPEN', amountPaid: 0 })
  })

  it('records a failed attempt with its code: no money moves and no event', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 7_500)
    const failed = await pay(t, orderId, 7_500, {
      method: 'CARD_TERMINAL',
      failure: { code: 'CARD_DECLINED', message: 'Terminal said: do not honour' },
    })
    expect(failed.status).toBe(201)
    expect(failed.body).toMatchObject({
      status: 'FAILED',
      failureCode: 'CARD_DECLINED',
      failureMessage: 'Terminal said: do not honour',
      receivedAt: null,
      amountRefunded: 0,
    })
    expect(await order(t, orderId)).toMatchObject({ status: 'OPEN', amountPaid: 0, balance: 7_500 })
    expect(await succeededEvents(t)).toEqual([])
    const refundFailed = await refund(t, failed.body.id)
    expect(refundFailed.status).toBe(409)
    expect(refundFailed.body.code).toBe('invalid_state_transition')

    // The retry that works.
    await paid(t, orderId, 7_500, { method: 'CARD_TERMINAL' })
    expect(await order(t, orderId)).toMatchObject({ status: 'PAID' })
  })

  it('replays a retried payment with the same Idempotency-Key instead of taking the money twice', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    const headers = { 'Idempotency-Key': `pay-${orderId}` }
    const body = { orderId, amount: 2_500, currency: 'USD', method: 'BANK_TRANSFER' }
    const first = await platform.http.post('/v1/payments', { token: t.token, body, headers })
    const retry = await platform.http.post('/v1/payments', { token: t.token, body, headers })
    expect(first.status).toBe(201)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    expect(await order(t, orderId)).toMatchObject({ amountPaid: 2_500, balance: 7_500 })
    expect(await succeededEvents(t)).toHaveLength(1)
  })

  it('adds many small payments exactly, in a zero-decimal currency too', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 175)
    for (let i = 0; i < 25; i += 1) await paid(t, orderId, 7)
    expect(await order(t, orderId)).toMatchObject({ status: 'PAID', amountPaid: 175, balance: 0 })

    const yen = await openOrder(t, 5_000, 'JPY')
    const over = await pay(t, yen, 5_001, { currency: 'JPY' })
    expect(over.body.detail).toContain('5000 JPY')
    await paid(t, yen, 5_000, { currency: 'JPY' })
    expect(await order(t, yen)).toMatchObject({ status: 'PAID', currency: 'JPY', amountPaid: 5_000 })
  })
})

describe('refunds', () => {
  it('refunds partially then fully, as records of their own, never more than was paid', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    const a = await paid(t, orderId, 4_000)
    const b = await paid(t, orderId, 6_000, { method: 'INSURER_REMITTANCE', reference: 'ERA-77' })

    const partial = await refund(t, a, {
      amount: 1_500,
      reason: 'APPOINTMENT_CANCELLED',
      method: 'CASH',
      reference: 'RF-1',
    })
    expect(partial.status).toBe(201)
    expect(partial.body).toMatchObject({
      paymentId: a,
      orderId,
      amount: 1_500,
      currency: 'USD',
      reason: 'APPOINTMENT_CANCELLED',
      method: 'CASH',
      reference: 'RF-1',
    })
    expect(partial.body.id).toMatch(/^rfd_/)
    expect(await order(t, orderId)).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      amountPaid: 10_000,
      amountRefunded: 1_500,
      balance: 0,
    })

    const tooMuch = await refund(t, a, { amount: 2_501 })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.code).toBe('amount_exceeds_refundable')
    expect(tooMuch.body.detail).toContain('25.00 USD')
    const wrongCurrency = await refund(t, a, { amount: 1, currency: 'EUR' })
    expect(wrongCurrency.status).toBe(400)
    expect(wrongCurrency.body.errors[0].code).toBe('currency_mismatch')

    // No amount: everything left on the payment; the method defaults to the payment's.
    const rest = await refund(t, a)
    expect(rest.body).toMatchObject({ amount: 2_500, method: 'CASH' })
    const payment = await platform.http.get(`/v1/payments/${a}`, { token: t.token })
    expect(payment.body).toMatchObject({ amount: 4_000, amountRefunded: 4_000, status: 'SUCCEEDED' })
    expect(payment.body.refunds.map((r: { id: string }) => r.id)).toEqual([partial.body.id, rest.body.id])
    const again = await refund(t, a, { amount: 1 })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('invalid_state_transition')

    const insurer = await refund(t, b, { reason: 'INSURER_ADJUSTMENT' })
    expect(insurer.body).toMatchObject({ amount: 6_000, method: 'INSURER_REMITTANCE' })
    expect(await order(t, orderId)).toMatchObject({
      status: 'REFUNDED',
      amountPaid: 10_000,
      amountRefunded: 10_000,
      balance: 0,
    })
    // Refunds emit no payment.succeeded.
    expect(await succeededEvents(t)).toHaveLength(2)
  })
})

describe('concurrency', () => {
  it('lets concurrent payments on one order succeed only up to its total', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 10_000)
    const responses = await Promise.all(Array.from({ length: 10 }, () => pay(t, orderId, 3_000)))
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(3)
    expect(statuses.filter((s) => s === 409)).toHaveLength(7)
    for (const r of responses.filter((r) => r.status === 409)) expect(r.body.code).toBe('amount_exceeds_balance')
    expect(await order(t, orderId)).toMatchObject({ status: 'PARTIALLY_PAID', amountPaid: 9_000, balance: 1_000 })

    const last = await Promise.all(Array.from({ length: 5 }, () => pay(t, orderId, 1_000)))
    expect(last.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of last.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409)
      expect(['amount_exceeds_balance', 'invalid_state_transition']).toContain(r.body.code)
    }
    expect(await order(t, orderId)).toMatchObject({ status: 'PAID', amountPaid: 10_000, balance: 0 })
    expect(await succeededEvents(t)).toHaveLength(4)
    const listed = await walkPages<{ amount: number }>(platform.http, t.token, `/v1/payments?orderId=${orderId}`)
    expect(listed.items.reduce((sum, p) => sum + p.amount, 0)).toBe(10_000)
  })

  it('lets concurrent refunds of one payment succeed only up to its amount', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 6_000)
    const paymentId = await paid(t, orderId, 6_000)
    const responses = await Promise.all(Array.from({ length: 6 }, () => refund(t, paymentId, { amount: 2_000 })))
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3)
    for (const r of responses.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409)
      expect(['amount_exceeds_refundable', 'invalid_state_transition']).toContain(r.body.code)
    }
    expect(await order(t, orderId)).toMatchObject({ status: 'REFUNDED', amountRefunded: 6_000 })
    expect((await platform.http.get(`/v1/payments/${paymentId}`, { token: t.token })).body.refunds).toHaveLength(3)
  })
})

describe('the database as the last line', () => {
  it('refuses an order paid beyond its total or refunded beyond what was paid, whatever the code does', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 1_000)
    const write = (data: { amountPaid?: number; amountRefunded?: number; balance?: number }) =>
      runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) => uow.tx.order.update({ where: { id: orderId }, data }))
    await expect(write({ amountPaid: 1_001, balance: -1 })).rejects.toThrow(/amount_paid <= total/)
    await expect(write({ amountPaid: 500, balance: 1_000 })).rejects.toThrow(/balance = total - amount_paid/)
    await expect(write({ amountRefunded: 1 })).rejects.toThrow(/amount_refunded <= amount_paid/)
    expect(await order(t, orderId)).toMatchObject({ amountPaid: 0, amountRefunded: 0, balance: 1_000 })
  })
})

describe('GET /v1/payments', () => {
  it('pages newest first and filters by order, status, method and amount order', async () => {
    const t = await freshTenant()
    const o1 = await openOrder(t, 1_000)
    const o2 = await openOrder(t, 1_000)
    const ids = [
      await paid(t, o1, 300),
      await paid(t, o2, 100, { method: 'BANK_TRANSFER' }),
      (await pay(t, o1, 200, { method: 'CHEQUE', failure: { code: 'PAYMENT_REJECTED' } })).body.id as string,
      await paid(t, o1, 400, { method: 'CHEQUE' }),
    ]
    const all = await walkPages<{ id: string }>(platform.http, t.token, '/v1/payments?limit=3')
    expect(all.items.map((p) => p.id)).toEqual([...ids].reverse())
    expect(all.pages).toBe(2)
    const only = async (query: string) =>
      (await walkPages<{ id: string }>(platform.http, t.token, `/v1/payments?${query}&sort=createdAt`)).items.map(
        (p) => p.id
      )
    expect(await only(`orderId=${o1}`)).toEqual([ids[0], ids[2], ids[3]])
    expect(await only('status=FAILED')).toEqual([ids[2]])
    expect(await only('method=CHEQUE&status=SUCCEEDED')).toEqual([ids[3]])
    expect(await only(`locationId=${t.locationId}&method=BANK_TRANSFER`)).toEqual([ids[1]])
    const byAmount = await walkPages<{ amount: number }>(platform.http, t.token, '/v1/payments?sort=-amount&limit=2')
    expect(byAmount.items.map((p) => p.amount)).toEqual([400, 300, 200, 100])
  })
})

describe('tenant isolation and scopes', () => {
  it("answers 404 for another tenant's payment, refuses its order, and never lists it", async () => {
    const a = await freshTenant()
    const b = await freshTenant()
    const orderId = await openOrder(a, 1_000)
    const paymentId = await paid(a, orderId, 500)
    const hidden = await platform.http.get(`/v1/payments/${paymentId}`, { token: b.token })
    expect(hidden.status).toBe(404)
    expect(hidden.body.code).toBe('not_found')
    const refundHidden = await refund(b, paymentId)
    expect(refundHidden.status).toBe(404)
    const payHidden = await pay(b, orderId, 100)
    expect(payHidden.status).toBe(400)
    expect(payHidden.body.errors[0]).toMatchObject({ path: 'orderId', code: 'not_found' })
    expect((await platform.http.get('/v1/payments', { token: b.token })).body.data).toEqual([])
    expect((await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: b.token })).body.data).toEqual([])
    expect(await order(a, orderId)).toMatchObject({ amountPaid: 500, amountRefunded: 0 })
    expect(await succeededEvents(b)).toEqual([])
  })

  it('reads with payments.read, writes only with payments', async () => {
    const reader = await freshTenant(['payments.read'])
    expect((await platform.http.get('/v1/payments', { token: reader.token })).status).toBe(200)
    const write = await pay(reader, 'ord_any', 100)
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
  })
})
