/** @module /v1/events: thin handlers over the event log and the delivery log. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { getEvent, listEvents } from '../../../domain/events/list-events.ts'
import { listDeliveries } from '../../../domain/webhooks/delivery-log.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toDelivery } from '../webhook-endpoints/webhook-views.ts'
import { getEventRoute, listEventDeliveriesRoute, listEventsRoute } from './events.routes.ts'

const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value))

export function eventRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listEventsRoute, async (c) => {
      const { from, to, ...query } = c.req.valid('query')
      const page = await listEvents(c.var.uow, c.var.principal, { ...query, from: instant(from), to: instant(to) })
      return c.json(page, 200)
    })
    .openapi(getEventRoute, async (c) =>
      c.json(await getEvent(c.var.uow, c.var.principal, c.req.valid('param').id), 200)
    )
    .openapi(listEventDeliveriesRoute, async (c) => {
      const page = await listDeliveries(c.var.uow, { eventId: c.req.valid('param').id }, c.req.valid('query'))
      return c.json({ data: page.data.map(toDelivery), nextCursor: page.nextCursor }, 200)
    })
}
