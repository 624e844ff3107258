/**
 * The assessment reminder workflow where real time and real processes matter, on the real Temporal dev server, the
 * real worker process and the real database: completions through the API racing the timers, and a worker crash.
 * Days are shortened to one second (ASSESSMENT_REMINDER_DAY_MS) so the due moments come within seconds; workflow time
 * is wall time here. The schedule itself (reminders, due notice, escalations, re-planning, catch-up) is proven on real
 * days on the time-skipping server in assessment-reminder.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assessmentReminderWorkflowId,
  type AssessmentReminderState,
} from '../../common/assessments/assessment-reminder-contract.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 1000
const ZONE = 'America/Chicago'

let platform: Platform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform({ overrides: { ASSESSMENT_REMINDER_DAY_MS: String(DAY_MS) } })
  const client = await platform.newTenant(['children', 'providers', 'assessments'], ZONE)
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** The calendar date `days` from today in the centre's zone. */
function localDate(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date())
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
}

async function schedule(dueDate: string) {
  const { childId, providerId } = await createChildAndProvider(platform.http, token, ZONE)
  const response = await platform.http.post('/v1/assessments', {
    token,
    body: { childId, providerId, instrument: 'CELF-5', dueDate },
  })
  expect(response.status).toBe(201)
  return { id: response.body.id as string, childId, providerId }
}

const kinds = async (id: string) =>
  (
    (await platform.http.get(`/v1/assessments/${id}/notifications?limit=100`, { token })).body.data as Array<{
      kind: string
      daysFromDue: number
    }>
  ).map((n) => `${n.kind}${n.daysFromDue}`)

const dueEvents = async (assessmentId: string) =>
  (await platform.api.deps.db.event.findMany({ where: { tenantId, type: 'assessment.due' } }))
    .map((e) => e.data as { assessmentId: string })
    .filter((d) => d.assessmentId === assessmentId)

const handleOf = (id: string) => platform.temporal.workflow.getHandle(assessmentReminderWorkflowId(tenantId, id))

