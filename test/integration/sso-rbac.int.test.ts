/**
 * Platform users: a tenant connects its OpenID Connect issuer; the issuer's tokens (verified against its JWKS,
 * fetched over loopback from a real issuer, which this file's configuration allows) sign users in, their group claims
 * map to roles, and each role may do exactly what its permissions say. The issuer's documents are fetched once and
 * cached, and however many tokens name the issuer, its key set is fetched again at most once per interval. A key set
 * larger than the cap or slower than the deadline fails the token (401 `invalid_token`) without holding the request
 * past the deadline, and the failure is remembered for the interval. A tenant cannot register another tenant's issuer
 * with a key set of its own, and its own connection of that issuer signs nobody into the other tenant (more in
 * sso-identities-per-tenant.int.test.ts).
 */
import { generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SSO_FETCH_LIMITS } from '../../domain/auth/sso-issuer-keys.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer.ts'

let platform: Platform
let issuer: TestIssuer
let admin: string
let tenantId: string
const AUDIENCE = 'therapy-care-platform'
/** How far the API's clock runs ahead of the wall clock: moved to step past the fetch interval. */
let skewMs = 0

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    // The test issuer is on loopback and plain HTTP, which only development allows by default.
    overrides: { SSO_REQUIRE_HTTPS: 'false', SSO_ALLOW_PRIVATE_NETWORKS: 'true' },
    clock: () => new Date(Date.now() + skewMs),
  })
  issuer = await startTestIssuer()
  // Every scope: a role is given only by a caller that holds all of it (ADMIN is every scope).
  const client = await platform.newTenant(ALL_SCOPES)
  tenantId = client.tenantId
  admin = await platform.token(client)
  const connection = await platform.http.post('/v1/sso-connections', {
    token: admin,
    body: {
      issuer: issuer.issuer,
      audience: AUDIENCE,
      roleClaim: 'groups',
      roleMapping: {
        therapists: 'CLINICIAN',
        'front-desk': 'FRONT_DESK',
        auditors: 'READ_ONLY',
        'it-admins': 'ADMIN',
        owners: 'OWNER',
      },
    },
  })
  expect(connection.status).toBe(201)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await issuer?.close()
})

const userToken = (sub: string, groups: string[], extra: Record<string, unknown> = {}) =>
  issuer.sign({ sub, groups, email: `${sub}@centre.example`, name: sub, ...extra }, AUDIENCE)

