/**
 * @module The seam between appointments and sessions: the one way a session comes into existence. An appointment
 * becomes at most one session (unique `appointment_id`), whether the session is opened at check-in
 * (`POST /v1/sessions`) or when the appointment is completed (the appointment service calls this for the
 * `appointment.completed` event's `sessionId`). Both paths may race; the database decides.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, notFound } from '../errors.ts'
import { newId } from '../ids.ts'

export interface EnsureSessionInput {
  appointmentId: string
}

export interface EnsuredSession {
  id: string
  /** Whether this call created the session (false: it already existed). */
  created: boolean
}

/** Appointment states that never become a session: nothing took place. */
const NO_SESSION_STATES = new Set(['CANCELLED', 'NO_SHOW'])

/**
 * Returns the session of an appointment, creating it (status `SCHEDULED`, with the appointment's tenant, child,
 * provider, location and scheduled times) when there is none yet. Idempotent and safe under concurrency: the insert
 * is `ON CONFLICT DO NOTHING` on the unique appointment id, so two concurrent calls end with the same session.
 * @param uow - the caller's unit of work (the session is created in its transaction)
 * @param input - the appointment whose session is wanted
 * @returns the session id, and whether it was created now
 * @throws AppError `not_found` when the appointment is not the tenant's; `invalid_state_transition` when a new
 *   session is asked for a cancelled or no-show appointment
 */
export async function ensureSessionForAppointment(uow: UnitOfWork, input: EnsureSessionInput): Promise<EnsuredSession> {
  const { tx, tenantId } = uow
  const existing = await tx.session.findFirst({
    where: { appointmentId: input.appointmentId, tenantId },
    select: { id: true },
  })
  if (existing) return { id: existing.id, created: false }

  const appointment = await tx.appointment.findFirst({ where: { id: input.appointmentId, tenantId } })
  if (!appointment) throw notFound('appointment', input.appointmentId)
  if (NO_SESSION_STATES.has(appointment.status)) {
    throw invalidStateTransition(
      `Appointment ${appointment.id} is ${appointment.status}: it does not become a session.`
    )
  }

  const id = newId('session')
  // createMany is the only Prisma write that compiles to INSERT ... ON CONFLICT DO NOTHING: a concurrent call that
  // inserted first makes this a no-op (after waiting for its commit), instead of a unique violation that would abort
  // the caller's whole transaction.
  const { count } = await tx.session.createMany({
    data: [
      {
        id,
        tenantId,
        appointmentId: appointment.id,
        childId: appointment.childId,
        providerId: appointment.providerId,
        locationId: appointment.locationId,
        scheduledStartsAt: appointment.startsAt,
        scheduledEndsAt: appointment.endsAt,
        timeZone: appointment.timeZone,
      },
    ],
    skipDuplicates: true,
  })
  if (count === 1) return { id, created: true }
  const winner = await tx.session.findFirstOrThrow({
    where: { appointmentId: appointment.id, tenantId },
    select: { id: true },
  })
  return { id: winner.id, created: false }
}
