/**
 * CONSOLE_IDENTITY_ORIGINS becomes part of the console page's Content-Security-Policy: only origins (a `*.` subdomain
 * wildcard allowed) get in, so a setting cannot smuggle a directive, a keyword or a second source into the policy.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../infra/config.ts'

const DATABASE_URL = 'postgresql://unused@127.0.0.1:1/unused'
const origins = (value: string) =>
  loadConfig({ DATABASE_URL, CONSOLE_IDENTITY_ORIGINS: value }).CONSOLE_IDENTITY_ORIGINS

describe('CONSOLE_IDENTITY_ORIGINS', () => {
  it('takes origins, a subdomain wildcard included, comma-separated', () => {
    expect(origins('')).toEqual([])
    expect(origins('https://login.centre.org, https://*.okta.com,http://127.0.0.1:3001')).toEqual([
      'https://login.centre.org',
      'https://*.okta.com',
      'http://127.0.0.1:3001',
    ])
  })

  it.each([
    "https://login.centre.org; script-src 'unsafe-inline'",
    "'unsafe-eval'",
    'https://login.centre.org/path',
    'https://*',
    'login.centre.org',
    'javascript:alert(1)',
    'https://a.org https://b.org',
  ])('refuses %j: not an origin', (value) => {
    expect(() => origins(value)).toThrow(/CONSOLE_IDENTITY_ORIGINS/)
  })
})