describe('SSO sign-in', () => {
  it('signs a clinician in, creates the user with the mapped role and lets the role do its work', async () => {
    const token = await userToken('dana', ['therapists'])
    const child = await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'Lia', lastName: 'Grey', dateOfBirth: '2022-03-03' },
    })
    expect(child.status).toBe(201)
    const users = await platform.http.get('/v1/users', { token: admin })
    expect(users.body.data).toEqual([
      expect.objectContaining({ email: 'dana@centre.example', role: 'CLINICIAN', disabled: false }),
    ])

    // A clinician reads providers but may not create them, nor manage users.
    expect((await platform.http.post('/v1/providers', { token, body: { name: 'X', timeZone: 'UTC' } })).status).toBe(
      403
    )
    expect((await platform.http.get('/v1/users', { token })).status).toBe(403)
  })

  it('maps several groups to the most privileged role, and read-only users only read', async () => {
    const auditor = await userToken('ro', ['auditors'])
    const created = await platform.http.post('/v1/children', {
      token: admin,
      body: { firstName: 'A', lastName: 'B', dateOfBirth: '2021-01-01' },
    })
    expect((await platform.http.get(`/v1/children/${created.body.id}`, { token: auditor })).status).toBe(200)
    const write = await platform.http.post('/v1/children', {
      token: auditor,
      body: { firstName: 'A', lastName: 'B', dateOfBirth: '2021-01-01' },
    })
    expect(write.status).toBe(403)
    expect(write.body.code).toBe('insufficient_scope')

    const both = await userToken('mixed', ['auditors', 'it-admins'])
    expect((await platform.http.get('/v1/users', { token: both })).status).toBe(200)
  })

  it('refuses forged, expired, wrongly addressed and unmapped tokens', async () => {
    const { privateKey: stranger } = await generateKeyPair('RS256')
    const forged = await issuer.sign({ sub: 'eve', groups: ['it-admins'] }, AUDIENCE, { key: stranger })
    const expired = await issuer.sign({ sub: 'old', groups: ['therapists'] }, AUDIENCE, { expiresIn: '-1m' })
    const otherAudience = await issuer.sign({ sub: 'aud', groups: ['therapists'] }, 'some-other-app')
    for (const token of [forged, expired, otherAudience]) {
      const response = await platform.http.get('/v1/users', { token })
      expect(response.status).toBe(401)
      expect(response.body.code).toBe('invalid_token')
    }
    const unmapped = await platform.http.get('/v1/children/chd_x', { token: await userToken('nobody', ['gardeners']) })
    expect(unmapped.status).toBe(403)
    expect(unmapped.body.code).toBe('forbidden')
  })

  it('lets an admin change a role or disable a user, and keeps users inside their tenant', async () => {
    const token = await userToken('desk', ['front-desk'])
    expect((await platform.http.get('/v1/providers', { token })).status).toBe(200)
    const users = await platform.http.get('/v1/users?limit=100', { token: admin })
    const desk = users.body.data.find((u: { email: string }) => u.email === 'desk@centre.example')
    const disabled = await platform.http.request('PATCH', `/v1/users/${desk.id}`, {
      token: admin,
      body: { disabled: true },
    })
    expect(disabled.status).toBe(200)
    expect(disabled.body.disabled).toBe(true)
    expect((await platform.http.get('/v1/providers', { token })).status).toBe(403)

    const other = await platform.newTenant(['users'])
    const otherAdmin = await platform.token(other)
    expect(
      (await platform.http.request('PATCH', `/v1/users/${desk.id}`, { token: otherAdmin, body: { role: 'OWNER' } }))
        .status
    ).toBe(404)
    const stored = await platform.api.deps.db.platformUser.findUniqueOrThrow({ where: { id: desk.id } })
    expect(stored.tenantId).toBe(tenantId)
  })
})