describe('assessment reminder workflow, against real time and a real worker process', () => {
  it('completions through the API racing the due notice and the first escalation: whatever wins, nothing follows them', async () => {
    // Five completions. The middle three are aimed at wall-clock offsets from their due moment, either side of the due
    // notice (0) and at the first escalation (+1 day): whichever wins there, nothing may follow. The outer two make
    // sure both outcomes of the race are exercised, and are ordered by what happened rather than by a margin of time
    // (a loaded machine can delay a timer's activity by seconds): the first completes before anything of its plan is
    // due (its due moment is far ahead), the last only once its due notice has been recorded.
    const offsets = [-150, 150, 1050]
    // Five calendar days ahead: the due moment is 4–5 s away, room to create all of them before the earliest completes.
    const dueDate = localDate(5)
    const scheduled = await Promise.all([localDate(30), ...offsets.map(() => dueDate), dueDate].map(schedule))
    const dueAts = await Promise.all(
      scheduled.map(async ({ id }) => {
        const next = await eventually(
          async () => {
            const state = await handleOf(id)
              .query<{ next: { daysFromDue: number; at: string } | null }>('assessmentReminderState')
              .catch(() => undefined)
            return state?.next ?? undefined
          },
          20_000,
          50
        )
        // The workflow's plan is in workflow time, which is wall time here; the due moment follows from any step's.
        return Date.parse(next.at) - next.daysFromDue * DAY_MS
      })
    )
    // A setup check: were the earliest timed completion already late, the race below would prove less than it claims.
    expect(dueAts[1]! + offsets[0]! - Date.now()).toBeGreaterThan(200)

    const complete = (id: string) =>
      platform.http.post(`/v1/assessments/${id}/complete`, {
        token,
        body: { scores: [{ subtest: 'Core Language', standardScore: 85 }] },
      })
    const last = scheduled.length - 1
    const answers = await Promise.all(
      scheduled.map(async ({ id }, i) => {
        if (i === last)
          await eventually(async () => ((await kinds(id)).includes('DUE0') ? true : undefined), 60_000, 50)
        else if (i > 0)
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAts[i]! + offsets[i - 1]! - Date.now())))
        return complete(id)
      })
    )
    expect(answers.map((a) => a.status)).toEqual(scheduled.map(() => 200))
    const results = await Promise.all(scheduled.map(({ id }) => handleOf(id).result()))

    const db = platform.api.deps.db
    const eventsOf = async (id: string, type: string) =>
      (await db.event.findMany({ where: { tenantId, type }, orderBy: { createdAt: 'asc' } })).filter(
        (e) => (e.data as { assessmentId: string }).assessmentId === id
      )
    const recordedOf = async (id: string) => {
      const rows = await db.assessmentNotification.findMany({
        where: { tenantId, assessmentId: id },
        orderBy: { createdAt: 'asc' },
      })
      return {
        rows,
        keys: rows.map((n) => `${n.kind}${n.daysFromDue}`),
        dueEvents: await eventsOf(id, 'assessment.due'),
      }
    }
    const seen = []
    for (const [i, { id }] of scheduled.entries()) {
      const assessment = await db.assessment.findFirstOrThrow({ where: { id, tenantId } })
      expect(assessment.status).toBe('COMPLETED')
      const completedAt = assessment.completedAt!.getTime()
      const { rows, keys, dueEvents } = await recordedOf(id)
      expect(results[i]).toEqual({ outcome: 'COMPLETED', notificationsRecorded: rows.length })
      // Recording a step and completing lock the same row: a step either commits before the completion or is refused.
      expect(rows.filter((n) => n.createdAt.getTime() > completedAt)).toEqual([])
      expect(dueEvents.filter((e) => e.createdAt.getTime() > completedAt)).toEqual([])
      // Each step at most once, in plan order (no later escalation can be due before the latest completion).
      expect(new Set(keys).size).toBe(keys.length)
      expect(keys).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'].slice(0, keys.length))
      expect(dueEvents).toHaveLength(keys.includes('DUE0') ? 1 : 0)
      const completedEvents = await eventsOf(id, 'assessment.completed')
      expect(completedEvents.map((e) => (e.data as { completedAt: string }).completedAt)).toEqual([
        assessment.completedAt!.toISOString(),
      ])
      seen.push(keys)
    }
    // Both sides of the race happened: the earliest completion beat its due notice, the latest came after it.
    expect(seen[0]).not.toContain('DUE0')
    expect(seen.at(-1)).toContain('DUE0')

    // The workflows have ended; a few more (shortened) days change nothing.
    await new Promise((resolve) => setTimeout(resolve, 3 * DAY_MS))
    for (const [i, { id }] of scheduled.entries()) {
      const { keys, dueEvents } = await recordedOf(id)
      expect(keys).toEqual(seen[i])
      expect(dueEvents).toHaveLength(keys.includes('DUE0') ? 1 : 0)
    }
  })

  it('keeps its schedule across a worker crash: what came due meanwhile goes out when a worker returns', async () => {
    const { id } = await schedule(localDate(4))
    const handle = handleOf(id)
    // A plan exists once a worker has run the workflow and its first load activity.
    const planned = await eventually(
      async () => {
        const state = await handle.query<AssessmentReminderState>('assessmentReminderState').catch(() => undefined)
        return state?.next ? state : undefined
      },
      20_000,
      50
    )
    expect(planned).toMatchObject({ next: { kind: 'REMINDER', daysFromDue: -1 } })
    await platform.killWorkers('SIGKILL')
    const beforeCrash = await kinds(id)

    // Until the first escalation's moment in the plan (workflow time is wall time here): the reminder, the due day and
    // it all come due with no worker, and nothing is recorded.
    const firstEscalationAt = Date.parse(planned.next!.at) + 2 * DAY_MS
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstEscalationAt - Date.now() + 1)))
    expect(await kinds(id)).toEqual(beforeCrash)

    await platform.startWorker()
    // Read as soon as the catch-up shows: a later escalation may then go out at its own time (ESCALATION8 is due
    // 7 s after ESCALATION1), which a later read would mix with what came due while no worker ran.
    const caughtUp = await eventually(
      async () => {
        const seen = await kinds(id)
        return seen.some((k) => k.startsWith('ESCALATION')) ? seen : undefined
      },
      90_000,
      50
    )
    // What came due meanwhile goes out in order, each once, with the escalations collapsed to the latest.
    expect(caughtUp.slice(0, 2)).toEqual(['REMINDER-1', 'DUE0'])
    expect(caughtUp.slice(2)).toHaveLength(1)
    expect(caughtUp[2]).toMatch(/^ESCALATION\d+$/)
    const all = await kinds(id)
    expect(new Set(all).size).toBe(all.length)
    expect(beforeCrash.every((k) => k === 'REMINDER-1')).toBe(true)
    expect(await dueEvents(id)).toHaveLength(1)
    await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })
    expect((await handle.result()).outcome).toBe('CANCELLED')
  }, 180_000) // a fresh worker process bundles the workflows and waits out the dead worker's sticky queue
})
