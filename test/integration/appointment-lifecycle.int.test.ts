/**
 * The booking lifecycle's crashes and races on the real Temporal dev server, the real worker process and the real
 * database, driven through the appointments API: an API update racing the no-show timer ends in one consistent
 * outcome; a worker killed mid-workflow catches up with every effect recorded once; reschedules accepted before the
 * workflow's first read (its worker was down) keep the search attributes on the latest parties, behind a `patched()`
 * change recorded as a replay history. The policy day is shortened
 * (CARE_WORKFLOW_DAY_MS = 14.4 s, so a policy minute is 10 ms: the location's offsets of 200 and 100 minutes put the
 * reminders 2 s and 1 s before the start) and the no-show grace is 500 ms, because these runs happen in real time.
 * The timers' behaviour at real lengths (reminders, reschedule, cancel, check-in, no-show) is proven on the
 * time-skipping server (appointment-lifecycle-timers.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cancelAppointmentSignal,
  rescheduleAppointmentUpdate,
  SEARCH_ATTRIBUTES_BEFORE_READ_PATCH,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { appointmentScenario } from '../support/appointment-scenario.ts'
import { newCentre, patchLocations, type Centre } from '../support/centre.ts'
import { APPOINTMENT_SCOPES } from '../support/fixtures.ts'
import { eventually, startPlatform, until, type Platform } from '../support/platform.ts'

const DAY_MS = 14_400
const GRACE_MS = 500
const OFFSETS = [200, 100]

let platform: Platform
let centre: Centre

beforeAll(async () => {
  platform = await startPlatform({
    overrides: {
      CARE_WORKFLOW_DAY_MS: String(DAY_MS),
      CARE_WORKFLOW_NO_SHOW_GRACE_MS: String(GRACE_MS),
      // The shortened day puts the reminders seconds before starts that are still an hour ahead in real time, which a
      // deferred start would wait for; this file tests the lifecycle's steps (deferral: booking-deferred-start).
      BOOKING_WORKFLOW_START: 'immediate',
    },
  })
  centre = await newCentre(platform, APPOINTMENT_SCOPES)
  await patchLocations(centre, { reminderOffsetsMinutes: OFFSETS })
  // Warm the worker up (its first activity opens the database pool): the schedules below are seconds long.
  const warm = await book(3_600_000, 1000)
  await running(warm.id)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { bookBetween, view, handleOf, running, reminders, events, statusOf } = appointmentScenario(() => centre)

/**
 * Books an appointment starting `inMs` from now (negative: already started, within the API's tolerance for the past)
 * and lasting `durationMs`, for a new child and provider.
 */
async function book(inMs: number, durationMs: number) {
  const startsAt = Date.now() + inMs
  const { id } = await bookBetween(startsAt, startsAt + durationMs)
  return { id, noShowAt: startsAt + durationMs + GRACE_MS }
}

