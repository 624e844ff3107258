/**
 * The assessment reminder workflow end to end on Temporal's time-skipping test server: the real API, a real worker with
 * the real activities and the real database, on the policy's real days (ASSESSMENT_REMINDER_DAY_MS left at its
 * default). The test moves the server's clock with `skip()`, so weeks of reminders and escalations take milliseconds
 * and every step is asserted exactly: nothing "may already have gone out". Dates are the centre's calendar dates on
 * the workflows' clock (`platform.now()`), which runs ahead of the wall clock by everything skipped. Races of a
 * completion with the timers and a worker crash are in assessment-reminder-outage.int.test.ts, on the dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assessmentReminderWorkflowId,
  type AssessmentReminderState,
} from '../../common/assessments/assessment-reminder-contract.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually } from '../support/platform.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'
import { recordHistory } from '../replay-histories/record-history.ts'

const DAY_MS = 86_400_000
const ZONE = 'America/Chicago'

let platform: TimeSkippingPlatform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startTimeSkippingPlatform()
  const client = await platform.newTenant(['children', 'providers', 'assessments'], ZONE)
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** The centre's calendar date `days` from today, today on the workflows' clock. */
async function localDate(days: number): Promise<string> {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(await platform.now()))
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
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
  (await platform.db.event.findMany({ where: { tenantId, type: 'assessment.due' } }))
    .map((e) => e.data as { assessmentId: string })
    .filter((d) => d.assessmentId === assessmentId)

const handleOf = (id: string) => platform.temporal.workflow.getHandle(assessmentReminderWorkflowId(tenantId, id))
const stateOf = (id: string) => handleOf(id).query<AssessmentReminderState>('assessmentReminderState')

/** The workflow's plan once it has loaded the assessment (with `dueDate`, when given): time may move only then. */
const planned = (id: string, dueDate?: string) =>
  eventually(async () => {
    const state = await stateOf(id).catch(() => undefined)
    return state?.next && (!dueDate || state.dueDate === dueDate) ? state : undefined
  })

/** Moves the workflows' clock to `at` (epoch ms on that clock). */
async function skipTo(at: number) {
  const wait = at - (await platform.now())
  expect(wait).toBeGreaterThan(0)
  await platform.skip(wait)
}

describe('assessment reminder workflow', () => {
  it('reminds, announces assessment.due on the day, escalates while overdue, and ends on completion', async () => {
    const dueDate = await localDate(3)
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
    const plan = await planned(id)
    expect(plan.next).toMatchObject({ kind: 'REMINDER', daysFromDue: -1 })
    const dueAt = Date.parse(plan.next!.at) + DAY_MS
    await skipTo(dueAt - DAY_MS - 60_000)
    expect(await kinds(id)).toEqual([])
    // A minute past the first escalation (the day after the due day): the reminder, the due notice and it, once each.
    await skipTo(dueAt + DAY_MS + 60_000)
    expect(await kinds(id)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])
    expect((await notifications(id)).every((n) => n.dueDate === dueDate)).toBe(true)
    expect(await dueEvents(id)).toEqual([{ assessmentId: id, childId, providerId, instrument: 'CELF-5', dueDate }])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    const state = await stateOf(id)
    expect(state.dueDate).toBe(dueDate)
    // The next escalation a week after the first.
    expect(state.next).toMatchObject({
      kind: 'ESCALATION',
      daysFromDue: 8,
      at: new Date(dueAt + 8 * DAY_MS).toISOString(),
    })

    const done = await platform.http.post(`/v1/assessments/${id}/complete`, {
      token,
      body: { scores: [{ subtest: 'Core Language', standardScore: 79, percentile: 8 }] },
    })
    expect(done.status).toBe(200)
    // The completion signal ends the workflow; nothing is sent after it, not even past the next escalations.
    const result = await handle.result()
    expect(result).toEqual({ outcome: 'COMPLETED', notificationsRecorded: 3 })
    // A complete run (reminder, due, escalation, completion signal): the replay test replays it against later code.
    await recordHistory(handle, 'assessmentReminderWorkflow-reminded-due-escalated-completed')
    await platform.skip('15 days')
    expect(await kinds(id)).toEqual(['REMINDER-1', 'DUE0', 'ESCALATION1'])

    // The re-assessment at the cadence got its own reminder workflow.
    const next = done.body.nextAssessmentId as string
    const nextDescription = await eventually(() =>
      handleOf(next)
        .describe()
        .catch(() => undefined)
    )
    expect(nextDescription.status.name).toBe('RUNNING')
    await handleOf(next).terminate('test cleanup')
  })

  it('re-plans when the due date moves, and never announces the old date', async () => {
    const { id } = await schedule(await localDate(40))
    const handle = handleOf(id)
    await planned(id)
    const newDue = await localDate(2)
    const moved = await platform.http.request('PATCH', `/v1/assessments/${id}`, { token, body: { dueDate: newDue } })
    expect(moved.status).toBe(200)
    await planned(id, newDue)

    // Past the new date and the old one: one due notice, for the new date.
    await platform.skip('41 days')
    const recorded = await notifications(id)
    expect(recorded.filter((n) => n.kind === 'DUE').map((n) => n.dueDate)).toEqual([newDue])
    expect(recorded.every((n) => n.dueDate === newDue)).toBe(true)
    expect((await dueEvents(id)).map((e) => (e as unknown as { dueDate: string }).dueDate)).toEqual([newDue])

    expect((await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })).status).toBe(200)
    expect((await handle.result()).outcome).toBe('CANCELLED')
  })

  it('catches up an assessment created overdue with one due notice and one escalation', async () => {
    const dueDate = await localDate(-10)
    const { id } = await schedule(dueDate)
    // Time stands still until the test moves it: whatever the catch-up sends, it sends now.
    const plan = await planned(id)
    await eventually(async () => ((await kinds(id)).length >= 2 ? true : undefined))
    // Escalations fall on days 1, 8, 15...: of the past ones only the latest (day 8) is sent.
    expect(await kinds(id)).toEqual(['DUE0', 'ESCALATION8'])
    expect((await platform.http.get(`/v1/assessments/${id}`, { token })).body.status).toBe('OVERDUE')
    // Nothing more until the next escalation (day 15), which then goes out on its day.
    const next = await stateOf(id)
    expect(next.next).toMatchObject({ kind: 'ESCALATION', daysFromDue: 15 })
    expect(plan.dueDate).toBe(dueDate)
    await skipTo(Date.parse(next.next!.at) - 60_000)
    expect(await kinds(id)).toEqual(['DUE0', 'ESCALATION8'])
    await platform.skip('2 minutes')
    expect(await kinds(id)).toEqual(['DUE0', 'ESCALATION8', 'ESCALATION15'])
    await platform.http.request('DELETE', `/v1/assessments/${id}`, { token })
    expect((await handleOf(id).result()).outcome).toBe('CANCELLED')
  })

  it('sends nothing for an assessment completed before it is due', async () => {
    const { id } = await schedule(await localDate(30))
    const handle = handleOf(id)
    await planned(id)
    await platform.skip('20 days')
    const done = await platform.http.post(`/v1/assessments/${id}/complete`, {
      token,
      body: { scores: [{ subtest: 'Core Language', rawScore: 50 }] },
    })
    expect(done.status).toBe(200)
    expect(await handle.result()).toEqual({ outcome: 'COMPLETED', notificationsRecorded: 0 })
    await platform.skip('15 days')
    expect(await kinds(id)).toEqual([])
    expect(await dueEvents(id)).toEqual([])
  })
})
