import { describe, expect, it } from 'vitest'
import { classifyAddress, forbiddenCategory } from '../../../../infra/outbound/network-policy.ts'

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fd12:3456::1', 'unique_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category)
  })

  it('sees through IPv4 addresses wrapped in IPv6 (mapped, NAT64, 6to4)', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback')
    expect(classifyAddress('::ffff:a9fe:a9fe')).toBe('metadata')
    expect(classifyAddress('64:ff9b::10.0.0.1')).toBe('private')
    expect(classifyAddress('64:ff9b::808:808')).toBe('public')
    expect(classifyAddress('2002:7f00:1::')).toBe('loopback')
  })

  it('refuses what is not an address', () => {
    expect(() => classifyAddress('localhost')).toThrow(/not an IP address/)
  })
})

describe('forbiddenCategory', () => {
  const strict = { allowPrivateNetworks: false }
  const lenient = { allowPrivateNetworks: true }

  it('allows public addresses under any policy', () => {
    expect(forbiddenCategory('93.184.216.34', strict)).toBeUndefined()
  })

  it('refuses private ranges unless the operator allows them', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '100.64.1.1', 'fe80::1', 'fc00::1']) {
      expect(forbiddenCategory(address, strict)).toBeDefined()
      expect(forbiddenCategory(address, lenient)).toBeUndefined()
    }
  })

  it('refuses cloud metadata and the unspecified address even when private networks are allowed', () => {
    expect(forbiddenCategory('169.254.169.254', lenient)).toBe('metadata')
    expect(forbiddenCategory('0.0.0.0', lenient)).toBe('unspecified')
  })
})
