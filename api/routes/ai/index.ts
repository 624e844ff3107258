/** @module /v1/ai: intelligence endpoints, thin handlers over domain/intelligence. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { createAssessmentReminders } from '../../../domain/assessments/assessment-reminders.ts'
import { createAssessmentService } from '../../../domain/assessments/assessment-service.ts'
import { runAssessmentRecall } from '../../../domain/intelligence/assessment-recall.ts'
import { loadChildInsights } from '../../../domain/intelligence/child-insights.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { assessmentRecallRoute, childInsightsRoute } from './ai.routes.ts'

export function aiRoutes(deps: Pick<AppDeps, 'clock' | 'outbox' | 'temporal' | 'logger' | 'config'>) {
  // The same reminders as /v1/assessments, so a recalled re-assessment is reminded exactly like any other.
  const reminders = createAssessmentReminders({
    outbox: deps.outbox,
    temporal: deps.temporal,
    logger: deps.logger,
    timing: { dayMs: deps.config.ASSESSMENT_REMINDER_DAY_MS },
  })
  const assessments = createAssessmentService({ reminders, clock: deps.clock })
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(assessmentRecallRoute, async (c) =>
      c.json(await runAssessmentRecall(c.var.uow, assessments, c.req.valid('json'), deps.clock()), 200)
    )
    .openapi(childInsightsRoute, async (c) =>
      c.json(await loadChildInsights(c.var.uow, c.req.valid('param').id, deps.clock()), 200)
    )
}
