/**
 * The appointment follow-up's crashes and races on the real Temporal dev server, the real worker process and the real
 * database, driven through the appointments, sessions and notes API: a worker killed across the deadline nudges
 * exactly once when it is back; notes signed through the API racing the deadline and the daily nudge each get exactly
 * one follow-up, no nudge after the signature, and no open nudge. These run in real time, so the policy day is
 * shortened (CARE_WORKFLOW_DAY_MS = 14.4 s) and the location's note deadline is 5 policy hours (3 s). The timers'
 * behaviour at real lengths (the deadline, the daily nudges, signing before and after, the start of the follow-up) is
 * proven on the time-skipping server (appointment-follow-up-timers.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appointmentFollowUpScenario } from '../support/appointment-follow-up-scenario.ts'
import { newCentre, patchLocations, type Centre } from '../support/centre.ts'
import { APPOINTMENT_SCOPES } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 14_400
const NOTE_DUE_HOURS = 5
const NOTE_DUE_MS = (NOTE_DUE_HOURS * 60 * DAY_MS) / 1440

let platform: Platform
let centre: Centre

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
  centre = await newCentre(platform, APPOINTMENT_SCOPES)
  await patchLocations(centre, { noteDueHours: NOTE_DUE_HOURS })
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { checkedIn, draftNote, signNote, sign, handleOf, notifications, followUpView } = appointmentFollowUpScenario(
  () => centre
)

/**
 * An appointment that started a second ago (the API accepts a start that recent), checked in, completed through the
 * API at once; with a draft note.
 */
async function completedWithDraft() {
  const startsAt = Date.now() - 1000
  const appointment = await checkedIn(startsAt, startsAt + 60_000)
  const completed = await eventually(async () => {
    const response = await platform.http.post(`/v1/appointments/${appointment.id}/complete`, { token: centre.token })
    return response.status === 200 ? response : undefined
  }, 30_000)
  const noteId = await draftNote(appointment.sessionId)
  const completedAt = completed.body.completedAt as string
  return { ...appointment, noteId, completedAt, dueAt: Date.parse(completedAt) + NOTE_DUE_MS }
}

describe('appointment follow-up', () => {
  it('nudges exactly once across a worker killed over the deadline', async () => {
    const c = await completedWithDraft()
    await eventually(async () => ((await followUpView(c.id))?.status === 'WAITING_FOR_NOTE' ? true : undefined), 30_000)
    await platform.killWorkers('SIGKILL')
    // Down across the deadline (the dev server's and the worker's clock is the wall clock): nothing was nudged.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, c.dueAt - Date.now() + 1)))
    expect(await notifications(c.id)).toHaveLength(0)
    await platform.startWorker()
    await eventually(async () => ((await notifications(c.id)).length === 1 ? true : undefined), 60_000)
    await sign(c)
    expect(await handleOf(c.id).result()).toEqual({ status: 'FOLLOWED_UP', nudgesSent: 1 })
    expect((await notifications(c.id)).map((n) => n.kind)).toEqual(['note_overdue', 'family_follow_up'])
  }, 120_000)

  it('keeps its invariants when signatures through the API race the deadline and the daily nudge', async () => {
    // Sign offsets from each appointment's note deadline: as soon as the draft exists (well before), just before
    // and just after the first nudge, just before and just after the daily one. The outer two have seconds of
    // margin so a loaded machine cannot flip them; the inner ones may go either way, and either way must hold.
    const offsets = [-NOTE_DUE_MS, -200, 200, DAY_MS - 200, DAY_MS + 200]
    const runs = await Promise.all(
      offsets.map(async (offset) => {
        const c = await completedWithDraft()
        const { dueAt } = c
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt + offset - Date.now())))
        const signed = await signNote(c)
        // The signature has committed by the time its answer arrives.
        const answeredAt = Date.now()
        expect(signed.status, JSON.stringify(signed.body)).toBe(200)
        const result = await handleOf(c.id).result()
        return { c, offset, dueAt, answeredAt, result }
      })
    )

    const nudgeCounts: number[] = []
    for (const { c, offset, answeredAt, result } of runs) {
      const note = await platform.db.sessionNote.findFirstOrThrow({
        where: { id: c.noteId, tenantId: centre.tenantId },
      })
      expect(note.status, `offset ${offset}`).toBe('SIGNED')
      const signedAt = note.signedAt!.getTime()
      const all = await notifications(c.id)
      const nudges = all.filter((n) => n.kind === 'note_overdue')
      const family = all.filter((n) => n.kind === 'family_follow_up')
      expect(all, `offset ${offset}: only nudges and the follow-up`).toHaveLength(nudges.length + family.length)
      expect(family, `offset ${offset}: exactly one family follow-up`).toHaveLength(1)
      expect(result, `offset ${offset}`).toEqual({ status: 'FOLLOWED_UP', nudgesSent: nudges.length })
      // The follow-up goes out only once the workflow has read the committed signature.
      expect(family[0]!.createdAt.getTime(), `offset ${offset}`).toBeGreaterThanOrEqual(signedAt)
      for (const nudge of nudges) {
        // A nudge row's createdAt is the moment before its transaction checked the note: a nudge is legitimate only
        // if that check began before the signature committed. The commit lies between signedAt (stamped inside the
        // signing transaction) and the arrival of the 200, so a nudge whose check overlapped the signing transaction
        // may follow signedAt by that transaction's few milliseconds, never the answer.
        expect(signedAt, `offset ${offset}`).toBeLessThanOrEqual(answeredAt)
        expect(
          nudge.createdAt.getTime(),
          `offset ${offset}: nudge ${nudge.id} after the signature (signedAt ${note.signedAt!.toISOString()})`
        ).toBeLessThan(answeredAt)
        expect(nudge.status, `offset ${offset}: nudge left open`).toBe('RESOLVED')
        expect(nudge.resolvedAt!.getTime(), `offset ${offset}`).toBeGreaterThanOrEqual(signedAt)
      }
      expect(
        nudges.map((n) => (n.details as { nudge: number }).nudge),
        `offset ${offset}: nudges in order, each once`
      ).toEqual(nudges.map((_, i) => i + 1))
      nudgeCounts.push(nudges.length)
    }
    // Not vacuous: the earliest signer was never nudged, the latest was (at the deadline, at least).
    expect(nudgeCounts[0], `nudges per offset ${JSON.stringify(offsets)}: ${JSON.stringify(nudgeCounts)}`).toBe(0)
    expect(
      nudgeCounts.at(-1),
      `nudges per offset ${JSON.stringify(offsets)}: ${JSON.stringify(nudgeCounts)}`
    ).toBeGreaterThanOrEqual(1)
  }, 150_000)
})
