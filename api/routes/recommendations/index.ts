/** @module The recommendation API: a thin handler over domain/ai/recommendations. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { childRecommendations } from '../../../domain/ai/recommendations/child-recommendations.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { childRecommendationsRoute } from './recommendations.routes.ts'

export function recommendationRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(childRecommendationsRoute, async (c) =>
    c.json(await childRecommendations(c.var.uow, c.req.valid('param').id, clock(), c.req.valid('query')), 200)
  )
}
