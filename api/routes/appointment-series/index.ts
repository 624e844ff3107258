/** @module /v1/appointment-series: thin handlers over the series service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { SeriesService } from '../../../domain/appointment-series/series-service.ts'
import type { SeriesRow } from '../../../domain/appointment-series/series-store.ts'
import { dateToLocal } from '../../../domain/appointment-series/zoned-time.ts'
import type { Weekday } from '../../../domain/appointment-series/recurrence.ts'
import { formatInTimeZone } from '../../../domain/time.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  addSeriesExceptionRoute,
  cancelSeriesRoute,
  createSeriesRoute,
  getSeriesRoute,
  listSeriesRoute,
  type Series,
} from './series.routes.ts'

/** The API shape of a series and its occurrences. */
export const toSeries = (s: SeriesRow): z.infer<typeof Series> => ({
  id: s.id,
  childId: s.childId,
  providerId: s.providerId,
  locationId: s.locationId,
  type: s.type,
  service: s.service,
  timeZone: s.timeZone,
  startsAt: formatInTimeZone(s.startsAt, s.timeZone),
  durationMinutes: s.durationMinutes,
  recurrence: {
    frequency: s.frequency,
    interval: s.interval,
    byWeekday: s.byWeekday as Weekday[],
    count: s.count,
    until: s.until ? dateToLocal(s.until) : null,
  },
  exceptions: s.exceptionDates.map(dateToLocal),
  skippedDates: s.skippedDates.map(dateToLocal),
  cancelledFrom: s.cancelledFrom ? dateToLocal(s.cancelledFrom) : null,
  notes: s.notes,
  occurrences: s.appointments.map((a) => ({
    date: a.occurrenceDate ? dateToLocal(a.occurrenceDate) : dateToLocal(a.startsAt),
    appointmentId: a.id,
    status: a.status,
    startsAt: formatInTimeZone(a.startsAt, s.timeZone),
  })),
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
})

export function appointmentSeriesRoutes({ series }: { series: SeriesService }) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createSeriesRoute, async (c) => {
      const body = c.req.valid('json')
      const created = await series.create(c.var.uow, { ...body, startsAt: new Date(body.startsAt) })
      c.header('Location', `/v1/appointment-series/${created.id}`)
      return c.json(toSeries(created), 201)
    })
    .openapi(listSeriesRoute, async (c) => {
      const page = await series.list(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toSeries), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getSeriesRoute, async (c) => c.json(toSeries(await series.get(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(cancelSeriesRoute, async (c) =>
      c.json(toSeries(await series.cancelFrom(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(addSeriesExceptionRoute, async (c) =>
      c.json(toSeries(await series.addException(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
}
