/** @module Route table of /v1/assistants: schemas and OpenAPI definitions. */
import { z } from '@hono/zod-openapi'
import { AssistantFields } from '../../../domain/ai/assistants/assistant-schema.ts'
import { ASSISTANT_SORTS } from '../../../domain/ai/assistants/assistant-service.ts'
import { TOOL_NAMES } from '../../../domain/ai/assistants/tool-catalogue.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

export const AssistantCreate = AssistantFields.openapi('AssistantCreate')

export const AssistantPatch = mergePatchSchema(AssistantFields, { required: ['name', 'scope', 'tools'] }).openapi(
  'AssistantPatch',
  {
    description:
      'A JSON merge patch (RFC 7396): members present replace, null removes `instructions` or `description`; `tools` is replaced whole.',
  }
)

export const Assistant = z
  .object({
    id: resourceId('assistant'),
    name: z.string(),
    scope: z.string().openapi({ example: 'location:loc_019a...' }),
    locationId: z
      .string()
      .nullable()
      .openapi({ description: 'The location of a `location:` scope; null for `tenant`.' }),
    tools: z.array(z.enum(TOOL_NAMES)),
    instructions: z.string().nullable(),
    description: z.string().nullable(),
    knowledge: z
      .object({
        embeddingModel: z.string().nullable().openapi({
          description:
            'The embedding model its knowledge is searched with: the model of its indexed documents’ vectors (`models.embeddings` in its answers). Null before any document is indexed.',
          example: 'local-lexical-v1-768',
        }),
        reembeddingTo: z.string().nullable().openapi({
          description:
            'While its documents are embedded again after the platform’s model changed: the model they move to. Questions are answered with `embeddingModel` until every document has vectors of the new one, then it becomes `embeddingModel` and this is null again. Null when no re-embedding runs.',
          example: null,
        }),
      })
      .openapi('AssistantKnowledge', {
        description: 'How an assistant’s knowledge is searched (docs/ai.md, "Changing the embedding model").',
      }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Assistant')

const ListAssistantsQuery = listQuerySchema(ASSISTANT_SORTS, '-createdAt').extend({
  scope: z
    .string()
    .max(80)
    .optional()
    .openapi({ param: { name: 'scope', in: 'query' }, description: 'Only assistants with this exact scope' }),
  tool: z
    .enum(TOOL_NAMES)
    .optional()
    .openapi({ param: { name: 'tool', in: 'query' }, description: 'Only assistants that have this tool' }),
})

const AssistantId = IdParam('assistant')
const tags = ['Assistants']

export const createAssistantRoute = protectedRoute('ai', {
  method: 'post',
  path: '/v1/assistants',
  tags,
  summary: 'Create an assistant',
  description:
    'An assistant sees only its scope (`tenant` or `location:<loc_id>`) and uses only its `tools`, and only as far as the caller’s own scopes allow.',
  request: { body: { required: true, content: { 'application/json': { schema: AssistantCreate } } } },
  responses: {
    201: { description: 'The assistant', content: { 'application/json': { schema: Assistant } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listAssistantsRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/assistants',
  tags,
  summary: 'List assistants',
  request: { query: ListAssistantsQuery },
  responses: {
    200: {
      description: 'A page of assistants',
      content: { 'application/json': { schema: pageOf(Assistant, 'AssistantPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getAssistantRoute = protectedRoute('ai.read', {
  method: 'get',
  path: '/v1/assistants/{id}',
  tags,
  summary: 'Retrieve an assistant',
  request: { params: AssistantId },
  responses: {
    200: { description: 'The assistant', content: { 'application/json': { schema: Assistant } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const patchAssistantRoute = protectedRoute('ai', {
  method: 'patch',
  path: '/v1/assistants/{id}',
  tags,
  summary: 'Update an assistant (JSON merge patch)',
  request: {
    params: AssistantId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: AssistantPatch },
        'application/json': { schema: AssistantPatch },
      },
    },
  },
  responses: {
    200: { description: 'The assistant', content: { 'application/json': { schema: Assistant } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const deleteAssistantRoute = protectedRoute('ai', {
  method: 'delete',
  path: '/v1/assistants/{id}',
  tags,
  summary: 'Delete an assistant and its knowledge',
  description: 'Deletes the assistant, its documents and every vector indexed from them.',
  request: { params: AssistantId },
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
