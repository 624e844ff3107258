/**
 * Regression tests for what Schemathesis found through the real API (docs/testing.md), where a unit test could not
 * show the failure: here the API runs without a worker, as it does when workers are down or still starting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  token = await platform.token(await platform.newTenant(['children', 'children.read']))
})

afterAll(async () => {
  await platform?.stop()
})

describe('a workflow that does not answer', () => {
  it('is a 503 dependency_unavailable the client may retry, not a 500 from an expired transaction', async () => {
    const child = await platform.http.post('/v1/children', { token, body: { firstName: 'Fuzz', lastName: 'Finding', dateOfBirth: '2022-02-02' } })
    expect(child.status).toBe(201)
    // An update waits for the progress workflow's answer; no worker polls, so none comes.
    const response = await platform.http.post(`/v1/children/${child.body.id as string}/progress/reports`, { token })
    expect(response.status).toBe(503)
    expect(response.body).toMatchObject({ code: 'dependency_unavailable' })
    expect(response.headers.get('retry-after')).toBe('5')
  })
})
