/**
 * Assessments over HTTP against the real API and database: create, read, list, PATCH, cancel and complete with
 * scores (the `assessment.completed` event row, the re-assessment at the cadence), state rules and tenant isolation.
 * The reminder workflow itself is exercised in assessment-reminder.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChildAndProvider } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform
let token: string
let tenantId: string

const SCOPES = ['children', 'providers', 'assessments']

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  const client = await platform.newTenant(SCOPES)
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const patch = (id: string, body: unknown, as = token) =>
  platform.http.request('PATCH', `/v1/assessments/${id}`, {
    token: as,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })
const cancel = (id: string, as = token) => platform.http.request('DELETE', `/v1/assessments/${id}`, { token: as })
const complete = (id: string, body: unknown, as = token) =>
  platform.http.post(`/v1/assessments/${id}/complete`, { token: as, body })

const SCORES = [
  { subtest: 'Auditory Comprehension', rawScore: 41, standardScore: 88, percentile: 21, ageEquivalent: '3:4' },
  { subtest: 'Expressive Communication', rawScore: 38, standardScore: 81, percentile: 10, ageEquivalent: '2:11' },
]

async function createAssessment(body: Record<string, unknown> = {}, as = token) {
  const { childId, providerId } = await createChildAndProvider(platform.http, as)
  const response = await platform.http.post('/v1/assessments', {
    token: as,
    body: { childId, providerId, instrument: 'PLS-5', dueDate: '2027-03-01', ...body },
  })
  expect(response.status).toBe(201)
  return { assessment: response.body, childId, providerId }
}

describe('creating and reading', () => {
  it('schedules an assessment and reads it back', async () => {
    const { assessment, childId, providerId } = await createAssessment({ reassessmentCadenceDays: 180 })
    expect(assessment).toMatchObject({
      childId,
      providerId,
      instrument: 'PLS-5',
      status: 'SCHEDULED',
      dueDate: '2027-03-01',
      reassessmentCadenceDays: 180,
      scores: null,
      completedAt: null,
      previousAssessmentId: null,
      nextAssessmentId: null,
    })
    expect(assessment.id).toMatch(/^asm_/)
    const read = await platform.http.get(`/v1/assessments/${assessment.id}`, { token })
    expect(read.body).toEqual(assessment)
  })

  it('refuses an unknown child or provider and malformed fields', async () => {
    const refused = await platform.http.post('/v1/assessments', {
      token,
      body: { childId: newId('child'), providerId: newId('provider'), instrument: 'CELF-5' },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'childId:not_found',
      'providerId:not_found',
    ])
    const { childId } = await createChildAndProvider(platform.http, token)
    const malformed = await platform.http.post('/v1/assessments', {
      token,
      body: { childId, instrument: '', dueDate: '2027-02-30', reassessmentCadenceDays: 0 },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'dueDate',
      'instrument',
      'reassessmentCadenceDays',
    ])
  })
})

describe('PATCH and cancel', () => {
  it('changes an open assessment by merge patch, but never its child', async () => {
    const { assessment } = await createAssessment()
    const changed = await patch(assessment.id, {
      instrument: 'CELF-P3',
      dueDate: '2027-04-15',
      providerId: null,
      reassessmentCadenceDays: 90,
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({
      instrument: 'CELF-P3',
      dueDate: '2027-04-15',
      providerId: null,
      reassessmentCadenceDays: 90,
      status: 'SCHEDULED',
    })
    const noDue = await patch(assessment.id, { dueDate: null })
    expect(noDue.body.dueDate).toBeNull()
    const childChange = await patch(assessment.id, { childId: 'chd_other' })
    expect(childChange.status).toBe(400)
    const instrumentRemoved = await patch(assessment.id, { instrument: null })
    expect(instrumentRemoved.status).toBe(400)
  })

  it('cancels idempotently, keeps the record, and then refuses changes and completion', async () => {
    const { assessment } = await createAssessment()
    const first = await cancel(assessment.id)
    expect(first.status).toBe(200)
    expect(first.body.status).toBe('CANCELLED')
    expect(first.body.cancelledAt).toMatch(/Z$/)
    const again = await cancel(assessment.id)
    expect(again.status).toBe(200)
    expect(again.body.cancelledAt).toBe(first.body.cancelledAt)
    for (const response of [
      await patch(assessment.id, { dueDate: '2027-05-01' }),
      await complete(assessment.id, { scores: SCORES }),
    ]) {
      expect(response.status).toBe(409)
      expect(response.body.code).toBe('invalid_state_transition')
    }
  })
})

describe('POST /v1/assessments/{id}/complete', () => {
  it('records scores, emits assessment.completed and creates the re-assessment at the cadence', async () => {
    const { assessment, childId, providerId } = await createAssessment({ reassessmentCadenceDays: 180 })
    const completedAt = '2026-11-20T10:30:00-06:00'
    const done = await complete(assessment.id, { scores: SCORES, completedAt })
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ status: 'COMPLETED', scores: SCORES, completedAt: '2026-11-20T16:30:00.000Z' })
    expect(done.body.nextAssessmentId).toMatch(/^asm_/)

    const next = await platform.http.get(`/v1/assessments/${done.body.nextAssessmentId}`, { token })
    expect(next.body).toMatchObject({
      childId,
      providerId,
      instrument: 'PLS-5',
      status: 'SCHEDULED',
      dueDate: '2027-05-19', // 180 days after 2026-11-20, the completion date in the centre's zone
      reassessmentCadenceDays: 180,
      previousAssessmentId: assessment.id,
    })
    expect((await platform.http.get(`/v1/assessments/${assessment.id}`, { token })).body.nextAssessmentId).toBe(
      next.body.id
    )

    const events = await platform.api.deps.db.event.findMany({ where: { tenantId, type: 'assessment.completed' } })
    expect(events.map((e) => e.data)).toContainEqual({
      assessmentId: assessment.id,
      childId,
      providerId,
      instrument: 'PLS-5',
      completedAt: '2026-11-20T16:30:00.000Z',
    })

    const twice = await complete(assessment.id, { scores: SCORES })
    expect(twice.status).toBe(409)
    expect(twice.body.code).toBe('invalid_state_transition')
    expect((await cancel(assessment.id)).status).toBe(409)
    expect((await patch(assessment.id, { instrument: 'CELF-5' })).status).toBe(409)
  })

  it('completes without a cadence without creating anything, and validates scores and time', async () => {
    const { assessment } = await createAssessment()
    const empty = await complete(assessment.id, { scores: [] })
    expect(empty.status).toBe(400)
    const scoreless = await complete(assessment.id, { scores: [{ subtest: 'Total Language' }] })
    expect(scoreless.status).toBe(400)
    const future = await complete(assessment.id, { scores: SCORES, completedAt: '2099-01-01T00:00:00Z' })
    expect(future.status).toBe(400)
    expect(future.body.errors[0]).toMatchObject({ path: 'completedAt', code: 'in_future' })
    const done = await complete(assessment.id, { scores: SCORES })
    expect(done.status).toBe(200)
    expect(done.body.nextAssessmentId).toBeNull()
  })
})

describe('GET /v1/assessments', () => {
  it('lists with filters and cursor pagination', async () => {
    const own = await platform.token(await platform.newTenant(SCOPES))
    const a = await createAssessment({ instrument: 'PLS-5', dueDate: '2027-01-10' }, own)
    const b = await createAssessment({ instrument: 'GFTA-3', dueDate: '2027-02-10' }, own)
    const c = await createAssessment({ instrument: 'PLS-5', dueDate: '2027-03-10' }, own)
    await cancel(c.assessment.id, own)

    const first = await platform.http.get('/v1/assessments?limit=2&sort=createdAt', { token: own })
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([a.assessment.id, b.assessment.id])
    const second = await platform.http.get(`/v1/assessments?limit=2&sort=createdAt&cursor=${first.body.nextCursor}`, {
      token: own,
    })
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual([c.assessment.id])

    const ids = async (query: string) =>
      (await platform.http.get(`/v1/assessments?${query}`, { token: own })).body.data.map((x: { id: string }) => x.id)
    expect(await ids('instrument=PLS-5')).toEqual([c.assessment.id, a.assessment.id])
    expect(await ids('status=CANCELLED')).toEqual([c.assessment.id])
    expect(await ids(`childId=${b.childId}`)).toEqual([b.assessment.id])
    expect(await ids('dueFrom=2027-02-01&dueTo=2027-03-10')).toEqual([c.assessment.id, b.assessment.id])
  })
})

describe('tenant isolation', () => {
  it("answers 404 for another tenant's assessment on every route", async () => {
    const { assessment } = await createAssessment()
    const other = await platform.token(await platform.newTenant(SCOPES))
    const responses = [
      await platform.http.get(`/v1/assessments/${assessment.id}`, { token: other }),
      await patch(assessment.id, { instrument: 'X' }, other),
      await cancel(assessment.id, other),
      await complete(assessment.id, { scores: SCORES }, other),
      await platform.http.get(`/v1/assessments/${assessment.id}/notifications`, { token: other }),
    ]
    expect(responses.map((r) => r.status)).toEqual([404, 404, 404, 404, 404])
    expect(
      (await platform.http.get(`/v1/assessments?childId=${assessment.childId}`, { token: other })).body.data
    ).toEqual([])
    expect((await platform.http.get(`/v1/assessments/${assessment.id}`, { token })).body.status).toBe('SCHEDULED')
  })
})
