/**
 * The booking lifecycle end to end on the real Temporal dev server, the real worker process and the real database,
 * driven through the appointments API. The policy day is shortened (CARE_WORKFLOW_DAY_MS = 14.4 s, so a policy minute
 * is 10 ms) and the no-show grace is 2 s, while appointments start seconds from now: the location's offsets of 800 and
 * 300 minutes put the reminders 8 s and 3 s before the start. Proves: reminders go out at the offsets, once each, as
 * care notifications with `appointment.reminder_due`; a reschedule answers with the re-armed next reminder and the
 * reminders follow the new time; a cancel answers with the workflow's accepted result and stops the reminders; an
 * appointment nobody checked in for becomes NO_SHOW (`appointment.no_show`) and a check-in prevents it; completing
 * answers with the workflow's result and starts the follow-up; an API update racing a timer ends in one consistent
 * outcome; a worker killed mid-workflow catches up with every effect recorded once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appointmentFollowUpWorkflowId } from '../../workflows/appointment-follow-up-contract.ts'
import { bookingWorkflowId } from '../../workflows/shared.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 14_400
const MINUTE_MS = DAY_MS / 1440
const GRACE_MS = 2000
const OFFSETS = [800, 300]

let platform: Platform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform({
    overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS), CARE_WORKFLOW_NO_SHOW_GRACE_MS: String(GRACE_MS) },
  })
  const client = await platform.newTenant(['children', 'providers', 'bookings', 'sessions'])
  tenantId = client.tenantId
  token = await platform.token(client)
  const locations = await platform.http.get('/v1/locations', { token })
  expect(locations.status, JSON.stringify(locations.body)).toBe(200)
  for (const location of locations.body.data as Array<{ id: string }>) {
    const patched = await platform.http.request('PATCH', `/v1/locations/${location.id}`, { token, body: { reminderOffsetsMinutes: OFFSETS } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  }
  // Warm the worker up (its first activity opens the database pool): the schedule is seconds long.
  const warm = await book(60_000, 1000)
  await eventually(async () => ((await view(warm)).execution === 'RUNNING' ? true : undefined), 60_000)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** Books an appointment starting `inMs` from now and lasting `durationMs`, for a new child and provider. */
