/**
 * The child progress follow-up where real time and real processes matter, on the real Temporal dev server, the real
 * worker process and the real database, driven through the API: summaries asked for through the API (a Temporal
 * update) racing the periodic timer; a note signed before any worker ran the workflow counts in the first period; a
 * worker killed mid-period, whose missed period is summarised once when one returns. These run in real time, so days
 * are shortened (CARE_WORKFLOW_DAY_MS = 200 ms) with a 15-day interval: a period lasts 3 s. The policy at its real
 * interval (periodic summaries, the follow-up of a stalled goal, requests, stop, restart, improvement, archive) is
 * proven on the time-skipping server (child-progress-timers.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childProgressScenario, progressCentre, type ProgressCentre } from '../support/child-progress-scenario.ts'
import { eventually, startPlatform, until, type Platform } from '../support/platform.ts'

const DAY_MS = 200
const INTERVAL_DAYS = 15
const PERIOD_MS = DAY_MS * INTERVAL_DAYS

let platform: Platform
let centre: ProgressCentre
// Bound to the centre the file makes in beforeAll.
const { childWithGoals, signedSession, progressOf, reportsOf, requestReport, handleOf, openFollowUps } =
  childProgressScenario(() => centre)

beforeAll(async () => {
  platform = await startPlatform({
    overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS), CHILD_PROGRESS_INTERVAL_DAYS: String(INTERVAL_DAYS) },
  })
  centre = await progressCentre(platform)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('progress follow-up of a child', () => {
  it('keeps one follow-up open when summaries asked for through the API race the periodic one', async () => {
    const { childId, flat } = await childWithGoals()
    for (const correct of [10, 10, 11, 10]) await signedSession(childId, [{ goalId: flat, correct }])
    // A fresh period (the sessions above may have spanned two), with a note in it: its periodic summary is recorded
    // and raises a follow-up of its own, at the moment the requests arrive.
    const { schedule } = await eventually(async () => {
      const progress = await progressOf(childId)
      return progress.schedule?.nextSummaryAt ? progress : undefined
    })
    await until(Date.parse(schedule.nextSummaryAt) + 100)
    const periodEnd = Date.parse((await progressOf(childId)).schedule.nextSummaryAt)
    await signedSession(childId, [{ goalId: flat, correct: 10 }])

    // Just before, at and just after the periodic timer: the inner ones may go either way, and either way must hold.
    const requested = await Promise.all(
      [-100, 0, 100].map(async (offset) => {
        await until(periodEnd + offset)
        return requestReport(childId)
      })
    )
    for (const r of requested) {
      expect(r.status, JSON.stringify(r.body)).toBe(201)
      expect(r.body).toMatchObject({ trigger: 'REQUESTED', stalledGoalIds: [flat] })
    }
    await eventually(async () =>
      (await reportsOf(childId)).some((r) => r.trigger === 'SCHEDULED' && Date.parse(r.periodEnd) === periodEnd)
        ? true
        : undefined
    )
    // However they interleaved with the periodic summary, exactly one follow-up stays open: the newest report's.
    expect(await openFollowUps(childId)).toBe(1)
    const stored = new Set((await reportsOf(childId)).map((r) => r.id))
    expect(stored.has((await progressOf(childId)).openFollowUp.details.reportId)).toBe(true)
    await handleOf(childId).terminate('test cleanup')
  }, 60_000)

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
