/**
 * The SSO issuers' keys against a real issuer on loopback (test/support/oidc-issuer.ts), counting what we fetch:
 * discovery and key set fetched once and then cached; a flood of tokens with unknown key ids fetches the set again
 * at most once per interval; a rotated key is found once the interval has passed; keys are kept per key set URL, so a
 * connection naming its own key set never lends its keys to another connection of the same issuer; a discovery
 * document for another issuer, or naming a key set the rules refuse, is not used; a cache full of key sets fetched
 * within the interval refuses a token for another one (401) rather than forget one of them.
 */
import { generateKeyPair, jwtVerify } from 'jose'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { outboundCalls } from '../../../../adapters/outbound/outbound-calls.ts'
import { createIssuerKeys, SSO_FETCH_LIMITS } from '../../../../domain/auth/sso-issuer-keys.ts'
import type { SsoSettings } from '../../../../domain/auth/sso-settings.ts'
import { startTestIssuer, type TestIssuer } from '../../../support/oidc-issuer.ts'

const lenient: SsoSettings = { requireHttps: false, network: { allowPrivateNetworks: true } }
const DISCOVERY = '/.well-known/openid-configuration'

const opened: TestIssuer[] = []
const servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((i) => i.close()))
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

async function issuerUnderTest(options: { cacheControl?: string } = {}) {
  const issuer = await startTestIssuer(options)
  opened.push(issuer)
  return issuer
}

/** Keys over a clock the test moves. */
function keysWith(settings: SsoSettings = lenient, maxCachedUrls?: number) {
  let now = Date.parse('2026-11-23T10:00:00Z')
  const keys = createIssuerKeys({ settings, clock: () => new Date(now), maxCachedUrls, outbound: outboundCalls })
  return { keys, advance: (ms: number) => (now += ms), now: () => new Date(now) }
}

const verifies = (token: string, keys: ReturnType<typeof createIssuerKeys>, issuer: string, jwksUri: string | null) =>
  jwtVerify(token, keys.keysFor(issuer, jwksUri), { issuer, audience: 'app' }).then(
    () => true,
    () => false
  )

