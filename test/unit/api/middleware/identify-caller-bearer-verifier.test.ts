import { describe, expect, it, vi } from 'vitest'
import { bearerVerifier } from '../../../../api/middleware/identify-caller.ts'
import type { AppDeps } from '../../../../api/app-env.ts'

// Only the API-key path runs here, and it touches nothing but this one query (the key and its grantors, one
// statement): a counting stand-in shows how many lookups reach the database (the lookup itself is covered against
// PostgreSQL in api-keys.int.test.ts and api-key-grantors.int.test.ts).
function verifierWithUnknownKeys() {
  const findUnique = vi.fn(async () => [])
  let now = 1_767_225_600_000
  const verify = bearerVerifier({
    keys: {} as AppDeps['keys'],
    config: { PUBLIC_URL: 'https://api.example', ACCESS_TOKEN_AUDIENCE: 'therapy-care-api' } as AppDeps['config'],
    clock: () => new Date(now),
    db: { $queryRaw: findUnique } as unknown as AppDeps['db'],
    sso: {} as AppDeps['sso'],
  })
  return { verify, findUnique, advance: (ms: number) => (now += ms) }
}

describe('bearerVerifier', () => {
  it('refuses a repeated unknown API key from memory for 30 s: one database lookup, not one per request', async () => {
    const { verify, findUnique, advance } = verifierWithUnknownKeys()
    const outcomes = [
      await verify('Bearer sk_unknown'),
      await verify('Bearer sk_unknown'),
      await verify('Bearer sk_unknown'),
    ]
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false])
    expect(findUnique).toHaveBeenCalledTimes(1)
    await verify('Bearer sk_other')
    expect(findUnique).toHaveBeenCalledTimes(2)
    advance(30_000)
    await verify('Bearer sk_unknown')
    expect(findUnique).toHaveBeenCalledTimes(3)
  })
})
