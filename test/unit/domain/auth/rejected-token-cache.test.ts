import { describe, expect, it } from 'vitest'
import { rejectedTokenCache } from '../../../../domain/auth/rejected-token-cache.ts'

describe('rejectedTokenCache', () => {
  it('remembers a refused credential for its time to live, and forgets the oldest beyond its bound', () => {
    let now = 1_767_225_600_000
    const cache = rejectedTokenCache(() => new Date(now), 30_000, 2)
    cache.add('sk_one')
    expect(cache.has('sk_one')).toBe(true)
    expect(cache.has('sk_two')).toBe(false)
    now += 29_999
    expect(cache.has('sk_one')).toBe(true)
    now += 1
    expect(cache.has('sk_one')).toBe(false)
    cache.add('sk_a')
    cache.add('sk_b')
    cache.add('sk_c')
    expect([cache.has('sk_a'), cache.has('sk_b'), cache.has('sk_c')]).toEqual([false, true, true])
  })
})
