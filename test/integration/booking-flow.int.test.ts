/**
 * The spine end to end, over HTTP against the real API, PostgreSQL and Temporal: token → child and provider →
 * appointment → its booking workflow with search attributes → idempotent retries → double booking refused.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appointmentWorkflowId } from '../../common/appointments/appointment-workflow-contract.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform()
  const client = await platform.newTenant(['children', 'providers', 'bookings'])
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('children and providers', () => {
  it('creates and reads back a child, tenant-scoped', async () => {
    const { childId } = await createChildAndProvider(platform.http, token)
    const read = await platform.http.get(`/v1/children/${childId}`, { token })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ id: childId, firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
    expect(read.body.createdAt).toMatch(/Z$/)

    const other = await platform.newTenant(['children'])
    const otherToken = await platform.token(other)
    const hidden = await platform.http.get(`/v1/children/${childId}`, { token: otherToken })
    expect(hidden.status).toBe(404)
    expect(hidden.body.code).toBe('not_found')
    expect(JSON.stringify(hidden.body)).not.toContain('Maya')
  })

  it('lists providers with cursor pagination', async () => {
    const client = await platform.newTenant(['providers'])
    const own = await platform.token(client)
    for (const name of ['A', 'B', 'C']) {
      await platform.http.post('/v1/providers', { token: own, body: { name, timeZone: 'Europe/London' } })
    }
    const first = await platform.http.get('/v1/providers?limit=2', { token: own })
    expect(first.status).toBe(200)
    expect(first.body.data.map((p: { name: string }) => p.name)).toEqual(['A', 'B'])
    const second = await platform.http.get(`/v1/providers?limit=2&cursor=${first.body.nextCursor}`, { token: own })
    expect(second.body.data.map((p: { name: string }) => p.name)).toEqual(['C'])
    expect(second.body.nextCursor).toBeNull()
  })
})

describe('POST /v1/appointments', () => {
  it('books a CONFIRMED appointment in the spec shape and starts its workflow with search attributes', async () => {
    const { childId, providerId } = await createChildAndProvider(platform.http, token)
    const startsAt = futureSlot(10)
    const response = await platform.http.post('/v1/appointments', {
      token,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { childId, providerId, type: 'THERAPY_SESSION', startsAt: startsAt.toISOString(), notes: 'First visit' },
    })
    expect(response.status).toBe(201)
    const appointment = response.body
    expect(appointment).toMatchObject({
      status: 'CONFIRMED',
      childId,
      provider: { id: providerId, name: 'Dana Whitfield' },
      type: 'THERAPY_SESSION',
      timeZone: 'America/Chicago',
    })
    expect(appointment.id).toMatch(/^apt_/)
    // Shown in the location's zone with its offset, and the same instant as requested.
    expect(appointment.startsAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00-0[56]:00$/)
    expect(new Date(appointment.startsAt).getTime()).toBe(startsAt.getTime())
    expect(appointment.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(response.headers.get('location')).toBe(`/v1/appointments/${appointment.id}`)
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/)

    const read = await platform.http.get(`/v1/appointments/${appointment.id}`, { token })
    expect(read.status).toBe(200)
    expect(read.body).toEqual(appointment)

    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(appointment.id))
    const description = await eventually(() => handle.describe().catch(() => undefined))
    expect(description.status.name).toBe('RUNNING')
    expect(description.type).toBe('bookingWorkflow')
    expect(description.taskQueue).toBe(platform.config.TEMPORAL_TASK_QUEUE)
    const attrs = description.searchAttributes as Record<string, unknown[]>
    expect(attrs.TenantId).toEqual([tenantId])
    expect(attrs.AppointmentId).toEqual([appointment.id])
    expect(attrs.ChildId).toEqual([childId])
    expect(attrs.ProviderId).toEqual([providerId])
    expect(attrs.WorkflowKind).toEqual(['booking'])

    // An operator finds it in the Temporal UI by tenant, child or provider: the same visibility query.
    const found = await eventually(async () => {
      const ids: string[] = []
      for await (const wf of platform.temporal.workflow.list({
        query: `TenantId = "${tenantId}" AND ChildId = "${childId}"`,
      })) {
        ids.push(wf.workflowId)
      }
      return ids.includes(handle.workflowId) ? ids : undefined
    })
    expect(found).toContain(handle.workflowId)
  })

  it('replays the same Idempotency-Key and body without creating anything, and rejects it with another body', async () => {
    const { childId, providerId } = await createChildAndProvider(platform.http, token)
    const key = randomUUID()
    const body = { childId, providerId, type: 'THERAPY_SESSION', startsAt: futureSlot(11).toISOString() }
    const first = await platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
    const second = await platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(second.body).toEqual(first.body)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()

    const count = await platform.api.deps.db.appointment.count({ where: { providerId } })
    expect(count).toBe(1)

    const reused = await platform.http.post('/v1/appointments', {
      token,
      headers: { 'Idempotency-Key': key },
      body: { ...body, notes: 'changed' },
    })
    expect(reused.status).toBe(422)
    expect(reused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(reused.body.code).toBe('idempotency_key_reused')
  })

  it('gives racing requests with the same key the same appointment and creates one', async () => {
    const { childId, providerId } = await createChildAndProvider(platform.http, token)
    const key = randomUUID()
    const body = { childId, providerId, startsAt: futureSlot(12).toISOString() }
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
      )
    )
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201])
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4)
    expect(await platform.api.deps.db.appointment.count({ where: { providerId } })).toBe(1)
  })

  it('refuses an overlapping booking of the same provider, even when the requests race', async () => {
    const { childId, providerId } = await createChildAndProvider(platform.http, token)
    const startsAt = futureSlot(13)
    const booked = await platform.http.post('/v1/appointments', {
      token,
      body: { childId, providerId, startsAt: startsAt.toISOString() },
    })
    expect(booked.status).toBe(201)

    const overlapping = await platform.http.post('/v1/appointments', {
      token,
      body: { childId, providerId, startsAt: new Date(startsAt.getTime() + 30 * 60_000).toISOString() },
    })
    expect(overlapping.status).toBe(409)
    expect(overlapping.body).toMatchObject({ code: 'slot_unavailable', status: 409, instance: '/v1/appointments' })

    // Back to back is fine.
    const adjacent = await platform.http.post('/v1/appointments', {
      token,
      body: { childId, providerId, startsAt: new Date(startsAt.getTime() + 60 * 60_000).toISOString() },
    })
    expect(adjacent.status).toBe(201)

    const raceStart = futureSlot(14).toISOString()
    const race = await Promise.all(
      Array.from({ length: 6 }, () =>
        platform.http.post('/v1/appointments', { token, body: { childId, providerId, startsAt: raceStart } })
      )
    )
    expect(race.filter((r) => r.status === 201)).toHaveLength(1)
    expect(race.filter((r) => r.status === 409)).toHaveLength(5)
  })

  it('answers bad input with a problem document and per-field errors', async () => {
    const response = await platform.http.post('/v1/appointments', {
      token,
      body: { childId: 'chd_x', startsAt: '2026-12-01 09:00', type: 'MASSAGE' },
    })
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(response.body).toMatchObject({ code: 'validation_error', status: 400, instance: '/v1/appointments' })
    expect(response.body.requestId).toBe(response.headers.get('x-request-id'))
    const paths = response.body.errors.map((e: { path: string }) => e.path).sort()
    expect(paths).toEqual(['childId', 'providerId', 'startsAt', 'type'])
    expect(response.body.errors.find((e: { path: string }) => e.path === 'providerId').code).toBe('required')
    // `chd_x` is not the shape of any child id (the description's pattern), so it names no child.
    expect(response.body.errors.find((e: { path: string }) => e.path === 'childId').code).toBe('not_found')

    const unknownRefs = await platform.http.post('/v1/appointments', {
      token,
      body: { childId: 'chd_missing', providerId: 'prv_missing', startsAt: futureSlot(20).toISOString() },
    })
    expect(unknownRefs.status).toBe(400)
    expect(unknownRefs.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'childId:not_found',
      'providerId:not_found',
    ])

    const { childId: archivedChild, providerId } = await createChildAndProvider(platform.http, token)
    expect((await platform.http.request('DELETE', `/v1/children/${archivedChild}`, { token })).status).toBeLessThan(300)
    const archived = await platform.http.post('/v1/appointments', {
      token,
      body: { childId: archivedChild, providerId, startsAt: futureSlot(21).toISOString() },
    })
    expect(archived.status).toBe(400)
    expect(archived.body.errors).toEqual([expect.objectContaining({ path: 'childId', code: 'archived' })])

    const malformed = await platform.http.post('/v1/appointments', {
      token,
      raw: '{"childId": ',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe('invalid_json')

    const wrongType = await platform.http.post('/v1/appointments', {
      token,
      raw: 'a=b',
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(wrongType.status).toBe(415)
    expect(wrongType.body.code).toBe('unsupported_media_type')
  })

  it('requires a valid token with the bookings scope', async () => {
    const none = await platform.http.post('/v1/appointments', { body: {} })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(none.body.code).toBe('invalid_token')

    const bad = await platform.http.get('/v1/appointments/apt_x', { token: `${token.slice(0, -4)}AAAA` })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"')

    const readOnly = await platform.newTenant(['children'])
    const childrenOnly = await platform.token(readOnly)
    const forbidden = await platform.http.post('/v1/appointments', { token: childrenOnly, body: {} })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.code).toBe('insufficient_scope')
    expect(forbidden.headers.get('www-authenticate')).toContain('scope="bookings"')

    const missing = await platform.http.get('/v1/appointments/apt_does_not_exist', { token })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('not_found')
  })
})