describe('booking lifecycle', () => {
  it('decides a complete racing the no-show deadline one way, consistently', async () => {
    // Started a second ago (a complete is allowed at once), ending in a second: the deadline is 1.5 s away.
    const bookings = await Promise.all([book(-1000, 2000), book(-1000, 2000), book(-1000, 2000)])
    await Promise.all(bookings.map(({ id }) => running(id)))
    // Each complete lands at about its appointment's no-show deadline (end + grace), a little before or after.
    const answers = await Promise.all(
      bookings.map(async ({ id, noShowAt }, i) => {
        await until(noShowAt - 150 + i * 150)
        return platform.http.post(`/v1/appointments/${id}/complete`, { token: centre.token })
      })
    )
    for (const [i, { id }] of bookings.entries()) {
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
  })

  it('catches up after its worker is killed: late reminder and no-show, each recorded once', async () => {
    // Reminders 2 s and 3 s from now, the no-show deadline 5 s from now.
    const booking = await book(4000, 500)
    const { id } = booking
    await running(id)
    await platform.killWorkers('SIGKILL')
    // Killed mid-workflow: before the no-show (a reminder may already have gone out on a slow machine).
    expect(await statusOf(id), 'the worker was killed only after the no-show deadline').toBe('CONFIRMED')
    const beforeKill = (await reminders(id)).length
    // Down past both reminders and the no-show deadline.
    await until(booking.noShowAt)
    expect(await statusOf(id)).toBe('CONFIRMED')
    await platform.startWorker()
    const result = await handleOf(id).result()
    expect(result.state).toBe('NO_SHOW')
    // The timer that was running when the worker died fires once it is back; reminders whose time passed while it
    // was down are skipped (nobody is reminded after the start).
    const sent = await reminders(id)
    expect(sent).toHaveLength((await view(id)).lifecycle.remindersSent)
    expect(sent.length).toBeLessThanOrEqual(beforeKill + 1)
    expect(await events('appointment.reminder_due', id)).toHaveLength(sent.length)
    expect(await events('appointment.no_show', id)).toHaveLength(1)
  }, 120_000)

  it('keeps its search attributes on the latest parties through reschedules accepted before its first read', async () => {
    // No worker: the workflow starts (through the outbox) but cannot run its first task, so the updates below are
    // accepted before it has read its appointment.
    await platform.killWorkers('SIGKILL')
    const booking = await book(3_600_000, 1000)
    const handle = handleOf(booking.id)
    await eventually(() => handle.describe().catch(() => undefined), 30_000)
    const stored = await platform.db.appointment.findUniqueOrThrow({ where: { id: booking.id } })
    const moveTo = (providerId: string) => ({
      startsAt: stored.startsAt.toISOString(),
      endsAt: stored.endsAt.toISOString(),
      providerId,
      locationId: stored.locationId,
      reminderOffsetsMinutes: OFFSETS,
    })
    // Sent straight to the workflow, as the API does before it commits. Both keep the location and change the
    // provider, the case the old precedence missed for the second one.
    const updates = ['prv_moved_first', 'prv_moved_second'].map((providerId) =>
      handle.executeUpdate(rescheduleAppointmentUpdate, { args: [moveTo(providerId)] })
    )
    await new Promise((resolve) => setTimeout(resolve, 1000))
    await platform.startWorker()
    await Promise.all(updates)

    const history = (await handle.fetchHistory()).events ?? []
    const upserts = history.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes)
    const patches = history.filter((e) =>
      Buffer.from(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data ?? [])
        .toString()
        .includes(SEARCH_ATTRIBUTES_BEFORE_READ_PATCH)
    )
    const lastProvider = (await handle.describe()).typedSearchAttributes.get(searchAttributeKeys.ProviderId)
    expect(['prv_moved_first', 'prv_moved_second']).toContain(lastProvider)
    // Each request moved the attributes (besides the patch markers' own TemporalChangeVersion upserts).
    const providerUpserts = upserts.filter((e) =>
      Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).includes(
        'ProviderId'
      )
    )
    expect(providerUpserts).toHaveLength(2)
    expect(patches).toHaveLength(1)

    // An operator closes it, through the appointment's transitions.
    await handle.signal(cancelAppointmentSignal, {})
    expect(await handle.result()).toEqual({ appointmentId: booking.id, state: 'CANCELLED' })
    const cancelled = await platform.db.appointment.findUniqueOrThrow({ where: { id: booking.id } })
    expect(cancelled).toMatchObject({ status: 'CANCELLED', cancellationReason: 'OTHER' })
    expect(cancelled.cancelledAt).not.toBeNull()
    const cancellations = await platform.db.event.findMany({
      where: { tenantId: centre.tenantId, type: 'booking.cancelled' },
    })
    expect(cancellations.filter((e) => (e.data as { bookingId: string }).bookingId === booking.id)).toHaveLength(1)
    await recordHistory(handle, 'bookingWorkflow-lifecycle-rescheduled-before-first-read')
  }, 120_000)
})
