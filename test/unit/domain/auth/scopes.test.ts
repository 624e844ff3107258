import { describe, expect, it } from 'vitest'
import { isWithinGrant, parseScopeString, satisfiesScope } from '../../../../domain/auth/scopes.ts'

describe('scopes', () => {
  it('lets a resource scope satisfy its read scope, not the reverse', () => {
    expect(satisfiesScope(['bookings'], 'bookings.read')).toBe(true)
    expect(satisfiesScope(['bookings'], 'bookings')).toBe(true)
    expect(satisfiesScope(['bookings.read'], 'bookings')).toBe(false)
    expect(satisfiesScope(['children'], 'bookings.read')).toBe(false)
  })

  it('parses space-separated scope strings and names the unknown one', () => {
    expect(parseScopeString('children  bookings children')).toEqual({ scopes: ['children', 'bookings'] })
    expect(parseScopeString('children root')).toEqual({ unknown: 'root' })
  })

  it('checks requests against a grant', () => {
    expect(isWithinGrant(['children', 'ai.read'], ['children.read', 'ai.read'])).toBe(true)
    expect(isWithinGrant(['children.read'], ['children'])).toBe(false)
  })
})
