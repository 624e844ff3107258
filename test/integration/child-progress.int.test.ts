/**
 * The child progress follow-up end to end on the real Temporal dev server, the real worker process and the real
 * database, driven through the API: registration starts the workflow; signed SOAP notes feed periodic summaries
 * (days shortened to 200 ms and a 15-day interval, so a period lasts 3 s); a goal whose accuracy stays flat over four
 * sessions raises one follow-up addressed to the session's provider; summaries asked for through the API (a Temporal
 * update, racing the periodic timer) answer with the report; improvement resolves the follow-up; stopping cancels the
 * workflow and a later request starts it again; archiving ends it; a worker killed mid-period catches up; a note
 * signed before any worker ran the workflow counts in the first period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childProgressWorkflowId } from '../../workflows/child-progress-contract.ts'
import { bookingWorkflowId } from '../../workflows/shared.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 200
const INTERVAL_DAYS = 15
const PERIOD_MS = DAY_MS * INTERVAL_DAYS

let platform: Platform
let token: string
let tenantId: string
let providerId: string
let slot = 0

beforeAll(async () => {
  platform = await startPlatform({
    overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS), CHILD_PROGRESS_INTERVAL_DAYS: String(INTERVAL_DAYS) },
  })
  const client = await platform.newTenant(['children', 'providers', 'bookings', 'sessions'])
  tenantId = client.tenantId
  token = await platform.token(client)
  const provider = await platform.http.post('/v1/providers', {
    token,
    body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
  })
  providerId = provider.body.id
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

async function childWithGoals() {
  const created = await platform.http.post('/v1/children', {
    token,
    body: {
      firstName: 'Maya',
      lastName: 'Okafor',
      dateOfBirth: '2022-04-18',
      goals: [
        { description: 'Produces /s/ in initial position with 80% accuracy', discipline: 'SPEECH_THERAPY' },
        { description: 'Follows two-step directions', discipline: 'SPEECH_THERAPY' },
      ],
    },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const [flat, rising] = created.body.goals.map((g: { id: string }) => g.id) as [string, string]
  return { childId: created.body.id as string, flat, rising }
}

/** A session of the child (each on its own later day, so sessions order as written) with a signed note. */
async function signedSession(childId: string, goals: Array<{ goalId: string; correct: number; cueingLevel?: string }>) {
  slot++
  const appointment = await platform.http.post('/v1/appointments', {
    token,
    body: { childId, providerId, startsAt: futureSlot(slot, 15 + (slot % 6)).toISOString() },
  })
  expect(appointment.status, JSON.stringify(appointment.body)).toBe(201)
  const session = await platform.http.post('/v1/sessions', { token, body: { appointmentId: appointment.body.id } })
  expect(session.status, JSON.stringify(session.body)).toBe(201)
  const note = await platform.http.post(`/v1/sessions/${session.body.id}/notes`, {
    token,
    body: {
      subjective: 'Caregiver reports practice at home.',
      assessment: 'Progress noted against the session targets.',
      plan: 'Continue the current plan.',
      objective: {
        goals: goals.map((g) => ({
          goalId: g.goalId,
          description: 'target',
          trials: 20,
          correct: g.correct,
          ...(g.cueingLevel ? { cueingLevel: g.cueingLevel } : {}),
        })),
      },
    },
  })
  expect(note.status, JSON.stringify(note.body)).toBe(201)
  const signed = await platform.http.post(`/v1/sessions/${session.body.id}/notes/${note.body.id}/sign`, {
    token,
    body: { providerId },
  })
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  return appointment.body.id as string
}

interface Report {
  id: string
  trigger: string
  signedNotesCount: number
  stalledGoalIds: string[]
  goals: Array<{ goalId: string; trend: string; dataPoints: number }>
}

const progressOf = async (childId: string) =>
  (await platform.http.get(`/v1/children/${childId}/progress`, { token })).body
const reportsOf = async (childId: string) =>
  (await platform.http.get(`/v1/children/${childId}/progress/reports?limit=100`, { token })).body.data as Report[]
