import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../../../api/app-env.ts'
import { responseConformance } from '../../../../api/openapi/response-conformance.ts'

const Thing = z.object({ id: z.string(), count: z.number().int() })
const route = createRoute({
  method: 'get',
  path: '/v1/things/{id}',
  request: { params: z.object({ id: z.string() }) },
  responses: { 200: { description: 'A thing', content: { 'application/json': { schema: Thing } } } },
})

function appAnswering(status: number, body: unknown) {
  const app = new OpenAPIHono<AppEnv>()
  app.use(
    '*',
    responseConformance(() => app.openAPIRegistry.definitions)
  )
  app.openapi(route, (c) => c.json(body as never, status as 200))
  return app
}

describe('response conformance', () => {
  it('lets a response that matches its description through untouched', async () => {
    const response = await appAnswering(200, { id: 'thg_1', count: 2 }).request('/v1/things/thg_1')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ id: 'thg_1', count: 2 })
  })

  it('turns a body that contradicts the schema into a 500 naming the field', async () => {
    const response = await appAnswering(200, { id: 'thg_1', count: 'two' }).request('/v1/things/thg_1')
    expect(response.status).toBe(500)
    const body = (await response.json()) as { code: string; detail: string }
    expect(body.code).toBe('response_schema_violation')
    expect(body.detail).toContain('GET /v1/things/{id} answered 200')
    expect(body.detail).toContain('count')
  })

  it('refuses a status the description does not list, and accepts the problems middleware answers', async () => {
    expect((await appAnswering(418, { id: 'x', count: 1 }).request('/v1/things/x')).status).toBe(500)
    const problem = {
      type: 'http://x/problems/rate_limited',
      title: 'Too many',
      status: 429,
      detail: 'd',
      instance: '/v1/things/x',
      code: 'rate_limited',
      requestId: 'req_1',
    }
    expect((await appAnswering(429, problem).request('/v1/things/x')).status).toBe(429)
    expect((await appAnswering(429, { message: 'slow down' }).request('/v1/things/x')).status).toBe(500)
  })
})
