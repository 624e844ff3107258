/** @module /v1/assistants/{id}/unanswered: thin handlers over the unanswered-questions report and its deletion. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { getAssistant } from '../../../domain/ai/assistants/assistant-service.ts'
import { deleteUnanswered } from '../../../domain/ai/knowledge/unanswered-questions.ts'
import { unansweredReport } from '../../../domain/ai/knowledge/unanswered-report.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { deleteAllUnansweredRoute, deleteUnansweredRoute, unansweredReportRoute } from './unanswered.routes.ts'

/**
 * The unanswered-questions routes.
 * @param deps - `ai` asks a group's question again after a new document (api/compose-services.ts)
 */
export function unansweredRoutes(deps: Pick<AppDeps, 'ai'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(unansweredReportRoute, async (c) =>
      c.json(await unansweredReport(c.var.uow, deps.ai, c.req.valid('param').id, c.req.valid('query')), 200)
    )
    .openapi(deleteUnansweredRoute, async (c) => {
      const { id, questionId } = c.req.valid('param')
      await getAssistant(c.var.uow, id)
      await deleteUnanswered(c.var.uow, id, questionId)
      return c.body(null, 204)
    })
    .openapi(deleteAllUnansweredRoute, async (c) => {
      const { id } = c.req.valid('param')
      await getAssistant(c.var.uow, id)
      await deleteUnanswered(c.var.uow, id)
      return c.body(null, 204)
    })
}
