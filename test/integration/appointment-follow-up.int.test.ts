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
import { appointmentFollowUpWorkflowId } from '../../workflows/appointment-follow-up-contract.ts'
import { createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 14_400
const NOTE_DUE_HOURS = 5
const NOTE_DUE_MS = (NOTE_DUE_HOURS * 60 * DAY_MS) / 1440

let platform: Platform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
  const client = await platform.newTenant(['children', 'providers', 'bookings', 'sessions'])
  tenantId = client.tenantId
  token = await platform.token(client)
  const locations = await platform.http.get('/v1/locations', { token })
  for (const location of locations.body.data as Array<{ id: string }>) {
    const patched = await platform.http.request('PATCH', `/v1/locations/${location.id}`, {
      token,
      body: { noteDueHours: NOTE_DUE_HOURS },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  }
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/**
 * An appointment that started a second ago (the API accepts a start that recent), checked in, completed through the
 * API at once; with a draft note.
 */
async function completedWithDraft() {
  const { childId, providerId } = await createChildAndProvider(platform.http, token)
  const startsAt = new Date(Date.now() - 1000)
  const booked = await platform.http.post('/v1/appointments', {
    token,
    body: {
      childId,
      providerId,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 60_000).toISOString(),
    },
  })
  expect(booked.status, JSON.stringify(booked.body)).toBe(201)
  const id = booked.body.id as string
  const session = await platform.http.post('/v1/sessions', { token, body: { appointmentId: id } })
  expect(session.status, JSON.stringify(session.body)).toBe(201)
  const completed = await eventually(async () => {
    const response = await platform.http.post(`/v1/appointments/${id}/complete`, { token })
    return response.status === 200 ? response : undefined
  }, 30_000)
  const note = await platform.http.post(`/v1/sessions/${session.body.id}/notes`, {
    token,
    body: {
      subjective: 'Caregiver reports practice at home.',
      objective: { observations: 'Engaged throughout.' },
      assessment: 'Progress noted.',
      plan: 'Continue the plan.',
    },
  })
  expect(note.status, JSON.stringify(note.body)).toBe(201)
  const completedAt = completed.body.completedAt as string
  return {
    id,
    childId,
    providerId,
    sessionId: session.body.id as string,
    noteId: note.body.id as string,
    completedAt,
    dueAt: Date.parse(completedAt) + NOTE_DUE_MS,
  }
}

async function sign(c: { sessionId: string; noteId: string; providerId: string }) {
  const signed = await platform.http.post(`/v1/sessions/${c.sessionId}/notes/${c.noteId}/sign`, {
    token,
    body: { providerId: c.providerId },
  })
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
}

const handleOf = (id: string) => platform.temporal.workflow.getHandle(appointmentFollowUpWorkflowId(id))

function notifications(appointmentId: string) {
  return platform.api.deps.db.careNotification.findMany({
    where: {
      tenantId,
      workflowKind: 'appointment-follow-up',
      details: { path: ['appointmentId'], equals: appointmentId },
    },
    orderBy: { createdAt: 'asc' },
  })
}

async function followUpView(id: string) {
  const response = await platform.http.get(`/v1/appointments/${id}/workflow`, { token })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.followUp
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
        const signed = await platform.http.post(`/v1/sessions/${c.sessionId}/notes/${c.noteId}/sign`, {
          token,
          body: { providerId: c.providerId },
        })
        // The signature has committed by the time its answer arrives.
        const answeredAt = Date.now()
        expect(signed.status, JSON.stringify(signed.body)).toBe(200)
        const result = await handleOf(c.id).result()
        return { c, offset, dueAt, answeredAt, result }
      })
    )

    const nudgeCounts: number[] = []
    for (const { c, offset, answeredAt, result } of runs) {
      const note = await platform.api.deps.db.sessionNote.findFirstOrThrow({ where: { id: c.noteId, tenantId } })
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
        // A nudge row's createdAt is its transaction's start, and that transaction checks the note before it
        // records: a nudge is legitimate only if it began before the signature committed. The commit lies between
        // signedAt (stamped inside the signing transaction) and the arrival of the 200, so on PostgreSQL a nudge
        // overlapping the signing transaction may follow signedAt by that transaction's few milliseconds.
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
