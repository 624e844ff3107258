/**
 * Problem documents' `type` links resolve on the API itself (issue 22): GET /errors/{code} answers the code's page,
 * unauthenticated, HTML by default and JSON on request; an unknown code is a 404 problem; the old /problems/{code}
 * links redirect; the OpenAPI description points at the pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('GET /errors/{code}', () => {
  it("serves the page a problem's type names, as HTML or JSON, without a token", async () => {
    const problem = await platform.http.get('/v1/providers')
    expect(problem.status).toBe(401)
    expect(problem.body.type).toBe(`${platform.config.PUBLIC_URL}/errors/invalid_token`)
    const pagePath = new URL(problem.body.type as string).pathname

    const html = await fetch(`${platform.api.url}${pagePath}`)
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
    const text = await html.text()
    expect(text).toContain('<code>invalid_token</code>')
    expect(text).toContain('What to do')
    expect(text).toContain('POST /oauth/token')

    const json = await platform.http.get(pagePath, { headers: { Accept: 'application/json' } })
    expect(json.status).toBe(200)
    expect(json.body).toMatchObject({ type: problem.body.type, code: 'invalid_token', status: 401, retryable: true })
    expect(json.body.action).toContain('/oauth/token')
  })

  it('answers an unknown code with a 404 problem, and redirects the old /problems links', async () => {
    const unknown = await platform.http.get('/errors/no_such_code', { headers: { Accept: 'application/json' } })
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(unknown.body).toMatchObject({ code: 'not_found', type: `${platform.config.PUBLIC_URL}/errors/not_found` })
    expect(unknown.body.detail).toContain('no_such_code')

    const old = await fetch(`${platform.api.url}/problems/slot_unavailable`, { redirect: 'manual' })
    expect(old.status).toBe(308)
    expect(old.headers.get('location')).toBe('/errors/slot_unavailable')
  })

  it('is linked from the description of the problem schema', async () => {
    const doc = (await platform.http.get('/openapi.json')).body
    expect(doc.components.schemas.Problem.description).toContain('/errors/{code}')
    expect(doc.components.schemas.Problem.properties.type.description).toContain('/errors/<code>')
    expect(doc.paths['/errors/{code}'].get.security).toBeUndefined()
  })
})
