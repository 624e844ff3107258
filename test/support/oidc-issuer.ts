/**
 * @module A real OpenID Connect issuer on loopback for tests: its own key pair, a discovery document and a JWKS
 * served over HTTP, and ID tokens signed with jose. Our verifier fetches and checks them exactly as it would a
 * centre's identity provider's. It counts the requests it serves (how often we call out), can rotate its key, and can
 * sign in another issuer's name (a tenant that registered someone else's issuer with a key set of its own). Two more
 * key set URLs misbehave on purpose: `/jwks/oversized` streams a valid set padded past any sane size, and
 * `/jwks/stalled` starts its answer and never finishes it (until the issuer closes).
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface TestIssuer {
  issuer: string
  /** Where its key set is served. */
  jwksUri: string
  /** Requests served per path (`/.well-known/openid-configuration`, `/jwks`). */
  hits: Record<string, number>
  /** Signs a token for `audience` with the issuer's current key (or `key`, to forge one; `iss` to sign as another). */
  sign(
    claims: JWTPayload & { sub: string },
    audience: string,
    options?: { expiresIn?: string; key?: CryptoKey; kid?: string; iss?: string }
  ): Promise<string>
  /** Replaces the key (a new `kid`); the old one leaves the key set. */
  rotate(): Promise<void>
  close(): Promise<void>
}

/** Bytes `/jwks/oversized` sends: four times SSO's cap (sso-issuer-keys.ts `SSO_FETCH_LIMITS.maxBytes`). */
export const OVERSIZED_KEY_SET_BYTES = 1024 * 1024

const newKey = async (kid: string) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } }
}

/** @param options.cacheControl - the Cache-Control of its answers (none by default) */
export async function startTestIssuer(options: { cacheControl?: string } = {}): Promise<TestIssuer> {
  let key = await newKey('test-key-1')
  let issuer = ''
  const hits: Record<string, number> = {}
  const server = http.createServer((req, res) => {
    const path = req.url ?? ''
    hits[path] = (hits[path] ?? 0) + 1
    const send = (body: unknown) => {
      res.writeHead(200, {
        'Content-Type': 'application/json',
        ...(options.cacheControl ? { 'Cache-Control': options.cacheControl } : {}),
      })
      res.end(JSON.stringify(body))
    }
    if (path === '/.well-known/openid-configuration') return send({ issuer, jwks_uri: `${issuer}/jwks` })
    if (path === '/jwks') return send({ keys: [key.jwk] })
    if (path === '/jwks/oversized') {
      // Chunked, no Content-Length: the reader finds out only by counting what arrives.
      res.writeHead(200, { 'Content-Type': 'application/json' })
      const padding = 'x'.repeat(64 * 1024)
      res.write(`{"keys":[${JSON.stringify(key.jwk)}],"padding":"`)
      for (let sent = 0; sent < OVERSIZED_KEY_SET_BYTES; sent += padding.length) res.write(padding)
      return res.end('"}')
    }
    if (path === '/jwks/stalled') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return void res.write('{"keys":[')
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let rotations = 1
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    hits,
    sign: (claims, audience, signing = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signing.kid ?? key.kid })
        .setIssuer(signing.iss ?? issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(signing.expiresIn ?? '5m')
        .sign(signing.key ?? key.privateKey),
    async rotate() {
      key = await newKey(`test-key-${++rotations}`)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
