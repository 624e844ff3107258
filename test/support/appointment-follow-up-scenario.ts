/**
 * @module The appointment follow-up tests' helpers, shared by appointment-follow-up-timers.int.test.ts (time-skipping
 * server, real lengths) and appointment-follow-up.int.test.ts (dev server, shortened days, crashes and races): an
 * appointment checked in, its draft note and the signature, the follow-up's workflow, notifications and API view.
 * When the appointment starts and how it is completed depend on the platform's clock, so each file does that itself.
 */
import { expect } from 'vitest'
import { appointmentFollowUpWorkflowId } from '../../common/appointments/appointment-follow-up-contract.ts'
import type { Centre } from './centre.ts'
import { bookAppointment } from './fixtures.ts'
import { providerKey } from './provider-key.ts'

/**
 * The helpers, acting as the file's centre.
 * @param centre - read on each call: test files make their centre in `beforeAll`
 */
export function appointmentFollowUpScenario(centre: () => Centre) {
  const http = () => centre().platform.http
  const token = () => centre().token

  /** An appointment from `startsAt` to `endsAt` (epoch ms) for a new child and provider, checked in (a session). */
  async function checkedIn(startsAt: number, endsAt: number) {
    const booked = await bookAppointment(http(), token(), { startsAt: new Date(startsAt), endsAt: new Date(endsAt) })
    const session = await http().post('/v1/sessions', { token: token(), body: { appointmentId: booked.id } })
    expect(session.status, JSON.stringify(session.body)).toBe(201)
    // The provider's signing key made now, so that signing later (timed against deadlines) is one request.
    await providerKey(centre().platform, centre().tenantId, booked.providerId)
    return { ...booked, sessionId: session.body.id as string }
  }

  /** A draft SOAP note of the session; its id. */
  async function draftNote(sessionId: string) {
    const note = await http().post(`/v1/sessions/${sessionId}/notes`, {
      token: token(),
      body: {
        subjective: 'Caregiver reports practice at home.',
        objective: { observations: 'Engaged throughout.' },
        assessment: 'Progress noted.',
        plan: 'Continue the plan.',
      },
    })
    expect(note.status, JSON.stringify(note.body)).toBe(201)
    return note.body.id as string
  }

  /**
   * Signs the note through the API, with a key linked to the provider; the answer, unchecked (a race test notes when
   * it arrived first).
   */
  const signNote = async (c: { sessionId: string; noteId: string; providerId: string }) =>
    http().post(`/v1/sessions/${c.sessionId}/notes/${c.noteId}/sign`, {
      token: await providerKey(centre().platform, centre().tenantId, c.providerId),
      body: { providerId: c.providerId },
    })

  /** Signs the note through the API, which must accept it. */
  async function sign(c: { sessionId: string; noteId: string; providerId: string }) {
    const signed = await signNote(c)
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  }

  const handleOf = (id: string) => centre().platform.temporal.workflow.getHandle(appointmentFollowUpWorkflowId(id))

  /** The follow-up's notifications of the appointment, oldest first. */
  const notifications = (appointmentId: string) =>
    centre().platform.db.careNotification.findMany({
      where: {
        tenantId: centre().tenantId,
        workflowKind: 'appointment-follow-up',
        details: { path: ['appointmentId'], equals: appointmentId },
      },
      orderBy: { createdAt: 'asc' },
    })

  /** The follow-up part of the appointment's workflow view. */
  async function followUpView(id: string) {
    const response = await http().get(`/v1/appointments/${id}/workflow`, { token: token() })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body.followUp
  }

  return { checkedIn, draftNote, signNote, sign, handleOf, notifications, followUpView }
}
