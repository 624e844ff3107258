/** @module /v1/appointments: thin handlers over the appointment service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { AppointmentService } from '../../../domain/appointments/appointment-service.ts'
import { formatInTimeZone } from '../../../domain/time.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { createAppointmentRoute, getAppointmentRoute, type Appointment } from './appointments.routes.ts'

type AppointmentRow = Awaited<ReturnType<AppointmentService['get']>>

export const toAppointment = (a: AppointmentRow): z.infer<typeof Appointment> => ({
  id: a.id,
  status: a.status,
  childId: a.childId,
  provider: { id: a.provider.id, name: a.provider.name },
  type: a.type,
  startsAt: formatInTimeZone(a.startsAt, a.timeZone),
  endsAt: formatInTimeZone(a.endsAt, a.timeZone),
  timeZone: a.timeZone,
  locationId: a.locationId,
  notes: a.notes,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
})

export function appointmentRoutes({ appointments }: { appointments: AppointmentService }) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createAppointmentRoute, async (c) => {
      const body = c.req.valid('json')
      const appointment = await appointments.create(c.var.uow, {
        ...body,
        startsAt: new Date(body.startsAt),
        endsAt: body.endsAt ? new Date(body.endsAt) : undefined,
      })
      c.header('Location', `/v1/appointments/${appointment.id}`)
      return c.json(toAppointment(appointment), 201)
    })
    .openapi(getAppointmentRoute, async (c) =>
      c.json(toAppointment(await appointments.get(c.var.uow, c.req.valid('param').id)), 200)
    )
}
