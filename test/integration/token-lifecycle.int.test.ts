/**
 * Token revocation (RFC 7009), introspection (RFC 7662), authorization-server metadata (RFC 8414) and signing-key
 * rotation, over HTTP against the real API and database.
 */
import { decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let client: ProvisionedClient
let other: ProvisionedClient

const issue = async (who: ProvisionedClient = client) =>
  (
    await platform.http.post('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: who.client_id, client_secret: who.client_secret },
    })
  ).body as { access_token: string; refresh_token: string }

const call = (path: string, who: ProvisionedClient, fields: Record<string, string>) =>
  platform.http.post(path, {
    raw: new URLSearchParams(fields).toString(),
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${who.client_id}:${who.client_secret}`).toString('base64')}`,
    },
  })

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  ;[client, other] = await Promise.all([platform.newTenant(['children']), platform.newTenant(['children'])])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('introspection', () => {
  it("describes the client's own active tokens and nothing else", async () => {
    const tokens = await issue()
    const access = await call('/oauth/introspect', client, { token: tokens.access_token })
    expect(access.status).toBe(200)
    expect(access.body).toMatchObject({
      active: true,
      token_type: 'Bearer',
      client_id: client.client_id,
      scope: 'children',
    })
    const refresh = await call('/oauth/introspect', client, { token: tokens.refresh_token })
    expect(refresh.body).toMatchObject({ active: true, token_type: 'refresh_token', client_id: client.client_id })

    expect((await call('/oauth/introspect', other, { token: tokens.access_token })).body).toEqual({ active: false })
    expect((await call('/oauth/introspect', client, { token: 'garbage' })).body).toEqual({ active: false })
    expect((await call('/oauth/introspect', { ...client, client_secret: 'wrong' }, { token: 'x' })).status).toBe(401)
  })
})

describe('revocation', () => {
  it('refuses a revoked access token everywhere, and always answers 200', async () => {
    const tokens = await issue()
    const before = await platform.http.get('/v1/children/chd_nothing', { token: tokens.access_token })
    expect(before.status).toBe(404)

    // Another client cannot revoke it; the answer does not tell.
    expect((await call('/oauth/revoke', other, { token: tokens.access_token })).status).toBe(200)
    expect((await platform.http.get('/v1/children/chd_nothing', { token: tokens.access_token })).status).toBe(404)

    const revoked = await call('/oauth/revoke', client, { token: tokens.access_token, token_type_hint: 'access_token' })
    expect(revoked.status).toBe(200)
    const after = await platform.http.get('/v1/children/chd_nothing', { token: tokens.access_token })
    expect(after.status).toBe(401)
    expect(after.body.code).toBe('invalid_token')
    expect((await call('/oauth/introspect', client, { token: tokens.access_token })).body).toEqual({ active: false })
    expect((await call('/oauth/revoke', client, { token: 'never-issued' })).status).toBe(200)
  })

  it('reaches every API instance: another instance refuses the token within its sync interval', async () => {
    const second = await startPlatform({ withWorker: false })
    try {
      const tokens = await issue()
      expect((await second.http.get('/v1/children/chd_nothing', { token: tokens.access_token })).status).toBe(404)
      expect((await call('/oauth/revoke', client, { token: tokens.access_token })).status).toBe(200)
      const refused = await eventually(
        async () => {
          const r = await second.http.get('/v1/children/chd_nothing', { token: tokens.access_token })
          return r.status === 401 ? r : undefined
        },
        5000,
        100
      )
      expect(refused.body.code).toBe('invalid_token')
    } finally {
      await second.stop()
    }
  })

  it('revokes the whole family of a refresh token', async () => {
    const first = await issue()
    const rotated = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: client.client_id,
        client_secret: client.client_secret,
      },
    })
    expect(rotated.status).toBe(200)
    expect(
      (await call('/oauth/revoke', client, { token: first.refresh_token, token_type_hint: 'refresh_token' })).status
    ).toBe(200)
    const refresh = await platform.http.post('/oauth/token', {
      body: {
        grant_type: 'refresh_token',
        refresh_token: rotated.body.refresh_token,
        client_id: client.client_id,
        client_secret: client.client_secret,
      },
    })
    expect(refresh.status).toBe(400)
    expect(refresh.body.error).toBe('invalid_grant')
    // The access tokens issued from the same grant end with it (RFC 7009 §2.1).
    for (const token of [first.access_token, rotated.body.access_token]) {
      const refused = await platform.http.get('/v1/children/chd_nothing', { token })
      expect(refused.status).toBe(401)
      expect((await call('/oauth/introspect', client, { token })).body).toEqual({ active: false })
    }
  })
})

describe('metadata and key rotation', () => {
  it('advertises the revocation and introspection endpoints', async () => {
    const metadata = await platform.http.get('/.well-known/oauth-authorization-server')
    expect(metadata.body).toMatchObject({
      revocation_endpoint: 'http://localhost:3000/oauth/revoke',
      introspection_endpoint: 'http://localhost:3000/oauth/introspect',
    })
  })

  it('rotates the signing key without invalidating tokens that are still valid', async () => {
    const old = await issue()
    const oldKid = decodeProtectedHeader(old.access_token).kid
    const newKid = await platform.api.deps.keys.rotate()
    expect(newKid).not.toBe(oldKid)

    const fresh = await issue()
    expect(decodeProtectedHeader(fresh.access_token).kid).toBe(newKid)
    const jwks = await platform.http.get('/.well-known/jwks.json')
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]))
    expect(JSON.stringify(jwks.body)).not.toMatch(/"d":/)

    for (const token of [old.access_token, fresh.access_token]) {
      expect((await platform.http.get('/v1/children/chd_nothing', { token })).status).toBe(404)
    }
  })
})
