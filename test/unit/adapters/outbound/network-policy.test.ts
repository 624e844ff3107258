import { describe, expect, it } from 'vitest'
import { classifyAddress, forbiddenCategory } from '../../../../adapters/outbound/network-policy.ts'

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

  // Each form reaches the IPv4 address it carries (a translator, a tunnel or the host's own stack does it), so each is
  // judged by that address: a loopback, private or metadata address is not made public by wrapping it in IPv6.
  it.each([
    ['IPv4-mapped', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped, hex', '::ffff:a00:1', 'private'],
    ['IPv4-compatible (deprecated)', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible, hex', '::a9fe:a9fe', 'metadata'],
    ['IPv4-compatible, private', '::192.168.1.1', 'private'],
    ['IPv4-translated', '::ffff:0:127.0.0.1', 'loopback'],
    ['IPv4-translated, metadata', '::ffff:0:169.254.169.254', 'metadata'],
    ['NAT64 well-known, loopback', '64:ff9b::127.0.0.1', 'loopback'],
    ['NAT64 well-known, metadata', '64:ff9b::a9fe:a9fe', 'metadata'],
    ['NAT64 local-use /96 layout', '64:ff9b:1::10.0.0.1', 'private'],
    ['NAT64 local-use /96 layout, loopback', '64:ff9b:1::127.0.0.1', 'loopback'],
    ['NAT64 local-use /48 layout, metadata', '64:ff9b:1:a9fe:a9:fe00::', 'metadata'],
    ['NAT64 local-use, public inside: still a local translator', '64:ff9b:1::8.8.8.8', 'private'],
    ['6to4 of a private address', '2002:a00:1::1', 'private'],
    ['6to4 of loopback', '2002:7f00:1::', 'loopback'],
    ['6to4 of a metadata address', '2002:a9fe:a9fe::1', 'metadata'],
    ['Teredo with a loopback server', '2001:0:7f00:1::', 'loopback'],
    ['Teredo with a loopback client (stored inverted)', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['Teredo with a metadata client', '2001:0:4136:e378:8000:63bf:5601:5601', 'metadata'],
    ['Teredo between public addresses: the tunnel itself', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ])('refuses %s: %s is %s', (_form, address, category) => {
    expect(classifyAddress(address)).toBe(category)
  })

  it('leaves public addresses in those forms public, and other 2001:: networks alone', () => {
    expect(classifyAddress('64:ff9b::8.8.8.8')).toBe('public')
    expect(classifyAddress('2002:808:808::1')).toBe('public')
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public')
    expect(classifyAddress('2001:4860:4860::8888')).toBe('public')
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
    const ranges = {
      '127.0.0.1': 'loopback',
      '10.0.0.1': 'private',
      '100.64.1.1': 'shared',
      'fe80::1': 'link_local',
      'fc00::1': 'unique_local',
    } as const
    for (const [address, category] of Object.entries(ranges)) {
      expect(forbiddenCategory(address, strict), address).toBe(category)
      expect(forbiddenCategory(address, lenient)).toBeUndefined()
    }
  })

  it('refuses cloud metadata and the unspecified address even when private networks are allowed', () => {
    expect(forbiddenCategory('169.254.169.254', lenient)).toBe('metadata')
    expect(forbiddenCategory('0.0.0.0', lenient)).toBe('unspecified')
  })

  it('refuses cloud metadata wrapped in any IPv6 form even when private networks are allowed', () => {
    for (const address of ['::a9fe:a9fe', '::ffff:0:a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::']) {
      expect(forbiddenCategory(address, lenient), address).toBe('metadata')
    }
  })
})