// RSA key pairs and RS256 signatures in every test: 0.2-1.5 s each alone, 4.5 s and past vitest's default 5 s in a CI
// run on Node 20 beside the fuzz run and the lint. What they prove is counts and choices, not speed.
describe('createIssuerKeys', { timeout: 30_000 }, () => {
  it('refuses a token as invalid, calling nobody, when every cached key set was fetched within the interval', async () => {
    const issuers = [await issuerUnderTest(), await issuerUnderTest(), await issuerUnderTest()]
    const { keys, advance } = keysWith(lenient, 2)
    const verify = async (issuer: TestIssuer) =>
      jwtVerify(await issuer.sign({ sub: 'u' }, 'app'), keys.keysFor(issuer.issuer, issuer.jwksUri), {
        issuer: issuer.issuer,
        audience: 'app',
      })
    const [first, second, third] = issuers as [TestIssuer, TestIssuer, TestIssuer]
    await verify(first)
    await verify(second)
    // A third key set would push out one fetched within the interval (which could then be fetched again at once).
    await expect(verify(third)).rejects.toMatchObject({ status: 401, code: 'invalid_token' })
    expect(third.hits).toEqual({})
    advance(SSO_FETCH_LIMITS.minIntervalMs)
    await verify(third)
    expect(issuers.map((i) => i.hits)).toEqual([{ '/jwks': 1 }, { '/jwks': 1 }, { '/jwks': 1 }])
  })

  it('fetches discovery and the key set once, then verifies from the cache', async () => {
    const issuer = await issuerUnderTest()
    const { keys } = keysWith()
    for (let i = 0; i < 20; i++) {
      expect(await verifies(await issuer.sign({ sub: `u${i}` }, 'app'), keys, issuer.issuer, null)).toBe(true)
    }
    expect(issuer.hits).toEqual({ [DISCOVERY]: 1, '/jwks': 1 })
  })

  it('fetches the key set again for unknown key ids at most once per interval, and finds a rotated key', async () => {
    const issuer = await issuerUnderTest()
    const { keys, advance } = keysWith()
    expect(await verifies(await issuer.sign({ sub: 'u' }, 'app'), keys, issuer.issuer, null)).toBe(true)
    const { privateKey } = await generateKeyPair('RS256')
    for (let i = 0; i < 50; i++) {
      const forged = await issuer.sign({ sub: 'eve' }, 'app', { key: privateKey, kid: `random-${i}` })
      expect(await verifies(forged, keys, issuer.issuer, null)).toBe(false)
    }
    // Still within the interval of the first fetch: no refetch at all.
    expect(issuer.hits['/jwks']).toBe(1)

    await issuer.rotate()
    const rotated = await issuer.sign({ sub: 'u' }, 'app')
    expect(await verifies(rotated, keys, issuer.issuer, null)).toBe(false)
    advance(SSO_FETCH_LIMITS.minIntervalMs)
    expect(await verifies(rotated, keys, issuer.issuer, null)).toBe(true)
    for (let i = 0; i < 50; i++) {
      const forged = await issuer.sign({ sub: 'eve' }, 'app', { key: privateKey, kid: `again-${i}` })
      expect(await verifies(forged, keys, issuer.issuer, null)).toBe(false)
    }
    expect(issuer.hits['/jwks']).toBe(2)
    expect(issuer.hits[DISCOVERY]).toBe(1)
  })

  it("revalidates within the server's max-age bounds", async () => {
    const issuer = await issuerUnderTest({ cacheControl: 'max-age=900' })
    const { keys, advance } = keysWith()
    const token = await issuer.sign({ sub: 'u' }, 'app')
    expect(await verifies(token, keys, issuer.issuer, null)).toBe(true)
    advance(899_000)
    expect(await verifies(token, keys, issuer.issuer, null)).toBe(true)
    expect(issuer.hits).toEqual({ [DISCOVERY]: 1, '/jwks': 1 })
    advance(1000)
    expect(await verifies(token, keys, issuer.issuer, null)).toBe(true)
    expect(issuer.hits).toEqual({ [DISCOVERY]: 2, '/jwks': 2 })
  })

  it("never uses a key set URL off the issuer's host: a connection stored with one gets the issuer's discovered set", async () => {
    const real = await issuerUnderTest()
    const attacker = await issuerUnderTest()
    const { keys } = keysWith()
    // A tenant registered the real issuer with its own key set (accepted before issue 55): its keys sign nobody in.
    const forged = await attacker.sign({ sub: 'dana' }, 'app', { iss: real.issuer })
    expect(await verifies(forged, keys, real.issuer, attacker.jwksUri)).toBe(false)
    expect(await verifies(forged, keys, real.issuer, null)).toBe(false)
    expect(await verifies(await real.sign({ sub: 'dana' }, 'app'), keys, real.issuer, attacker.jwksUri)).toBe(true)
    expect(attacker.hits).toEqual({})
    // On the issuer's own host, the registered set is used as registered.
    expect(await verifies(await attacker.sign({ sub: 'dana' }, 'app'), keys, attacker.issuer, attacker.jwksUri)).toBe(
      true
    )
    expect(attacker.hits).toEqual({ '/jwks': 1 })
  })

  it('refuses a discovery document of another issuer, or one naming a key set the rules refuse', async () => {
    const documents: Record<string, unknown> = {}
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(documents[req.url ?? '']))
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const real = await issuerUnderTest()
    documents[`/other${DISCOVERY}`] = { issuer: real.issuer, jwks_uri: real.jwksUri }
    documents[`/plain${DISCOVERY}`] = { issuer: `${base}/plain`, jwks_uri: real.jwksUri }

    const token = (iss: string) => real.sign({ sub: 'u' }, 'app', { iss })
    const { keys } = keysWith()
    expect(await verifies(await token(`${base}/other`), keys, `${base}/other`, null)).toBe(false)
    expect(await verifies(await token(`${base}/plain`), keys, `${base}/plain`, null)).toBe(true)
    // The same document, under rules that require https: its http key set URL is not used.
    const strictHttps = keysWith({ requireHttps: true, network: { allowPrivateNetworks: true } })
    expect(await verifies(await token(`${base}/plain`), strictHttps.keys, `${base}/plain`, null)).toBe(false)
    expect(real.hits['/jwks']).toBe(1)
  })

  it('never calls an issuer on a refused address', async () => {
    const issuer = await issuerUnderTest()
    const { keys } = keysWith({ requireHttps: false, network: { allowPrivateNetworks: false } })
    for (let i = 0; i < 10; i++) {
      expect(await verifies(await issuer.sign({ sub: 'u' }, 'app'), keys, issuer.issuer, null)).toBe(false)
    }
    expect(issuer.hits).toEqual({})
  })
})
