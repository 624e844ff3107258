/**
 * Marketplace settlements over HTTP against the real API, database, Temporal server and worker: exact amounts on known
 * sessions, payments and refunds (fee rules per tenant and per provider, a flat fee, a partly paid order and a
 * cancelled appointment left out, an adjustment); a ledger whose every entry and whose books as a whole sum to zero;
 * the same period asked again (the same run, no second payment), another run for the same period (ALREADY_SETTLED),
 * a failed run started again (it resumes without paying twice); a refund after settlement clawed back in the next
 * period and carried forward; only refunds that succeeded taken, at the instant they succeeded, and one that failed
 * after a settlement took it given back by the next; overlapping periods refused; the workflow's search attributes;
 * tenant isolation.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { requestKeyOf } from '../../domain/settlements/settlement-service.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { SETTLEMENT_WORKFLOW, settlementWorkflowId } from '../../common/settlements/settlement-contract.ts'
import { expectLedgerHolds } from '../support/ledger-check.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const SCOPES = ['providers', 'children', 'bookings', 'orders', 'payments', 'sessions.read', 'settlements']
const HOUR = 3_600_000

/** The API's clock: shifted into the past to book appointments there, then back to now to complete them. */
let offset = 0
let platform: Platform

beforeAll(async () => {
  // The appointments are booked two days in the past and completed afterwards: a no-show grace of three days keeps
  // their booking workflows from marking them NO_SHOW first (they did whenever the worker was quicker than the test).
  platform = await startPlatform({
    clock: () => new Date(Date.now() + offset),
    overrides: { CARE_WORKFLOW_NO_SHOW_GRACE_MS: String(3 * 24 * HOUR) },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

interface Centre {
  tenantId: string
  token: string
}

/** The tenants a test made: the ledger check runs over each after it. */
const tenantsOfTest: string[] = []

async function newCentre(): Promise<Centre> {
  const client = await platform.newTenant(SCOPES, 'UTC')
  tenantsOfTest.push(client.tenantId)
  return { tenantId: client.tenantId, token: await platform.token(client) }
}

// After every test, each of its tenants' books hold (domain/reconciliation/ledger-check.ts): orders' amounts are their
// payments' and refunds', and every journal entry balances.
afterEach(async () => {
  for (const tenantId of tenantsOfTest.splice(0)) await expectLedgerHolds(platform, tenantId)
})

const send = (t: Centre, method: string, path: string, body?: unknown) =>
  platform.http.request(method, path, { token: t.token, body, headers: { 'Idempotency-Key': randomUUID() } })

async function ok(t: Centre, method: string, path: string, body?: unknown, status = 201) {
  const response = await send(t, method, path, body)
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status)
  return response.body
}

const id = async (t: Centre, path: string, body: unknown) => (await ok(t, 'POST', path, body)).id as string

/** An OPEN order with these lines, paid `paid` (in one or more payments). */
async function order(t: Centre, lines: unknown[], payments: number[]): Promise<string> {
  const orderId = await id(t, '/v1/orders', { status: 'OPEN', currency: 'USD', lines })
  for (const amount of payments)
    await ok(t, 'POST', '/v1/payments', { orderId, amount, currency: 'USD', method: 'CARD_TERMINAL' })
  return orderId
}

async function paymentOf(t: Centre, orderId: string): Promise<string> {
  return (await ok(t, 'GET', `/v1/payments?orderId=${orderId}`, undefined, 200)).data[0].id
}

async function settle(t: Centre, body: Record<string, unknown>) {
  return send(t, 'POST', '/v1/marketplace/settlements', { currency: 'USD', ...body })
}

async function completed(t: Centre, settlementId: string) {
  return eventually(async () => {
    const response = await send(t, 'GET', `/v1/marketplace/settlements/${settlementId}`)
    return response.body.status === 'COMPLETED' || response.body.status === 'FAILED' ? response.body : undefined
  }, 60_000)
}

const balances = async (t: Centre) => await ok(t, 'GET', '/v1/marketplace/ledger/balances?currency=USD', undefined, 200)
const balanceOf = (b: { data: Array<{ account: string; balance: number }> }, account: string) =>
  b.data.find((a) => a.account === account)?.balance ?? 0

/** Every entry of the tenant, each checked to balance on its own. */
async function entries(t: Centre) {
  const all: Array<{ lines: Array<{ debit: number; credit: number }> }> = []
  let cursor: string | null = null
  do {
    const page = await ok(
      t,
      'GET',
      `/v1/marketplace/ledger/entries?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      undefined,
      200
    )
    all.push(...page.data)
    cursor = page.nextCursor
  } while (cursor)
  for (const entry of all) {
    const sum = (k: 'debit' | 'credit') => entry.lines.reduce((s, l) => s + l[k], 0)
    expect(sum('debit')).toBe(sum('credit'))
  }
  return all
}

describe('marketplace settlements', () => {
  it('pays exactly what was earned, posts balanced books, never pays twice and claws refunds back later', async () => {
    const t = await newCentre()
    const provider = (name: string) => id(t, '/v1/providers', { name, timeZone: 'UTC' })
    const child = (firstName: string) =>
      id(t, '/v1/children', { firstName, lastName: 'Test', dateOfBirth: '2022-05-01' })
    const [a, b, idle] = [await provider('Ana SLP'), await provider('Ben OT'), await provider('Idle')]
    const [x, y] = [await child('Xavi'), await child('Yara')]
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 })
    await ok(t, 'POST', '/v1/marketplace/fee-rules', {
      providerId: b,
      percentBps: 2000,
      fixedAmount: 100,
      fixedCurrency: 'USD',
    })

    // Two days ago, as far as the API knows, appointments are booked for that afternoon; then they take place.
    offset = -2 * 24 * HOUR
    const start = (hours: number) => new Date(Date.now() + offset + hours * HOUR).toISOString()
    const book = (providerId: string, childId: string, hours: number) =>
      id(t, '/v1/appointments', { providerId, childId, startsAt: start(hours), durationMinutes: 60 })
    const a1 = await book(a, x, 1)
    const a2 = await book(a, y, 3)
    const a3 = await book(b, x, 5)
    const a4 = await book(b, y, 7)
    const a5 = await book(a, x, 9)
    offset = 0
    for (const apt of [a1, a2, a3, a5]) await ok(t, 'POST', `/v1/appointments/${apt}/complete`, undefined, 200)
    await ok(t, 'POST', `/v1/appointments/${a4}/cancel`, { reason: 'FAMILY_REQUEST' }, 200)
    const session2 = (await ok(t, 'GET', `/v1/sessions?appointmentId=${a2}`, undefined, 200)).data[0].id

    const o1 = await order(
      t,
      [
        { kind: 'SESSION', appointmentId: a1, unitAmount: 12_000 },
        { kind: 'SESSION', appointmentId: a3, unitAmount: 15_000 },
        { kind: 'PRODUCT', description: 'Workbook', unitAmount: 3_000 },
      ],
      [10_000, 20_000]
    )
    const o2 = await order(t, [{ kind: 'SESSION', sessionId: session2, unitAmount: 8_000 }], [8_000])
    await ok(t, 'POST', `/v1/payments/${await paymentOf(t, o2)}/refunds`, {
      amount: 2_000,
      reason: 'REQUESTED_BY_CLIENT',
    })
    await order(t, [{ kind: 'SESSION', appointmentId: a4, unitAmount: 9_000 }], [9_000]) // cancelled: never settled
    await order(t, [{ kind: 'SESSION', appointmentId: a5, unitAmount: 10_000 }], [4_000]) // not fully paid yet
    await ok(t, 'POST', '/v1/marketplace/adjustments', {
      providerId: b,
      amount: 2_500,
      currency: 'USD',
      reason: 'BONUS',
    })

    const periodStart = new Date(Date.now() - 3 * 24 * HOUR).toISOString()
    const periodEnd = new Date(Date.now() + 1000).toISOString()
    await new Promise((r) => setTimeout(r, 1100))
    const accepted = await settle(t, { periodStart, periodEnd })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    expect(accepted.body).toMatchObject({ status: 'PENDING', providerIds: null, currency: 'USD' })
    expect(accepted.headers.get('location')).toBe(`/v1/marketplace/settlements/${accepted.body.id}`)
    const first = await completed(t, accepted.body.id)
    expect(first.status).toBe('COMPLETED')

    // Ana (10%): 12,000 + 8,000 gross, fee 2,000; refund 2,000 returns 200 of fee. Ben (20% + 1.00): 15,000, fee 3,100; bonus 2,500.
    expect(first.providers.map((p: { providerId: string }) => p.providerId)).toEqual([a, b].sort())
    const of = (providerId: string) => first.providers.find((p: { providerId: string }) => p.providerId === providerId)
    expect(of(a)).toMatchObject({
      outcome: 'SETTLED',
      sessionCount: 2,
      grossAmount: 20_000,
      feeAmount: 2_000,
      refundAmount: 2_000,
      feeRefundAmount: 200,
      adjustmentAmount: 0,
      netAmount: 16_200,
      carriedForward: 0,
      payoutAmount: 16_200,
      balanceAfter: 0,
    })
    expect(of(b)).toMatchObject({
      outcome: 'SETTLED',
      sessionCount: 1,
      grossAmount: 15_000,
      feeAmount: 3_100,
      refundAmount: 0,
      feeRefundAmount: 0,
      adjustmentAmount: 2_500,
      netAmount: 14_400,
      payoutAmount: 14_400,
      balanceAfter: 0,
    })
    expect(first.totals).toEqual({
      providers: 2,
      sessionCount: 3,
      grossAmount: 35_000,
      feeAmount: 5_100,
      refundAmount: 2_000,
      feeRefundAmount: 200,
      adjustmentAmount: 2_500,
      netAmount: 30_600,
      reserveAmount: 0,
      payoutAmount: 30_600,
    })
    expect(first.providers.some((p: { providerId: string }) => p.providerId === idle)).toBe(false)

    // The books: the centre holds what it collected (51,000) less the refund and the payouts (2,000 and 30,600); the
    // payers' funds still hold 16,000 no provider has earned (O1's workbook, the cancelled session, the part-paid
    // order); fees 5,100 − 200; adjustments 2,500; both payables settled; nothing at a processor.
    const books = await balances(t)
    expect(balanceOf(books, 'centre_funds')).toBe(51_000 - 2_000 - 30_600)
    expect(balanceOf(books, 'payer_funds')).toBe(-(3_000 + 9_000 + 4_000))
    expect(balanceOf(books, 'clearing')).toBe(0)
    expect(balanceOf(books, 'platform_fee_revenue')).toBe(-4_900)
    expect(balanceOf(books, 'platform_adjustments')).toBe(2_500)
    expect(balanceOf(books, `provider_payable:${a}`)).toBe(0)
    expect(balanceOf(books, `provider_payable:${b}`)).toBe(0)
    expect(books.data.reduce((s: number, acc: { balance: number }) => s + acc.balance, 0)).toBe(0)
    expect(books.totals).toEqual([{ currency: 'USD', debit: expect.any(Number), credit: expect.any(Number) }])
    expect(books.totals[0].debit).toBe(books.totals[0].credit)
    // One per provider settled, one per payment and one for the refund (money booked when it moved).
    expect(await entries(t)).toHaveLength(2 + 5 + 1)

    // The same request: the same run, nothing paid again. Another run for Ana alone: already settled by the first.
    const again = await settle(t, { periodStart, periodEnd })
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(accepted.body.id)
    const onlyAna = await settle(t, { periodStart, periodEnd, providerIds: [a] })
    expect(onlyAna.status).toBe(202)
    const anaRun = await completed(t, onlyAna.body.id)
    expect(anaRun.providers).toEqual([
      expect.objectContaining({ providerId: a, outcome: 'ALREADY_SETTLED', settledBy: first.id, payoutAmount: 16_200 }),
    ])
    expect(anaRun.totals).toMatchObject({ providers: 0, payoutAmount: 0 })
    expect(await balances(t)).toEqual(books)

    // A run that failed is started again by the same request and resumes without paying anyone twice.
    await runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) =>
      uow.tx.settlement.update({ where: { id: first.id }, data: { status: 'FAILED', failureReason: 'simulated' } })
    )
    const restarted = await settle(t, { periodStart, periodEnd })
    expect(restarted.status).toBe(202)
    expect(restarted.body).toMatchObject({ id: first.id, status: 'PENDING', failureReason: null })
    const resumed = await completed(t, first.id)
    expect(resumed).toMatchObject({ status: 'COMPLETED', totals: first.totals })
    expect(await balances(t)).toEqual(books)

    // The workflow is findable by tenant and kind, never by anything else.
    const description = await platform.temporal.workflow.getHandle(settlementWorkflowId(first.id)).describe()
    expect(description.type).toBe(SETTLEMENT_WORKFLOW)
    expect(description.searchAttributes).toMatchObject({
      TenantId: [t.tenantId],
      WorkflowKind: ['marketplace_settlement'],
    })

    // A refund after the period: shared 12,000 : 15,000 : 3,000 over O1's lines, taken back in the next period.
    await ok(
      t,
      'POST',
      `/v1/payments/${(await ok(t, 'GET', `/v1/payments?orderId=${o1}&sort=createdAt`, undefined, 200)).data[1].id}/refunds`,
      {
        amount: 6_000,
        reason: 'SERVICE_NOT_PROVIDED',
      }
    )
    const overlapping = await settle(t, {
      periodStart: new Date(Date.parse(periodEnd) - HOUR).toISOString(),
      periodEnd: new Date().toISOString(),
    })
    expect(overlapping.status).toBe(409)
    expect(overlapping.body).toMatchObject({ code: 'conflict' })
    const secondEnd = new Date(Date.now() + 1000).toISOString()
    await new Promise((r) => setTimeout(r, 1100))
    const second = await completed(t, (await settle(t, { periodStart: periodEnd, periodEnd: secondEnd })).body.id)
    const of2 = (providerId: string) =>
      second.providers.find((p: { providerId: string }) => p.providerId === providerId)
    // Ana: share 2,400, fee returned 1,200 − 960 = 240. Ben: share 3,000, fee returned 3,100 − 2,500 = 600. Nothing to pay: carried.
    expect(of2(a)).toMatchObject({
      sessionCount: 0,
      refundAmount: 2_400,
      feeRefundAmount: 240,
      netAmount: -2_160,
      payoutAmount: 0,
      balanceAfter: -2_160,
    })
    expect(of2(b)).toMatchObject({
      refundAmount: 3_000,
      feeRefundAmount: 600,
      netAmount: -2_400,
      payoutAmount: 0,
      balanceAfter: -2_400,
    })

    // Ana's next bonus first pays back what she owes.
    await ok(t, 'POST', '/v1/marketplace/adjustments', {
      providerId: a,
      amount: 5_000,
      currency: 'USD',
      reason: 'CORRECTION',
    })
    const thirdEnd = new Date(Date.now() + 1000).toISOString()
    await new Promise((r) => setTimeout(r, 1100))
    const third = await completed(
      t,
      (await settle(t, { periodStart: secondEnd, periodEnd: thirdEnd, providerIds: [a] })).body.id
    )
    expect(third.providers[0]).toMatchObject({
      adjustmentAmount: 5_000,
      netAmount: 5_000,
      carriedForward: -2_160,
      payoutAmount: 2_840,
      balanceAfter: 0,
    })

    const finalBooks = await balances(t)
    expect(finalBooks.data.reduce((s: number, acc: { balance: number }) => s + acc.balance, 0)).toBe(0)
    expect(balanceOf(finalBooks, `provider_payable:${a}`)).toBe(0)
    expect(balanceOf(finalBooks, `provider_payable:${b}`)).toBe(2_400) // owed back by Ben: a debit balance
    expect(balanceOf(finalBooks, 'centre_funds')).toBe(51_000 - 2_000 - 6_000 - 30_600 - 2_840)
    // The later refund's share of the workbook (600 of 6,000) left the payers' funds with it.
    expect(balanceOf(finalBooks, 'payer_funds')).toBe(-(3_000 - 600 + 9_000 + 4_000))
    await entries(t)
  })

  it('takes only refunds that succeeded, when they succeeded, and gives back one that failed after it was taken', async () => {
    const t = await newCentre()
    const a = await id(t, '/v1/providers', { name: 'Ana SLP', timeZone: 'UTC' })
    const x = await id(t, '/v1/children', { firstName: 'Xavi', lastName: 'Test', dateOfBirth: '2022-05-01' })
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 })
    offset = -2 * 24 * HOUR
    const startsAt = new Date(Date.now() + offset + HOUR).toISOString()
    const apt = await id(t, '/v1/appointments', { providerId: a, childId: x, startsAt, durationMinutes: 60 })
    offset = 0
    await ok(t, 'POST', `/v1/appointments/${apt}/complete`, undefined, 200)
    const orderId = await order(t, [{ kind: 'SESSION', appointmentId: apt, unitAmount: 10_000 }], [10_000])
    const paymentId = await paymentOf(t, orderId)
    const [lineId] = (await ok(t, 'GET', `/v1/orders/${orderId}`, undefined, 200)).lines.map(
      (l: { id: string }) => l.id
    )

    // Refunds as the processor leaves them (docs/payments.md): only a SUCCEEDED one counts in the order's amounts.
    const inDb = <T>(work: (tx: UnitOfWork['tx']) => Promise<T>) =>
      runInUnitOfWork(platform.db, t.tenantId, ({ tx }) => work(tx))
    const counted = (tx: UnitOfWork['tx'], amount: number) =>
      Promise.all([
        tx.payment.update({ where: { id: paymentId }, data: { amountRefunded: { increment: amount } } }),
        tx.order.update({ where: { id: orderId }, data: { amountRefunded: { increment: amount } } }),
      ])
    const refund = (amount: number, status: 'PENDING' | 'SUCCEEDED' | 'FAILED', at = new Date()) =>
      inDb(async (tx) => {
        const row = await tx.refund.create({
          data: {
            id: newId('refund'),
            tenantId: t.tenantId,
            paymentId,
            orderId,
            amount,
            currency: 'USD',
            reason: 'REQUESTED_BY_CLIENT',
            method: 'CARD_ONLINE',
            status,
            succeededAt: status === 'SUCCEEDED' ? at : null,
            failedAt: status === 'FAILED' ? at : null,
          },
        })
        if (status === 'SUCCEEDED') await counted(tx, amount)
        return row.id
      })
    const becomes = (refundId: string, status: 'SUCCEEDED' | 'FAILED') =>
      inDb(async (tx) => {
        const row = await tx.refund.update({
          where: { id: refundId },
          data: status === 'SUCCEEDED' ? { status, succeededAt: new Date() } : { status, failedAt: new Date() },
        })
        await counted(tx, status === 'SUCCEEDED' ? row.amount : -row.amount)
      })
    await refund(300, 'PENDING') // never settles: held (and its share reserved), never taken
    await refund(700, 'FAILED') // the processor never returned it
    const flipped = await refund(2_000, 'SUCCEEDED') // succeeded, then fails after the first settlement took it
    const late = await refund(1_000, 'PENDING') // asked for before the first period's end, succeeds after it

    const settleUntilNow = async (periodStart: string) => {
      const periodEnd = new Date(Date.now() + 1000).toISOString()
      await new Promise((r) => setTimeout(r, 1100))
      const run = await completed(t, (await settle(t, { periodStart, periodEnd })).body.id)
      expect(run.status).toBe('COMPLETED')
      return { run, periodEnd, ana: run.providers.find((p: { providerId: string }) => p.providerId === a) }
    }
    const itemsOf = (run: { id: string }) =>
      inDb((tx) =>
        tx.settlementItem.findMany({
          where: { providerSettlement: { settlementId: run.id }, kind: { in: ['REFUND', 'REFUND_REVERSAL'] } },
          select: { kind: true, dedupeKey: true, amount: true, feeAmount: true, refundId: true },
          orderBy: { kind: 'asc' },
        })
      )

    // 1. Only the refund that succeeded: 10,000 gross, fee 1,000; 2,000 taken back with its fee of 200. The two
    // pending ones are reserved (issue 58): 300 less the 30 fee it would return, 1,000 less 100 (fee 770 − 670).
    const first = await settleUntilNow(new Date(Date.now() - 3 * 24 * HOUR).toISOString())
    expect(first.ana).toMatchObject({
      grossAmount: 10_000,
      feeAmount: 1_000,
      refundAmount: 2_000,
      feeRefundAmount: 200,
      netAmount: 7_200,
      reserveAmount: 270 + 900,
      payoutAmount: 7_200 - 1_170,
    })
    expect(await itemsOf(first.run)).toEqual([
      { kind: 'REFUND', dedupeKey: `REFUND:${flipped}:${lineId}`, amount: 2_000, feeAmount: 200, refundId: flipped },
    ])

    // 2. The late refund succeeded after the first period: it belongs to this one (share 1,000, fee 800 − 700), and
    // its reserve is released: the 900 it takes was held back, so nothing is owed back.
    await becomes(late, 'SUCCEEDED')
    const second = await settleUntilNow(first.periodEnd)
    expect(second.ana).toMatchObject({
      refundAmount: 1_000,
      feeRefundAmount: 100,
      netAmount: -900,
      reserveAmount: -900,
      payoutAmount: 0,
      balanceAfter: 0,
    })
    expect(await itemsOf(second.run)).toEqual([
      { kind: 'REFUND', dedupeKey: `REFUND:${late}:${lineId}`, amount: 1_000, feeAmount: 100, refundId: late },
    ])

    // 3. The refund the first settlement took failed: given back to Ana with the fee it had returned, by a new item.
    await becomes(flipped, 'FAILED')
    const third = await settleUntilNow(second.periodEnd)
    expect(third.ana).toMatchObject({
      refundAmount: -2_000,
      feeRefundAmount: -200,
      netAmount: 1_800,
      carriedForward: 0,
      reserveAmount: 0,
      payoutAmount: 1_800,
      balanceAfter: 0,
    })
    expect(await itemsOf(third.run)).toEqual([
      {
        kind: 'REFUND_REVERSAL',
        dedupeKey: `REFUND_REVERSAL:${flipped}:${lineId}`,
        amount: 2_000,
        feeAmount: 200,
        refundId: flipped,
      },
    ])
    // Ana got 9,000 less the fee on it: exactly what the one refund that happened leaves her, less the 270 still
    // reserved for the refund that stays pending.
    expect([first, second, third].reduce((sum, s) => sum + s.ana.payoutAmount, 0)).toBe(9_000 - 900 - 270)

    // 4. Nothing is left to settle: the pending (reserved once) and the failed refunds never make Ana a provider to
    // settle again.
    const fourth = await settleUntilNow(third.periodEnd)
    expect(fourth.run.providers).toEqual([])

    const books = await balances(t)
    expect(balanceOf(books, `provider_payable:${a}`)).toBe(0)
    expect(balanceOf(books, `provider_reserve:${a}`)).toBe(-270)
    expect(balanceOf(books, 'platform_fee_revenue')).toBe(-900)
    expect(books.data.reduce((s: number, acc: { balance: number }) => s + acc.balance, 0)).toBe(0)
    await entries(t)
  })

  /** A provider with one session completed two days ago (as far as the API knows), for the money tests below. */
  async function completedSession(t: Centre, name: string) {
    const providerId = await id(t, '/v1/providers', { name, timeZone: 'UTC' })
    const childId = await id(t, '/v1/children', { firstName: 'Xavi', lastName: 'Test', dateOfBirth: '2022-05-01' })
    offset = -2 * 24 * HOUR
    const startsAt = (hours: number) => new Date(Date.now() + offset + hours * HOUR).toISOString()
    const book = (hours: number) =>
      id(t, '/v1/appointments', { providerId, childId, startsAt: startsAt(hours), durationMinutes: 60 })
    const appointments = [await book(1), await book(3)]
    offset = 0
    for (const apt of appointments) await ok(t, 'POST', `/v1/appointments/${apt}/complete`, undefined, 200)
    return { providerId, appointments }
  }

  async function settleNow(t: Centre, currency: string) {
    const periodStart = new Date(Date.now() - 3 * 24 * HOUR).toISOString()
    const periodEnd = new Date(Date.now() + 1000).toISOString()
    await new Promise((r) => setTimeout(r, 1100))
    const accepted = await settle(t, { currency, periodStart, periodEnd })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const run = await completed(t, accepted.body.id)
    expect(run.status, JSON.stringify(run)).toBe('COMPLETED')
    return run
  }

  // Issue 46, item 3: money columns were INTEGER, so a provider with two large orders in a currency with big minor
  // amounts (IDR: 3,000,000,000 minor units is 30 million rupiah) could never be settled. Every table that stores
  // money is written and read back here with amounts past 2^31.
  it('prices, orders, payments, refunds, fee rules, adjustments, settlements and the ledger take amounts past 2^31', async () => {
    const t = await newCentre()
    const { providerId, appointments } = await completedSession(t, 'Rani SLP')
    const [first, second] = appointments as [string, string]
    const big = 3_000_000_000
    expect(big).toBeGreaterThan(2 ** 31)

    const price = await ok(t, 'POST', '/v1/prices', {
      service: 'SPEECH_THERAPY',
      amount: 9_007_199_254_740_991,
      currency: 'IDR',
      unit: 'PER_SESSION',
    })
    expect(price.amount).toBe(9_007_199_254_740_991)
    const tooLarge = await send(t, 'POST', '/v1/prices', {
      service: 'OCCUPATIONAL_THERAPY',
      amount: 9_007_199_254_740_992,
      currency: 'IDR',
      unit: 'PER_SESSION',
    })
    expect(tooLarge.status).toBe(400)

    await ok(t, 'POST', '/v1/marketplace/fee-rules', {
      providerId,
      percentBps: 1000,
      fixedAmount: 2_200_000_000,
      fixedCurrency: 'IDR',
    })
    const created = await ok(t, 'POST', '/v1/orders', {
      status: 'OPEN',
      currency: 'IDR',
      lines: [
        { kind: 'SESSION', appointmentId: first, unitAmount: big },
        { kind: 'SESSION', appointmentId: second, unitAmount: 4_000_000_000, taxAmount: 2_500_000_000 },
      ],
    })
    expect(created).toMatchObject({ subtotal: 7_000_000_000, taxTotal: 2_500_000_000, total: 9_500_000_000 })
    expect(created.lines.map((l: { lineTotal: number }) => l.lineTotal)).toEqual([big, 6_500_000_000])
    const payment = await ok(t, 'POST', '/v1/payments', {
      orderId: created.id,
      amount: 9_500_000_000,
      currency: 'IDR',
      method: 'BANK_TRANSFER',
    })
    expect(payment).toMatchObject({ amount: 9_500_000_000, status: 'SUCCEEDED' })
    await ok(t, 'POST', `/v1/payments/${payment.id}/refunds`, { amount: 2_375_000_000, reason: 'OTHER' })
    const afterRefund = await ok(t, 'GET', `/v1/orders/${created.id}`, undefined, 200)
    expect(afterRefund).toMatchObject({
      amountPaid: 9_500_000_000,
      amountRefunded: 2_375_000_000,
      balance: 0,
      status: 'PARTIALLY_REFUNDED',
    })
    const adjustment = await ok(t, 'POST', '/v1/marketplace/adjustments', {
      providerId,
      amount: -2_200_000_000,
      currency: 'IDR',
      reason: 'CORRECTION',
    })
    expect(adjustment.amount).toBe(-2_200_000_000)

    // Fees 10% + 2,200,000,000: 2,500,000,000 and 2,850,000,000. The refund is a quarter of the order: a quarter of
    // each line (750,000,000 and 1,625,000,000). Fee returned: 2,500,000,000 − 2,250,000,000 (the fee on what is left
    // of the first line is capped at that amount) and 2,850,000,000 − 2,687,500,000.
    const run = await settleNow(t, 'IDR')
    expect(run.providers).toEqual([
      expect.objectContaining({
        providerId,
        outcome: 'SETTLED',
        sessionCount: 2,
        grossAmount: 9_500_000_000,
        feeAmount: 5_350_000_000,
        refundAmount: 2_375_000_000,
        feeRefundAmount: 412_500_000,
        adjustmentAmount: -2_200_000_000,
        netAmount: -12_500_000,
        payoutAmount: 0,
        balanceAfter: -12_500_000,
      }),
    ])
    const stored = await runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => ({
      items: (await tx.settlementItem.findMany({ select: { kind: true, amount: true, feeAmount: true } })).sort(
        (a, b) => a.kind.localeCompare(b.kind) || a.amount - b.amount
      ),
      lines: await tx.ledgerLine.findMany({
        where: { account: 'payer_funds', settlementItemId: { not: null } },
        select: { debit: true, credit: true },
      }),
      feeRule: await tx.platformFeeRule.findFirst({ select: { fixedAmount: true } }),
    }))
    expect(stored.feeRule).toEqual({ fixedAmount: 2_200_000_000 })
    expect(stored.items).toEqual([
      { kind: 'ADJUSTMENT', amount: -2_200_000_000, feeAmount: 0 },
      { kind: 'REFUND', amount: 750_000_000, feeAmount: 250_000_000 },
      { kind: 'REFUND', amount: 1_625_000_000, feeAmount: 162_500_000 },
      { kind: 'SESSION', amount: 3_000_000_000, feeAmount: 2_500_000_000 },
      { kind: 'SESSION', amount: 6_500_000_000, feeAmount: 2_850_000_000 },
    ])
    expect(stored.lines.reduce((sum, l) => sum + l.debit - l.credit, 0)).toBe(9_500_000_000 - 2_375_000_000)
    const books = await ok(t, 'GET', '/v1/marketplace/ledger/balances?currency=IDR', undefined, 200)
    expect(balanceOf(books, `provider_payable:${providerId}`)).toBe(12_500_000) // owed back: a debit balance
    expect(balanceOf(books, 'platform_fee_revenue')).toBe(-(5_350_000_000 - 412_500_000))
    expect(books.totals).toEqual([{ currency: 'IDR', debit: expect.any(Number), credit: expect.any(Number) }])
    expect(books.totals[0].debit).toBe(books.totals[0].credit)
    expect(books.totals[0].debit).toBeGreaterThan(2 ** 31)

    // The next period's settlement carries the balance and pays once the provider is owed again.
    await ok(t, 'POST', '/v1/marketplace/adjustments', {
      providerId,
      amount: 4_012_500_000,
      currency: 'IDR',
      reason: 'BONUS',
    })
    const periodStart = run.periodEnd as string
    const periodEnd = new Date(Date.now() + 1000).toISOString()
    await new Promise((r) => setTimeout(r, 1100))
    const next = await completed(t, (await settle(t, { currency: 'IDR', periodStart, periodEnd })).body.id)
    expect(next.providers).toEqual([
      expect.objectContaining({ carriedForward: -12_500_000, payoutAmount: 4_000_000_000, balanceAfter: 0 }),
    ])
  })

  // Issue 46, item 4: a card success that arrives after the order was paid otherwise is refunded automatically (the
  // payment is unapplied: it never counted on the order). The provider's session was paid once, so that refund is
  // nobody's to give back: settlements count only refunds of applied payments.
  it('does not take the automatic refund of an unapplied payment from the provider', async () => {
    const t = await newCentre()
    const { providerId, appointments } = await completedSession(t, 'Una SLP')
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 })
    const orderId = await order(
      t,
      appointments.map((appointmentId) => ({ kind: 'SESSION', appointmentId, unitAmount: 10_000 })),
      [20_000]
    )
    const { locationId } = await ok(t, 'GET', `/v1/orders/${orderId}`, undefined, 200)
    // What intent-outcomes records for a success the order could not take: SUCCEEDED, unapplied, refunded in full.
    await runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => {
      const payment = await tx.payment.create({
        data: {
          id: newId('payment'),
          tenantId: t.tenantId,
          orderId,
          locationId,
          amount: 20_000,
          currency: 'USD',
          status: 'SUCCEEDED',
          method: 'CARD_ONLINE',
          processor: 'stripe',
          receivedAt: new Date(),
          unapplied: true,
          amountRefunded: 20_000,
        },
      })
      await tx.refund.create({
        data: {
          id: newId('refund'),
          tenantId: t.tenantId,
          paymentId: payment.id,
          orderId,
          amount: 20_000,
          currency: 'USD',
          reason: 'DUPLICATE',
          method: 'CARD_ONLINE',
          status: 'SUCCEEDED',
          origin: 'AUTOMATIC',
          succeededAt: new Date(),
        },
      })
    })

    const run = await settleNow(t, 'USD')
    expect(run.providers).toEqual([
      expect.objectContaining({
        providerId,
        grossAmount: 20_000,
        feeAmount: 2_000,
        refundAmount: 0,
        feeRefundAmount: 0,
        payoutAmount: 18_000,
        balanceAfter: 0,
      }),
    ])
  })

  it('refuses open or malformed periods, reports a failed workflow, and keeps tenants apart', async () => {
    const t = await newCentre()
    const other = await newCentre()
    const provider = await id(t, '/v1/providers', { name: 'P', timeZone: 'UTC' })

    const open = await settle(t, {
      periodStart: new Date(Date.now() - HOUR).toISOString(),
      periodEnd: new Date(Date.now() + HOUR).toISOString(),
    })
    expect(open.status).toBe(400)
    expect(open.body.errors).toEqual([expect.objectContaining({ path: 'periodEnd', code: 'period_not_closed' })])
    const foreign = await settle(other, {
      periodStart: '2026-01-01T00:00:00Z',
      periodEnd: '2026-02-01T00:00:00Z',
      providerIds: [provider],
    })
    expect(foreign.status).toBe(400)
    expect(foreign.body.errors).toEqual([expect.objectContaining({ path: 'providerIds.0', code: 'not_found' })])
    expect(
      (await settle(t, { currency: 'XXY', periodStart: '2026-01-01T00:00:00Z', periodEnd: '2026-02-01T00:00:00Z' }))
        .status
    ).toBe(400)

    // An explicit provider with nothing owed is still settled, at zero, and no entry is posted.
    const zero = await settle(t, {
      periodStart: '2026-01-01T00:00:00Z',
      periodEnd: '2026-02-01T00:00:00Z',
      providerIds: [provider],
    })
    const done = await completed(t, zero.body.id)
    expect(done.providers).toEqual([
      expect.objectContaining({
        providerId: provider,
        outcome: 'SETTLED',
        netAmount: 0,
        payoutAmount: 0,
        journalEntryId: null,
      }),
    ])
    expect((await send(other, 'GET', `/v1/marketplace/settlements/${zero.body.id}`)).status).toBe(404)
    expect((await send(other, 'GET', '/v1/marketplace/settlements')).body.data).toEqual([])
    const otherRun = await completed(
      other,
      (await settle(other, { periodStart: '2026-01-01T00:00:00Z', periodEnd: '2026-02-01T00:00:00Z' })).body.id
    )
    expect(otherRun).toMatchObject({ status: 'COMPLETED', providers: [] })

    // The workflow's own failure path: a run whose record is missing fails for good, with the reason.
    const ghost = 'stl_ghost'
    const handle = await platform.temporal.workflow.start(SETTLEMENT_WORKFLOW, {
      workflowId: settlementWorkflowId(`${ghost}-${randomUUID()}`),
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      args: [{ tenantId: t.tenantId, settlementId: ghost }],
    })
    expect(await handle.result()).toMatchObject({ status: 'FAILED', reason: `No settlement with id "${ghost}".` })

    const forbidden = await platform.http.request('POST', '/v1/marketplace/settlements', {
      token: await platform.token(await platform.newTenant(['settlements.read'])),
      body: { currency: 'USD', periodStart: '2026-01-01T00:00:00Z', periodEnd: '2026-02-01T00:00:00Z' },
    })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.code).toBe('insufficient_scope')
    expect(
      requestKeyOf({ currency: 'USD', periodStart: new Date(0), periodEnd: new Date(1), providerIds: [] })
    ).toMatch(/^[0-9a-f]{64}$/)
  })
})
