/** @module /v1/assistants: thin handlers over the assistant service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import {
  createAssistant,
  deleteAssistant,
  getAssistant,
  listAssistants,
  patchAssistant,
  type Assistant as AssistantRow,
} from '../../../domain/ai/assistants/assistant-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createAssistantRoute,
  deleteAssistantRoute,
  getAssistantRoute,
  listAssistantsRoute,
  patchAssistantRoute,
  type Assistant,
} from './assistants.routes.ts'

type AssistantBody = z.infer<typeof Assistant>

export const toAssistant = (assistant: AssistantRow): AssistantBody => ({
  id: assistant.id,
  name: assistant.name,
  scope: assistant.scope,
  locationId: assistant.locationId,
  tools: assistant.tools as AssistantBody['tools'],
  instructions: assistant.instructions,
  description: assistant.description,
  knowledge: { embeddingModel: assistant.knowledgeEmbeddingModel, reembeddingTo: assistant.knowledgeReembedModel },
  createdAt: assistant.createdAt.toISOString(),
  updatedAt: assistant.updatedAt.toISOString(),
})

export function assistantRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createAssistantRoute, async (c) => {
      const assistant = await createAssistant(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/assistants/${assistant.id}`)
      return c.json(toAssistant(assistant), 201)
    })
    .openapi(listAssistantsRoute, async (c) => {
      const page = await listAssistants(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toAssistant), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getAssistantRoute, async (c) =>
      c.json(toAssistant(await getAssistant(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(patchAssistantRoute, async (c) =>
      c.json(toAssistant(await patchAssistant(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(deleteAssistantRoute, async (c) => {
      await deleteAssistant(c.var.uow, c.req.valid('param').id)
      return c.body(null, 204)
    })
}
