/**
 * SSO identities belong to a tenant (issue 55, point 2), tried as another tenant would. Users are unique per tenant,
 * issuer and subject, so one tenant cannot pre-claim another's staff, and an issuer and audience belong to one tenant
 * (issue 76): a tenant that finds its pair taken registers the audience only it may (`urn:therapy-care:tenant:<id>`).
 * A token is resolved through the connection that verified it; for pairs two tenants shared before that rule, a token
 * both verify is refused (401 `sso_connection_ambiguous`) unless it names its tenant (`X-Tenant-Id`). A key set URL away from the issuer's own host is refused at registration, and again when a
 * connection stored under older rules is used. Real issuers on loopback (test/support/oidc-issuer.ts) sign the tokens.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
/** Centre A's identity provider. */
let issuer: TestIssuer
/** A key server tenant B controls. */
let attacker: TestIssuer
const tenants: Record<'a' | 'b', { tenantId: string; token: string }> = {} as never

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    // The test issuers are on loopback and plain HTTP, which only development allows by default.
    overrides: { SSO_REQUIRE_HTTPS: 'false', SSO_ALLOW_PRIVATE_NETWORKS: 'true' },
  })
  issuer = await startTestIssuer()
  attacker = await startTestIssuer()
  for (const name of ['a', 'b'] as const) {
    const client = await platform.newTenant(['users'])
    tenants[name] = { tenantId: client.tenantId, token: await platform.token(client) }
  }
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await issuer?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await attacker?.close()
})

const connect = (tenant: 'a' | 'b', body: Record<string, unknown>) =>
  platform.http.post('/v1/sso-connections', {
    token: tenants[tenant].token,
    body: { roleClaim: 'groups', roleMapping: { staff: 'CLINICIAN', admins: 'OWNER' }, ...body },
  })

const appName = (what: string) => `${what}-${randomBytes(4).toString('hex')}`

/** Where users with this subject of `idp` live, by tenant. */
const usersOf = async (idp: TestIssuer, subject: string) =>
  (
    await platform.db.platformUser.findMany({
      where: { ssoIssuer: idp.issuer, ssoSubject: subject },
      orderBy: { id: 'asc' },
    })
  ).map((u) => ({ tenantId: u.tenantId, role: u.role }))

describe('a tenant cannot claim the subjects of another tenant’s issuer', () => {
  it('refuses a key set URL away from the issuer’s own host, and accepts one on it', async () => {
    const foreign = await connect('b', { issuer: issuer.issuer, audience: appName('b'), jwksUri: attacker.jwksUri })
    expect(foreign.status).toBe(400)
    expect(foreign.headers.get('content-type')).toContain('application/problem+json')
    expect(foreign.body).toMatchObject({ code: 'validation_error' })
    expect(foreign.body.errors).toEqual([expect.objectContaining({ path: 'jwksUri', code: 'not_issuer_host' })])
    expect(await platform.db.ssoConnection.count({ where: { tenantId: tenants.b.tenantId } })).toBe(0)

    const own = await connect('b', { issuer: attacker.issuer, audience: appName('b'), jwksUri: attacker.jwksUri })
    expect(own.status).toBe(201)
  })

  it('keeps A’s staff signing in to A after B signed the same subject in through a connection of its own', async () => {
    const audienceA = appName('a')
    const audienceB = appName('b')
    expect((await connect('a', { issuer: issuer.issuer, audience: audienceA })).status).toBe(201)
    // B registers the same issuer for its own app: not refused, it no longer claims anything of A's.
    expect((await connect('b', { issuer: issuer.issuer, audience: audienceB })).status).toBe(201)

    // The same person (subject) signs in to B first, say a therapist who also works there...
    const inB = await platform.http.get('/v1/users', {
      token: await issuer.sign({ sub: 'alice', groups: ['staff'] }, audienceB),
    })
    expect(inB.status).toBe(403) // a clinician does not read users: signed in, as B's user
    expect(inB.body.code).toBe('insufficient_scope')
    // ...and then to A, which still signs her in, as A's user with A's mapping.
    const inA = await platform.http.get('/v1/users', {
      token: await issuer.sign({ sub: 'alice', groups: ['admins'] }, audienceA),
    })
    expect(inA.status).toBe(200)
    expect(inA.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'OWNER', ssoIssuer: issuer.issuer })])
    )
    expect(await usersOf(issuer, 'alice')).toEqual(
      expect.arrayContaining([
        { tenantId: tenants.a.tenantId, role: 'OWNER' },
        { tenantId: tenants.b.tenantId, role: 'CLINICIAN' },
      ])
    )
  })

  it('refuses tokens signed with B’s keys through a connection stored under older rules, and A’s staff still sign in', async () => {
    const audienceA = appName('a')
    const audienceB = appName('b')
    expect((await connect('a', { issuer: issuer.issuer, audience: audienceA })).status).toBe(201)
    // Stored before this release, when a key set anywhere was accepted: B's keys for A's issuer.
    await platform.db.ssoConnection.create({
      data: {
        id: newId('ssoConnection'),
        tenantId: tenants.b.tenantId,
        issuer: issuer.issuer,
        audience: audienceB,
        jwksUri: attacker.jwksUri,
        roleClaim: 'groups',
        roleMapping: { staff: 'CLINICIAN' },
      },
    })
    const forged = await attacker.sign({ sub: 'bob', groups: ['staff'] }, audienceB, { iss: issuer.issuer })
    const refused = await platform.http.get('/v1/users', { token: forged })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('invalid_token')
    expect(await usersOf(issuer, 'bob')).toEqual([])

    const real = await platform.http.get('/v1/users', {
      token: await issuer.sign({ sub: 'bob', groups: ['admins'] }, audienceA),
    })
    expect(real.status).toBe(200)
    expect(await usersOf(issuer, 'bob')).toEqual([{ tenantId: tenants.a.tenantId, role: 'OWNER' }])
  })
})

