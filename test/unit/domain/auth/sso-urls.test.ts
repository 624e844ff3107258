/**
 * The URL rules of an SSO connection: syntax (an issuer has no query or fragment, https when required, no
 * credentials), and at registration where the host resolves, under the same network policy as webhook URLs; the
 * issuer's host is vetted only when its discovery document is what will be fetched.
 */
import { describe, expect, it } from 'vitest'
import { addressRefusal } from '../../../../adapters/outbound/vetted-lookup.ts'
import { AppError } from '../../../../domain/errors.ts'
import { onIssuerHost, ssoUrlRefusal, vetSsoUrls } from '../../../../domain/auth/sso-urls.ts'
import type { SsoSettings } from '../../../../domain/auth/sso-settings.ts'
import { ssoSettings } from '../../../../domain/auth/sso-settings.ts'

const strict: SsoSettings = { requireHttps: true, network: { allowPrivateNetworks: false } }
const lenient: SsoSettings = { requireHttps: false, network: { allowPrivateNetworks: true } }
/** The settings with the outbound policy's own vetting (real DNS), as the API composes them. */
const vetting = (settings: SsoSettings) => ({ ...settings, vetAddress: addressRefusal })

const fieldErrors = async (promise: Promise<void>) => {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('validation_error')
    return (error as AppError).errors
  }
  return []
}

describe('ssoUrlRefusal', () => {
  it.each([
    ['https://login.example.org', 'issuer', true, undefined],
    ['https://login.example.org/tenant-1/v2.0', 'issuer', true, undefined],
    ['http://login.example.org', 'issuer', true, 'https_required'],
    ['http://login.example.org', 'issuer', false, undefined],
    ['ftp://login.example.org', 'issuer', false, 'invalid_url'],
    ['login.example.org', 'issuer', false, 'invalid_url'],
    ['https://user:secret@login.example.org', 'issuer', true, 'invalid_url'],
    ['https://login.example.org#x', 'issuer', true, 'invalid_url'],
    ['https://login.example.org?tenant=1', 'issuer', true, 'invalid_url'],
    ['https://login.example.org/keys?tenant=1', 'jwksUri', true, undefined],
  ] as const)('%s as %s (https required: %s) → %s', (url, kind, requireHttps, code) => {
    expect(ssoUrlRefusal(url, kind, requireHttps)?.code).toBe(code)
  })
})

describe('vetSsoUrls', () => {
  it('refuses an issuer on loopback, private and metadata addresses unless private networks are allowed', async () => {
    for (const issuer of ['https://127.0.0.1', 'https://localhost:8443', 'https://[::1]', 'https://10.1.2.3']) {
      expect(await fieldErrors(vetSsoUrls({ issuer }, vetting(strict)))).toEqual([
        expect.objectContaining({ path: 'issuer', code: 'forbidden_address' }),
      ])
      expect(await fieldErrors(vetSsoUrls({ issuer }, vetting(lenient)))).toEqual([])
    }
    expect(await fieldErrors(vetSsoUrls({ issuer: 'http://169.254.169.254' }, vetting(lenient)))).toEqual([
      expect.objectContaining({ path: 'issuer', code: 'forbidden_address' }),
    ])
  })

  it('vets the key set URL instead of the issuer when one is given (the issuer is then never called)', async () => {
    const errors = await fieldErrors(
      vetSsoUrls({ issuer: 'https://192.168.0.10/realm', jwksUri: 'https://192.168.0.10/keys' }, vetting(strict))
    )
    expect(errors).toEqual([expect.objectContaining({ path: 'jwksUri', code: 'forbidden_address' })])
  })

  it("refuses a key set URL off the issuer's host (scheme, host and port) before resolving it", async () => {
    for (const jwksUri of [
      'https://keys.idp.example/jwks',
      'https://idp.example:8443/jwks',
      'https://idp.example.evil.example/jwks',
    ]) {
      const errors = await fieldErrors(vetSsoUrls({ issuer: 'https://idp.example/tenant', jwksUri }, vetting(strict)))
      expect(errors, jwksUri).toEqual([expect.objectContaining({ path: 'jwksUri', code: 'not_issuer_host' })])
    }
    expect(onIssuerHost('https://IDP.example', 'https://idp.example:443/keys')).toBe(true)
  })

  it('names every refused field, and an unresolvable host', async () => {
    expect(await fieldErrors(vetSsoUrls({ issuer: 'http://no-such-host.invalid' }, vetting(strict)))).toEqual([
      expect.objectContaining({ path: 'issuer', code: 'https_required' }),
    ])
    expect(await fieldErrors(vetSsoUrls({ issuer: 'https://no-such-host.invalid' }, vetting(strict)))).toEqual([
      expect.objectContaining({ path: 'issuer', code: 'unresolvable_host' }),
    ])
    expect(
      await fieldErrors(
        vetSsoUrls({ issuer: 'https://a.example?x=1', jwksUri: 'http://b.example/keys' }, vetting(strict))
      )
    ).toEqual([
      expect.objectContaining({ path: 'issuer', code: 'invalid_url' }),
      expect.objectContaining({ path: 'jwksUri', code: 'https_required' }),
    ])
  })
})

describe('ssoSettings', () => {
  const policy = { OUTBOUND_ALLOW_HTTP: false, OUTBOUND_ALLOW_PRIVATE_NETWORKS: false }

  it("follows the platform's outbound policy, strict unless relaxed, each of SSO's switches overriding it", () => {
    expect(ssoSettings(policy)).toEqual(strict)
    expect(ssoSettings({ OUTBOUND_ALLOW_HTTP: true, OUTBOUND_ALLOW_PRIVATE_NETWORKS: true })).toEqual(lenient)
    expect(ssoSettings({ ...policy, SSO_ALLOW_PRIVATE_NETWORKS: true })).toEqual({
      requireHttps: true,
      network: { allowPrivateNetworks: true },
    })
    expect(
      ssoSettings({ OUTBOUND_ALLOW_HTTP: true, OUTBOUND_ALLOW_PRIVATE_NETWORKS: true, SSO_REQUIRE_HTTPS: true })
        .requireHttps
    ).toBe(true)
  })
})
