import { describe, expect, it } from 'vitest'
import { failedAuthentications } from '../../../../api/middleware/failed-authentications.ts'

describe('failedAuthentications', () => {
  it('lets an address fail the limit, then blocks it until its window ends, and only it', () => {
    let now = 1_767_225_600_000
    const failures = failedAuthentications({ limit: 3, windowSeconds: 60, clock: () => new Date(now) })
    expect([failures.record('ip:a'), failures.record('ip:a'), failures.record('ip:a')]).toEqual([0, 0, 0])
    expect(failures.blockedFor('ip:a')).toBe(0)
    now += 10_500
    expect(failures.record('ip:a')).toBe(50)
    expect(failures.blockedFor('ip:a')).toBe(50)
    expect(failures.blockedFor('ip:b')).toBe(0)
    now += 49_499
    expect(failures.blockedFor('ip:a')).toBe(1)
    now += 1
    expect(failures.blockedFor('ip:a')).toBe(0)
    expect(failures.record('ip:a')).toBe(0)
  })
})
