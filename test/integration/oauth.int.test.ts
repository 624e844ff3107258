/**
 * The token endpoint over HTTP: the spec's client-credentials grant (JSON), form bodies and HTTP Basic as OAuth
 * clients send them, refresh-token rotation with reuse detection, and RFC 6749 error bodies.
 */
import { decodeProtectedHeader, createRemoteJWKSet, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let client: ProvisionedClient

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  client = await platform.newTenant(['children', 'bookings', 'ai.read'])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

describe('client credentials', () => {
  it('issues every field of the spec token response for a JSON request', async () => {
    const response = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'children bookings',
      },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'children bookings' })
    expect(typeof response.body.refresh_token).toBe('string')

    // A JWT in the RFC 9068 profile, verifiable with the published JWKS.
    const header = decodeProtectedHeader(response.body.access_token)
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' })
    expect(header.kid).toMatch(/^key_[0-9a-f]{32}$/)
    const jwks = createRemoteJWKSet(new URL(`${platform.api.url}/.well-known/jwks.json`))
    const { payload } = await jwtVerify(response.body.access_token, jwks, {
      issuer: 'http://localhost:3000',
      audience: 'therapy-care-api',
    })
    expect(payload).toMatchObject({
      sub: client.client_id,
      client_id: client.client_id,
      tenant_id: client.tenantId,
      scope: 'children bookings',
    })
    expect(payload.exp! - payload.iat!).toBe(900)
  })

  it('accepts form-encoded bodies with HTTP Basic client authentication', async () => {
    const basic = Buffer.from(
      `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`
    ).toString('base64')
    const response = await platform.http.post('/oauth/token', {
      raw: form({ grant_type: 'client_credentials' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    })
    expect(response.status).toBe(200)
    expect(response.body.scope).toBe('children bookings ai.read')
  })

  it('answers RFC 6749 errors', async () => {
    const wrongSecret = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'cs_wrong' },
    })
    expect(wrongSecret.status).toBe(401)
    expect(wrongSecret.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) })

    const basic = Buffer.from(`${client.client_id}:nope`).toString('base64')
    const wrongBasic = await platform.http.post('/oauth/token', {
      raw: form({ grant_type: 'client_credentials' }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    })
    expect(wrongBasic.status).toBe(401)
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic/)

    const tooMuch = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'payments',
      },
    })
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.body.error).toBe('invalid_scope')

    const unknownScope = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'everything',
      },
    })
    expect(unknownScope.body.error).toBe('invalid_scope')

    const grant = await platform.http.post('/oauth/token', { body: { grant_type: 'password', username: 'x' } })
    expect(grant.status).toBe(400)
    expect(grant.body.error).toBe('unsupported_grant_type')

    const noBody = await platform.http.post('/oauth/token', { raw: 'x', headers: { 'Content-Type': 'text/plain' } })
    expect(noBody.body.error).toBe('invalid_request')
  })

  it('stores client secrets and refresh tokens only as hashes', async () => {
    const stored = await platform.api.deps.db.apiClient.findUniqueOrThrow({ where: { id: client.client_id } })
    expect(stored.secretHash).not.toContain(client.client_secret)
    expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/)
    const issued = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    })
    const refreshRows = await platform.api.deps.db.refreshToken.findMany({ where: { clientId: client.client_id } })
    expect(refreshRows.some((r) => r.tokenHash === issued.body.refresh_token)).toBe(false)
    expect(refreshRows.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true)
  })
})

