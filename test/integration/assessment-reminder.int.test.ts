/**
 * The assessment reminder workflow end to end on the real Temporal dev server, the real worker process and the real
 * database, driven through the API. Days are shortened to one second (ASSESSMENT_REMINDER_DAY_MS) so a due date
 * three calendar days ahead arrives in about 2–3 s, and the first escalation a second later. Assertions allow for a
 * slow machine (a later escalation may already have gone out) but not for anything out of order or repeated.
 */
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js'
import { Worker } from '@temporalio/worker'
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WORKFLOWS_PATH } from '../../worker/create-worker.ts'
import { assessmentReminderWorkflowId } from '../../workflows/assessment-reminder-contract.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 1000
/**
 * A complete run (reminder, due, escalation, completion signal) recorded from this file with
 * RECORD_ASSESSMENT_REMINDER_HISTORY=1; replaying it proves that changed workflow code still replays old runs.
 */
const HISTORY_FILE = new URL('../fixtures/workflow-histories/assessment-reminder-v1.json', import.meta.url)
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

async function schedule(dueDate: string, extra: Record<string, unknown> = {}) {
  const { childId, providerId } = await createChildAndProvider(platform.http, token, ZONE)
  const response = await platform.http.post('/v1/assessments', {
    token,
    body: { childId, providerId, instrument: 'CELF-5', dueDate, ...extra },
  })
  expect(response.status).toBe(201)
  return { id: response.body.id as string, childId, providerId }
}

const notifications = async (id: string) =>
  (await platform.http.get(`/v1/assessments/${id}/notifications?limit=100`, { token })).body.data as Array<{
    kind: string
    daysFromDue: number
    dueDate: string
  }>
const kinds = async (id: string) => (await notifications(id)).map((n) => `${n.kind}${n.daysFromDue}`)

const dueEvents = async (assessmentId: string) =>
  (await platform.api.deps.db.event.findMany({ where: { tenantId, type: 'assessment.due' } }))
    .map((e) => e.data as { assessmentId: string })
    .filter((d) => d.assessmentId === assessmentId)

const handleOf = (id: string) => platform.temporal.workflow.getHandle(assessmentReminderWorkflowId(tenantId, id))