describe('roles', () => {
  const userNamed = async (email: string) =>
    (await platform.http.get('/v1/users?limit=100', { token: admin })).body.data.find(
      (u: { email: string }) => u.email === email
    ) as { id: string; role: string }

  it('keeps a role changed through the API: the next sign-in does not map it again from the claims', async () => {
    const first = await userToken('lee', ['it-admins'])
    expect((await platform.http.get('/v1/users', { token: first })).status).toBe(200)
    const lee = await userNamed('lee@centre.example')
    expect(lee.role).toBe('ADMIN')
    const demoted = await platform.http.request('PATCH', `/v1/users/${lee.id}`, {
      token: admin,
      body: { role: 'READ_ONLY' },
    })
    expect(demoted.status).toBe(200)
    // A fresh sign-in whose claims still say it-admins: the demotion holds.
    const again = await userToken('lee', ['it-admins'], { jti: 'second-sign-in' })
    expect((await platform.http.get('/v1/users', { token: again })).status).toBe(403)
    expect((await userNamed('lee@centre.example')).role).toBe('READ_ONLY')
  })

  it('gives a role only to a caller that holds all of it, and OWNER only from an owner', async () => {
    await userToken('sam', ['front-desk']).then((token) => platform.http.get('/v1/providers', { token }))
    const sam = await userNamed('sam@centre.example')
    const { name } = await platform.api.deps.db.tenant.findUniqueOrThrow({ where: { id: tenantId } })
    const usersOnly = await platform.token(
      await provisionClient(platform.api.deps.db, { tenantName: name, scopes: ['users'] })
    )
    for (const role of ['OWNER', 'ADMIN']) {
      const raised = await platform.http.request('PATCH', `/v1/users/${sam.id}`, { token: usersOnly, body: { role } })
      expect(raised.status, role).toBe(403)
      expect(raised.body.code).toBe('forbidden')
    }
    // The tenant's all-scope client may make an administrator, but not an owner.
    const raise = (role: string) =>
      platform.http.request('PATCH', `/v1/users/${sam.id}`, { token: admin, body: { role } })
    expect((await raise('ADMIN')).status).toBe(200)
    expect((await raise('OWNER')).status).toBe(403)
    expect((await userNamed('sam@centre.example')).role).toBe('ADMIN')
  })

  it('lets no one below an owner change, disable or re-enable an owner, and keeps the last owner one', async () => {
    const signIn = async (sub: string, groups: string[]) => {
      const token = await userToken(sub, groups)
      expect((await platform.http.get('/v1/providers', { token })).status).toBe(200)
      return { token, id: (await userNamed(`${sub}@centre.example`)).id }
    }
    const [olga, owen, adam] = [
      await signIn('olga', ['owners']),
      await signIn('owen', ['owners']),
      await signIn('adam', ['it-admins']),
    ]
    const patch = (by: string, id: string, body: object) =>
      platform.http.request('PATCH', `/v1/users/${id}`, { token: by, body })
    // An administrator (every scope) and the tenant's all-scope client: nothing on an owner.
    for (const by of [adam.token, admin]) {
      for (const body of [{ disabled: true }, { role: 'ADMIN' }, { providerId: null }]) {
        const refused = await patch(by, owen.id, body)
        expect(refused.status, JSON.stringify(body)).toBe(403)
        expect(refused.body.code).toBe('forbidden')
      }
    }
    expect((await platform.http.get('/v1/users', { token: owen.token })).status).toBe(200)

    // An owner disables an owner; an administrator cannot undo it.
    expect((await patch(olga.token, owen.id, { disabled: true })).status).toBe(200)
    expect((await patch(adam.token, owen.id, { disabled: false })).status).toBe(403)
    expect((await platform.http.get('/v1/users', { token: owen.token })).status).toBe(403)
    // Olga is now the last enabled owner: she can neither demote nor disable herself.
    for (const body of [{ role: 'ADMIN' }, { disabled: true }]) {
      const kept = await patch(olga.token, olga.id, body)
      expect(kept.status, JSON.stringify(body)).toBe(409)
      expect(kept.body.code).toBe('last_owner')
    }
    // Two owners demoting each other at once: one of them stays an owner.
    expect((await patch(olga.token, owen.id, { disabled: false })).status).toBe(200)
    const both = await Promise.all([
      patch(olga.token, owen.id, { role: 'ADMIN' }),
      patch(owen.token, olga.id, { role: 'ADMIN' }),
    ])
    expect(both.map((r) => r.status).sort()).toEqual([200, 409])
    const owners = await platform.api.deps.db.platformUser.count({
      where: { tenantId, role: 'OWNER', disabledAt: null },
    })
    expect(owners).toBe(1)

    // The owner's call on an owner is on the trail: who, on whom, the answer.
    const trail = await platform.api.deps.db.auditEvent.findMany({
      where: { tenantId, actorId: olga.id, resourceId: owen.id, method: 'PATCH' },
    })
    expect(trail.map((e) => e.status)).toEqual(expect.arrayContaining([200]))
  })
})

