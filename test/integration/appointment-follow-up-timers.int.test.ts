/**
 * The appointment follow-up's timers at their real lengths, on Temporal's time-skipping test server with the real
 * activities against this file's database, driven through the appointments, sessions and notes API: the location's
 * note deadline is 48 hours, the nudges repeat daily, and the test moves the server's clock with `skip` (no sleeping).
 * The API follows the server's clock (`apiClock: 'server'`), so a completion's `completedAt` and the workflow's
 * deadline share one time line. Proves: completing an appointment starts its follow-up (deterministic id, search
 * attributes, summary); a note still unsigned at the deadline nudges the provider once (not an hour before), and again
 * a day later; signing the note sends the family's follow-up, resolves the nudges and ends the run; a note signed
 * before the deadline gets the follow-up at once and no nudge, ever; a note never signed gets three nudges and the run
 * ends UNSIGNED a week after the last, the nudges left open. Crashes and races stay on the dev server
 * (appointment-follow-up.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordHistory } from '../replay-histories/record-history.ts'
import { appointmentFollowUpScenario } from '../support/appointment-follow-up-scenario.ts'
import { newCentre, patchLocations, type Centre } from '../support/centre.ts'
import { APPOINTMENT_SCOPES } from '../support/fixtures.ts'
import { eventually } from '../support/platform.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
const NOTE_DUE_HOURS = 48

let platform: TimeSkippingPlatform
let centre: Centre

beforeAll(async () => {
  platform = await startTimeSkippingPlatform({ apiClock: 'server' })
  centre = await newCentre(platform, APPOINTMENT_SCOPES)
  await patchLocations(centre, { noteDueHours: NOTE_DUE_HOURS })
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { checkedIn, draftNote, sign, handleOf, notifications, followUpView } = appointmentFollowUpScenario(() => centre)

/** An appointment booked an hour ahead, checked in, completed through the API once it has started; with a draft note. */
async function completedWithDraft() {
  const startsAt = Math.ceil((platform.apiNow() + HOUR_MS) / MINUTE_MS) * MINUTE_MS
  const appointment = await checkedIn(startsAt, startsAt + HOUR_MS)
  await platform.skipTo(startsAt + 50 * MINUTE_MS)
  const completed = await platform.http.post(`/v1/appointments/${appointment.id}/complete`, { token: centre.token })
  expect(completed.status, JSON.stringify(completed.body)).toBe(200)
  const noteId = await draftNote(appointment.sessionId)
  const completedAt = Date.parse(completed.body.completedAt as string)
  return { ...appointment, noteId, completedAt, dueAt: completedAt + NOTE_DUE_HOURS * HOUR_MS }
}

/** The follow-up's notifications once `count` of them are recorded (the count is then checked exactly). */
async function notificationsOnce(appointmentId: string, count: number) {
  const rows = await eventually(
    async () => ((await notifications(appointmentId)).length >= count ? notifications(appointmentId) : undefined),
    30_000
  )
  expect(rows).toHaveLength(count)
  return rows
}

describe('appointment follow-up timers', () => {
  it('nudges the provider at the deadline and daily, then sends the family follow-up once the note is signed', async () => {
    const c = await completedWithDraft()
    const description = await eventually(
      () =>
        handleOf(c.id)
          .describe()
          .catch(() => undefined),
      30_000
    )
    expect(description.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
      WorkflowKind: ['appointment-follow-up'],
      AppointmentId: [c.id],
      ProviderId: [c.providerId],
      ChildId: [c.childId],
    })
    expect(await description.staticSummary()).toBe(`Appointment follow-up: appointment ${c.id}`)
    const waiting = await eventually(
      async () => ((await followUpView(c.id))?.status === 'WAITING_FOR_NOTE' ? followUpView(c.id) : undefined),
      30_000
    )
    expect(Date.parse(waiting.noteDueAt)).toBe(c.dueAt)
    expect(Date.parse(waiting.nextNudgeAt)).toBe(c.dueAt)

    // The first nudge: none an hour before the deadline, one at it.
    await platform.skipTo(c.dueAt - HOUR_MS)
    expect(await notifications(c.id)).toHaveLength(0)
    await platform.skipTo(c.dueAt)
    const first = await notificationsOnce(c.id, 1)
    expect(first[0]).toMatchObject({ kind: 'note_overdue', providerId: c.providerId, status: 'OPEN' })
    expect(await followUpView(c.id)).toMatchObject({
      status: 'NUDGING',
      nudgesSent: 1,
      nextNudgeAt: new Date(c.dueAt + DAY_MS).toISOString(),
    })
    // The daily repeat, a day after the deadline: not an hour before it, once at it.
    await platform.skipTo(c.dueAt + DAY_MS - HOUR_MS)
    expect(await notifications(c.id)).toHaveLength(1)
    await platform.skipTo(c.dueAt + DAY_MS)
    const second = await notificationsOnce(c.id, 2)
    expect(second.map((n) => (n.details as { nudge: number }).nudge)).toEqual([1, 2])

    await sign(c)
    expect(await handleOf(c.id).result()).toEqual({ status: 'FOLLOWED_UP', nudgesSent: 2 })
    const all = await notifications(c.id)
    expect(all.map((n) => [n.kind, n.status])).toEqual([
      ['note_overdue', 'RESOLVED'],
      ['note_overdue', 'RESOLVED'],
      ['family_follow_up', 'OPEN'],
    ])
    expect(all[2]!.childId).toBe(c.childId)
    await recordHistory(handleOf(c.id), 'appointmentFollowUpWorkflow-nudged-then-signed')
  })

  it('sends the family follow-up at once, without a nudge, when the note is signed before it is due', async () => {
    const c = await completedWithDraft()
    await eventually(
      () =>
        handleOf(c.id)
          .describe()
          .catch(() => undefined),
      30_000
    )
    await sign(c)
    expect(await handleOf(c.id).result()).toEqual({ status: 'FOLLOWED_UP', nudgesSent: 0 })
    expect((await notifications(c.id)).map((n) => n.kind)).toEqual(['family_follow_up'])
    // Past the deadline and every daily nudge it would have had: still only the follow-up.
    await platform.skipTo(c.dueAt + 3 * DAY_MS)
    expect((await notifications(c.id)).map((n) => n.kind)).toEqual(['family_follow_up'])
  })

  it('stops after the last daily nudge and ends UNSIGNED a week later, leaving the nudges open', async () => {
    const c = await completedWithDraft()
    await eventually(
      () =>
        handleOf(c.id)
          .describe()
          .catch(() => undefined),
      30_000
    )
    // The deadline's nudge, two daily ones (MAX_NOTE_NUDGES = 3), then seven days of waiting for a signature.
    await platform.skipTo(c.dueAt + 2 * DAY_MS + 7 * DAY_MS - HOUR_MS)
    const nudges = await notificationsOnce(c.id, 3)
    expect(await followUpView(c.id)).toMatchObject({ status: 'NUDGING', nudgesSent: 3, nextNudgeAt: null })
    await platform.skipTo(c.dueAt + 2 * DAY_MS + 7 * DAY_MS)
    expect(await handleOf(c.id).result()).toEqual({ status: 'UNSIGNED', nudgesSent: 3 })
    expect(nudges.map((n) => (n.details as { nudge: number }).nudge)).toEqual([1, 2, 3])
    expect((await notifications(c.id)).map((n) => [n.kind, n.status])).toEqual([
      ['note_overdue', 'OPEN'],
      ['note_overdue', 'OPEN'],
      ['note_overdue', 'OPEN'],
    ])
  })
})
