/** @module /v1/providers/{id}/time-off: thin handlers over the time-off service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import {
  createTimeOff,
  deleteTimeOff,
  getTimeOff,
  listTimeOff,
  updateTimeOff,
  type TimeOffView,
} from '../../../domain/providers/time-off-service.ts'
import { formatInTimeZone } from '../../../domain/time.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createTimeOffRoute,
  deleteTimeOffRoute,
  getTimeOffRoute,
  listTimeOffRoute,
  updateTimeOffRoute,
  type TimeOff,
} from './time-off.routes.ts'

const toTimeOff = (t: TimeOffView): z.infer<typeof TimeOff> => ({
  id: t.id,
  providerId: t.providerId,
  startsAt: formatInTimeZone(t.startsAt, t.timeZone),
  endsAt: formatInTimeZone(t.endsAt, t.timeZone),
  timeZone: t.timeZone,
  reason: t.reason,
  note: t.note,
  conflictingAppointmentIds: t.conflictingAppointmentIds,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
})

const optionalDate = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

export function timeOffRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createTimeOffRoute, async (c) => {
      const { id } = c.req.valid('param')
      const body = c.req.valid('json')
      const entry = await createTimeOff(c.var.uow, id, {
        ...body,
        startsAt: new Date(body.startsAt),
        endsAt: new Date(body.endsAt),
      })
      c.header('Location', `/v1/providers/${id}/time-off/${entry.id}`)
      return c.json(toTimeOff(entry), 201)
    })
    .openapi(listTimeOffRoute, async (c) => {
      const query = c.req.valid('query')
      const page = await listTimeOff(c.var.uow, c.req.valid('param').id, {
        ...query,
        from: optionalDate(query.from),
        to: optionalDate(query.to),
      })
      return c.json({ data: page.data.map(toTimeOff), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getTimeOffRoute, async (c) => {
      const { id, timeOffId } = c.req.valid('param')
      return c.json(toTimeOff(await getTimeOff(c.var.uow, id, timeOffId)), 200)
    })
    .openapi(updateTimeOffRoute, async (c) => {
      const { id, timeOffId } = c.req.valid('param')
      const body = c.req.valid('json')
      const entry = await updateTimeOff(c.var.uow, id, timeOffId, {
        ...body,
        startsAt: optionalDate(body.startsAt),
        endsAt: optionalDate(body.endsAt),
      })
      return c.json(toTimeOff(entry), 200)
    })
    .openapi(deleteTimeOffRoute, async (c) => {
      const { id, timeOffId } = c.req.valid('param')
      await deleteTimeOff(c.var.uow, id, timeOffId)
      return c.body(null, 204)
    })
}
