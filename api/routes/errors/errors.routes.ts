/** @module Route table of /errors/{code}: the page each problem document's `type` links to. */
import { createRoute, z } from '@hono/zod-openapi'
import { problemResponses } from '../../openapi/routes.ts'

export const ErrorCodePage = z
  .object({
    type: z.string().url().openapi({ description: 'This page: the `type` of problem documents with this code' }),
    code: z.string().openapi({ example: 'slot_unavailable' }),
    status: z.number().int().openapi({ description: 'The HTTP status the code is answered with' }),
    title: z.string(),
    meaning: z.string().openapi({ description: 'What happened' }),
    action: z.string().openapi({ description: 'What to do about it' }),
    retryable: z
      .boolean()
      .openapi({ description: 'Whether resending the same request later can succeed without changing it' }),
  })
  .openapi('ErrorCodePage')

export const errorCodePageRoute = createRoute({
  method: 'get',
  path: '/errors/{code}',
  tags: ['Errors'],
  summary: 'What an error code means and what to do',
  description:
    'The page a problem document’s `type` links to (`<PUBLIC_URL>/errors/<code>`). No authentication. HTML by ' +
    'default; JSON with `Accept: application/json`. An unknown code is a 404 problem.',
  request: {
    params: z.object({
      code: z
        .string()
        .max(64)
        .openapi({ param: { name: 'code', in: 'path' }, example: 'slot_unavailable' }),
    }),
  },
  responses: {
    200: {
      description: 'The code’s page',
      content: {
        'text/html': { schema: z.string().openapi({ description: 'A human-readable page' }) },
        'application/json': { schema: ErrorCodePage },
      },
    },
    ...problemResponses(404, 429, 500),
  },
})
