/**
 * The booking lifecycle's timers at their real lengths, on Temporal's time-skipping test server with the real
 * activities against this file's database, driven through the appointments API: the location's reminder offsets are
 * two days and two hours, the no-show grace is the default 30 minutes, and the test moves the server's clock with
 * `skip` (days of timers in milliseconds, no sleeping). The API follows the server's clock (`apiClock: 'server'`), so
 * bookings, completes and the workflow share one time line. Proves: reminders go out at the offsets (none an hour
 * before, each once it is due), once each, as care notifications with `appointment.reminder_due`; an appointment
 * nobody checked in for becomes NO_SHOW (`appointment.no_show`) at its end plus the grace and not before; a reschedule
 * answers with the re-armed next reminder and the reminders follow the new time; a cancel answers with the workflow's
 * accepted result and stops the reminders; a check-in prevents the no-show; completing answers with the workflow's
 * result and starts the follow-up; an operator's completeBooking signal goes through the same transitions: refused
 * before the start (the lifecycle goes on), and after it completing with its timestamp, event, session and follow-up,
 * once: the activity run again (a retry after its commit) writes nothing twice. Crashes and races stay on the dev server (appointment-lifecycle.int.test.ts).
 */
import { MockActivityEnvironment } from '@temporalio/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppointmentActivities } from '../../activities/appointment-activities.ts'
import { appointmentFollowUpWorkflowId } from '../../common/appointments/appointment-follow-up-contract.ts'
import { completeAppointmentSignal } from '../../common/appointments/appointment-workflow-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { appointmentScenario } from '../support/appointment-scenario.ts'
import { newCentre, patchLocations, type Centre } from '../support/centre.ts'
import { APPOINTMENT_SCOPES } from '../support/fixtures.ts'
import { eventually } from '../support/platform.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
/** Two days and two hours before the start (the locations' defaults, set explicitly so the test states them). */
const OFFSETS = [2880, 120]
/** The default no-show grace (CARE_WORKFLOW_NO_SHOW_GRACE_MS). */
const GRACE_MS = 30 * MINUTE_MS

let platform: TimeSkippingPlatform
let centre: Centre

beforeAll(async () => {
  platform = await startTimeSkippingPlatform({ apiClock: 'server' })
  centre = await newCentre(platform, APPOINTMENT_SCOPES)
  await patchLocations(centre, { reminderOffsetsMinutes: OFFSETS })
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { bookBetween, view, handleOf, running, reminders, events, statusOf } = appointmentScenario(() => centre)

/** The appointment's reminders once `count` of them are recorded (the count is then checked exactly). */
async function remindersOnce(appointmentId: string, count: number) {
  const rows = await eventually(
    async () => ((await reminders(appointmentId)).length >= count ? reminders(appointmentId) : undefined),
    30_000
  )
  expect(rows).toHaveLength(count)
  return rows
}

/** Books an appointment starting `inMs` after the API's now and lasting an hour, for a new child and provider. */
async function book(inMs: number) {
  // Whole minutes: a reschedule keeps the duration in minutes.
  const startsAt = Math.ceil((platform.apiNow() + inMs) / MINUTE_MS) * MINUTE_MS
  const endsAt = startsAt + HOUR_MS
  const { id, childId } = await bookBetween(startsAt, endsAt)
  return { id, childId, startsAt, endsAt }
}

/** How many of the workflow's operator steps (the recordAppointmentStatus activity) have completed. */
async function operatorStepsOf(id: string) {
  const history = (await handleOf(id).fetchHistory()).events ?? []
  const scheduled = new Set(
    history
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordAppointmentStatus')
      .map((e) => String(e.eventId))
  )
  return history.filter((e) => scheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId))).length
}

const offsetsOf = (rows: Array<{ details: unknown }>) =>
  rows.map((n) => (n.details as { offsetMinutes: number }).offsetMinutes)