describe('SSO fetches', () => {
  it('fetches the issuer once for many tokens, and its key set at most once per interval for unknown key ids', async () => {
    for (let i = 0; i < 10; i++) {
      expect(
        (await platform.http.get('/v1/providers', { token: await userToken('desk2', ['front-desk']) })).status
      ).toBe(200)
    }
    // Every sign-in of this file came from the cache filled by the first one.
    expect(issuer.hits).toEqual({ '/.well-known/openid-configuration': 1, '/jwks': 1 })
    // A flood of tokens naming the issuer with key ids it does not publish: one refetch at most in an interval.
    const { privateKey: stranger } = await generateKeyPair('RS256')
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        issuer.sign({ sub: 'eve', groups: ['it-admins'] }, AUDIENCE, { key: stranger, kid: `unknown-${i}` })
      )
    )
    for (const token of flood) {
      const response = await platform.http.get('/v1/users', { token })
      expect(response.status).toBe(401)
      expect(response.body.code).toBe('invalid_token')
    }
    expect(issuer.hits['/jwks']).toBeLessThanOrEqual(2)
    const afterFlood = issuer.hits['/jwks']!

    // The issuer rotates its key: once the interval has passed, the new key id is fetched and signs users in.
    await issuer.rotate()
    skewMs += SSO_FETCH_LIMITS.minIntervalMs
    expect((await platform.http.get('/v1/providers', { token: await userToken('desk3', ['front-desk']) })).status).toBe(
      200
    )
    expect(issuer.hits['/jwks']).toBe(afterFlood + 1)
    expect(issuer.hits['/.well-known/openid-configuration']).toBe(1)
    expect(issuer.hits).toEqual({ '/.well-known/openid-configuration': 1, '/jwks': afterFlood + 1 })
  })

  it("refuses another tenant's key set for this issuer, and signs nobody into this tenant through its connection", async () => {
    const known = await userToken('victim', ['it-admins'])
    expect((await platform.http.get('/v1/users', { token: known })).status).toBe(200)

    // Another tenant registers this issuer with a key set it controls: refused (not the issuer's host). Its own
    // connection of the issuer, under its own audience, uses the issuer's keys and users of its own.
    const attacker = await startTestIssuer()
    try {
      const intruder = await platform.token(await platform.newTenant(['users']))
      const register = (jwksUri?: string) =>
        platform.http.post('/v1/sso-connections', {
          token: intruder,
          body: {
            issuer: issuer.issuer,
            audience: 'intruder-app',
            jwksUri,
            roleClaim: 'groups',
            roleMapping: { 'it-admins': 'OWNER' },
          },
        })
      const foreign = await register(attacker.jwksUri)
      expect(foreign.status).toBe(400)
      expect(foreign.body.errors).toEqual([expect.objectContaining({ path: 'jwksUri', code: 'not_issuer_host' })])
      expect((await register()).status).toBe(201)
      const forge = (audience: string) =>
        attacker.sign({ sub: 'victim', groups: ['it-admins'] }, audience, { iss: issuer.issuer })
      for (const token of [await forge(AUDIENCE), await forge('intruder-app')]) {
        const response = await platform.http.get('/v1/users', { token })
        expect(response.status).toBe(401)
        expect(response.body.code).toBe('invalid_token')
      }
      expect(
        await platform.db.platformUser.findMany({ where: { ssoIssuer: issuer.issuer, ssoSubject: 'victim' } })
      ).toEqual([expect.objectContaining({ tenantId, role: 'ADMIN' })])
    } finally {
      await attacker.close()
    }
  })

  it.each([
    ['larger than the size cap', '/jwks/oversized'],
    ['slower than the deadline', '/jwks/stalled'],
  ])('refuses tokens cleanly when the key set is %s, and calls out once per interval', async (_, path) => {
    const misbehaving = await startTestIssuer()
    try {
      const audience = `limits-${path.split('/').pop()}`
      const registered = await platform.http.post('/v1/sso-connections', {
        token: admin,
        body: {
          issuer: misbehaving.issuer,
          audience,
          jwksUri: `${misbehaving.issuer}${path}`,
          roleMapping: {},
          defaultRole: 'READ_ONLY',
        },
      })
      expect(registered.status).toBe(201)
      const token = await misbehaving.sign({ sub: 'kim' }, audience)
      for (let i = 0; i < 5; i++) {
        const started = Date.now()
        const response = await platform.http.get('/v1/providers', { token })
        // The first request waits for the fetch (at most the deadline); the others get the remembered failure at once.
        expect(Date.now() - started).toBeLessThan(i === 0 ? SSO_FETCH_LIMITS.timeoutMs + 2000 : 1000)
        expect(response.status).toBe(401)
        expect(response.headers.get('content-type')).toContain('application/problem+json')
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
        // The same answer as for any other bad token: nothing of what the issuer sent, nor why the fetch failed.
        expect(response.body).toMatchObject({ status: 401, code: 'invalid_token', detail: 'The SSO token is invalid.' })
      }
      expect(misbehaving.hits).toEqual({ [path]: 1 })
      expect(await platform.db.platformUser.count({ where: { ssoIssuer: misbehaving.issuer } })).toBe(0)
    } finally {
      await misbehaving.close()
    }
  })
})
