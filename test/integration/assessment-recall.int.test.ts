/**
 * POST /v1/ai/assessment-recall over HTTP on the real stack, on known data: completions long enough ago are recalled
 * (a re-assessment created, its reminder workflow started in Temporal), recent ones and children with an open
 * assessment of the instrument are not, re-assessments already created at a cadence are reported as in recall; the
 * same request again creates nothing and answers the same recalls; scope and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assessmentReminderWorkflowId } from '../../common/assessments/assessment-reminder-contract.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY = 24 * 3600 * 1000
let platform: Platform
let tenant: Awaited<ReturnType<Platform['newTenant']>>
let token: string
const ids = { childA: '', overdue: '', soon: '', recent: '', busy: '', cadence: '', cadenceNext: '' }
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString()
/** The calendar day of an instant in the centre's zone (the tenant's default), where a completion's day is counted. */
const centreDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' }).format(new Date(ms))
const plusDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)

async function completed(childId: string, completedDaysAgo: number, extra: Record<string, unknown> = {}) {
  const created = await platform.http.post('/v1/assessments', {
    token,
    body: { childId, instrument: 'PLS-5', ...extra },
  })
  expect(created.status).toBe(201)
  const done = await platform.http.post(`/v1/assessments/${created.body.id}/complete`, {
    token,
    body: { scores: [{ subtest: 'Total Language', standardScore: 90 }], completedAt: daysAgo(completedDaysAgo) },
  })
  expect(done.status).toBe(200)
  return done.body as { id: string; nextAssessmentId: string | null }
}

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  tenant = await platform.newTenant(['children', 'assessments', 'ai.read'])
  token = await platform.token(tenant)
  const child = async () =>
    (
      await platform.http.post('/v1/children', {
        token,
        body: { firstName: 'Ada', lastName: 'Lind', dateOfBirth: '2022-03-01' },
      })
    ).body.id as string
  const [a, b, c, d, e] = await Promise.all([child(), child(), child(), child(), child()])
  ids.childA = a
  ids.overdue = (await completed(a, 200)).id // due 20 days ago at a 180-day cadence
  ids.soon = (await completed(b, 170)).id // due in 10 days
  ids.recent = (await completed(c, 30)).id // due in 150 days: outside the horizon
  ids.busy = (await completed(d, 200)).id
  expect(
    (await platform.http.post('/v1/assessments', { token, body: { childId: d, instrument: 'pls-5' } })).status
  ).toBe(201)
  const withCadence = await completed(e, 25, { reassessmentCadenceDays: 30 }) // its re-assessment is due in 5 days
  ids.cadence = withCadence.id
  ids.cadenceNext = withCadence.nextAssessmentId!
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const recall = (body: unknown, as = token) => platform.http.post('/v1/ai/assessment-recall', { token: as, body })

describe('POST /v1/ai/assessment-recall', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response items, checked field by field
  let first: Array<Record<string, any>>

  it('recalls the completions due by the horizon and reports those already in recall', async () => {
    const res = await recall({ horizonDays: 14, defaultCadenceDays: 180 })
    expect(res.status).toBe(200)
    first = res.body.recalls
    const byPrevious = new Map(first.map((r) => [r.previousAssessmentId, r]))
    expect([...byPrevious.keys()].sort()).toEqual([ids.overdue, ids.soon, ids.cadence].sort())
    expect(byPrevious.get(ids.overdue)).toMatchObject({
      started: true,
      overdue: true,
      dueDate: plusDays(centreDay(Date.now() - 200 * DAY), 180),
      instrument: 'PLS-5',
    })
    expect(byPrevious.get(ids.soon)).toMatchObject({ started: true, overdue: false })
    expect(byPrevious.get(ids.cadence)).toMatchObject({ started: false, assessmentId: ids.cadenceNext })
    expect(res.body.startedCount).toBe(2)

    // The recalled re-assessment is an ordinary assessment, linked to the one it re-assesses, with its reminders.
    const recalled = byPrevious.get(ids.overdue)!.assessmentId
    const previous = await platform.http.get(`/v1/assessments/${ids.overdue}`, { token })
    expect(previous.body.nextAssessmentId).toBe(recalled)
    const described = await eventually(async () => {
      try {
        return await platform.temporal.workflow
          .getHandle(assessmentReminderWorkflowId(tenant.tenantId, recalled))
          .describe()
      } catch {
        return undefined
      }
    })
    expect(described.status.name).toBe('RUNNING')
  })

  it('is idempotent: the same request creates nothing and answers the same recalls', async () => {
    const again = await recall({ horizonDays: 14, defaultCadenceDays: 180 })
    expect(again.status).toBe(200)
    expect(again.body.startedCount).toBe(0)
    expect(again.body.recalls.map((r: { assessmentId: string }) => r.assessmentId).sort()).toEqual(
      first.map((r) => r.assessmentId).sort()
    )
    expect(again.body.recalls.every((r: { started: boolean }) => !r.started)).toBe(true)
  })

  it('without a default cadence only assessments with their own cadence count', async () => {
    const other = await platform.newTenant(['children', 'assessments'])
    const otherToken = await platform.token(other)
    const childId = (
      await platform.http.post('/v1/children', {
        token: otherToken,
        body: { firstName: 'Bo', lastName: 'Ek', dateOfBirth: '2022-03-01' },
      })
    ).body.id
    const created = await platform.http.post('/v1/assessments', {
      token: otherToken,
      body: { childId, instrument: 'CELF-5' },
    })
    await platform.http.post(`/v1/assessments/${created.body.id}/complete`, {
      token: otherToken,
      body: { scores: [{ subtest: 'Core', standardScore: 80 }], completedAt: daysAgo(400) },
    })
    const res = await recall({}, otherToken)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ startedCount: 0, recalls: [], horizonDays: 14 })
    // Another tenant's child is not found, and nothing of this tenant leaks into the other's recall.
    expect((await recall({ childId: ids.childA }, otherToken)).status).toBe(404)
  })

  it('validates the body and needs the assessments scope', async () => {
    const bad = await recall({ horizonDays: -1 })
    expect(bad.status).toBe(400)
    const readOnly = await platform.newTenant(['ai.read'])
    expect((await recall({}, await platform.token(readOnly))).status).toBe(403)
  })
})
