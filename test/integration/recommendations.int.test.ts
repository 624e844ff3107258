/**
 * GET /v1/ai/children/{id}/recommendations over HTTP on the real stack, on known data. One child has exactly one case
 * of every rule: an early-intervention referral 60 days old without an initial IFSP, an open CELF-P3 past its due date,
 * a PLS-5 completed 200 days ago without a cadence (the default 180 days applies), a session whose draft note is late,
 * a speech goal stalled over four signed notes (50, 52, 50, 51 %), no appointment ahead, and an occupational-therapy
 * goal no appointment has delivered. The API's clock is moved 8 days on so the sessions are in the past. Another child
 * with nothing to do gets nothing. Carrying out two suggested calls (sign the draft, recall the re-assessment) changes
 * the list as the rules say. 404 for another tenant's child, 403 without ai.read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { providerKey } from '../support/provider-key.ts'
import { newId } from '../../domain/ids.ts'

const DAY = 24 * 3600 * 1000
let skewMs = 0
let platform: Platform
let tenant: ProvisionedClient
let token: string
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const ids = {
  child: '',
  quietChild: '',
  provider: '',
  speechGoal: '',
  otGoal: '',
  draftSession: '',
  draftNote: '',
  celf: '',
  pls: '',
  lastAppointment: '',
}
const signedNotes: Array<{ session: string; note: string }> = []

type Rec = {
  id: string
  kind: string
  priority: string
  explanation: { rule: string; reason: string; facts: Array<{ name: string; value: unknown; source?: string }> }
  suggestedCall: { method: string; path: string; scope: string; body?: Record<string, unknown> }
  links: Record<string, string>
  dueAt: string | null
}

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, clock: () => new Date(Date.now() + skewMs) })
  tenant = await platform.newTenant(['children', 'providers', 'bookings', 'sessions', 'assessments', 'ai.read'], 'UTC')
  token = await platform.token(tenant)
  const http = platform.http
  const child = await http.post('/v1/children', {
    token,
    body: {
      firstName: 'Ada',
      lastName: 'Lind',
      dateOfBirth: '2025-01-01',
      locationId: tenant.locationId,
      goals: [
        { description: '/s/ initial', discipline: 'SPEECH_THERAPY' },
        { description: 'Pincer grasp', discipline: 'OCCUPATIONAL_THERAPY' },
      ],
      earlyIntervention: { referralDate: isoDate(Date.now() - 60 * DAY) },
    },
  })
  expect(child.status, JSON.stringify(child.body)).toBe(201)
  ids.child = child.body.id
  ids.speechGoal = child.body.goals[0].id
  ids.otGoal = child.body.goals[1].id
  const quiet = await http.post('/v1/children', {
    token,
    body: { firstName: 'Bo', lastName: 'Lind', dateOfBirth: '2021-05-01', locationId: tenant.locationId },
  })
  ids.quietChild = quiet.body.id
  const provider = await http.post('/v1/providers', {
    token,
    body: { name: 'Dana Whitfield', timeZone: 'UTC', disciplines: ['SPEECH_THERAPY'] },
  })
  expect(provider.status, JSON.stringify(provider.body)).toBe(201)
  ids.provider = provider.body.id

  const book = async (days: number) => {
    const appointment = await http.post('/v1/appointments', {
      token,
      body: {
        childId: ids.child,
        providerId: ids.provider,
        startsAt: futureSlot(days).toISOString(),
        service: 'SPEECH_THERAPY',
      },
    })
    expect(appointment.status, JSON.stringify(appointment.body)).toBe(201)
    const session = await http.post('/v1/sessions', { token, body: { appointmentId: appointment.body.id } })
    expect(session.status).toBe(201)
    return { appointmentId: appointment.body.id as string, sessionId: session.body.id as string }
  }
  for (const [i, accuracy] of [50, 52, 50, 51].entries()) {
    const { sessionId } = await book(i + 1)
    const note = await http.post(`/v1/sessions/${sessionId}/notes`, {
      token,
      body: {
        subjective: 'Practised.',
        objective: { goals: [{ goalId: ids.speechGoal, description: '/s/ initial', accuracyPercent: accuracy }] },
        assessment: 'Flat.',
        plan: 'Continue.',
      },
    })
    expect(note.status).toBe(201)
    expect(
      (
        await http.post(`/v1/sessions/${sessionId}/notes/${note.body.id}/sign`, {
          token: await providerKey(platform, tenant.tenantId, ids.provider),
          body: { providerId: ids.provider },
        })
      ).status
    ).toBe(200)
    signedNotes.push({ session: sessionId, note: note.body.id })
  }
  const last = await book(5)
  ids.draftSession = last.sessionId
  ids.lastAppointment = last.appointmentId
  // Complete enough to sign, but not signed.
  const draft = await http.post(`/v1/sessions/${last.sessionId}/notes`, {
    token,
    body: {
      subjective: 'Tired.',
      objective: { observations: 'Engaged for 20 minutes.' },
      assessment: 'Steady.',
      plan: 'Continue.',
    },
  })
  expect(draft.status).toBe(201)
  ids.draftNote = draft.body.id

  const celf = await http.post('/v1/assessments', {
    token,
    body: { childId: ids.child, instrument: 'CELF-P3', dueDate: isoDate(Date.now() + 2 * DAY) },
  })
  expect(celf.status).toBe(201)
  ids.celf = celf.body.id
  const pls = await http.post('/v1/assessments', { token, body: { childId: ids.child, instrument: 'PLS-5' } })
  ids.pls = pls.body.id
  const done = await http.post(`/v1/assessments/${ids.pls}/complete`, {
    token,
    body: {
      scores: [{ subtest: 'Total Language', standardScore: 84 }],
      completedAt: new Date(Date.now() - 200 * DAY).toISOString(),
    },
  })
  expect(done.status, JSON.stringify(done.body)).toBe(200)

  // Eight days on: every session is behind; the draft's note was due 48 h after the fifth session ended.
  skewMs = 8 * DAY
  token = await platform.token(tenant)
}, 120_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const recommend = (childId: string, as = token) =>
  platform.http.get(`/v1/ai/children/${childId}/recommendations`, { token: as })

describe('GET /v1/ai/children/{id}/recommendations', () => {
  it('recommends exactly the known next actions, most urgent first, each explained with its records and call', async () => {
    const res = await recommend(ids.child)
    expect(res.status).toBe(200)
    const data = res.body.data as Rec[]
    const now = Date.now() + skewMs
    const referral = isoDate(Date.now() - 60 * DAY)
    const ifspDue = isoDate(Date.parse(`${referral}T00:00:00Z`) + 45 * DAY)
    const plsDue = isoDate(Date.parse(`${isoDate(Date.now() - 200 * DAY)}T00:00:00Z`) + 180 * DAY)
    expect(data.map((r) => [r.id, r.priority])).toEqual([
      [`EI_DEADLINE:${ids.child}:INITIAL_IFSP:${ifspDue}`, 'HIGH'],
      [`COMPLETE_ASSESSMENT:${ids.celf}`, 'HIGH'],
      [`SCHEDULE_REASSESSMENT:${ids.pls}`, 'HIGH'],
      [`SIGN_NOTE:${ids.draftSession}`, 'MEDIUM'],
      [`ADJUST_GOAL:${ids.child}:${ids.speechGoal}`, 'MEDIUM'],
      [`BOOK_NEXT_SESSION:${ids.child}`, 'MEDIUM'],
      [`OFFER_THERAPISTS:${ids.child}:OCCUPATIONAL_THERAPY`, 'MEDIUM'],
    ])
    expect(res.body).toMatchObject({
      childId: ids.child,
      today: isoDate(now),
      defaultCadenceDays: 180,
      summary: { total: 7, byPriority: { HIGH: 3, MEDIUM: 4, LOW: 0 } },
    })
    const [ei, celf, pls, sign, goal, book, offer] = data as [Rec, Rec, Rec, Rec, Rec, Rec, Rec]

    expect(ei.suggestedCall).toMatchObject({
      method: 'PATCH',
      path: `/v1/children/${ids.child}`,
      body: { earlyIntervention: { initialIfspDate: '<date held>' } },
    })
    expect(celf).toMatchObject({
      dueAt: isoDate(Date.now() + 2 * DAY),
      suggestedCall: { method: 'POST', path: `/v1/assessments/${ids.celf}/complete`, scope: 'assessments' },
    })
    expect(pls.explanation.reason).toBe(
      `The PLS-5 assessment completed ${isoDate(Date.now() - 200 * DAY)} has a 180-day cadence (the default), so the re-assessment is due ${plsDue} (overdue), and none is open.`
    )
    expect(pls.links.assessment).toBe(`/v1/assessments/${ids.pls}`)
    expect(sign.suggestedCall).toMatchObject({
      method: 'POST',
      path: `/v1/sessions/${ids.draftSession}/notes/${ids.draftNote}/sign`,
      scope: 'sessions',
    })
    expect(goal.explanation.reason).toMatch(/^Stalled: /)
    expect(goal.explanation.facts.filter((f) => f.name === 'accuracyPercent')).toEqual(
      signedNotes.slice(-3).map((n, i) => ({
        name: 'accuracyPercent',
        value: [52, 50, 51][i],
        source: `/v1/sessions/${n.session}/notes/${n.note}`,
      }))
    )
    expect(book).toMatchObject({
      suggestedCall: {
        method: 'POST',
        path: '/v1/appointments',
        scope: 'bookings',
        body: { childId: ids.child, providerId: ids.provider },
      },
      links: { lastAppointment: `/v1/appointments/${ids.lastAppointment}` },
    })
    expect(book.explanation.facts).toContainEqual({
      name: 'activeGoalId',
      value: ids.otGoal,
      source: `/v1/children/${ids.child}`,
    })
    expect(offer.suggestedCall).toMatchObject({
      method: 'POST',
      path: '/v1/therapists/match',
      scope: 'matching',
      body: { childId: ids.child, discipline: 'OCCUPATIONAL_THERAPY' },
    })
    expect(offer.explanation.reason).toBe(
      `Goal(s) ${ids.otGoal} need OCCUPATIONAL_THERAPY and none of the child's appointments delivered OCCUPATIONAL_THERAPY.`
    )
    for (const r of data) expect(r.explanation.rule.length).toBeGreaterThan(20)

    // Deterministic: the same record gives the same list.
    expect((await recommend(ids.child)).body.data).toEqual(data)
  })

  it('recommends nothing for a child with nothing to do', async () => {
    const res = await recommend(ids.quietChild)
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([])
    expect(res.body.summary.total).toBe(0)
  })

  it('carrying out the suggested calls changes the recommendations as the rules say', async () => {
    const before = (await recommend(ids.child)).body.data as Rec[]
    const sign = before.find((r) => r.kind === 'SIGN_NOTE')!
    const signed = await platform.http.post(sign.suggestedCall.path, {
      token: await providerKey(platform, tenant.tenantId, ids.provider),
      body: { providerId: ids.provider },
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const recall = before.find((r) => r.kind === 'SCHEDULE_REASSESSMENT')!
    const recalled = await platform.http.post(recall.suggestedCall.path, { token, body: recall.suggestedCall.body })
    expect(recalled.status, JSON.stringify(recalled.body)).toBe(200)
    const reassessment = (recalled.body.recalls as Array<{ assessmentId: string; previousAssessmentId: string }>).find(
      (r) => r.previousAssessmentId === ids.pls
    )!
    expect(reassessment).toMatchObject({ assessmentId: expect.any(String), previousAssessmentId: ids.pls })

    const after = ((await recommend(ids.child)).body.data as Rec[]).map((r) => r.id)
    expect(after).not.toContain(`SIGN_NOTE:${ids.draftSession}`)
    expect(after).not.toContain(`SCHEDULE_REASSESSMENT:${ids.pls}`)
    // The recalled re-assessment is open and already past due: now it is to be completed.
    expect(after).toContain(`COMPLETE_ASSESSMENT:${reassessment.assessmentId}`)
  })

  it("400 for a bad cadence, 404 for another tenant's child or an unknown one, 403 without ai.read", async () => {
    const bad = await platform.http.get(`/v1/ai/children/${ids.child}/recommendations?defaultCadenceDays=0`, { token })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('validation_error')
    const other = await platform.newTenant(['children', 'sessions.read', 'assessments.read', 'ai.read'])
    const foreign = await recommend(ids.child, await platform.token(other))
    expect(foreign.status).toBe(404)
    expect(foreign.body.code).toBe('not_found')
    expect((await recommend(newId('child'))).status).toBe(404)
    const noScope = await platform.newTenant(['children'])
    const denied = await recommend(ids.child, await platform.token(noScope))
    expect(denied.status).toBe(403)
    expect(denied.body.code).toBe('insufficient_scope')
  })
})
