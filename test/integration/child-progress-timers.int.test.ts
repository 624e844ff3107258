/**
 * The child progress follow-up at its real interval, on Temporal's time-skipping test server with the real activities
 * against this file's database, driven through the API: summaries every 30 days (CHILD_PROGRESS_INTERVAL_DAYS at its
 * default, real days), reached by moving the server's clock with `skip` (no sleeping). The API follows the server's
 * clock (`apiClock: 'server'`), so the notes' signing times and the workflow's periods share one time line. Proves:
 * registration starts the workflow (search attributes, summary); the periodic summary comes at the period's end, not
 * before, and judges the sessions signed in it (a goal flat over four sessions raises one follow-up addressed to the
 * session's provider, a rising one is improving); summaries asked for through the API (a Temporal update, three at
 * once) answer with the report and leave one follow-up open; stopping cancels the workflow and a later request starts
 * it again; improvement resolves the follow-up; archiving ends it, after which summaries are refused. Requests racing
 * the periodic timer, a worker killed mid-period and a note signed before any worker ran are in
 * child-progress.int.test.ts, on the dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appointmentWorkflowId } from '../../common/appointments/appointment-workflow-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import {
  childProgressScenario,
  progressCentre,
  trendOf,
  type ProgressCentre,
} from '../support/child-progress-scenario.ts'
import { futureSlot } from '../support/fixtures.ts'
import { eventually } from '../support/platform.ts'
import { startTimeSkippingPlatform, untilNoActivityRuns, type TimeSkippingPlatform } from '../support/time-skipping.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** CHILD_PROGRESS_INTERVAL_DAYS at its default. */
const INTERVAL_DAYS = 30

let platform: TimeSkippingPlatform
let centre: ProgressCentre
// Bound to the centre the file makes in beforeAll.
const { childWithGoals, signedSession, progressOf, reportsOf, requestReport, handleOf, openFollowUps } =
  childProgressScenario(() => centre)

beforeAll(async () => {
  platform = await startTimeSkippingPlatform({ apiClock: 'server' })
  centre = await progressCentre(platform)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('progress follow-up of a child', () => {
  it('summarises at the end of the period, follows up a stalled goal, answers requests, stops, restarts and resolves on improvement', async () => {
    const { childId, flat, rising } = await childWithGoals()
    const handle = handleOf(childId)
    const described = await eventually(() => handle.describe().catch(() => undefined))
    expect(described.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
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

    // The workflow's own schedule: the first period runs from its start for the interval.
    const { schedule } = await eventually(async () => {
      const progress = await progressOf(childId)
      return progress.schedule?.nextSummaryAt ? progress : undefined
    })
    const periodEnd = Date.parse(schedule.nextSummaryAt)
    expect(periodEnd - Date.parse(schedule.periodStart)).toBe(INTERVAL_DAYS * DAY_MS)

    // A periodic summary judges the four sessions at the period's end, not before: the flat goal stalled, the rising
    // one improving.
    await platform.skipTo(periodEnd - MINUTE_MS)
    expect(await reportsOf(childId)).toEqual([])
    await platform.skipTo(periodEnd + MINUTE_MS)
    const stalled = await eventually(
      async () => (await reportsOf(childId)).find((r) => r.trigger === 'SCHEDULED'),
      10_000
    )
    expect(stalled).toMatchObject({ stalledGoalIds: [flat], signedNotesCount: 4 })
    expect(trendOf(stalled, rising)).toBe('IMPROVING')
    const progress = await progressOf(childId)
    expect(progress.openFollowUp).toMatchObject({
      kind: 'PROGRESS_FOLLOW_UP',
      status: 'OPEN',
      providerId: centre.providerId,
      details: { reportId: stalled.id, goalIds: [flat] },
    })
    expect(progress.schedule).toMatchObject({ running: true, intervalDays: INTERVAL_DAYS })
    expect(Date.parse(progress.schedule.nextSummaryAt)).toBe(periodEnd + INTERVAL_DAYS * DAY_MS)

    // Summaries asked for through the API, three at once: each answered with its report.
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

    // The stop comes once the workflow has recorded the requests' reports too and waits on its timer: the test server
    // cannot end a run with an activity in flight (see time-skipping.ts, `untilNoActivityRuns`).
    await eventually(async () =>
      (await progressOf(childId)).schedule?.reportsRecorded === 1 + requested.length ? true : undefined
    )
    await untilNoActivityRuns(handle)
    // Stopping cancels the workflow and its open follow-up; reports stay.
    const stopped = await platform.http.request('DELETE', `/v1/children/${childId}/progress`, { token: centre.token })
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

    // The booking workflow of a cancelled appointment, kept for the replay test; cancelled (which ends it) once no
    // activity of it runs.
    const extra = await platform.http.post('/v1/appointments', {
      token: centre.token,
      body: { childId, providerId: centre.providerId, startsAt: futureSlot(40, 15, platform.apiNow()).toISOString() },
    })
    const booking = platform.temporal.workflow.getHandle(appointmentWorkflowId(extra.body.id))
    await eventually(() => booking.describe().catch(() => undefined))
    await untilNoActivityRuns(booking)
    expect(
      (
        await platform.http.post(`/v1/appointments/${extra.body.id}/cancel`, {
          token: centre.token,
          body: { reason: 'FAMILY_REQUEST' },
        })
      ).status
    ).toBe(200)
    await booking.result()
    await recordHistory(booking, 'bookingWorkflow-cancelled')

    expect((await platform.http.request('DELETE', `/v1/children/${childId}`, { token: centre.token })).status).toBe(200)
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
    expect((await platform.http.request('DELETE', `/v1/children/${childId}`, { token: centre.token })).status).toBe(200)
    expect(await handleOf(childId).result()).toEqual({ outcome: 'ARCHIVED', reportsRecorded: 0 })
    expect((await requestReport(childId)).body).toMatchObject({ status: 409, code: 'invalid_state_transition' })
    const other = await platform.newTenant(['children'])
    expect(
      (await platform.http.get(`/v1/children/${childId}/progress`, { token: await platform.token(other) })).status
    ).toBe(404)
  })
})
