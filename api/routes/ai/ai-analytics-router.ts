/** @module /v1/ai/analytics: a thin handler over domain/ai/analytics. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { aiAnalytics } from '../../../domain/ai/analytics/ai-analytics-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { aiAnalyticsRoute } from './ai-analytics.routes.ts'

export function aiAnalyticsRoutes({ temporal }: Pick<AppDeps, 'temporal'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(aiAnalyticsRoute, async (c) =>
    c.json(await aiAnalytics(c.var.uow, temporal, c.req.valid('query')), 200)
  )
}