describe('a tenant registering another’s issuer and audience first', () => {
  const ownAudience = (tenant: 'a' | 'b') => `urn:therapy-care:tenant:${tenants[tenant].tenantId}`

  it('refuses the pair to the second tenant, which signs its staff in through the audience only it may register', async () => {
    const audience = appName('squatted')
    // B registers A's public issuer and audience first, mapping everyone to OWNER.
    expect((await connect('b', { issuer: issuer.issuer, audience, roleMapping: { staff: 'OWNER' } })).status).toBe(201)
    const taken = await connect('a', { issuer: issuer.issuer, audience })
    expect(taken.status).toBe(409)
    expect(taken.headers.get('content-type')).toContain('application/problem+json')
    expect(taken.body).toMatchObject({ status: 409, code: 'sso_connection_taken' })
    expect(taken.body.detail).toContain(ownAudience('a'))

    // A proves its connection with its own audience, which B cannot take.
    const squat = await connect('b', { issuer: issuer.issuer, audience: ownAudience('a') })
    expect(squat.status).toBe(400)
    expect(squat.body.errors).toEqual([expect.objectContaining({ path: 'audience', code: 'reserved_audience' })])
    expect((await connect('a', { issuer: issuer.issuer, audience: ownAudience('a') })).status).toBe(201)
    const token = await issuer.sign({ sub: 'dora', groups: ['staff'] }, ownAudience('a'))
    expect((await platform.http.get('/v1/providers', { token })).status).toBe(200)
    expect(await usersOf(issuer, 'dora')).toEqual([{ tenantId: tenants.a.tenantId, role: 'CLINICIAN' }])
  })

  it('gives a pair registered by two tenants at once to one of them', async () => {
    const audience = appName('race')
    const both = await Promise.all([
      connect('a', { issuer: issuer.issuer, audience }),
      connect('b', { issuer: issuer.issuer, audience }),
    ])
    expect(both.map((r) => r.status).sort()).toEqual([201, 409])
  })

  it('keeps a pair two tenants shared before the rule working: a token both verify names its tenant', async () => {
    const audience = appName('shared')
    expect((await connect('b', { issuer: issuer.issuer, audience, roleMapping: { staff: 'OWNER' } })).status).toBe(201)
    // A's registration of the same pair from before the rule, as the migration marked it.
    await platform.db.ssoConnection.create({
      data: {
        id: newId('ssoConnection'),
        tenantId: tenants.a.tenantId,
        issuer: issuer.issuer,
        audience,
        roleClaim: 'groups',
        roleMapping: { staff: 'CLINICIAN' },
        sharedBeforeOneTenantRule: true,
      },
    })

    const token = await issuer.sign({ sub: 'carol', groups: ['staff'] }, audience)
    const ambiguous = await platform.http.get('/v1/providers', { token })
    expect(ambiguous.status).toBe(401)
    expect(ambiguous.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(ambiguous.body).toMatchObject({ status: 401, code: 'sso_connection_ambiguous' })
    expect(await usersOf(issuer, 'carol')).toEqual([])

    // Naming a tenant that has no such connection signs nobody in.
    const stranger = await platform.newTenant(['users'])
    const elsewhere = await platform.http.get('/v1/providers', {
      token,
      headers: { 'X-Tenant-Id': stranger.tenantId },
    })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.body.code).toBe('invalid_token')

    const named = await platform.http.get('/v1/providers', { token, headers: { 'X-Tenant-Id': tenants.a.tenantId } })
    expect(named.status).toBe(200)
    expect(await usersOf(issuer, 'carol')).toEqual([{ tenantId: tenants.a.tenantId, role: 'CLINICIAN' }])
  })

  it('answers a second registration of the same issuer and audience in one tenant with a 409 problem', async () => {
    const audience = appName('twice')
    expect((await connect('a', { issuer: issuer.issuer, audience })).status).toBe(201)
    const again = await connect('a', { issuer: issuer.issuer, audience })
    expect(again.status).toBe(409)
    expect(again.headers.get('content-type')).toContain('application/problem+json')
    expect(again.body).toMatchObject({ status: 409, code: 'conflict' })
  })
})
