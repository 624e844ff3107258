/**
 * @module Which IP addresses the platform may connect to on a tenant's behalf (server-side request forgery): webhook
 * receivers and SSO issuers are URLs a tenant chooses, so without this check the platform could be made to reach into
 * its own network: the database, the Temporal frontend, a cloud metadata service. Only public unicast addresses are
 * allowed unless the operator allows private networks (development does by default, so `npm start` delivers to
 * loopback receivers). Cloud metadata addresses are refused even then: nothing we call lives there and they hand out
 * credentials. One rule for every outbound call to a tenant's URL; each caller has its own switch in the configuration.
 */
import { BlockList, isIP } from 'node:net'

/** Why an address is not public; `public` is the only category allowed without the operator's consent. */
export type AddressCategory =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'reserved'
  | 'metadata'

/** What the operator allows beyond the public Internet. */
export interface NetworkPolicy {
  /** Loopback, RFC 1918, CGNAT, link-local and ULA receivers (never metadata addresses). */
  allowPrivateNetworks: boolean
}

type Range = [network: string, prefix: number, category: Exclude<AddressCategory, 'public'>]

// Most specific first: the first list that matches names the category.
const METADATA: Range[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task credentials
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['fd00:ec2::254', 128, 'metadata'], // AWS over IPv6
]
const IPV4: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // TEST-NET-1
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // TEST-NET-2
  ['203.0.113.0', 24, 'reserved'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255
]
const IPV6: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'reserved'], // documentation
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'reserved'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
]

function blockListOf(ranges: Range[]): Array<[BlockList, AddressCategory]> {
  return ranges.map(([network, prefix, category]) => {
    const list = new BlockList()
    list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4')
    return [list, category]
  })
}

const CHECKS = blockListOf([...METADATA, ...IPV4, ...IPV6])

/** The IPv4 address embedded in a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address, if any. */
function embeddedIpv4(ipv6: string): string | undefined {
  const groups = expandIpv6(ipv6)
  if (!groups) return undefined
  const isNat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)
  if (isNat64) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  if (groups[0] === 0x2002) return `${groups[1]! >> 8}.${groups[1]! & 0xff}.${groups[2]! >> 8}.${groups[2]! & 0xff}`
  return undefined
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined if it is not one. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0]!
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (tail) {
    const octets = tail[1]!.split('.').map(Number)
    text =
      text.slice(0, -tail[1]!.length) +
      `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`
  }
  const [head, rest] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = rest ? rest.split(':') : []
  const missing = 8 - left.length - right.length
  if (rest === undefined ? missing !== 0 : missing < 0) return undefined
  const groups = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right].map((g) =>
    parseInt(g, 16)
  )
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined
}

/**
 * Classifies an IP address (IPv4-mapped IPv6 addresses count as the IPv4 address they carry).
 * @param address - a literal IPv4 or IPv6 address
 * @throws Error when `address` is not an IP address
 */
export function classifyAddress(address: string): AddressCategory {
  const family = isIP(address.split('%')[0]!)
  if (family === 0) throw new Error(`not an IP address: ${address}`)
  const type = family === 6 ? 'ipv6' : 'ipv4'
  for (const [list, category] of CHECKS) if (list.check(address.split('%')[0]!, type)) return category
  if (family === 6) {
    const inner = embeddedIpv4(address)
    if (inner) return classifyAddress(inner)
  }
  return 'public'
}

/**
 * Whether the platform may connect to `address` under `policy`.
 * @returns the category that forbids it, or undefined when it is allowed
 */
export function forbiddenCategory(address: string, policy: NetworkPolicy): AddressCategory | undefined {
  const category = classifyAddress(address)
  if (category === 'public') return undefined
  if (category === 'metadata' || category === 'multicast' || category === 'unspecified') return category
  return policy.allowPrivateNetworks ? undefined : category
}
