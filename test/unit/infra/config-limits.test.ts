import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../infra/config.ts'
import { chooseRateLimitStore } from '../../../infra/rate-limiter.ts'

const base = { DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }

describe('request-limit configuration', () => {
  it('defaults to 600 per minute, the store left to the database (a server), the socket address and 1 MiB bodies', () => {
    const config = loadConfig(base)
    expect(config).toMatchObject({
      RATE_LIMIT_PER_MINUTE: 600,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      DATABASE_EMBEDDED: false,
      TRUST_PROXY: false,
      REQUEST_BODY_LIMIT_BYTES: 1_048_576,
    })
    expect(config.RATE_LIMIT_STORE).toBeUndefined()
    expect(chooseRateLimitStore(config).store).toBe('postgres')
    expect(chooseRateLimitStore(loadConfig({ ...base, DATABASE_EMBEDDED: 'true' })).store).toBe('memory')
  })

  it('reads the variables, and "false" as false', () => {
    const config = loadConfig({
      ...base,
      RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_STORE: 'postgres',
      TRUST_PROXY: 'false',
      REQUEST_BODY_LIMIT_BYTES: '2048',
    })
    expect(config).toMatchObject({
      RATE_LIMIT_PER_MINUTE: 5,
      RATE_LIMIT_STORE: 'postgres',
      TRUST_PROXY: false,
      REQUEST_BODY_LIMIT_BYTES: 2048,
    })
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true)
    expect(loadConfig({ ...base, RATE_LIMIT_WINDOW_SECONDS: '10' }).RATE_LIMIT_WINDOW_SECONDS).toBe(10)
  })

  it('refuses an unknown store and a limit that is not a positive integer', () => {
    expect(() => loadConfig({ ...base, RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE/)
    expect(() => loadConfig({ ...base, RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/RATE_LIMIT_PER_MINUTE/)
    expect(() => loadConfig({ ...base, RATE_LIMIT_WINDOW_SECONDS: '0.5' })).toThrow(/RATE_LIMIT_WINDOW_SECONDS/)
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/)
  })
})
