import { describe, expect, it } from 'vitest'
import { addressBucket, lastForwardedAddress } from '../../../api/client-address.ts'

describe('lastForwardedAddress', () => {
  it('takes the entry the nearest proxy appended, not the one the client wrote', () => {
    expect(lastForwardedAddress('1.1.1.1, 198.51.100.7')).toBe('198.51.100.7')
    expect(lastForwardedAddress('198.51.100.7')).toBe('198.51.100.7')
    expect(lastForwardedAddress(' 2001:db8::1 ')).toBe('2001:db8::1')
  })

  it('drops a port and IPv6 brackets', () => {
    expect(lastForwardedAddress('198.51.100.7:4711')).toBe('198.51.100.7')
    expect(lastForwardedAddress('[2001:db8::1]:443')).toBe('2001:db8::1')
  })

  it('gives nothing for a missing header or a last entry that is not an address', () => {
    expect(lastForwardedAddress(undefined)).toBeUndefined()
    expect(lastForwardedAddress('198.51.100.7, unknown')).toBeUndefined()
    expect(lastForwardedAddress('')).toBeUndefined()
  })
})

describe('addressBucket', () => {
  it('keeps IPv4 addresses and unwraps IPv4-mapped IPv6', () => {
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7')
    expect(addressBucket('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(addressBucket('::ffff:c633:6407')).toBe('198.51.100.7')
  })

  it('counts an IPv6 address by its /64, however it is written', () => {
    expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(addressBucket('::1')).toBe('0:0:0:0::/64')
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(addressBucket('2001:db8:1:2::1'))
  })
})
