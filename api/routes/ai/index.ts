/** @module /v1/ai: intelligence endpoints, thin handlers over domain/ai. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { runAssessmentRecall } from '../../../domain/ai/assessment-recall/assessment-recall.ts'
import { loadChildInsights } from '../../../domain/ai/insights/child-insights.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { assessmentRecallRoute, childInsightsRoute } from './ai.routes.ts'

/** The router; `assessments` is the service of /v1/assessments, so a recalled re-assessment is reminded alike. */
export function aiRoutes(deps: Pick<AppDeps, 'clock' | 'assessments'>) {
  const { assessments } = deps
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(assessmentRecallRoute, async (c) =>
      c.json(await runAssessmentRecall(c.var.uow, assessments, c.req.valid('json'), deps.clock()), 200)
    )
    .openapi(childInsightsRoute, async (c) =>
      c.json(await loadChildInsights(c.var.uow, c.req.valid('param').id, deps.clock()), 200)
    )
}
