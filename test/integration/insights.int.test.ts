/**
 * GET /v1/ai/children/{id}/insights over HTTP on the real stack, on known data: four signed notes measuring one goal
 * (45 → 55 → 65 → 75 % accuracy, cueing fading), one draft that must not count, and two completed PLS-5s (standard
 * score 82 then 90): the goal's data points in session order with the notes behind them, its trend by the progress
 * rules with the explanation, and the score series with its change. 404 across tenants, 403 without ai.read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { providerKey } from '../support/provider-key.ts'

const DAY = 24 * 3600 * 1000
let platform: Platform
let tenant: Awaited<ReturnType<Platform['newTenant']>>
let token: string
let childId = ''
let goalId = ''
const noteIds: string[] = []
const assessmentIds: string[] = []

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  tenant = await platform.newTenant(['children', 'providers', 'bookings', 'sessions', 'assessments', 'ai.read'])
  token = await platform.token(tenant)
  const http = platform.http
  const child = await http.post('/v1/children', {
    token,
    body: {
      firstName: 'Ada',
      lastName: 'Lind',
      dateOfBirth: '2022-03-01',
      goals: [{ description: '/s/ initial', discipline: 'SPEECH_THERAPY' }],
    },
  })
  childId = child.body.id
  goalId = child.body.goals[0].id
  const provider = await http.post('/v1/providers', {
    token,
    body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
  })
  const providerId = provider.body.id
  const measures: Array<[number, string]> = [
    [45, 'MAXIMAL'],
    [55, 'MODERATE'],
    [65, 'MODERATE'],
    [75, 'MINIMAL'],
  ]
  for (const [i, [accuracy, cueing]] of measures.entries()) {
    const appointment = await http.post('/v1/appointments', {
      token,
      body: { childId, providerId, startsAt: futureSlot(i + 1).toISOString() },
    })
    expect(appointment.status).toBe(201)
    const session = await http.post('/v1/sessions', { token, body: { appointmentId: appointment.body.id } })
    const note = await http.post(`/v1/sessions/${session.body.id}/notes`, {
      token,
      body: {
        subjective: 'Practised at home.',
        objective: { goals: [{ goalId, description: '/s/ initial', accuracyPercent: accuracy, cueingLevel: cueing }] },
        assessment: 'Progressing.',
        plan: 'Continue.',
      },
    })
    expect(note.status).toBe(201)
    const signed = await http.post(`/v1/sessions/${session.body.id}/notes/${note.body.id}/sign`, {
      token: await providerKey(platform, tenant.tenantId, providerId),
      body: { providerId },
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    noteIds.push(note.body.id)
  }
  // A draft note's figures are not data yet.
  const extra = await http.post('/v1/appointments', {
    token,
    body: { childId, providerId, startsAt: futureSlot(6).toISOString() },
  })
  const extraSession = await http.post('/v1/sessions', { token, body: { appointmentId: extra.body.id } })
  await http.post(`/v1/sessions/${extraSession.body.id}/notes`, {
    token,
    body: { objective: { goals: [{ goalId, description: '/s/ initial', accuracyPercent: 5 }] } },
  })
  for (const [daysAgo, score] of [
    [200, 82],
    [10, 90],
  ] as const) {
    const a = await http.post('/v1/assessments', { token, body: { childId, instrument: 'PLS-5' } })
    const done = await http.post(`/v1/assessments/${a.body.id}/complete`, {
      token,
      body: {
        scores: [{ subtest: 'Total Language', standardScore: score, percentile: score - 60 }],
        completedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
      },
    })
    expect(done.status).toBe(200)
    assessmentIds.push(a.body.id)
  }
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('GET /v1/ai/children/{id}/insights', () => {
  it('shows the goal trend with the signed notes behind it and the assessment scores over time', async () => {
    const res = await platform.http.get(`/v1/ai/children/${childId}/insights`, { token })
    expect(res.status).toBe(200)
    const [goal] = res.body.goals
    expect(goal.goalId).toBe(goalId)
    expect(goal.dataPoints.map((d: { noteId: string }) => d.noteId)).toEqual(noteIds)
    expect(goal.dataPoints.map((d: { accuracyPercent: number }) => d.accuracyPercent)).toEqual([45, 55, 65, 75])
    expect(goal.progress).toMatchObject({
      dataPoints: 4,
      firstAccuracy: 45,
      lastAccuracy: 75,
      trendChange: 30,
      firstCueing: 'MAXIMAL',
      lastCueing: 'MINIMAL',
      trend: 'IMPROVING',
    })
    expect(goal.explanation).toMatch(/^Improving: .*30 points.*45% → 75% over 4 sessions/)

    expect(res.body.assessments).toEqual([
      {
        instrument: 'PLS-5',
        subtest: 'Total Language',
        measure: 'standardScore',
        change: 8,
        points: [
          { at: expect.any(String), assessmentId: assessmentIds[0], value: 82 },
          { at: expect.any(String), assessmentId: assessmentIds[1], value: 90 },
        ],
      },
    ])
  })

  it('404 for another tenant’s child; 403 without ai.read', async () => {
    const other = await platform.newTenant(['ai.read', 'children.read', 'sessions.read', 'assessments.read'])
    expect(
      (await platform.http.get(`/v1/ai/children/${childId}/insights`, { token: await platform.token(other) })).status
    ).toBe(404)
    const noScope = await platform.newTenant(['children'])
    expect(
      (await platform.http.get(`/v1/ai/children/${childId}/insights`, { token: await platform.token(noScope) })).status
    ).toBe(403)
  })
})
