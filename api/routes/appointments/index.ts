/** @module /v1/appointments: thin handlers over the appointment service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { dateToLocal } from '../../../domain/appointment-series/zoned-time.ts'
import { durationMinutesOf } from '../../../domain/appointments/appointment-row.ts'
import type { TransitionedAppointment } from '../../../domain/appointments/appointment-transitions.ts'
import type { AppointmentService } from '../../../domain/appointments/appointment-service.ts'
import { formatInTimeZone } from '../../../domain/time.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import type { Appointment } from './appointment-schemas.ts'
import {
  cancelAppointmentRoute,
  completeAppointmentRoute,
  createAppointmentRoute,
  getAppointmentRoute,
  getAppointmentWorkflowRoute,
  listAppointmentsRoute,
  noShowAppointmentRoute,
  patchAppointmentRoute,
  rescheduleAppointmentRoute,
} from './appointments.routes.ts'

const optionalDate = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

/** The API shape of an appointment: times in the location's zone with its offset, server timestamps in UTC. */
export const toAppointment = (
  a: TransitionedAppointment & { nextReminderAt: Date | null }
): z.infer<typeof Appointment> => {
  const local = (instant: Date) => formatInTimeZone(instant, a.timeZone)
  return {
    id: a.id,
    status: a.status,
    childId: a.childId,
    provider: { id: a.provider.id, name: a.provider.name },
    type: a.type,
    service: a.service,
    startsAt: local(a.startsAt),
    endsAt: local(a.endsAt),
    durationMinutes: durationMinutesOf(a),
    timeZone: a.timeZone,
    locationId: a.locationId,
    seriesId: a.seriesId,
    occurrenceDate: a.occurrenceDate ? dateToLocal(a.occurrenceDate) : null,
    notes: a.notes,
    cancellation:
      a.status === 'CANCELLED' && a.cancelledAt && a.cancellationReason
        ? {
            cancelledAt: a.cancelledAt.toISOString(),
            reason: a.cancellationReason,
            note: a.cancellationNote,
            lateCancellation: a.lateCancellation ?? false,
          }
        : null,
    nextReminderAt: a.nextReminderAt?.toISOString() ?? null,
    completedAt: a.completedAt?.toISOString() ?? null,
    noShowAt: a.noShowAt?.toISOString() ?? null,
    rescheduleHistory: a.reschedules.map((r) => ({
      previousStartsAt: local(r.previousStartsAt),
      previousEndsAt: local(r.previousEndsAt),
      previousProviderId: r.previousProviderId,
      startsAt: local(r.startsAt),
      endsAt: local(r.endsAt),
      providerId: r.providerId,
      rescheduledAt: r.createdAt.toISOString(),
    })),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    ...('workflow' in a ? { workflow: a.workflow ?? null } : {}),
  }
}

export function appointmentRoutes({ appointments }: { appointments: AppointmentService }) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createAppointmentRoute, async (c) => {
      const body = c.req.valid('json')
      const appointment = await appointments.create(c.var.uow, {
        ...body,
        startsAt: new Date(body.startsAt),
        endsAt: optionalDate(body.endsAt),
      })
      c.header('Location', `/v1/appointments/${appointment.id}`)
      return c.json(toAppointment(appointment), 201)
    })
    .openapi(listAppointmentsRoute, async (c) => {
      const query = c.req.valid('query')
      const page = await appointments.list(c.var.uow, {
        ...query,
        from: optionalDate(query.from),
        to: optionalDate(query.to),
      })
      return c.json({ data: page.data.map(toAppointment), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getAppointmentRoute, async (c) =>
      c.json(toAppointment(await appointments.get(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(getAppointmentWorkflowRoute, async (c) =>
      c.json(await appointments.workflowView(c.var.uow, c.req.valid('param').id), 200)
    )
    .openapi(patchAppointmentRoute, async (c) => {
      const patch = c.req.valid('json')
      const updated = await appointments.update(c.var.uow, c.req.valid('param').id, {
        ...patch,
        startsAt: optionalDate(patch.startsAt),
      })
      return c.json(toAppointment(updated), 200)
    })
    .openapi(rescheduleAppointmentRoute, async (c) => {
      const body = c.req.valid('json')
      const moved = await appointments.reschedule(c.var.uow, c.req.valid('param').id, {
        ...body,
        startsAt: new Date(body.startsAt),
      })
      return c.json(toAppointment(moved), 200)
    })
    .openapi(cancelAppointmentRoute, async (c) =>
      c.json(toAppointment(await appointments.cancel(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(completeAppointmentRoute, async (c) =>
      c.json(toAppointment(await appointments.complete(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(noShowAppointmentRoute, async (c) =>
      c.json(toAppointment(await appointments.noShow(c.var.uow, c.req.valid('param').id)), 200)
    )
}
