/**
 * The care-coordinator briefing over HTTP on the real stack, on known data: an unsigned note past its location's
 * noteDueHours (the API's clock is moved forward), an overdue assessment, an early-intervention enrolment past its
 * 45-day initial IFSP limit, children with and without an appointment ahead; scoping by location and child, 404 for
 * another tenant's child and an unknown location, 403 without `ai.read`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { newId } from '../../domain/ids.ts'

const DAY = 24 * 3600 * 1000
let skewMs = 0
let platform: Platform
let tenant: Awaited<ReturnType<Platform['newTenant']>>
let token: string
const SCOPES = ['children', 'providers', 'bookings', 'sessions', 'assessments', 'ai.read']
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const ids = { noteChild: '', busyChild: '', eiChild: '', session: '', assessment: '' }

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, clock: () => new Date(Date.now() + skewMs) })
  tenant = await platform.newTenant(SCOPES)
  token = await platform.token(tenant)
  const http = platform.http
  const child = (body: Record<string, unknown>) =>
    http.post('/v1/children', {
      token,
      body: { firstName: 'Ada', lastName: 'Lind', dateOfBirth: '2024-03-01', locationId: tenant.locationId, ...body },
    })
  const provider = await http.post('/v1/providers', {
    token,
    body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
  })
  expect(provider.status).toBe(201)

  // A session tomorrow with a draft note only: once the clock passes its end + 48 h, the note is late.
  const noteChild = await child({})
  ids.noteChild = noteChild.body.id
  const appointment = await http.post('/v1/appointments', {
    token,
    body: { childId: ids.noteChild, providerId: provider.body.id, startsAt: futureSlot(1).toISOString() },
  })
  expect(appointment.status).toBe(201)
  const session = await http.post('/v1/sessions', { token, body: { appointmentId: appointment.body.id } })
  expect(session.status).toBe(201)
  ids.session = session.body.id
  expect(
    (await http.post(`/v1/sessions/${ids.session}/notes`, { token, body: { subjective: 'Draft only.' } })).status
  ).toBe(201)
  const assessment = await http.post('/v1/assessments', {
    token,
    body: { childId: ids.noteChild, instrument: 'PLS-5', dueDate: isoDate(Date.now() + 2 * DAY) },
  })
  expect(assessment.status).toBe(201)
  ids.assessment = assessment.body.id

  // A child with an appointment well ahead: never "without upcoming sessions".
  const busy = await child({ firstName: 'Bo' })
  ids.busyChild = busy.body.id
  expect(
    (
      await http.post('/v1/appointments', {
        token,
        body: { childId: ids.busyChild, providerId: provider.body.id, startsAt: futureSlot(30).toISOString() },
      })
    ).status
  ).toBe(201)

  // Referred 60 days ago, no initial IFSP yet: past the 45-day limit.
  const ei = await child({ firstName: 'Cy', earlyIntervention: { referralDate: isoDate(Date.now() - 60 * DAY) } })
  expect(ei.status).toBe(201)
  ids.eiChild = ei.body.id

  // Five days on: the session (tomorrow) ended 4 days ago, its note was due 2 days ago; the assessment is 3 days late.
  skewMs = 5 * DAY
  token = await platform.token(tenant)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const brief = (query = '', as = token) => platform.http.get(`/v1/agents/care-coordinator${query}`, { token: as })

describe('GET /v1/agents/care-coordinator', () => {
  it('lists what needs attention on known data, most urgent first, each with reason, due date and links', async () => {
    const res = await brief()
    expect(res.status).toBe(200)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response items, checked field by field
    const items = res.body.items as Array<Record<string, any>>
    const byId = new Map(items.map((i) => [i.id, i]))

    const note = byId.get(`UNSIGNED_NOTE:${ids.session}`)
    expect(note).toMatchObject({
      kind: 'UNSIGNED_NOTE',
      childId: ids.noteChild,
      links: { notes: `/v1/sessions/${ids.session}/notes` },
    })
    expect(['MEDIUM', 'HIGH']).toContain(note!.priority)

    expect(byId.get(`OVERDUE_ASSESSMENT:${ids.assessment}`)).toMatchObject({
      priority: 'HIGH',
      dueAt: isoDate(Date.now() + 2 * DAY),
      links: { assessment: `/v1/assessments/${ids.assessment}`, child: `/v1/children/${ids.noteChild}` },
    })
    const ei = items.find((i) => i.kind === 'EI_DEADLINE' && i.childId === ids.eiChild && i.id.includes('INITIAL_IFSP'))
    expect(ei).toMatchObject({
      priority: 'HIGH',
      links: { earlyIntervention: `/v1/children/${ids.eiChild}/early-intervention` },
    })

    // The note child's appointment is behind it now; the busy child's is ahead.
    expect(byId.get(`NO_UPCOMING_SESSION:${ids.noteChild}`)?.reason).toMatch(/No appointment is booked after/)
    expect(byId.has(`NO_UPCOMING_SESSION:${ids.eiChild}`)).toBe(true)
    expect(byId.has(`NO_UPCOMING_SESSION:${ids.busyChild}`)).toBe(false)

    const rank = { HIGH: 0, MEDIUM: 1, LOW: 2 } as Record<string, number>
    const ranks = items.map((i) => rank[i.priority] ?? Number.NaN)
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b))
    expect(res.body.summary.total).toBe(items.length)
    expect(res.body.summary.byKind.OVERDUE_ASSESSMENT).toBe(1)
    expect(res.body.scope).toEqual({ kind: 'TENANT', id: tenant.tenantId })

    // Deterministic: the same record gives the same items.
    const again = await brief()
    expect(again.body.items.map((i: { id: string }) => i.id)).toEqual(items.map((i) => i.id))
  })

  it('narrows to a child and to a location', async () => {
    const child = await brief(`?childId=${ids.eiChild}`)
    expect(child.status).toBe(200)
    expect(child.body.scope).toEqual({ kind: 'CHILD', id: ids.eiChild })
    expect(child.body.items.length).toBeGreaterThan(0)
    expect(child.body.items.every((i: { childId: string }) => i.childId === ids.eiChild)).toBe(true)

    const location = await brief(`?locationId=${tenant.locationId}`)
    expect(location.status).toBe(200)
    expect(location.body.items.map((i: { id: string }) => i.id)).toContain(`UNSIGNED_NOTE:${ids.session}`)
  })

  it('a signed-off record leaves the briefing: completing the assessment removes its item', async () => {
    const done = await platform.http.post(`/v1/assessments/${ids.assessment}/complete`, {
      token,
      body: { scores: [{ subtest: 'Total Language', standardScore: 88 }] },
    })
    expect(done.status).toBe(200)
    const res = await brief(`?childId=${ids.noteChild}`)
    expect(res.body.items.map((i: { id: string }) => i.id)).not.toContain(`OVERDUE_ASSESSMENT:${ids.assessment}`)
  })

  it('404 for an unknown location and for another tenant’s child; 403 without ai.read', async () => {
    expect((await brief(`?locationId=${newId('location')}`)).body.code).toBe('not_found')
    const other = await platform.newTenant(['children', 'sessions.read', 'assessments.read', 'ai.read'])
    const otherToken = await platform.token(other)
    const res = await brief(`?childId=${ids.eiChild}`, otherToken)
    expect(res.status).toBe(404)
    const noScope = await platform.newTenant(['children'])
    expect((await brief('', await platform.token(noScope))).status).toBe(403)
  })
})