describe('refresh tokens', () => {
  const refresh = (refreshToken: string, scope?: string) =>
    platform.http.post('/oauth/token', {
      body: {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: client.client_id,
        client_secret: client.client_secret,
        ...(scope ? { scope } : {}),
      },
    })

  it('rotates on every use; a used refresh token cannot be used again and its reuse revokes the family', async () => {
    const first = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'children',
      },
    })
    const second = await refresh(first.body.refresh_token)
    expect(second.status).toBe(200)
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token)
    expect(second.body.scope).toBe('children')

    const child = await platform.http.post('/v1/children', {
      token: second.body.access_token,
      body: { firstName: 'Leo', lastName: 'Park', dateOfBirth: '2022-01-02' },
    })
    expect(child.status).toBe(201)

    const reuse = await refresh(first.body.refresh_token)
    expect(reuse.status).toBe(400)
    expect(reuse.body.error).toBe('invalid_grant')

    // The theft signal revoked the descendant too.
    const descendant = await refresh(second.body.refresh_token)
    expect(descendant.status).toBe(400)
    expect(descendant.body.error).toBe('invalid_grant')
  })

  it('ends the access tokens of the family too when a rotated refresh token is reused (issue 55)', async () => {
    const first = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    })
    const second = await refresh(first.body.refresh_token)
    expect(second.status).toBe(200)
    const probe = (token: string) => platform.http.get('/v1/children/chd_nothing', { token })
    for (const token of [first.body.access_token, second.body.access_token])
      expect((await probe(token)).status).toBe(404)

    // The old refresh token again: someone else holds a copy, and every token of the grant is suspect.
    const reuse = await refresh(first.body.refresh_token)
    expect(reuse.status).toBe(400)
    expect(reuse.body.error).toBe('invalid_grant')

    for (const token of [first.body.access_token, second.body.access_token]) {
      const refused = await probe(token)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('invalid_token')
    }
    // Another family of the same client is untouched.
    const unrelated = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    })
    expect((await probe(unrelated.body.access_token)).status).toBe(404)
  })

  it('leaves nothing usable when two uses of one refresh token race: the winner dies with the family', async () => {
    const first = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    })
    const answers = await Promise.all([refresh(first.body.refresh_token), refresh(first.body.refresh_token)])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400])
    const winner = answers.find((a) => a.status === 200)!
    expect((await refresh(winner.body.refresh_token)).status).toBe(400)
    const probe = await platform.http.get('/v1/children/chd_nothing', { token: winner.body.access_token })
    expect(probe.status).toBe(401)
  })

  it('can narrow scopes but not widen them', async () => {
    const issued = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'children bookings',
      },
    })
    const narrowed = await refresh(issued.body.refresh_token, 'children.read')
    expect(narrowed.status).toBe(200)
    expect(narrowed.body.scope).toBe('children.read')
    const widened = await refresh(narrowed.body.refresh_token, 'children bookings')
    expect(widened.status).toBe(400)
    expect(widened.body.error).toBe('invalid_scope')
  })

  it("refuses another client's refresh token", async () => {
    const issued = await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    })
    const other = await platform.newTenant(['children'])
    const response = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'refresh_token',
        refresh_token: issued.body.refresh_token,
        client_id: other.client_id,
        client_secret: other.client_secret,
      },
    })
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('invalid_grant')
  })
})

describe('discovery', () => {
  it('publishes authorization-server metadata and the OpenAPI description', async () => {
    const metadata = await platform.http.get('/.well-known/oauth-authorization-server')
    expect(metadata.body.grant_types_supported).toEqual(['client_credentials', 'refresh_token'])
    expect(metadata.body.scopes_supported).toEqual(expect.arrayContaining(['children', 'bookings', 'ai.read']))

    const openapi = await platform.http.get('/openapi.json')
    expect(openapi.body.openapi).toBe('3.1.0')
    expect(openapi.body.info.version).toBe('2.3.0')
    expect(Object.keys(openapi.body.paths)).toEqual(
      expect.arrayContaining(['/oauth/token', '/v1/appointments', '/v1/children/{id}', '/v1/providers'])
    )
    const create = openapi.body.paths['/v1/appointments'].post
    expect(create.security).toEqual([{ oauth2: ['bookings'] }])
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key')
  })

  it('reports database and Temporal health on the metrics port, and only liveness on the public one', async () => {
    const health = await platform.http.get('/health')
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: 'ok' })
    expect(health.headers.get('x-api-version')).toBe('2.3.0')
    const ready = await fetch(platform.api.readinessUrl!)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      versions: { api: '2.3.0', node: process.version },
      checks: { database: { status: 'up' }, temporal: { status: 'up' } },
    })
  })
})