async function book(inMs: number, durationMs: number): Promise<string> {
  const { childId, providerId } = await createChildAndProvider(platform.http, token)
  const startsAt = new Date(Date.now() + inMs)
  const response = await platform.http.post('/v1/appointments', {
    token,
    body: { childId, providerId, startsAt: startsAt.toISOString(), endsAt: new Date(startsAt.getTime() + durationMs).toISOString() },
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.id as string
}

async function view(id: string) {
  const response = await platform.http.get(`/v1/appointments/${id}/workflow`, { token })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

const handleOf = (id: string) => platform.temporal.workflow.getHandle(bookingWorkflowId(id))
const running = (id: string) => eventually(async () => ((await view(id)).execution === 'RUNNING' ? true : undefined), 60_000)

function reminders(appointmentId: string) {
  return platform.api.deps.db.careNotification.findMany({
    where: { tenantId, workflowKind: 'booking', kind: 'appointment_reminder', details: { path: ['appointmentId'], equals: appointmentId } },
    orderBy: { createdAt: 'asc' },
  })
}

async function events(type: string, appointmentId: string) {
  const rows = await platform.api.deps.db.event.findMany({ where: { tenantId, type }, orderBy: { createdAt: 'asc' } })
  return rows.filter((e) => (e.data as { appointmentId?: string }).appointmentId === appointmentId)
}

async function statusOf(id: string) {
  return (await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status
}

describe('booking lifecycle', () => {
  it('sends the reminders at the offsets and marks a no-show when nobody checks in', async () => {
    const id = await book(12_000, 2000)
    const appointment = await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })
    await running(id)
    const before = await view(id)
    expect(before.lifecycle).toMatchObject({ state: 'CONFIRMED', remindersSent: 0, checkedIn: false })
    expect(Date.parse(before.lifecycle.nextReminderAt)).toBe(appointment.startsAt.getTime() - 800 * MINUTE_MS)
    expect(Date.parse(before.lifecycle.noShowAt)).toBe(appointment.endsAt.getTime() + GRACE_MS)

    const result = await handleOf(id).result()
    expect(result).toEqual({ appointmentId: id, state: 'NO_SHOW' })
    expect((await view(id)).lifecycle).toMatchObject({ state: 'NO_SHOW', remindersSent: 2, nextReminderAt: null, noShowAt: null })
    const sent = await reminders(id)
    expect(sent.map((n) => (n.details as { offsetMinutes: number }).offsetMinutes)).toEqual([800, 300])
    for (const n of sent) {
      const due = appointment.startsAt.getTime() - (n.details as { offsetMinutes: number }).offsetMinutes * MINUTE_MS
      expect(n.createdAt.getTime()).toBeGreaterThanOrEqual(due)
      expect(n.childId).toBe(appointment.childId)
      // The appointment is over: its reminders need nobody's action any more.
      expect(n.status).toBe('RESOLVED')
    }
    expect(await events('appointment.reminder_due', id)).toHaveLength(2)
    const noShows = await events('appointment.no_show', id)
    expect(noShows.map((e) => (e.data as { markedBy: string }).markedBy)).toEqual(['WORKFLOW'])
    const stored = await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })
    expect(stored.status).toBe('NO_SHOW')
    expect(stored.noShowAt!.getTime()).toBeGreaterThanOrEqual(appointment.endsAt.getTime() + GRACE_MS)
    expect((await view(id)).execution).toBe('CLOSED')
    await recordHistory(handleOf(id), 'bookingWorkflow-lifecycle-reminders-no-show')
  }, 90_000)

  it('re-arms the reminders on reschedule and stops them on cancel, answering with the workflow result', async () => {
    // A whole minute long: a reschedule keeps the duration in minutes.
    const id = await book(40_000, 60_000)
    await running(id)
    const newStart = new Date(Date.now() + 14_000)
    const moved = await platform.http.post(`/v1/appointments/${id}/reschedule`, { token, body: { startsAt: newStart.toISOString() } })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(moved.body.workflow).toMatchObject({ state: 'CONFIRMED', remindersSent: 0 })
    expect(Date.parse(moved.body.workflow.nextReminderAt)).toBe(newStart.getTime() - 800 * MINUTE_MS)
    expect(Date.parse(moved.body.workflow.noShowAt)).toBe(newStart.getTime() + 60_000 + GRACE_MS)

    // The first reminder, for the new time.
    await eventually(async () => ((await reminders(id)).length === 1 ? true : undefined), 20_000)
    const cancelled = await platform.http.post(`/v1/appointments/${id}/cancel`, { token, body: { reason: 'FAMILY_REQUEST' } })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.status).toBe('CANCELLED')
    expect(cancelled.body.workflow).toEqual({ state: 'CANCELLED', nextReminderAt: null, remindersSent: 1, noShowAt: null, checkedIn: false })
    expect(await handleOf(id).result()).toEqual({ appointmentId: id, state: 'CANCELLED' })

    // Past the second reminder's time and the old time's reminders: nothing more went out.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, newStart.getTime() - Date.now()) + 500))
    const sent = await reminders(id)
    expect(sent).toHaveLength(1)
    expect(Date.parse((sent[0]!.details as { startsAt: string }).startsAt)).toBe(newStart.getTime())
    await expect(platform.http.post(`/v1/appointments/${id}/cancel`, { token, body: { reason: 'FAMILY_REQUEST' } })).resolves.toMatchObject({
      status: 409,
      body: { code: 'invalid_state_transition' },
    })
    await recordHistory(handleOf(id), 'bookingWorkflow-lifecycle-rescheduled-cancelled')
  }, 90_000)

  it('lets a check-in prevent the no-show; completing answers with the workflow result and starts the follow-up', async () => {
    const id = await book(1500, 1000)
    const session = await platform.http.post('/v1/sessions', { token, body: { appointmentId: id } })
    expect(session.status, JSON.stringify(session.body)).toBe(201)
    // Past the no-show deadline (end + grace): a checked-in appointment stays CONFIRMED.
    await new Promise((resolve) => setTimeout(resolve, 1500 + 1000 + GRACE_MS + 1500))
    expect(await statusOf(id)).toBe('CONFIRMED')
    expect((await view(id)).lifecycle).toMatchObject({ state: 'CONFIRMED', checkedIn: true, noShowAt: null })

    const completed = await platform.http.post(`/v1/appointments/${id}/complete`, { token })
    expect(completed.status, JSON.stringify(completed.body)).toBe(200)
    expect(completed.body.workflow).toMatchObject({ state: 'COMPLETED', nextReminderAt: null, noShowAt: null })
    expect(await handleOf(id).result()).toMatchObject({ state: 'COMPLETED' })
    expect(await events('appointment.no_show', id)).toHaveLength(0)

    const followUp = platform.temporal.workflow.getHandle(appointmentFollowUpWorkflowId(id))
    const description = await eventually(() => followUp.describe().catch(() => undefined), 30_000)
    expect(description.searchAttributes).toMatchObject({
      TenantId: [tenantId],
      WorkflowKind: ['appointment-follow-up'],
      AppointmentId: [id],
    })
    await eventually(async () => ((await view(id)).followUp?.status === 'WAITING_FOR_NOTE' ? true : undefined), 30_000)
  }, 90_000)

  it('decides a complete racing the no-show deadline one way, consistently', async () => {
    const ids = await Promise.all([book(500, 500), book(500, 500), book(500, 500)])
    await Promise.all(ids.map(running))
    // Each complete lands at about its appointment's no-show deadline (end + grace), a little before or after.
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        const appointment = await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })
        const at = appointment.endsAt.getTime() + GRACE_MS - 150 + i * 150
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())))
        return platform.http.post(`/v1/appointments/${id}/complete`, { token })
      })
    )
    for (const [i, id] of ids.entries()) {
      const result = await handleOf(id).result()
      const answer = answers[i]!
      expect([200, 409]).toContain(answer.status)
      if (answer.status === 200) expect(result.state).toBe('COMPLETED')
      else expect(answer.body.code).toBe('invalid_state_transition')
      expect(await statusOf(id)).toBe(result.state)
      const completedEvents = await events('appointment.completed', id)
      const noShowEvents = await events('appointment.no_show', id)
      expect(completedEvents.length + noShowEvents.length).toBe(1)
      expect(result.state === 'COMPLETED' ? completedEvents : noShowEvents).toHaveLength(1)
    }
  }, 90_000)

  it('catches up after its worker is killed: late reminder and no-show, each recorded once', async () => {
    const id = await book(10_000, 1000)
    await running(id)
    await platform.killWorkers('SIGKILL')
    // Down past both reminders and the no-show deadline.
    await new Promise((resolve) => setTimeout(resolve, 10_000 + 1000 + GRACE_MS + 1000))
    expect(await statusOf(id)).toBe('CONFIRMED')
    await platform.startWorker()
    const result = await handleOf(id).result()
    expect(result.state).toBe('NO_SHOW')
    // The timer that was running when the worker died fires once it is back; reminders whose time passed while it
    // was down are skipped (nobody is reminded after the start).
    const sent = await reminders(id)
    expect(sent).toHaveLength((await view(id)).lifecycle.remindersSent)
    expect(sent.length).toBeLessThanOrEqual(1)
    expect(await events('appointment.reminder_due', id)).toHaveLength(sent.length)
    expect(await events('appointment.no_show', id)).toHaveLength(1)
  }, 120_000)
})
