/**
 * Orders over HTTP against the real API and database: line items priced from the request, the price list or the
 * service's price; totals; one currency per order; the DRAFT → OPEN → VOID state machine; JSON merge patch of drafts;
 * GET /v1/orders pagination, sorting and filters; tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookAppointment } from '../support/fixtures.ts'
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

const SCOPES = ['orders', 'clients', 'children', 'providers', 'bookings']

/** A tenant of its own (one USD location), so lists hold exactly what the test made. */
async function freshTenant(scopes = SCOPES) {
  const client = await platform.newTenant(scopes)
  return { ...client, token: await platform.token(client) }
}

type Tenant = Awaited<ReturnType<typeof freshTenant>>

const createOrder = (t: Tenant, body: Record<string, unknown>) =>
  platform.http.post('/v1/orders', { token: t.token, body })
const patchOrder = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/orders/${id}`, {
    token: t.token,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })

async function created(response: Promise<{ status: number; body: { id?: string } }>): Promise<string> {
  const { status, body } = await response
  expect(status, JSON.stringify(body)).toBe(201)
  return body.id as string
}

const newPrice = (t: Tenant, body: Record<string, unknown>) =>
  created(platform.http.post('/v1/prices', { token: t.token, body: { unit: 'PER_SESSION', currency: 'USD', ...body } }))
const newClient = (t: Tenant) =>
  created(platform.http.post('/v1/clients', { token: t.token, body: { firstName: 'Amara', lastName: 'Okafor' } }))
const newChild = (t: Tenant) =>
  created(
    platform.http.post('/v1/children', {
      token: t.token,
      body: { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' },
    })
  )
const product = (unitAmount: number, quantity = 1) => ({
  kind: 'PRODUCT',
  description: 'Therapy putty',
  unitAmount,
  quantity,
})

describe('POST /v1/orders', () => {
  it('creates a DRAFT with priced lines and exact totals', async () => {
    const t = await freshTenant()
    const [clientId, childId] = [await newClient(t), await newChild(t)]
    const priceId = await newPrice(t, {
      service: 'SPEECH_THERAPY',
      amount: 12_000,
      description: 'Speech therapy, 45 minutes',
    })
    const response = await createOrder(t, {
      clientId,
      childId,
      lines: [
        { kind: 'SESSION', priceId },
        {
          kind: 'ASSESSMENT',
          description: 'PLS-5 evaluation',
          service: 'SPEECH_THERAPY',
          unitAmount: 25_000,
          discountAmount: 2_500,
        },
        { kind: 'PRODUCT', description: 'Chewy tubes', quantity: 3, unitAmount: 799, taxAmount: 192 },
      ],
    })
    expect(response.status).toBe(201)
    const order = response.body
    expect(order.id).toMatch(/^ord_/)
    expect(response.headers.get('location')).toBe(`/v1/orders/${order.id}`)
    expect(order).toMatchObject({
      status: 'DRAFT',
      locationId: t.locationId,
      clientId,
      childId,
      currency: 'USD',
      subtotal: 12_000 + 25_000 + 2_397,
      discountTotal: 2_500,
      taxTotal: 192,
      total: 12_000 + 22_500 + 2_589,
      amountPaid: 0,
      amountRefunded: 0,
      balance: 12_000 + 22_500 + 2_589,
      openedAt: null,
      paidAt: null,
      voidedAt: null,
    })
    expect(order.lines).toMatchObject([
      {
        kind: 'SESSION',
        description: 'Speech therapy, 45 minutes',
        service: 'SPEECH_THERAPY',
        quantity: 1,
        unitAmount: 12_000,
        lineTotal: 12_000,
        priceId,
      },
      {
        kind: 'ASSESSMENT',
        description: 'PLS-5 evaluation',
        unitAmount: 25_000,
        discountAmount: 2_500,
        lineTotal: 22_500,
        priceId: null,
      },
      { kind: 'PRODUCT', quantity: 3, unitAmount: 799, taxAmount: 192, lineTotal: 2_589 },
    ])
    expect(order.lines[0].id).toMatch(/^oli_/)
    expect((await platform.http.get(`/v1/orders/${order.id}`, { token: t.token })).body).toEqual(order)
  })

  it("prices a session line from the appointment's service and type when no amount or price is given", async () => {
    const t = await freshTenant()
    const appointment = await bookAppointment(platform.http, t.token)
    const read = await platform.http.get(`/v1/appointments/${appointment.id}`, { token: t.token })
    const service = read.body.service as string
    expect(service).toMatch(/\S/)
    await newPrice(t, { service, amount: 9_000 })
    const typed = await newPrice(t, {
      service,
      appointmentType: read.body.type,
      locationId: t.locationId,
      amount: 11_000,
    })
    const response = await createOrder(t, {
      childId: appointment.childId,
      status: 'OPEN',
      lines: [{ kind: 'SESSION', appointmentId: appointment.id }],
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect(response.body.lines[0]).toMatchObject({
      appointmentId: appointment.id,
      service,
      unitAmount: 11_000,
      priceId: typed,
    })
    expect(response.body).toMatchObject({ status: 'OPEN', total: 11_000, balance: 11_000 })
    expect(response.body.openedAt).toMatch(/Z$/)

    // The appointment belongs to its child: an order for another child cannot carry it.
    const otherChild = await newChild(t)
    const mismatch = await createOrder(t, {
      childId: otherChild,
      lines: [{ kind: 'SESSION', appointmentId: appointment.id }],
    })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.errors[0]).toMatchObject({ path: 'lines.0.appointmentId', code: 'child_mismatch' })
  })

  it('keeps one currency per order: a line or price in another currency is a 400', async () => {
    const t = await freshTenant()
    const euros = await newPrice(t, { service: 'PSYCHOLOGY', amount: 8_000, currency: 'EUR' })
    const line = await createOrder(t, { lines: [product(100), { ...product(100), currency: 'EUR' }] })
    expect(line.status).toBe(400)
    expect(line.body.code).toBe('validation_error')
    expect(line.body.errors[0]).toMatchObject({ path: 'lines.1.currency', code: 'currency_mismatch' })
    const price = await createOrder(t, { lines: [{ kind: 'SESSION', priceId: euros }] })
    expect(price.status).toBe(400)
    expect(price.body.errors[0]).toMatchObject({ path: 'lines.0.priceId', code: 'currency_mismatch' })

    // A EUR order takes the EUR price.
    const eurOrder = await createOrder(t, { currency: 'EUR', lines: [{ kind: 'SESSION', priceId: euros }] })
    expect(eurOrder.status).toBe(201)
    expect(eurOrder.body).toMatchObject({ currency: 'EUR', total: 8_000 })
    const unknown = await createOrder(t, { currency: 'XYZ', lines: [product(100)] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0]).toMatchObject({ path: 'currency', code: 'unknown_currency' })
  })

  it('names every bad reference and amount', async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const foreignPrice = await newPrice(other, { service: 'SPEECH_THERAPY', amount: 1 })
    const checks: Array<[Record<string, unknown>, string, string]> = [
      [{ clientId: newId('client'), lines: [product(1)] }, 'clientId', 'not_found'],
      [{ childId: await newChild(other), lines: [product(1)] }, 'childId', 'not_found'],
      [{ lines: [{ kind: 'SESSION', priceId: foreignPrice }] }, 'lines.0.priceId', 'not_found'],
      [
        { lines: [{ kind: 'SESSION', appointmentId: newId('appointment'), unitAmount: 1 }] },
        'lines.0.appointmentId',
        'not_found',
      ],
      [{ lines: [{ kind: 'SESSION', sessionId: newId('session'), unitAmount: 1 }] }, 'lines.0.sessionId', 'not_found'],
      [{ lines: [{ kind: 'SESSION' }] }, 'lines.0.unitAmount', 'required'],
      [{ lines: [{ kind: 'SESSION', service: 'FEEDING_THERAPY' }] }, 'lines.0.unitAmount', 'price_not_configured'],
      [{ lines: [{ ...product(100, 2), discountAmount: 201 }] }, 'lines.0.discountAmount', 'discount_exceeds_amount'],
      [{ locationId: other.locationId, lines: [product(1)] }, 'locationId', 'not_found'],
    ]
    for (const [body, path, code] of checks) {
      const response = await createOrder(t, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.code).toBe('validation_error')
      expect(response.body.errors).toContainEqual(expect.objectContaining({ path, code }))
    }
    for (const body of [
      { lines: [] },
      { lines: [product(1.5)] },
      { lines: [product(-1)] },
      { lines: [{ ...product(1), quantity: 0 }] },
      { lines: [{ kind: 'GIFT', unitAmount: 1 }] },
    ]) {
      const response = await createOrder(t, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.code).toBe('validation_error')
    }
    expect((await platform.http.get('/v1/orders', { token: t.token })).body.data).toEqual([])
  })
})

describe('the order state machine', () => {
  it('edits a DRAFT with a merge patch, re-pricing lines; finalized orders are not edited', async () => {
    const t = await freshTenant()
    const clientId = await newClient(t)
    const id = await created(createOrder(t, { clientId, lines: [product(500)] }))
    const patched = await patchOrder(t, id, { lines: [product(700, 2), product(50)], clientId: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      id,
      clientId: null,
      subtotal: 1_450,
      total: 1_450,
      balance: 1_450,
      status: 'DRAFT',
    })
    expect(patched.body.lines.map((l: { lineTotal: number }) => l.lineTotal)).toEqual([1_400, 50])

    const finalized = await platform.http.post(`/v1/orders/${id}/finalize`, { token: t.token })
    expect(finalized.status).toBe(200)
    expect(finalized.body).toMatchObject({ status: 'OPEN', total: 1_450 })
    expect(finalized.body.openedAt).toMatch(/Z$/)

    const late = await patchOrder(t, id, { clientId })
    expect(late.status).toBe(409)
    expect(late.body.code).toBe('invalid_state_transition')
    const twice = await platform.http.post(`/v1/orders/${id}/finalize`, { token: t.token })
    expect(twice.status).toBe(409)
    expect(twice.body.code).toBe('invalid_state_transition')
  })

  it('voids a DRAFT or an OPEN order, and nothing after', async () => {
    const t = await freshTenant()
    const draft = await created(createOrder(t, { lines: [product(100)] }))
    const open = await created(createOrder(t, { status: 'OPEN', lines: [product(100)] }))
    for (const id of [draft, open]) {
      const voided = await platform.http.post(`/v1/orders/${id}/void`, { token: t.token })
      expect(voided.status).toBe(200)
      expect(voided.body.status).toBe('VOID')
      expect(voided.body.voidedAt).toMatch(/Z$/)
    }
    for (const attempt of [
      platform.http.post(`/v1/orders/${draft}/void`, { token: t.token }),
      platform.http.post(`/v1/orders/${draft}/finalize`, { token: t.token }),
      patchOrder(t, open, { clientId: null }),
    ]) {
      const response = await attempt
      expect(response.status).toBe(409)
      expect(response.body.code).toBe('invalid_state_transition')
    }
  })

  it('finalizes a zero-total order straight to PAID', async () => {
    const t = await freshTenant()
    const id = await created(createOrder(t, { lines: [{ ...product(1_000), discountAmount: 1_000 }] }))
    const finalized = await platform.http.post(`/v1/orders/${id}/finalize`, { token: t.token })
    expect(finalized.body).toMatchObject({ status: 'PAID', total: 0, balance: 0 })
    expect(finalized.body.paidAt).toMatch(/Z$/)
  })
})

describe('GET /v1/orders', () => {
  it('pages newest first by default, sorts by total, and filters by status, payer, child, location and time', async () => {
    const t = await freshTenant()
    const [clientA, clientB, child] = [await newClient(t), await newClient(t), await newChild(t)]
    const ids: string[] = []
    const totals = [300, 100, 500, 200, 400]
    for (const [i, total] of totals.entries()) {
      ids.push(
        await created(
          createOrder(t, {
            clientId: i % 2 === 0 ? clientA : clientB,
            childId: i === 4 ? child : undefined,
            status: i < 3 ? 'OPEN' : 'DRAFT',
            lines: [product(total)],
          })
        )
      )
    }
    const newest = await walkPages<{ id: string }>(platform.http, t.token, '/v1/orders?limit=2')
    expect(newest.items.map((o) => o.id)).toEqual([...ids].reverse())
    expect(newest.pages).toBe(3)
    const byTotal = await walkPages<{ total: number }>(platform.http, t.token, '/v1/orders?limit=2&sort=total')
    expect(byTotal.items.map((o) => o.total)).toEqual([100, 200, 300, 400, 500])

    const only = async (query: string) =>
      (await walkPages<{ id: string }>(platform.http, t.token, `/v1/orders?${query}`)).items.map((o) => o.id)
    expect(await only('status=OPEN&sort=createdAt')).toEqual(ids.slice(0, 3))
    expect(await only(`clientId=${clientB}&sort=createdAt`)).toEqual([ids[1], ids[3]])
    expect(await only(`childId=${child}`)).toEqual([ids[4]])
    expect(await only(`locationId=${t.locationId}&status=DRAFT&sort=createdAt`)).toEqual([ids[3], ids[4]])

    const third = await platform.http.get(`/v1/orders/${ids[2]}`, { token: t.token })
    const at = encodeURIComponent(third.body.createdAt)
    expect(await only(`createdFrom=${at}&sort=createdAt`)).toEqual(ids.slice(2))
    expect(await only(`createdTo=${at}&sort=createdAt`)).toEqual(ids.slice(0, 2))

    const first = await platform.http.get('/v1/orders?limit=1&sort=total', { token: t.token })
    const wrongSort = await platform.http.get(`/v1/orders?limit=1&sort=-createdAt&cursor=${first.body.nextCursor}`, {
      token: t.token,
    })
    expect(wrongSort.status).toBe(400)
    expect(wrongSort.body.errors[0]).toMatchObject({ path: 'cursor', code: 'invalid_cursor' })
    const badStatus = await platform.http.get('/v1/orders?status=LOST', { token: t.token })
    expect(badStatus.status).toBe(400)
  })
})

describe('tenant isolation and scopes', () => {
  it("answers 404 for another tenant's order and never lists it", async () => {
    const a = await freshTenant()
    const b = await freshTenant()
    const id = await created(createOrder(a, { lines: [product(100)] }))
    for (const response of [
      await platform.http.get(`/v1/orders/${id}`, { token: b.token }),
      await patchOrder(b, id, { clientId: null }),
      await platform.http.post(`/v1/orders/${id}/finalize`, { token: b.token }),
      await platform.http.post(`/v1/orders/${id}/void`, { token: b.token }),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    expect((await platform.http.get('/v1/orders', { token: b.token })).body.data).toEqual([])
    expect((await platform.http.get(`/v1/orders/${id}`, { token: a.token })).body.status).toBe('DRAFT')
  })

  it('reads with orders.read, writes only with orders', async () => {
    const reader = await freshTenant(['orders.read'])
    expect((await platform.http.get('/v1/orders', { token: reader.token })).status).toBe(200)
    const write = await createOrder(reader, { lines: [product(100)] })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
  })
})
