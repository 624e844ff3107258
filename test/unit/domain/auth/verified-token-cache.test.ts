import { describe, expect, it } from 'vitest'
import type { ClientPrincipal } from '../../../../domain/auth/access-tokens.ts'
import { verifiedTokenCache } from '../../../../domain/auth/verified-token-cache.ts'

const principal = (n: number): ClientPrincipal => ({
  kind: 'client',
  tenantId: 'ten_1',
  clientId: `cli_${n}`,
  actorId: `cli_${n}`,
  scopes: ['children'],
  tokenId: `atk_${n}`,
})

describe('verifiedTokenCache', () => {
  it('answers a verified token until the second of its exp, as jose does, then never again', () => {
    let now = new Date('2026-01-01T00:00:00.000Z')
    const cache = verifiedTokenCache(() => now)
    const exp = now.getTime() / 1000 + 60
    cache.set('t1', principal(1), exp)
    now = new Date((exp - 1) * 1000 + 999)
    expect(cache.get('t1')).toEqual(principal(1))
    now = new Date(exp * 1000)
    expect(cache.get('t1')).toBeUndefined()
    now = new Date((exp - 1) * 1000)
    expect(cache.get('t1')).toBeUndefined()
  })

  it('never stores a token that has already expired, and knows only the exact token string', () => {
    const now = new Date('2026-01-01T00:00:00.000Z')
    const cache = verifiedTokenCache(() => now)
    cache.set('old', principal(1), now.getTime() / 1000)
    cache.set('t1', principal(2), now.getTime() / 1000 + 60)
    expect(cache.get('old')).toBeUndefined()
    expect(cache.get('t1 ')).toBeUndefined()
    expect(cache.get('T1')).toBeUndefined()
  })

  it('hands out copies, so one request cannot change what the next one sees', () => {
    const now = new Date('2026-01-01T00:00:00.000Z')
    const cache = verifiedTokenCache(() => now)
    const original = principal(1)
    cache.set('t1', original, now.getTime() / 1000 + 60)
    original.scopes.push('admin')
    const first = cache.get('t1')!
    first.scopes.push('admin')
    first.tenantId = 'ten_other'
    expect(cache.get('t1')).toEqual(principal(1))
  })

  it('drops the least recently used token beyond its bound', () => {
    const now = new Date('2026-01-01T00:00:00.000Z')
    const cache = verifiedTokenCache(() => now, 2)
    const exp = now.getTime() / 1000 + 60
    cache.set('a', principal(1), exp)
    cache.set('b', principal(2), exp)
    expect(cache.get('a')).toEqual(principal(1))
    cache.set('c', principal(3), exp)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')?.clientId).toBe('cli_1')
    expect(cache.get('c')?.clientId).toBe('cli_3')
  })
})
