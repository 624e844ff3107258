import { describe, expect, it } from 'vitest'
import { derivedLogins, loginOf } from '../../../../scripts/db/application-logins.ts'

describe('derivedLogins', () => {
  const owner = 'postgresql://therapy:s3cret@db.internal:5432/therapy?sslmode=require'

  it("names two logins after the owner, on the owner's server and database", () => {
    const logins = derivedLogins(owner)
    expect(loginOf(logins.units).user).toBe('therapy_units_login')
    expect(loginOf(logins.system).user).toBe('therapy_system_login')
    for (const url of [logins.units, logins.system]) {
      expect(new URL(url).host).toBe('db.internal:5432')
      expect(new URL(url).pathname).toBe('/therapy')
      expect(new URL(url).searchParams.get('sslmode')).toBe('require')
    }
    expect(loginOf(logins.units).password).not.toBe(loginOf(logins.system).password)
    expect(loginOf(logins.units).password).not.toContain('s3cret')
  })

  it('gives every database of one server the same passwords, since roles belong to the server', () => {
    const a = derivedLogins(owner, 'therapy_test_aaaa')
    const b = derivedLogins(owner.replace('/therapy?', '/other?'), 'therapy_test_bbbb')
    expect(loginOf(a.units)).toEqual(loginOf(b.units))
    expect(loginOf(a.system)).toEqual(loginOf(b.system))
    expect(new URL(a.units).pathname).toBe('/therapy_test_aaaa')
  })

  it("changes the passwords with the owner's password or server", () => {
    const base = loginOf(derivedLogins(owner).units).password
    expect(loginOf(derivedLogins(owner.replace('s3cret', 'rotated')).units).password).not.toBe(base)
    expect(loginOf(derivedLogins(owner.replace('db.internal', 'db2.internal')).units).password).not.toBe(base)
  })
})

describe('loginOf', () => {
  it('reads an encoded name and password, and refuses a URL without a password', () => {
    expect(loginOf('postgresql://a%40b:p%2Fw@h/d')).toEqual({ user: 'a@b', password: 'p/w' })
    expect(() => loginOf('postgresql://therapy@h/d')).toThrow(/user and a password/)
  })
})
