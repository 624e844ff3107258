/** @module A child's early-intervention plan: thin handlers over domain/early-intervention. */
import { OpenAPIHono } from '@hono/zod-openapi'
import {
  getEarlyInterventionView,
  listEarlyInterventionNotifications,
  recordTimelineException,
  withdrawTimelineException,
} from '../../../domain/early-intervention/ei-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toCareNotification } from '../../openapi/care-notification-schema.ts'
import {
  getPlanRoute,
  listNotificationsRoute,
  recordExceptionRoute,
  withdrawExceptionRoute,
} from './early-intervention.routes.ts'

/** The router; `earlyIntervention` is the workflow synchroniser the children routes use too. */
export function earlyInterventionRoutes(deps: Pick<AppDeps, 'clock' | 'earlyIntervention'>): OpenAPIHono<AppEnv> {
  const { clock, earlyIntervention: sync } = deps
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(getPlanRoute, async (c) => c.json(await getEarlyInterventionView(c.var.uow, c.req.valid('param').id), 200))
    .openapi(listNotificationsRoute, async (c) => {
      const page = await listEarlyInterventionNotifications(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toCareNotification), nextCursor: page.nextCursor }, 200)
    })
    .openapi(recordExceptionRoute, async (c) =>
      c.json(await recordTimelineException(c.var.uow, sync, c.req.valid('param').id, c.req.valid('json'), clock()), 200)
    )
    .openapi(withdrawExceptionRoute, async (c) =>
      c.json(await withdrawTimelineException(c.var.uow, sync, c.req.valid('param').id), 200)
    )
}
