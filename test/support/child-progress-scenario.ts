/**
 * @module The child progress tests' helpers, shared by child-progress-timers.int.test.ts (time-skipping server, the
 * real interval) and child-progress.int.test.ts (dev server, shortened days, crashes and races): a centre with one
 * provider, a child with two goals, sessions with signed SOAP notes scoring those goals, and the child's progress,
 * reports, follow-ups and workflow.
 */
import { expect } from 'vitest'
import { childProgressWorkflowId } from '../../common/child-progress/child-progress-contract.ts'
import { newCentre, type Centre } from './centre.ts'
import { APPOINTMENT_SCOPES, futureSlot } from './fixtures.ts'
import type { PlatformBase } from './platform.ts'
import { providerKey } from './provider-key.ts'

/** A centre and the provider who runs (and signs the notes of) every session. */
export interface ProgressCentre extends Centre {
  providerId: string
}

export interface Report {
  id: string
  trigger: string
  periodStart: string
  periodEnd: string
  signedNotesCount: number
  stalledGoalIds: string[]
  goals: Array<{ goalId: string; trend: string; dataPoints: number }>
}

/** A new centre that books and runs sessions, with its provider. */
export async function progressCentre(platform: PlatformBase): Promise<ProgressCentre> {
  const centre = await newCentre(platform, APPOINTMENT_SCOPES)
  const provider = await platform.http.post('/v1/providers', {
    token: centre.token,
    body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
  })
  expect(provider.status, JSON.stringify(provider.body)).toBe(201)
  return { ...centre, providerId: provider.body.id as string }
}

export const trendOf = (report: Report, goalId: string) => report.goals.find((g) => g.goalId === goalId)?.trend

/**
 * The helpers, acting as the file's centre.
 * @param centre - read on each call: test files make their centre in `beforeAll`
 */
export function childProgressScenario(centre: () => ProgressCentre) {
  const http = () => centre().platform.http
  const token = () => centre().token
  let slot = 0

  /** A child whose registration starts its progress workflow, with two speech goals (ids `flat` and `rising`). */
  async function childWithGoals() {
    const created = await http().post('/v1/children', {
      token: token(),
      body: {
        firstName: 'Maya',
        lastName: 'Okafor',
        dateOfBirth: '2022-04-18',
        goals: [
          { description: 'Produces /s/ in initial position with 80% accuracy', discipline: 'SPEECH_THERAPY' },
          { description: 'Follows two-step directions', discipline: 'SPEECH_THERAPY' },
        ],
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const [flat, rising] = created.body.goals.map((g: { id: string }) => g.id) as [string, string]
    return { childId: created.body.id as string, flat, rising }
  }

  /**
   * A session of the child with a signed note scoring `goals` (of 20 trials). Each is on its own later day, counted
   * from the API's clock (which may run ahead of the wall clock), so sessions order as written.
   */
  async function signedSession(
    childId: string,
    goals: Array<{ goalId: string; correct: number; cueingLevel?: string }>
  ) {
    slot++
    const startsAt = futureSlot(slot, 15 + (slot % 6), centre().platform.api.deps.clock().getTime())
    const appointment = await http().post('/v1/appointments', {
      token: token(),
      body: { childId, providerId: centre().providerId, startsAt: startsAt.toISOString() },
    })
    expect(appointment.status, JSON.stringify(appointment.body)).toBe(201)
    const session = await http().post('/v1/sessions', { token: token(), body: { appointmentId: appointment.body.id } })
    expect(session.status, JSON.stringify(session.body)).toBe(201)
    const note = await http().post(`/v1/sessions/${session.body.id}/notes`, {
      token: token(),
      body: {
        subjective: 'Caregiver reports practice at home.',
        assessment: 'Progress noted against the session targets.',
        plan: 'Continue the current plan.',
        objective: {
          goals: goals.map((g) => ({
            goalId: g.goalId,
            description: 'target',
            trials: 20,
            correct: g.correct,
            ...(g.cueingLevel ? { cueingLevel: g.cueingLevel } : {}),
          })),
        },
      },
    })
    expect(note.status, JSON.stringify(note.body)).toBe(201)
    const signed = await http().post(`/v1/sessions/${session.body.id}/notes/${note.body.id}/sign`, {
      token: await providerKey(centre().platform, centre().tenantId, centre().providerId),
      body: { providerId: centre().providerId },
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    return appointment.body.id as string
  }

  /** The child's progress: the workflow's schedule, the latest report, the open follow-up. */
  const progressOf = async (childId: string) =>
    (await http().get(`/v1/children/${childId}/progress`, { token: token() })).body
  const reportsOf = async (childId: string) =>
    (await http().get(`/v1/children/${childId}/progress/reports?limit=100`, { token: token() })).body.data as Report[]
  /** A summary now, through the API (a Temporal update-with-start). */
  const requestReport = (childId: string) => http().post(`/v1/children/${childId}/progress/reports`, { token: token() })
  const handleOf = (childId: string) =>
    centre().platform.temporal.workflow.getHandle(childProgressWorkflowId(centre().tenantId, childId))
  const openFollowUps = async (childId: string) =>
    (
      await centre().platform.db.careNotification.findMany({
        where: { childId, kind: 'PROGRESS_FOLLOW_UP', status: 'OPEN' },
      })
    ).length

  return { childWithGoals, signedSession, progressOf, reportsOf, requestReport, handleOf, openFollowUps }
}
