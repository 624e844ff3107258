/**
 * SSO issuers are URLs a tenant registers and the platform then calls, so they obey the webhooks' network rules. Under
 * the default network policy outside development (private networks refused; plain HTTP is allowed here only so that
 * the loopback test issuer would answer if it were called): registering an issuer or key set on a loopback, private or
 * metadata address is refused with 400 `validation_error` naming the field and the rule; a connection already stored
 * with such an address (registered under other rules) is refused again when a token names it, at connect time, and
 * the issuer is never called. The HTTPS rule and the defaults are unit-tested (test/unit/domain/auth/sso-urls.test.ts).
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let issuer: TestIssuer
let admin: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, overrides: { SSO_REQUIRE_HTTPS: 'false' } })
  issuer = await startTestIssuer()
  const client = await platform.newTenant(['users', 'providers'])
  tenantId = client.tenantId
  admin = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await issuer?.close()
})

const register = (body: Record<string, unknown>) =>
  platform.http.post('/v1/sso-connections', {
    token: admin,
    body: { audience: `app-${randomBytes(4).toString('hex')}`, roleMapping: { staff: 'CLINICIAN' }, ...body },
  })

describe('registering an SSO connection', () => {
  it.each([
    [{ issuer: 'https://127.0.0.1:8443' }, 'issuer', 'forbidden_address'],
    [{ issuer: 'https://localhost:8443' }, 'issuer', 'forbidden_address'],
    [{ issuer: 'https://[::1]' }, 'issuer', 'forbidden_address'],
    [{ issuer: 'https://10.0.0.8' }, 'issuer', 'forbidden_address'],
    [{ issuer: 'https://169.254.169.254' }, 'issuer', 'forbidden_address'],
    [{ issuer: 'https://no-such-host.invalid' }, 'issuer', 'unresolvable_host'],
    [{ issuer: 'https://login.example.com?tenant=1' }, 'issuer', 'invalid_url'],
    // A key set URL is on the issuer's host; given one, the issuer is an identifier we never call, and the set is vetted.
    [{ issuer: 'https://192.168.1.20', jwksUri: 'https://192.168.1.20/keys' }, 'jwksUri', 'forbidden_address'],
    [{ issuer: 'http://[fd00::1]', jwksUri: 'http://[fd00::1]/jwks' }, 'jwksUri', 'forbidden_address'],
    // Off the issuer's host: refused before its name is resolved.
    [
      { issuer: 'https://idp.example.invalid', jwksUri: 'https://keys.example.invalid/jwks' },
      'jwksUri',
      'not_issuer_host',
    ],
  ])('refuses %j: %s %s', async (urls, path, code) => {
    const response = await register(urls)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    expect(response.body.code).toBe('validation_error')
    expect(response.body.errors).toEqual([expect.objectContaining({ path, code })])
    expect(await platform.db.ssoConnection.count({ where: { tenantId } })).toBe(0)
  })

  it('refuses the test issuer on loopback, which the SSO tests allow only by configuration', async () => {
    const response = await register({ issuer: issuer.issuer })
    expect(response.status).toBe(400)
    expect(response.body.errors[0]).toMatchObject({ path: 'issuer', code: 'forbidden_address' })
    expect(response.body.errors[0].message).toMatch(/loopback address, which SSO requests may not be sent to/)
  })
})

describe('a stored connection on a refused address', () => {
  it('is refused at fetch time: the token is invalid and the issuer is never called', async () => {
    // Stored under other rules (development's defaults, an older release), by name: the socket's lookup refuses it.
    const local = issuer.issuer.replace('127.0.0.1', 'localhost')
    for (const [stored, jwksUri] of [
      [local, null],
      [`${local}/realm`, `${local}/jwks`],
    ] as const) {
      await platform.db.ssoConnection.create({
        data: {
          id: newId('ssoConnection'),
          tenantId,
          issuer: stored,
          audience: 'app',
          jwksUri,
          roleMapping: { staff: 'CLINICIAN' },
        },
      })
      const token = await issuer.sign({ sub: 'dana', groups: ['staff'] }, 'app', { iss: stored })
      for (let i = 0; i < 3; i++) {
        const response = await platform.http.get('/v1/providers', { token })
        expect(response.status).toBe(401)
        expect(response.body.code).toBe('invalid_token')
      }
    }
    expect(issuer.hits).toEqual({})
  })
})
