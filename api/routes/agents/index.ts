/** @module /v1/agents: the care-coordinator agent's briefing, a thin handler over domain/ai/briefings. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { careCoordinatorBriefing } from '../../../domain/ai/briefings/care-coordinator.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { careCoordinatorRoute } from './agents.routes.ts'

export function agentRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(careCoordinatorRoute, async (c) =>
    c.json(await careCoordinatorBriefing(c.var.uow, c.req.valid('query'), clock()), 200)
  )
}