describe('assessment reminder workflow', () => {
  it('reminds, announces assessment.due on the day, escalates while overdue, and ends on completion', async () => {
    const dueDate = localDate(3)
    const { id, childId, providerId } = await schedule(dueDate, { reassessmentCadenceDays: 90 })

    const handle = handleOf(id)
    const description = await eventually(() => handle.describe().catch(() => undefined))
    expect(description.type).toBe('assessmentReminderWorkflow')
    const attrs = description.searchAttributes as Record<string, unknown[]>
    expect(attrs.TenantId).toEqual([tenantId])
    expect(attrs.WorkflowKind).toEqual(['assessment-reminder'])
    expect(attrs.ChildId).toEqual([childId])
    expect(attrs.ProviderId).toEqual([providerId])

    // The 7-day reminder's moment had passed when it was scheduled (3 days ahead): only the 1-day reminder goes out.
    await eventually(async () => ((await kinds(id)).includes('ESCALATION1') ? true : undefined), 20_000)
    const sent = await kinds(id)
    expect(sent.slice(0, 3)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])
    // Only later escalations (8, 15...) can follow, on a slow machine.
    expect(sent.slice(3).every((k) => /^ESCALATION(8|15|22)$/.test(k))).toBe(true)
    expect((await notifications(id)).every((n) => n.dueDate === dueDate)).toBe(true)
    expect(await dueEvents(id)).toEqual([{ assessmentId: id, childId, providerId, instrument: 'CELF-5', dueDate }])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    const state = await handle.query<{ dueDate: string; next: { kind: string } | null }>('assessmentReminderState')
    expect(state.dueDate).toBe(dueDate)
    expect(state.next?.kind).toBe('ESCALATION')

    const done = await platform.http.post(`/v1/assessments/${id}/complete`, {
      token,
      body: { scores: [{ subtest: 'Core Language', standardScore: 79, percentile: 8 }] },
    })
    expect(done.status).toBe(200)
    // The completion signal ends the workflow; nothing is sent after it.
    const result = await handle.result()
    const atEnd = await kinds(id)
    expect(result).toEqual({ outcome: 'COMPLETED', notificationsRecorded: atEnd.length })
    if (process.env.RECORD_ASSESSMENT_REMINDER_HISTORY === '1') {
      writeFileSync(HISTORY_FILE, `${historyToJSON(await handle.fetchHistory())}\n`)
    }
    await new Promise((resolve) => setTimeout(resolve, 8 * DAY_MS))
    expect(await kinds(id)).toEqual(atEnd)

    // The re-assessment at the cadence got its own reminder workflow.
    const next = done.body.nextAssessmentId as string
    const nextDescription = await eventually(() => handleOf(next).describe().catch(() => undefined))
    expect(nextDescription.status.name).toBe('RUNNING')
    await handleOf(next).terminate('test cleanup')
  })

  it('re-plans when the due date moves, and never announces the old date', async () => {
    const { id } = await schedule(localDate(40))
    const handle = handleOf(id)
    await eventually(() => handle.describe().catch(() => undefined))
    const newDue = localDate(2)
    const moved = await platform.http.request('PATCH', `/v1/assessments/${id}`, { token, body: { dueDate: newDue } })
    expect(moved.status).toBe(200)

    // 40 shortened days would be 40 s away; the new date arrives within a few seconds.
    await eventually(async () => ((await kinds(id)).includes('DUE0') ? true : undefined), 15_000)
    const recorded = await notifications(id)
    expect(recorded.filter((n) => n.kind === 'DUE').map((n) => n.dueDate)).toEqual([newDue])
    expect((await dueEvents(id)).map((e) => (e as unknown as { dueDate: string }).dueDate)).toEqual([newDue])

    expect((await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })).status).toBe(200)
    expect((await handle.result()).outcome).toBe('CANCELLED')
  })

  it('catches up an assessment created overdue with one due notice and one escalation', async () => {
    const dueDate = localDate(-10)
    const { id } = await schedule(dueDate)
    await eventually(async () => ((await kinds(id)).length >= 2 ? true : undefined), 10_000)
    await new Promise((resolve) => setTimeout(resolve, DAY_MS / 2))
    // Escalations fall on days 1, 8, 15...: of the past ones only the latest (day 8) is sent.
    expect(await kinds(id)).toEqual(['DUE0', 'ESCALATION8'])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })
    expect((await handleOf(id).result()).outcome).toBe('CANCELLED')
  })

  it('sends nothing for an assessment completed before it is due', async () => {
    // 30 days ahead: its first reminder (7 days before) is 22 s or more away, far beyond this test.
    const { id } = await schedule(localDate(30))
    const handle = handleOf(id)
    await eventually(() => handle.describe().catch(() => undefined))
    const done = await platform.http.post(`/v1/assessments/${id}/complete`, { token, body: { scores: [{ subtest: 'Core Language', rawScore: 50 }] } })
    expect(done.status).toBe(200)
    expect(await handle.result()).toEqual({ outcome: 'COMPLETED', notificationsRecorded: 0 })
    expect(await kinds(id)).toEqual([])
    expect(await dueEvents(id)).toEqual([])
  })

  it('completions through the API racing the due notice and the first escalation: whatever wins, nothing follows them', async () => {
    // Offsets from each assessment's due moment: before its 1-day reminder (-1 day) fires, either side of the due notice
    // (0), at the first escalation (+1 day), and well after both. The outer two are wide so that a loaded machine
    // cannot turn them into ties: they make sure both outcomes of the race were exercised.
    const offsets = [-1100, -150, 150, 1050, 3000]
    // Five calendar days ahead: the due moment is 4–5 s away, room to create all of them before the earliest completes.
    const dueDate = localDate(5)
    const scheduled = await Promise.all(offsets.map(() => schedule(dueDate)))
    const dueAts = await Promise.all(
      scheduled.map(async ({ id }) => {
        const next = await eventually(async () => {
          const state = await handleOf(id)
            .query<{ next: { daysFromDue: number; at: string } | null }>('assessmentReminderState')
            .catch(() => undefined)
          return state?.next ?? undefined
        }, 20_000, 50)
        // The workflow's plan is in workflow time, which is wall time here; the due moment follows from any step's.
        return Date.parse(next.at) - next.daysFromDue * DAY_MS
      })
    )
    // A setup check: were the earliest completion already late, the race below would prove less than it claims.
    expect(dueAts[0]! + offsets[0]! - Date.now()).toBeGreaterThan(200)

    const answers = await Promise.all(
      scheduled.map(async ({ id }, i) => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAts[i]! + offsets[i]! - Date.now())))
        return platform.http.post(`/v1/assessments/${id}/complete`, {
          token,
          body: { scores: [{ subtest: 'Core Language', standardScore: 85 }] },
        })
      })
    )
    expect(answers.map((a) => a.status)).toEqual(offsets.map(() => 200))
    const results = await Promise.all(scheduled.map(({ id }) => handleOf(id).result()))

    const db = platform.api.deps.db
    const eventsOf = async (id: string, type: string) =>
      (await db.event.findMany({ where: { tenantId, type }, orderBy: { createdAt: 'asc' } })).filter(
        (e) => (e.data as { assessmentId: string }).assessmentId === id
      )
    const recordedOf = async (id: string) => {
      const rows = await db.assessmentNotification.findMany({ where: { tenantId, assessmentId: id }, orderBy: { createdAt: 'asc' } })
      return { rows, keys: rows.map((n) => `${n.kind}${n.daysFromDue}`), dueEvents: await eventsOf(id, 'assessment.due') }
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
    const { id } = await schedule(localDate(6))
    const handle = handleOf(id)
    // A plan exists once a worker has run the workflow and its first load activity.
    const planned = await eventually(async () => {
      const state = await handle.query<{ next: unknown }>('assessmentReminderState').catch(() => undefined)
      return state?.next ? state : undefined
    }, 20_000, 50)
    expect(planned).toMatchObject({ next: { kind: 'REMINDER', daysFromDue: -1 } })
    await platform.killWorkers('SIGKILL')
    const beforeCrash = await kinds(id)

    // Past the reminder, the due day and the first escalation (5–6 s away when scheduled) with no worker.
    await new Promise((resolve) => setTimeout(resolve, 8 * DAY_MS))
    expect(await kinds(id)).toEqual(beforeCrash)

    await platform.startWorker()
    // Read as soon as the catch-up shows: a later escalation may then go out at its own time (ESCALATION8 is due
    // 7 s after ESCALATION1), which a later read would mix with what came due while no worker ran.
    const caughtUp = await eventually(async () => {
      const seen = await kinds(id)
      return seen.some((k) => k.startsWith('ESCALATION')) ? seen : undefined
    }, 90_000, 50)
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

describe('assessment reminder workflow code', () => {
  it('replays the committed history of a complete run without nondeterminism', async () => {
    const history = historyFromJSON(JSON.parse(readFileSync(HISTORY_FILE, 'utf8')))
    expect(history.events?.length).toBeGreaterThan(20)
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history, 'assessment-reminder-v1')
  }, 120_000)
})
