/**
 * Sessions over HTTP against the real API and database: opening an appointment's session (idempotent, also under
 * concurrency), reading and listing, PATCH through legal and illegal transitions, billing-code validation, and
 * tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookAppointment } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform
let token: string

const SCOPES = ['children', 'providers', 'bookings', 'sessions']

beforeAll(async () => {
  // No worker: nothing here needs a workflow to run (booking workflows simply wait on the queue).
  // With a worker: completing or cancelling an appointment is an update its booking workflow must accept.
  platform = await startPlatform()
  token = await platform.token(await platform.newTenant(SCOPES))
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const patch = (id: string, body: unknown, as = token) =>
  platform.http.request('PATCH', `/v1/sessions/${id}`, {
    token: as,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })

async function openSession(as = token, days = 3) {
  const appointment = await bookAppointment(platform.http, as, { days })
  const response = await platform.http.post('/v1/sessions', { token: as, body: { appointmentId: appointment.id } })
  expect(response.status).toBe(201)
  return { appointment, session: response.body }
}

describe('opening a session', () => {
  it("creates the appointment's session from the appointment, once", async () => {
    const { appointment, session } = await openSession()
    expect(session).toMatchObject({
      appointmentId: appointment.id,
      childId: appointment.childId,
      providerId: appointment.providerId,
      status: 'SCHEDULED',
      timeZone: 'America/Chicago',
      actualStartedAt: null,
      attendance: null,
      billingCodes: [],
      totalUnits: 0,
      telehealth: false,
    })
    expect(session.id).toMatch(/^ses_/)
    const booked = await platform.http.get(`/v1/appointments/${appointment.id}`, { token })
    expect(session.scheduledStartsAt).toBe(booked.body.startsAt)
    expect(session.scheduledStartsAt).toMatch(/-0[56]:00$/)

    const again = await platform.http.post('/v1/sessions', { token, body: { appointmentId: appointment.id } })
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(session.id)
  })

  it('gives concurrent check-ins of one appointment the same single session', async () => {
    const appointment = await bookAppointment(platform.http, token, { days: 4 })
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        platform.http.post('/v1/sessions', { token, body: { appointmentId: appointment.id } })
      )
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201])
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
    const listed = await platform.http.get(`/v1/sessions?appointmentId=${appointment.id}`, { token })
    expect(listed.body.data).toHaveLength(1)
  })

  it('refuses an unknown appointment and a cancelled one', async () => {
    const unknown = await platform.http.post('/v1/sessions', { token, body: { appointmentId: newId('appointment') } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'appointmentId', code: 'not_found' })])

    const appointment = await bookAppointment(platform.http, token, { days: 6 })
    const cancelled = await platform.http.post(`/v1/appointments/${appointment.id}/cancel`, {
      token,
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(cancelled.status).toBe(200)
    const refused = await platform.http.post('/v1/sessions', { token, body: { appointmentId: appointment.id } })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('invalid_state_transition')
  })
})

describe('PATCH /v1/sessions/{id}', () => {
  it('runs SCHEDULED → IN_PROGRESS → COMPLETED, recording times, attendance and billing', async () => {
    const { session } = await openSession()
    const started = await patch(session.id, { status: 'IN_PROGRESS' })
    expect(started.status).toBe(200)
    expect(started.body).toMatchObject({ status: 'IN_PROGRESS', attendance: 'PRESENT', actualEndedAt: null })
    expect(started.body.actualStartedAt).toMatch(/-0[56]:00$/)

    const completed = await patch(session.id, {
      status: 'COMPLETED',
      billingCodes: [
        { code: '92507', units: 1, modifiers: ['GN'] },
        { code: '97530', units: 2, modifiers: ['GO'], minutes: 30 },
      ],
      placeOfService: '11',
    })
    expect(completed.status).toBe(200)
    expect(completed.body).toMatchObject({
      status: 'COMPLETED',
      attendance: 'PRESENT',
      totalUnits: 3,
      placeOfService: '11',
    })
    expect(Date.parse(completed.body.actualEndedAt)).toBeGreaterThanOrEqual(Date.parse(completed.body.actualStartedAt))
    expect(completed.body.billingCodes[0]).toEqual({ code: '92507', units: 1, modifiers: ['GN'] })

    // A correction after completion: billing lines replaced whole, place of service removed by null.
    const corrected = await patch(session.id, { billingCodes: [{ code: '92507', units: 1 }], placeOfService: null })
    expect(corrected.body).toMatchObject({ totalUnits: 1, placeOfService: null, status: 'COMPLETED' })
    const read = await platform.http.get(`/v1/sessions/${session.id}`, { token })
    expect(read.body).toEqual(corrected.body)
  })

  it('refuses transitions the state machine forbids with 409 invalid_state_transition', async () => {
    const { session } = await openSession()
    expect((await patch(session.id, { status: 'IN_PROGRESS' })).status).toBe(200)
    const cancelInProgress = await patch(session.id, { status: 'CANCELLED' })
    expect(cancelInProgress.status).toBe(409)
    expect(cancelInProgress.body.code).toBe('invalid_state_transition')
    expect((await patch(session.id, { status: 'COMPLETED' })).status).toBe(200)
    const reopen = await patch(session.id, { status: 'IN_PROGRESS' })
    expect(reopen.status).toBe(409)
    expect(reopen.body.code).toBe('invalid_state_transition')

    const other = (await openSession()).session
    expect((await patch(other.id, { status: 'CANCELLED', attendance: 'CANCELLED_LATE' })).status).toBe(200)
    const revive = await patch(other.id, { status: 'SCHEDULED' })
    expect(revive.status).toBe(409)
    expect((await platform.http.get(`/v1/sessions/${other.id}`, { token })).body.status).toBe('CANCELLED')
  })

  it('validates billing codes, units and modifiers, and what a record may hold', async () => {
    const { session } = await openSession()
    const bad = await patch(session.id, {
      billingCodes: [
        { code: '9250', units: 1 },
        { code: '97530', units: 0, modifiers: ['gO'] },
      ],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('validation_error')
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['billingCodes.0.code', 'billingCodes.1.units', 'billingCodes.1.modifiers.0'])
    )

    const cancelBilled = await patch(session.id, {
      status: 'CANCELLED',
      attendance: 'ABSENT_UNEXCUSED',
      billingCodes: [{ code: '92507', units: 1 }],
    })
    expect(cancelBilled.status).toBe(400)
    expect(cancelBilled.body.errors).toEqual([expect.objectContaining({ path: 'billingCodes', code: 'not_billable' })])

    const absentButDone = await patch(session.id, { status: 'COMPLETED', attendance: 'ABSENT_EXCUSED' })
    expect(absentButDone.status).toBe(400)
    expect(absentButDone.body.errors[0]).toMatchObject({ path: 'attendance', code: 'inconsistent_with_status' })

    const telehealthOffice = await patch(session.id, { telehealth: true, placeOfService: '11' })
    expect(telehealthOffice.status).toBe(400)
    expect(telehealthOffice.body.errors[0]).toMatchObject({
      path: 'placeOfService',
      code: 'inconsistent_with_telehealth',
    })

    const endsBeforeStart = await patch(session.id, {
      status: 'COMPLETED',
      actualStartedAt: '2026-12-01T09:30:00-06:00',
      actualEndedAt: '2026-12-01T09:00:00-06:00',
    })
    expect(endsBeforeStart.body.errors[0]).toMatchObject({ path: 'actualEndedAt', code: 'before_start' })

    const nullStatus = await patch(session.id, { status: null })
    expect(nullStatus.status).toBe(400)
    // None of the refused patches changed anything.
    expect((await platform.http.get(`/v1/sessions/${session.id}`, { token })).body).toMatchObject({
      status: 'SCHEDULED',
      billingCodes: [],
    })
  })
})

describe('GET /v1/sessions', () => {
  it('lists with filters, sorting and cursor pagination', async () => {
    const own = await platform.token(await platform.newTenant(SCOPES))
    const a = await openSession(own, 3)
    const b = await openSession(own, 5)
    const c = await openSession(own, 7)
    expect((await patch(b.session.id, { status: 'IN_PROGRESS' }, own)).status).toBe(200)

    const first = await platform.http.get('/v1/sessions?limit=2&sort=scheduledStartsAt', { token: own })
    expect(first.status).toBe(200)
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([a.session.id, b.session.id])
    const second = await platform.http.get(
      `/v1/sessions?limit=2&sort=scheduledStartsAt&cursor=${first.body.nextCursor}`,
      { token: own }
    )
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual([c.session.id])
    expect(second.body.nextCursor).toBeNull()

    const byDefault = await platform.http.get('/v1/sessions', { token: own })
    expect(byDefault.body.data.map((s: { id: string }) => s.id)).toEqual([c.session.id, b.session.id, a.session.id])

    const inProgress = await platform.http.get('/v1/sessions?status=IN_PROGRESS', { token: own })
    expect(inProgress.body.data.map((s: { id: string }) => s.id)).toEqual([b.session.id])
    const byChild = await platform.http.get(`/v1/sessions?childId=${c.appointment.childId}`, { token: own })
    expect(byChild.body.data.map((s: { id: string }) => s.id)).toEqual([c.session.id])
    const from = encodeURIComponent(b.session.scheduledStartsAt)
    const to = encodeURIComponent(c.session.scheduledStartsAt)
    const window = await platform.http.get(`/v1/sessions?from=${from}&to=${to}`, { token: own })
    expect(window.body.data.map((s: { id: string }) => s.id)).toEqual([b.session.id])

    const badSort = await platform.http.get('/v1/sessions?sort=status', { token: own })
    expect(badSort.status).toBe(400)
  })
})

describe('tenant isolation and scopes', () => {
  it("answers 404 for another tenant's session and never lists it", async () => {
    const { session } = await openSession()
    const otherToken = await platform.token(await platform.newTenant(SCOPES))
    const read = await platform.http.get(`/v1/sessions/${session.id}`, { token: otherToken })
    expect(read.status).toBe(404)
    expect(read.body.code).toBe('not_found')
    const changed = await patch(session.id, { status: 'CANCELLED' }, otherToken)
    expect(changed.status).toBe(404)
    const listed = await platform.http.get(`/v1/sessions?appointmentId=${session.appointmentId}`, { token: otherToken })
    expect(listed.body.data).toEqual([])
    expect((await platform.http.get(`/v1/sessions/${session.id}`, { token })).body.status).toBe('SCHEDULED')
  })

  it('lets sessions.read read but not write', async () => {
    const client = await platform.newTenant(SCOPES)
    const writer = await platform.token(client)
    const reader = await platform.token(client, 'sessions.read')
    const { session } = await openSession(writer)
    expect((await platform.http.get(`/v1/sessions/${session.id}`, { token: reader })).status).toBe(200)
    const refused = await patch(session.id, { status: 'IN_PROGRESS' }, reader)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
  })
})