const requestReport = (childId: string) => platform.http.post(`/v1/children/${childId}/progress/reports`, { token })
const handleOf = (childId: string) => platform.temporal.workflow.getHandle(childProgressWorkflowId(tenantId, childId))
const trendOf = (report: Report, goalId: string) => report.goals.find((g) => g.goalId === goalId)?.trend
const openFollowUps = async (childId: string) =>
  (
    await platform.api.deps.db.careNotification.findMany({
      where: { childId, kind: 'PROGRESS_FOLLOW_UP', status: 'OPEN' },
    })
  ).length

describe('progress follow-up of a child', () => {
  it('summarises periodically, follows up a stalled goal, answers requests, stops, restarts and resolves on improvement', async () => {
    const { childId, flat, rising } = await childWithGoals()
    const handle = handleOf(childId)
    const described = await eventually(() => handle.describe().catch(() => undefined))
    expect(described.searchAttributes).toMatchObject({
      TenantId: [tenantId],
      WorkflowKind: ['child-progress'],
      ChildId: [childId],
    })
    expect(await described.staticSummary()).toBe(`Child progress follow-up: child ${childId}`)

    // Four sessions: the first goal flat around 50 %, the second rising from 40 % to 70 %.
    for (const [i, correct] of [10, 10, 11, 10].entries()) {
      await signedSession(childId, [
        { goalId: flat, correct },
        { goalId: rising, correct: 8 + 2 * i },
      ])
    }

    // A periodic summary judges the four sessions: the flat goal stalled, the rising one improving.
    const stalled = await eventually(
      async () => (await reportsOf(childId)).find((r) => r.trigger === 'SCHEDULED' && r.stalledGoalIds.length > 0),
      20_000
    )
    expect(stalled.stalledGoalIds).toEqual([flat])
    expect(trendOf(stalled, rising)).toBe('IMPROVING')
    const progress = await progressOf(childId)
    expect(progress.openFollowUp).toMatchObject({
      kind: 'PROGRESS_FOLLOW_UP',
      status: 'OPEN',
      providerId,
      details: { reportId: stalled.id, goalIds: [flat] },
    })
    expect(progress.schedule).toMatchObject({ running: true, intervalDays: INTERVAL_DAYS })
    expect(Date.parse(progress.schedule.nextSummaryAt)).toBeGreaterThan(Date.now() - PERIOD_MS)

    // Summaries asked for through the API, three at once, racing the periodic timer: each answered with its report.
    const requested = await Promise.all([requestReport(childId), requestReport(childId), requestReport(childId)])
    for (const r of requested) {
      expect(r.status, JSON.stringify(r.body)).toBe(201)
      // The report counts the notes of the last interval; the trend looks back over all four sessions.
      expect(r.body).toMatchObject({ trigger: 'REQUESTED', stalledGoalIds: [flat] })
      expect(r.body.goals.find((g: { goalId: string }) => g.goalId === flat)).toMatchObject({
        trend: 'STALLED',
        dataPoints: 4,
      })
    }
    // However they interleaved, exactly one follow-up stays open: the newest report's.
    expect(await openFollowUps(childId)).toBe(1)

    // Stopping cancels the workflow and its open follow-up; reports stay.
    const stopped = await platform.http.request('DELETE', `/v1/children/${childId}/progress`, { token })
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200)
    expect(stopped.body.openFollowUp).toBeNull()
    await handle.result().catch(() => undefined)
    expect((await handle.describe()).status.name).toBe('CANCELLED')
    expect((await progressOf(childId)).schedule).toEqual({ running: false })
    // Every answer is a stored report (requests handled in one workflow task may share one), beside the scheduled one.
    const stored = new Set((await reportsOf(childId)).map((r) => r.id))
    for (const r of requested) expect(stored.has(r.body.id)).toBe(true)
    expect(stored.has(stalled.id)).toBe(true)
    expect(stored.size).toBeGreaterThanOrEqual(2)

    // A request starts it again (update-with-start).
    const again = await requestReport(childId)
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect((await progressOf(childId)).schedule).toMatchObject({ running: true })

    // Three better sessions: the goal improves, the follow-up is resolved.
    for (const correct of [13, 15, 17]) await signedSession(childId, [{ goalId: flat, correct }])
    const improved = await requestReport(childId)
    expect(improved.status).toBe(201)
    expect(improved.body.stalledGoalIds).toEqual([])
    expect(trendOf(improved.body, flat)).toBe('IMPROVING')
    expect((await progressOf(childId)).openFollowUp).toBeNull()
    expect(await openFollowUps(childId)).toBe(0)

    // The booking workflow of a cancelled appointment, kept for the replay test.
    const extra = await platform.http.post('/v1/appointments', {
      token,
      body: { childId, providerId, startsAt: futureSlot(40).toISOString() },
    })
    const booking = platform.temporal.workflow.getHandle(bookingWorkflowId(extra.body.id))
    await eventually(() => booking.describe().catch(() => undefined))
    expect(
      (
        await platform.http.post(`/v1/appointments/${extra.body.id}/cancel`, {
          token,
          body: { reason: 'FAMILY_REQUEST' },
        })
      ).status
    ).toBe(200)
    await booking.result()
    await recordHistory(booking, 'bookingWorkflow-cancelled')

    expect((await platform.http.request('DELETE', `/v1/children/${childId}`, { token })).status).toBe(200)
    expect(await handleOf(childId).result()).toMatchObject({ outcome: 'ARCHIVED' })
    await recordHistory(handleOf(childId), 'childProgressWorkflow-requested-and-archived')
  }, 120_000)

  it('ends when the child is archived, after which summaries are refused', async () => {
    const { childId } = await childWithGoals()
    await eventually(() =>
      handleOf(childId)
        .describe()
        .catch(() => undefined)
    )
    expect((await platform.http.request('DELETE', `/v1/children/${childId}`, { token })).status).toBe(200)
    expect(await handleOf(childId).result()).toEqual({ outcome: 'ARCHIVED', reportsRecorded: 0 })
    expect((await requestReport(childId)).body).toMatchObject({ status: 409, code: 'invalid_state_transition' })
    const other = await platform.newTenant(['children'])
    expect(
      (await platform.http.get(`/v1/children/${childId}/progress`, { token: await platform.token(other) })).status
    ).toBe(404)
  })

  it('counts a note signed before any worker ran the workflow in its first period', async () => {
    await platform.killWorkers('SIGKILL')
    // Registered, and its workflow started, while no worker runs: the first period must open at the start, not
    // when a worker first runs the workflow (which is after the note was signed).
    const { childId, flat } = await childWithGoals()
    await eventually(async () => ((await handleOf(childId).describe()).status.name === 'RUNNING' ? true : undefined))
    await signedSession(childId, [{ goalId: flat, correct: 12 }])
    await platform.startWorker()
    const report = await eventually(
      async () => (await reportsOf(childId)).find((r) => r.trigger === 'SCHEDULED'),
      60_000
    )
    expect(report).toMatchObject({ signedNotesCount: 1 })
    await handleOf(childId).terminate('test cleanup')
  }, 150_000)

  it('summarises the period a worker missed when one returns', async () => {
    const { childId, flat } = await childWithGoals()
    // Started is not enough: the worker must have run the first task, which opens the first period (on a fast
    // server the kill can otherwise land inside that task, and the period would open only after the restart).
    await eventually(async () => ((await progressOf(childId)).schedule?.periodStart ? true : undefined))
    await platform.killWorkers('SIGKILL')
    // The API keeps working: the note is signed while no worker runs, and the period ends unattended.
    await signedSession(childId, [{ goalId: flat, correct: 12 }])
    await new Promise((resolve) => setTimeout(resolve, PERIOD_MS + 500))
    expect(await reportsOf(childId)).toEqual([])

    await platform.startWorker()
    const report = await eventually(
      async () => (await reportsOf(childId)).find((r) => r.trigger === 'SCHEDULED'),
      60_000
    )
    expect(report).toMatchObject({ signedNotesCount: 1, sessionsCount: 1 })
    await new Promise((resolve) => setTimeout(resolve, PERIOD_MS))
    // Each period once: the one with the note is not summarised twice.
    expect((await reportsOf(childId)).filter((r) => r.trigger === 'SCHEDULED' && r.signedNotesCount > 0)).toHaveLength(
      1
    )
    await handleOf(childId).terminate('test cleanup')
  }, 150_000)
})
