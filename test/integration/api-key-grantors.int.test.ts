/**
 * Revoked means revoked (issue 55, item 1): an API key lives only while what granted it does, and never outlives it.
 * Through the real API and database: a key made by an OAuth client is refused at once after `npm run cli -- clients
 * revoke`; a key made by an expiring key expires with it and cannot ask for longer; a key made by a key stops when its
 * maker is revoked; a key made by a platform user stops when the user is demoted below its permissions or disabled;
 * every key has an expiry (the platform's maximum lifetime when none is asked for).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../domain/auth/api-key-service.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { cli as runInProcess } from '../support/operator-cli.ts'
import { eventually, startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'

let platform: Platform

const cli = (...args: string[]) => runInProcess({ ...databaseEnvOf(platform.config) }, ...args)
const DAY = 86_400_000

const CHILDREN_AND_KEYS = [
  { resource: 'children', methods: ['GET', 'POST'] },
  { resource: 'api_keys', methods: ['POST'] },
]

async function mintKey(token: string, body: Record<string, unknown>) {
  const response = await platform.http.post('/v1/api-keys', { token, body: { name: 'integration', ...body } })
  return response
}

const readsChildren = async (secret: string) => (await platform.http.get('/v1/children', { token: secret })).status

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, overrides: { API_KEY_MAX_LIFETIME_DAYS: '90' } })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('a key and its grantor', () => {
  it("stops working as soon as the client that made it is revoked, and a key's keys with it", async () => {
    const client = await platform.newTenant(['children', 'api_keys'])
    const token = await platform.token(client)
    const made = await mintKey(token, { permissions: CHILDREN_AND_KEYS })
    expect(made.status).toBe(201)
    const grandchild = await mintKey(made.body.secret, { permissions: [{ resource: 'children', methods: ['GET'] }] })
    expect(grandchild.status).toBe(201)
    expect(await readsChildren(made.body.secret)).toBe(200)
    expect(await readsChildren(grandchild.body.secret)).toBe(200)

    const revoked = await cli('clients', 'revoke', '--tenant', client.tenantId, '--client', client.client_id)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(await readsChildren(made.body.secret)).toBe(401)
    expect(await readsChildren(grandchild.body.secret)).toBe(401)
    // The client's own access token, issued before: the CLI is another process, so the API hears of it at its next
    // revocation sync (every second), not at once.
    expect(await eventually(async () => ((await readsChildren(token)) === 401 ? true : undefined), 5000, 100)).toBe(
      true
    )
  })

  it('expires with the key that made it, cannot ask for longer, and stops when its maker is revoked', async () => {
    const client = await platform.newTenant(['children', 'api_keys'])
    const token = await platform.token(client)
    const inAnHour = new Date(Date.now() + 3_600_000)
    const parent = await mintKey(token, { permissions: CHILDREN_AND_KEYS, expiresAt: inAnHour.toISOString() })
    expect(parent.status).toBe(201)

    const unbounded = await mintKey(parent.body.secret, { permissions: [{ resource: 'children', methods: ['GET'] }] })
    expect(unbounded.status).toBe(201)
    expect(unbounded.body.expiresAt).toBe(inAnHour.toISOString())
    const longer = await mintKey(parent.body.secret, {
      permissions: [{ resource: 'children', methods: ['GET'] }],
      expiresAt: new Date(Date.now() + 2 * 3_600_000).toISOString(),
    })
    expect(longer.status).toBe(400)
    expect(longer.body.code).toBe('validation_error')
    expect(longer.body.errors[0]).toMatchObject({ path: 'expiresAt', code: 'beyond_limit' })

    expect(await readsChildren(unbounded.body.secret)).toBe(200)
    const revoke = await platform.http.request('DELETE', `/v1/api-keys/${parent.body.id}`, { token })
    expect(revoke.status).toBe(200)
    expect(await readsChildren(unbounded.body.secret)).toBe(401)
  })

  it("gets the platform's maximum lifetime when it asks for none, and cannot ask for more", async () => {
    const client = await platform.newTenant(['children', 'api_keys'])
    const token = await platform.token(client)
    const plain = await mintKey(token, { permissions: [{ resource: 'children', methods: ['GET'] }] })
    expect(plain.status).toBe(201)
    const lifetime = Date.parse(plain.body.expiresAt) - Date.now()
    expect(lifetime).toBeGreaterThan(89 * DAY)
    expect(lifetime).toBeLessThanOrEqual(90 * DAY)
    const tooLong = await mintKey(token, {
      permissions: [{ resource: 'children', methods: ['GET'] }],
      expiresAt: new Date(Date.now() + 91 * DAY).toISOString(),
    })
    expect(tooLong.status).toBe(400)
  })

  it('stops working when the user who made it is demoted below its permissions, or disabled', async () => {
    // Every scope: a role is given only by a caller holding all of it (ADMIN is every scope).
    const admin = await platform.newTenant(ALL_SCOPES)
    const adminToken = await platform.token(admin)
    const userId = newId('platformUser')
    const db = platform.api.deps.db
    await db.platformUser.create({
      data: { id: userId, tenantId: admin.tenantId, email: 'lead@centre.example', role: 'ADMIN' },
    })
    // As the API does for a signed-in user: the user is the grantor, its role's scopes bound the key.
    const userKey = async (name: string) =>
      (
        await runInUnitOfWork(db, admin.tenantId, (uow) =>
          createApiKey(
            uow,
            { kind: 'scopes', scopes: ['children'] },
            userId,
            { name, permissions: [{ resource: 'children', methods: ['GET', 'POST'] }] },
            () => new Date()
          )
        )
      ).secret
    const setUser = (body: Record<string, unknown>) =>
      platform.http.request('PATCH', `/v1/users/${userId}`, { token: adminToken, body })
    const [first, second] = [await userKey('lead'), await userKey('lead, later')]
    expect(await readsChildren(first)).toBe(200)

    expect((await setUser({ role: 'READ_ONLY' })).status).toBe(200)
    expect(await readsChildren(first)).toBe(401)

    // A refused key is remembered as refused; the other, not yet refused, works again with the role back.
    expect((await setUser({ role: 'ADMIN' })).status).toBe(200)
    expect(await readsChildren(second)).toBe(200)
    expect((await setUser({ disabled: true })).status).toBe(200)
    expect(await readsChildren(second)).toBe(401)
  })
})
