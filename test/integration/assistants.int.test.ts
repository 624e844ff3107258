/**
 * Assistants over HTTP against the real API and database: create, list, read, merge-patch and delete; scope and tool
 * validation; the `ai` / `ai.read` scopes; tenant isolation; and deletion taking the assistant's knowledge with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let client: ProvisionedClient
let token: string
let readOnly: string

beforeAll(async () => {
  // No worker: nothing here starts a workflow that must run.
  platform = await startPlatform({ withWorker: false })
  client = await platform.newTenant(['ai', 'ai.read'])
  token = await platform.token(client)
  readOnly = await platform.token(client, 'ai.read')
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const create = (body: unknown, as = token) => platform.http.post('/v1/assistants', { token: as, body })
const patch = (id: string, body: unknown, as = token) =>
  platform.http.request('PATCH', `/v1/assistants/${id}`, {
    token: as,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })

describe('creating assistants', () => {
  it('creates a tenant-wide assistant with the default knowledge tool', async () => {
    const response = await create({ name: 'Front desk helper', scope: 'tenant' })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      name: 'Front desk helper',
      scope: 'tenant',
      locationId: null,
      tools: ['knowledge'],
      instructions: null,
      // Nothing indexed yet: no model searches its knowledge.
      knowledge: { embeddingModel: null, reembeddingTo: null },
    })
    expect(response.body.id).toMatch(/^ast_/)
    expect(response.body.createdAt).toMatch(/Z$/)
    expect(response.headers.get('location')).toBe(`/v1/assistants/${response.body.id}`)
  })

  it('scopes an assistant to one of the tenant’s locations, with tools and instructions', async () => {
    const response = await create({
      name: 'Clinic coordinator',
      scope: `location:${client.locationId}`,
      tools: ['knowledge', 'bookings', 'child_records', 'assessments'],
      instructions: 'Answer briefly and cite the policy.',
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      scope: `location:${client.locationId}`,
      locationId: client.locationId,
      tools: ['knowledge', 'bookings', 'child_records', 'assessments'],
      instructions: 'Answer briefly and cite the policy.',
    })
  })

  it('refuses another tenant’s location, unknown tools, duplicates and malformed scopes', async () => {
    const other = await platform.newTenant(['ai'])
    const foreign = await create({ name: 'X', scope: `location:${other.locationId}` })
    expect(foreign.status).toBe(400)
    expect(foreign.body.code).toBe('validation_error')
    expect(foreign.body.errors).toEqual([expect.objectContaining({ path: 'scope', code: 'not_found' })])

    const tools = await create({ name: 'X', scope: 'tenant', tools: ['knowledge', 'payments'] })
    expect(tools.status).toBe(400)
    expect(tools.body.errors[0].path).toBe('tools.1')

    const duplicate = await create({ name: 'X', scope: 'tenant', tools: ['knowledge', 'knowledge'] })
    expect(duplicate.status).toBe(400)
    expect(duplicate.body.errors[0]).toMatchObject({ path: 'tools', code: 'duplicate' })

    const scope = await create({ name: 'X', scope: 'everywhere' })
    expect(scope.status).toBe(400)
    expect(scope.body.errors[0].path).toBe('scope')
  })

  it('needs the ai scope to write; ai.read reads', async () => {
    const refused = await create({ name: 'X', scope: 'tenant' }, readOnly)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
    const listed = await platform.http.get('/v1/assistants', { token: readOnly })
    expect(listed.status).toBe(200)
    const anonymous = await platform.http.get('/v1/assistants')
    expect(anonymous.status).toBe(401)
  })
})

describe('reading, listing, changing and deleting', () => {
  it('lists with filters, sorting and cursor pages', async () => {
    const own = await platform.newTenant(['ai'])
    const ownToken = await platform.token(own)
    for (const [name, tools] of [
      ['Bravo', ['knowledge']],
      ['Alpha', ['knowledge', 'bookings']],
      ['Charlie', ['bookings']],
    ] as const) {
      expect((await create({ name, scope: 'tenant', tools }, ownToken)).status).toBe(201)
    }
    const byName = await platform.http.get('/v1/assistants?sort=name&limit=2', { token: ownToken })
    expect(byName.body.data.map((a: { name: string }) => a.name)).toEqual(['Alpha', 'Bravo'])
    const next = await platform.http.get(`/v1/assistants?sort=name&limit=2&cursor=${byName.body.nextCursor}`, {
      token: ownToken,
    })
    expect(next.body.data.map((a: { name: string }) => a.name)).toEqual(['Charlie'])
    expect(next.body.nextCursor).toBeNull()
    const withBookings = await platform.http.get('/v1/assistants?tool=bookings&sort=name', { token: ownToken })
    expect(withBookings.body.data.map((a: { name: string }) => a.name)).toEqual(['Alpha', 'Charlie'])
  })

  it('changes fields by merge patch, validates the result and removes instructions with null', async () => {
    const { body: assistant } = await create({ name: 'Helper', scope: 'tenant', instructions: 'Be kind.' })
    const renamed = await patch(assistant.id, {
      name: 'Renamed',
      scope: `location:${client.locationId}`,
      tools: ['bookings'],
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      locationId: client.locationId,
      tools: ['bookings'],
      instructions: 'Be kind.',
    })
    const cleared = await patch(assistant.id, { instructions: null })
    expect(cleared.body.instructions).toBeNull()
    const invalid = await patch(assistant.id, { name: null })
    expect(invalid.status).toBe(400)
    const unknown = await patch(assistant.id, { model: 'gpt' })
    expect(unknown.status).toBe(400)
    const read = await platform.http.get(`/v1/assistants/${assistant.id}`, { token: readOnly })
    expect(read.body).toMatchObject({ name: 'Renamed', instructions: null })
  })

  it('hides one tenant’s assistants from another (404, never 403)', async () => {
    const { body: assistant } = await create({ name: 'Private helper', scope: 'tenant' })
    const other = await platform.newTenant(['ai'])
    const otherToken = await platform.token(other)
    for (const response of [
      await platform.http.get(`/v1/assistants/${assistant.id}`, { token: otherToken }),
      await patch(assistant.id, { name: 'Stolen' }, otherToken),
      await platform.http.request('DELETE', `/v1/assistants/${assistant.id}`, { token: otherToken }),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    const list = await platform.http.get('/v1/assistants?limit=100', { token: otherToken })
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(assistant.id)
    expect((await platform.http.get(`/v1/assistants/${assistant.id}`, { token })).body.name).toBe('Private helper')
  })

  it('deletes an assistant with its documents and chunks', async () => {
    const { body: assistant } = await create({ name: 'Short-lived', scope: 'tenant' })
    // Knowledge written directly (the upload path is covered by the knowledge tests), to see the cascade.
    const db = platform.api.deps.db
    await db.knowledgeDocument.create({
      data: {
        id: `kdoc_t${Date.now()}`,
        tenantId: client.tenantId,
        assistantId: assistant.id,
        name: 'a.txt',
        mediaType: 'text/plain',
        sizeBytes: 1,
        sha256: 'x',
        content: new Uint8Array([65]),
      },
    })
    const deleted = await platform.http.request('DELETE', `/v1/assistants/${assistant.id}`, { token })
    expect(deleted.status).toBe(204)
    expect((await platform.http.get(`/v1/assistants/${assistant.id}`, { token })).status).toBe(404)
    expect(await db.knowledgeDocument.count({ where: { assistantId: assistant.id } })).toBe(0)
  })
})
