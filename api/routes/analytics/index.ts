/** @module /v1/analytics: thin handlers over the analytics service. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { locationAnalytics, multiLocationAnalytics } from '../../../domain/analytics/analytics-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { locationAnalyticsRoute, multiLocationAnalyticsRoute } from './analytics.routes.ts'

export function analyticsRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(locationAnalyticsRoute, async (c) =>
      c.json(await locationAnalytics(c.var.uow, c.req.valid('param').id, c.req.valid('query'), clock()), 200)
    )
    .openapi(multiLocationAnalyticsRoute, async (c) => {
      const { locationIds, ...query } = c.req.valid('query')
      const ids =
        locationIds === undefined
          ? undefined
          : [
              ...new Set(
                locationIds
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean)
              ),
            ]
      return c.json(await multiLocationAnalytics(c.var.uow, { ...query, locationIds: ids }, clock()), 200)
    })
}
