/**
 * In production the address clients call is never plain http beyond this machine (issue 54): bearer tokens would
 * cross the network in cleartext, and it is the tokens' issuer. Loopback http stays allowed (a local production-mode
 * run); an unset PUBLIC_URL is still accepted (it defaults to http://localhost:PORT), which the compose file prevents
 * by requiring PUBLIC_URL.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../infra/config.ts'

const production = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://u:p@localhost:5432/db',
  TEMPORAL_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  SECRETS_ENCRYPTION_KEYS: `s1:${Buffer.alloc(32, 9).toString('base64')}`,
}

describe('PUBLIC_URL in production', () => {
  it.each(['http://api.example.com', 'http://10.0.0.5:3000', 'HTTP://api.example.com/'])('refuses %s', (url) => {
    expect(() => loadConfig({ ...production, PUBLIC_URL: url })).toThrow(/PUBLIC_URL: must be an https:\/\/ URL/)
  })

  it.each(['https://api.example.com', 'http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000'])(
    'accepts %s',
    (url) => {
      expect(loadConfig({ ...production, PUBLIC_URL: url }).PUBLIC_URL).toBe(url)
    }
  )

  it('leaves plain http alone outside production', () => {
    expect(
      loadConfig({ ...production, NODE_ENV: 'development', PUBLIC_URL: 'http://api.example.com' }).PUBLIC_URL
    ).toBe('http://api.example.com')
  })
})
