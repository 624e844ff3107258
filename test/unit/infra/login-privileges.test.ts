/**
 * What makes a login too privileged for a process of the platform (infra/login-privileges.ts): the words a refused
 * start prints. The check against a real server is in test/integration/tenant-isolation.int.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../infra/config.ts'
import { privilegeProblems } from '../../../infra/login-privileges.ts'

const ordinary = { login: 'therapy_units_login', superuser: false, bypassRls: false, ownedTables: 0, embedded: false }

describe('privilegeProblems', () => {
  it('finds nothing wrong with an ordinary login', () => {
    expect(privilegeProblems(ordinary)).toEqual([])
  })

  it('names each privilege that row-level security does not bind', () => {
    expect(privilegeProblems({ ...ordinary, superuser: true, bypassRls: true, ownedTables: 3 })).toEqual([
      'is a superuser',
      'bypasses row-level security (BYPASSRLS)',
      'owns 3 tables or can become their owner',
    ])
  })
})

describe('DATABASE_ALLOW_PRIVILEGED_LOGIN', () => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgresql://u:p@localhost:5432/db',
    PUBLIC_URL: 'https://api.example.com',
    TEMPORAL_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    SECRETS_ENCRYPTION_KEYS: `s1:${Buffer.alloc(32, 9).toString('base64')}`,
  }

  it('is refused in production and accepted in development', () => {
    expect(() => loadConfig({ ...production, DATABASE_ALLOW_PRIVILEGED_LOGIN: 'true' })).toThrow(
      /DATABASE_ALLOW_PRIVILEGED_LOGIN: development only/
    )
    expect(
      loadConfig({ ...production, NODE_ENV: 'development', DATABASE_ALLOW_PRIVILEGED_LOGIN: 'true' })
    ).toMatchObject({ DATABASE_ALLOW_PRIVILEGED_LOGIN: true })
  })
})
