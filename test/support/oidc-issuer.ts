/**
 * @module A real OpenID Connect issuer on loopback for tests: its own key pair, a discovery document and a JWKS
 * served over HTTP, and ID tokens signed with jose. Our verifier fetches and checks them exactly as it would a
 * centre's identity provider's.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface TestIssuer {
  issuer: string
  /** Signs a token for `audience` with the issuer's key (or `key`, to forge one). */
  sign(
    claims: JWTPayload & { sub: string },
    audience: string,
    options?: { expiresIn?: string; key?: CryptoKey }
  ): Promise<string>
  close(): Promise<void>
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' }
  let issuer = ''
  const server = http.createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.url === '/.well-known/openid-configuration') return send({ issuer, jwks_uri: `${issuer}/jwks` })
    if (req.url === '/jwks') return send({ keys: [jwk] })
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    sign: (claims, audience, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(options.key ?? privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
