/**
 * @module The booking lifecycle tests' helpers, shared by appointment-lifecycle-timers.int.test.ts (time-skipping
 * server, real lengths) and appointment-lifecycle.int.test.ts (dev server, shortened days, crashes and races): an
 * appointment booked for a new child and provider, its workflow and API view, and what the lifecycle recorded (the
 * reminders, the events, the appointment's status). When an appointment starts depends on the platform's clock, so
 * each file picks the times itself.
 */
import { expect } from 'vitest'
import { appointmentWorkflowId } from '../../common/appointments/appointment-workflow-contract.ts'
import type { Centre } from './centre.ts'
import { bookAppointment } from './fixtures.ts'
import { eventually } from './platform.ts'

/**
 * The helpers, acting as the file's centre.
 * @param centre - read on each call: test files make their centre in `beforeAll`
 */
export function appointmentScenario(centre: () => Centre) {
  const db = () => centre().platform.db

  /** An appointment from `startsAt` to `endsAt` (epoch ms) for a new child and provider. */
  const bookBetween = (startsAt: number, endsAt: number) =>
    bookAppointment(centre().platform.http, centre().token, { startsAt: new Date(startsAt), endsAt: new Date(endsAt) })

  /** The appointment's workflow view (execution, lifecycle, follow-up). */
  async function view(id: string) {
    const response = await centre().platform.http.get(`/v1/appointments/${id}/workflow`, { token: centre().token })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body
  }

  const handleOf = (id: string) => centre().platform.temporal.workflow.getHandle(appointmentWorkflowId(id))

  /** Until the workflow runs and has read its appointment (it then knows the no-show deadline). */
  const running = (id: string) =>
    eventually(async () => {
      const current = await view(id)
      return current.execution === 'RUNNING' && current.lifecycle?.noShowAt ? current : undefined
    }, 60_000)

  /** The appointment's reminders, oldest first. */
  const reminders = (appointmentId: string) =>
    db().careNotification.findMany({
      where: {
        tenantId: centre().tenantId,
        workflowKind: 'booking',
        kind: 'appointment_reminder',
        details: { path: ['appointmentId'], equals: appointmentId },
      },
      orderBy: { createdAt: 'asc' },
    })

  /** The centre's events of `type` about the appointment, oldest first. */
  async function events(type: string, appointmentId: string) {
    const rows = await db().event.findMany({
      where: { tenantId: centre().tenantId, type },
      orderBy: { createdAt: 'asc' },
    })
    return rows.filter((e) => (e.data as { appointmentId?: string }).appointmentId === appointmentId)
  }

  const statusOf = async (id: string) => (await db().appointment.findUniqueOrThrow({ where: { id } })).status

  return { bookBetween, view, handleOf, running, reminders, events, statusOf }
}