describe('booking lifecycle timers', () => {
  it('sends the reminders at the offsets and marks a no-show at the end plus the grace when nobody checks in', async () => {
    const appointment = await book(3 * DAY_MS)
    const { id } = appointment
    const before = await running(id)
    expect(before.lifecycle).toMatchObject({ state: 'CONFIRMED', remindersSent: 0, checkedIn: false })
    const [first, second] = OFFSETS.map((offset) => appointment.startsAt - offset * MINUTE_MS) as [number, number]
    const deadline = appointment.endsAt + GRACE_MS
    expect(Date.parse(before.lifecycle.nextReminderAt)).toBe(first)
    expect(Date.parse(before.lifecycle.noShowAt)).toBe(deadline)

    // Each reminder: none an hour before it is due, recorded once its time has come, the next one armed.
    await platform.skipTo(first - HOUR_MS)
    expect(await reminders(id)).toHaveLength(0)
    await platform.skipTo(first)
    expect(offsetsOf(await remindersOnce(id, 1))).toEqual([2880])
    expect(await platform.now()).toBeGreaterThanOrEqual(first)
    expect((await view(id)).lifecycle).toMatchObject({
      remindersSent: 1,
      nextReminderAt: new Date(second).toISOString(),
    })
    await platform.skipTo(second - HOUR_MS)
    expect(await reminders(id)).toHaveLength(1)
    await platform.skipTo(second)
    expect(offsetsOf(await remindersOnce(id, 2))).toEqual([2880, 120])
    expect((await view(id)).lifecycle).toMatchObject({ state: 'CONFIRMED', remindersSent: 2, nextReminderAt: null })

    // Past the end, within the grace: still CONFIRMED. At the deadline: NO_SHOW.
    await platform.skipTo(deadline - 10 * MINUTE_MS)
    expect(await statusOf(id)).toBe('CONFIRMED')
    await platform.skipTo(deadline)
    const result = await handleOf(id).result()
    expect(result).toEqual({ appointmentId: id, state: 'NO_SHOW' })
    expect((await view(id)).lifecycle).toMatchObject({
      state: 'NO_SHOW',
      remindersSent: 2,
      nextReminderAt: null,
      noShowAt: null,
    })
    const sent = await reminders(id)
    expect(offsetsOf(sent)).toEqual(OFFSETS)
    for (const n of sent) {
      expect(n.childId).toBe(appointment.childId)
      // The appointment is over: its reminders need nobody's action any more.
      expect(n.status).toBe('RESOLVED')
    }
    expect(await events('appointment.reminder_due', id)).toHaveLength(2)
    const noShows = await events('appointment.no_show', id)
    expect(noShows.map((e) => (e.data as { markedBy: string }).markedBy)).toEqual(['WORKFLOW'])
    const stored = await platform.db.appointment.findUniqueOrThrow({ where: { id } })
    expect(stored.status).toBe('NO_SHOW')
    // Stamped on the workflow's time line (the activities' clock follows the server).
    expect(stored.noShowAt!.getTime()).toBeGreaterThanOrEqual(deadline)
    expect((await view(id)).execution).toBe('CLOSED')
    await recordHistory(handleOf(id), 'bookingWorkflow-lifecycle-reminders-no-show')
  })

  it('re-arms the reminders on reschedule and stops them on cancel, answering with the workflow result', async () => {
    const appointment = await book(5 * DAY_MS)
    const { id } = appointment
    await running(id)
    const newStart = Math.ceil((platform.apiNow() + 3 * DAY_MS) / MINUTE_MS) * MINUTE_MS
    const moved = await platform.http.post(`/v1/appointments/${id}/reschedule`, {
      token: centre.token,
      body: { startsAt: new Date(newStart).toISOString() },
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(moved.body.workflow).toMatchObject({ state: 'CONFIRMED', remindersSent: 0 })
    expect(Date.parse(moved.body.workflow.nextReminderAt)).toBe(newStart - 2880 * MINUTE_MS)
    expect(Date.parse(moved.body.workflow.noShowAt)).toBe(newStart + HOUR_MS + GRACE_MS)

    // The first reminder, for the new time.
    await platform.skipTo(newStart - 2880 * MINUTE_MS)
    const first = await remindersOnce(id, 1)
    expect(offsetsOf(first)).toEqual([2880])
    expect(Date.parse((first[0]!.details as { startsAt: string }).startsAt)).toBe(newStart)
    const cancelled = await platform.http.post(`/v1/appointments/${id}/cancel`, {
      token: centre.token,
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.status).toBe('CANCELLED')
    expect(cancelled.body.workflow).toEqual({
      state: 'CANCELLED',
      nextReminderAt: null,
      remindersSent: 1,
      noShowAt: null,
      checkedIn: false,
    })
    expect(await handleOf(id).result()).toEqual({ appointmentId: id, state: 'CANCELLED' })

    // Past the new time's second reminder and every reminder of the old time: nothing more went out.
    await platform.skipTo(appointment.endsAt + DAY_MS)
    const sent = await reminders(id)
    expect(sent).toHaveLength(1)
    expect(await events('appointment.reminder_due', id)).toHaveLength(1)
    await expect(
      platform.http.post(`/v1/appointments/${id}/cancel`, { token: centre.token, body: { reason: 'FAMILY_REQUEST' } })
    ).resolves.toMatchObject({
      status: 409,
      body: { code: 'invalid_state_transition' },
    })
    await recordHistory(handleOf(id), 'bookingWorkflow-lifecycle-rescheduled-cancelled')
  })

  it('lets a check-in prevent the no-show; completing answers with the workflow result and starts the follow-up', async () => {
    const appointment = await book(DAY_MS)
    const { id } = appointment
    await running(id)
    const session = await platform.http.post('/v1/sessions', { token: centre.token, body: { appointmentId: id } })
    expect(session.status, JSON.stringify(session.body)).toBe(201)
    // Past the no-show deadline (end + grace): a checked-in appointment stays CONFIRMED.
    await platform.skipTo(appointment.endsAt + GRACE_MS + HOUR_MS)
    // The workflow has decided at the deadline (it no longer holds one) and found the check-in.
    const after = await eventually(
      async () => ((await view(id)).lifecycle.noShowAt === null ? view(id) : undefined),
      30_000
    )
    expect(after.lifecycle).toMatchObject({ state: 'CONFIRMED', checkedIn: true, noShowAt: null })
    expect(await statusOf(id)).toBe('CONFIRMED')
    expect(await events('appointment.no_show', id)).toHaveLength(0)

    const completed = await platform.http.post(`/v1/appointments/${id}/complete`, { token: centre.token })
    expect(completed.status, JSON.stringify(completed.body)).toBe(200)
    expect(completed.body.workflow).toMatchObject({ state: 'COMPLETED', nextReminderAt: null, noShowAt: null })
    expect(await handleOf(id).result()).toMatchObject({ state: 'COMPLETED' })
    expect(await events('appointment.no_show', id)).toHaveLength(0)

    const followUp = platform.temporal.workflow.getHandle(appointmentFollowUpWorkflowId(id))
    const description = await eventually(() => followUp.describe().catch(() => undefined), 30_000)
    expect(description.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
      WorkflowKind: ['appointment-follow-up'],
      AppointmentId: [id],
    })
    await eventually(async () => ((await view(id)).followUp?.status === 'WAITING_FOR_NOTE' ? true : undefined), 30_000)
  })

  it("makes an operator's complete through the transitions: refused before the start, complete with its effects after", async () => {
    const appointment = await book(DAY_MS)
    const { id } = appointment
    await running(id)
    const handle = handleOf(id)

    // Before the start the state machine refuses: nothing is written and the lifecycle goes on.
    await handle.signal(completeAppointmentSignal)
    await eventually(async () => ((await operatorStepsOf(id)) === 1 ? true : undefined), 30_000)
    expect(await statusOf(id)).toBe('CONFIRMED')
    expect((await view(id)).execution).toBe('RUNNING')
    expect((await view(id)).lifecycle).toMatchObject({ state: 'CONFIRMED' })
    expect(await events('appointment.completed', id)).toHaveLength(0)

    // After the start, the same signal completes it as the API would: timestamp, event, session, follow-up.
    await platform.skipTo(appointment.startsAt + 10 * MINUTE_MS)
    await handle.signal(completeAppointmentSignal)
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'COMPLETED' })
    const stored = await platform.db.appointment.findUniqueOrThrow({ where: { id }, include: { session: true } })
    expect(stored.status).toBe('COMPLETED')
    expect(stored.completedAt!.getTime()).toBeGreaterThanOrEqual(appointment.startsAt)
    expect(stored.session).not.toBeNull()
    const completedEvents = await events('appointment.completed', id)
    expect(completedEvents).toHaveLength(1)
    expect(completedEvents[0]!.data).toMatchObject({ appointmentId: id, sessionId: stored.session!.id })
    const followUp = platform.temporal.workflow.getHandle(appointmentFollowUpWorkflowId(id))
    await eventually(() => followUp.describe().catch(() => undefined), 30_000)
    await recordHistory(handle, 'bookingWorkflow-lifecycle-operator-complete-refused-then-completed')

    // A retry of the step after its commit (a worker that died before reporting the activity done) runs it again, as
    // the worker wires it: it finds the appointment completed and writes nothing twice.
    const retry = new MockActivityEnvironment({ taskQueue: 'booking-step-retry' }, { client: platform.temporal })
    const activities = createAppointmentActivities({ db: platform.db, now: () => new Date(platform.apiNow()) })
    const again = await retry.run(activities.recordAppointmentStatus, {
      tenantId: centre.tenantId,
      appointmentId: id,
      status: 'COMPLETED' as const,
    })
    expect(again).toBe('COMPLETED')
    expect(await events('appointment.completed', id)).toHaveLength(1)
    expect(await platform.db.appointment.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'COMPLETED',
      completedAt: stored.completedAt,
    })
    expect(await platform.db.session.count({ where: { appointmentId: id } })).toBe(1)
    expect(await platform.db.workflowOutbox.count({ where: { workflowId: appointmentFollowUpWorkflowId(id) } })).toBe(1)
  })
})
