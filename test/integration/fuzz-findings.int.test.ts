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
  token = await platform.token(
    await platform.newTenant([
      'children',
      'children.read',
      'settlements',
      'bookings',
      'bookings.read',
      'orders',
      'assessments',
    ])
  )
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('a workflow that does not answer', () => {
  it('is a 503 dependency_unavailable the client may retry, not a 500 from an expired transaction', async () => {
    const child = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Fuzz', lastName: 'Finding', dateOfBirth: '2022-02-02' },
    })
    expect(child.status).toBe(201)
    // An update waits for the progress workflow's answer; no worker polls, so none comes.
    const response = await platform.http.post(`/v1/children/${child.body.id as string}/progress/reports`, { token })
    expect(response.status).toBe(503)
    expect(response.body).toMatchObject({ code: 'dependency_unavailable' })
    expect(response.headers.get('retry-after')).toBe('5')
  })
})

describe('text PostgreSQL cannot store', () => {
  // PostgreSQL text refuses the NUL character (SQLSTATE 22021): it reached the database from a query string and from
  // JSON bodies and came back as a 500.
  it('is a 400 invalid_text from a query parameter, not a 500', async () => {
    const response = await platform.http.get('/v1/marketplace/ledger/balances?accountPrefix=%00%F2%80%92%8C', { token })
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body).toMatchObject({ status: 400, code: 'invalid_text' })
  })

  it('is a 400 invalid_text from a JSON body, and nothing is stored', async () => {
    const response = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Nul\u0000', lastName: 'Byte', dateOfBirth: '2022-02-02' },
    })
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body).toMatchObject({ status: 400, code: 'invalid_text' })
    const listed = await platform.http.get('/v1/children?limit=100', { token })
    expect((listed.body.data as Array<{ lastName: string }>).some((c) => c.lastName === 'Byte')).toBe(false)
  })
})

describe('instants PostgreSQL cannot store', () => {
  // PostgreSQL has no year 0: `?to=0000-01-01T00:00Z`, a valid RFC 3339 date-time that Date.parse takes, reached a
  // query as a JavaScript Date of year 0 and came back as a 500 (GET /v1/appointments, /v1/sessions,
  // /v1/providers/{id}/time-off; found once the date-time pattern stopped hiding such values among impossible ones).
  it.each([
    '/v1/appointments?to=0000-01-01T00%3A00Z',
    '/v1/appointments?from=0001-01-01T00%3A00%2B05%3A00',
    '/v1/orders?createdTo=0000-06-01T00%3A00%3A00Z',
  ])('is a 400 validation_error on %s, not a 500', async (route) => {
    const response = await platform.http.get(route, { token })
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body).toMatchObject({ code: 'validation_error' })
  })

  it('is a 400 validation_error for a date of year 0 in a body, and nothing is stored', async () => {
    const response = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Year', lastName: 'Zero', dateOfBirth: '0000-01-01' },
    })
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body).toMatchObject({ code: 'validation_error' })
  })
})

describe('an instant long ago', () => {
  // Intl wrote the local date of year 6 as "6-04-01" and Chicago's offset before 1883 as -05:50:36; the completed
  // assessment's next due date was computed from that string and threw: a 500 (found by Schemathesis).
  it('completes an assessment and schedules the next one, not a 500', async () => {
    const child = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Long', lastName: 'Ago', dateOfBirth: '2022-02-02' },
    })
    const assessment = await platform.http.post('/v1/assessments', {
      token,
      body: { childId: child.body.id, instrument: 'CELF-5', reassessmentCadenceDays: 365 },
    })
    expect(assessment.status, JSON.stringify(assessment.body)).toBe(201)
    const completed = await platform.http.post(`/v1/assessments/${assessment.body.id as string}/complete`, {
      token,
      body: { scores: [{ subtest: 'Core', standardScore: 90 }], completedAt: '0006-03-31t24:00-13:00' },
    })
    expect(completed.status, JSON.stringify(completed.body)).toBe(200)
    const next = await platform.http.get(`/v1/assessments/${completed.body.nextAssessmentId as string}`, { token })
    expect(next.body.dueDate).toBe('0007-04-01')
  })
})
