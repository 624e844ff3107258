/**
 * API keys scoped to resource types and HTTP methods (docs/access-control.md): created by a client, secret shown once and
 * stored hashed, listed without secrets, revoked; a key for `GET children` cannot POST anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashSecret } from '../../domain/auth/secrets.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let admin: string
let childId: string

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  const client = await platform.newTenant(['children', 'providers', 'api_keys'])
  admin = await platform.token(client)
  const child = await platform.http.post('/v1/children', {
    token: admin,
    body: { firstName: 'Ada', lastName: 'Moss', dateOfBirth: '2021-05-05' },
  })
  childId = child.body.id
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const createKey = (permissions: unknown, token = admin) =>
  platform.http.post('/v1/api-keys', { token, body: { name: 'Kiosk', permissions } })

describe('API keys', () => {
  it('shows the secret once, stores only its hash and lists keys without secrets', async () => {
    const created = await createKey([{ resource: 'children', methods: ['GET'] }])
    expect(created.status).toBe(201)
    expect(created.body.secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)
    expect(created.body.prefix).toBe(created.body.secret.slice(0, 10))
    const stored = await platform.api.deps.db.apiKey.findUniqueOrThrow({ where: { id: created.body.id } })
    expect(stored.secretHash).toBe(hashSecret(created.body.secret))
    expect(JSON.stringify(stored)).not.toContain(created.body.secret)

    const list = await platform.http.get('/v1/api-keys', { token: admin })
    expect(list.status).toBe(200)
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id)
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret)
  })

  it('lets a GET-children key read children and nothing else', async () => {
    const { body } = await createKey([{ resource: 'children', methods: ['GET'] }])
    const key = body.secret as string
    const read = await platform.http.get(`/v1/children/${childId}`, { token: key })
    expect(read.status).toBe(200)
    expect(read.body.id).toBe(childId)

    const write = await platform.http.post('/v1/children', {
      token: key,
      body: { firstName: 'No', lastName: 'Way', dateOfBirth: '2020-01-01' },
    })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')
    expect((await platform.http.get('/v1/providers', { token: key })).status).toBe(403)
    expect(
      (await platform.http.post('/v1/providers', { token: key, body: { name: 'X', timeZone: 'UTC' } })).status
    ).toBe(403)
    expect((await platform.http.get('/v1/api-keys', { token: key })).status).toBe(403)
  })

  it('refuses a key that would exceed its creator, and keys created by keys stay within them', async () => {
    const beyond = await createKey([{ resource: 'bookings', methods: ['POST'] }])
    expect(beyond.status).toBe(403)
    expect(beyond.body.code).toBe('forbidden')

    const manager = (
      await createKey([
        { resource: 'api_keys', methods: ['POST'] },
        { resource: 'children', methods: ['GET'] },
      ])
    ).body.secret as string
    expect((await createKey([{ resource: 'children', methods: ['GET'] }], manager)).status).toBe(201)
    expect((await createKey([{ resource: 'children', methods: ['POST'] }], manager)).status).toBe(403)
  })

  it('stops working once revoked, and belongs to its tenant only', async () => {
    const created = await createKey([{ resource: 'children', methods: ['GET'] }])
    const key = created.body.secret as string
    expect((await platform.http.get(`/v1/children/${childId}`, { token: key })).status).toBe(200)

    const other = await platform.newTenant(['api_keys'])
    const otherToken = await platform.token(other)
    expect(
      (await platform.http.request('DELETE', `/v1/api-keys/${created.body.id}`, { token: otherToken })).status
    ).toBe(404)

    const revoked = await platform.http.request('DELETE', `/v1/api-keys/${created.body.id}`, { token: admin })
    expect(revoked.status).toBe(200)
    expect(revoked.body.revokedAt).toMatch(/Z$/)
    const refused = await platform.http.get(`/v1/children/${childId}`, { token: key })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('invalid_token')
  })

  it('validates permissions per field', async () => {
    const bad = await createKey([{ resource: 'everything', methods: ['FETCH'] }])
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'permissions.0.methods.0',
      'permissions.0.resource',
    ])
  })
})
