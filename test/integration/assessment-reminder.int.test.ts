/**
 * The assessment reminder workflow end to end on the real Temporal dev server, the real worker process and the real
 * database, driven through the API. Days are shortened to half a second (ASSESSMENT_REMINDER_DAY_MS) so a due date
 * three calendar days ahead arrives in about 1–1.5 s, and an escalation a day later.
 */
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils'
import { Worker } from '@temporalio/worker'
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WORKFLOWS_PATH } from '../../worker/create-worker.ts'
import { assessmentReminderWorkflowId } from '../../workflows/assessment-reminder-contract.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 500
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
    expect(await kinds(id)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])
    expect((await notifications(id)).every((n) => n.dueDate === dueDate)).toBe(true)
    expect(await dueEvents(id)).toEqual([{ assessmentId: id, childId, providerId, instrument: 'CELF-5', dueDate }])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    const state = await handle.query('assessmentReminderState')
    expect(state).toMatchObject({ dueDate, next: { kind: 'ESCALATION', daysFromDue: 8 } })

    const done = await platform.http.post(`/v1/assessments/${id}/complete`, {
      token,
      body: { scores: [{ subtest: 'Core Language', standardScore: 79, percentile: 8 }] },
    })
    expect(done.status).toBe(200)
    // The completion signal ends the workflow well before its next (8-day) escalation would.
    expect(await handle.result()).toEqual({ outcome: 'COMPLETED', notificationsRecorded: 3 })
    if (process.env.RECORD_ASSESSMENT_REMINDER_HISTORY === '1') {
      writeFileSync(HISTORY_FILE, `${historyToJSON(await handle.fetchHistory())}\n`)
    }
    await new Promise((resolve) => setTimeout(resolve, 8 * DAY_MS))
    expect(await kinds(id)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])

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

    // 40 shortened days would be 20 s away; the new date arrives within about a second.
    await eventually(async () => ((await kinds(id)).includes('DUE0') ? true : undefined), 10_000)
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
    await new Promise((resolve) => setTimeout(resolve, 2 * DAY_MS))
    // Escalations fall on days 1, 8, 15...: of the past ones only the latest (day 8) is sent.
    expect(await kinds(id)).toEqual(['DUE0', 'ESCALATION8'])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })
    expect((await handleOf(id).result()).outcome).toBe('CANCELLED')
  })

  it('sends nothing for an assessment completed before it is due', async () => {
    // 30 days ahead: its first reminder (7 days before) is 11 s or more away, far beyond this test.
    const { id } = await schedule(localDate(30))
    const handle = handleOf(id)
    await eventually(() => handle.describe().catch(() => undefined))
    const done = await platform.http.post(`/v1/assessments/${id}/complete`, { token, body: { scores: [{ subtest: 'Core Language', rawScore: 50 }] } })
    expect(done.status).toBe(200)
    expect(await handle.result()).toEqual({ outcome: 'COMPLETED', notificationsRecorded: 0 })
    expect(await kinds(id)).toEqual([])
    expect(await dueEvents(id)).toEqual([])
  })

  it('keeps its schedule across a worker crash: the steps due while no worker ran are recorded after restart', async () => {
    const { id } = await schedule(localDate(6))
    const handle = handleOf(id)
    // A plan exists once a worker has run the workflow and its first load activity.
    const planned = await eventually(async () => {
      const state = await handle.query<{ next: unknown }>('assessmentReminderState').catch(() => undefined)
      return state?.next ? state : undefined
    }, 20_000, 50)
    expect(planned).toMatchObject({ next: { kind: 'REMINDER', daysFromDue: -1 } })
    await platform.killWorkers('SIGKILL')

    // Past the reminder and the due day (2.5–3 s away when scheduled) with no worker: nothing can be recorded.
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    expect(await kinds(id)).toEqual([])

    await platform.startWorker()
    await eventually(async () => ((await kinds(id)).includes('ESCALATION1') ? true : undefined), 60_000)
    expect(await kinds(id)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])
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
