/**
 * @module Which IP addresses the platform may connect to on a tenant's behalf (server-side request forgery): webhook
 * receivers and SSO issuers are URLs a tenant chooses, so without this check the platform could be made to reach into
 * its own network: the database, the Temporal frontend, a cloud metadata service. Only public unicast addresses are
 * allowed unless the operator explicitly allows private networks (OUTBOUND_ALLOW_PRIVATE_NETWORKS, whatever NODE_ENV
 * says; `npm start` sets it, so it delivers to loopback receivers). Cloud metadata addresses are refused even then:
 * nothing we call lives there and they hand out credentials. An IPv6 address that carries an IPv4 one (mapped,
 * compatible, translated, NAT64, 6to4, Teredo) is judged by what it carries. One rule for every outbound call to a
 * tenant's URL; each caller has its own switch in the configuration.
 */
import { BlockList, isIP } from 'node:net'
import type { NetworkPolicy } from '../../domain/outbound-policy.ts'

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

/** An IPv4 address as its four octets, from two 16-bit groups. */
const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`

/**
 * The IPv4 addresses an IPv6 address carries, and the category of its prefix as a whole when the prefix itself is
 * not public. Each of these reaches the IPv4 address it names (a translator, a tunnel or the host's own stack does
 * it), so each is judged by what it carries: IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291) and IPv4-translated
 * `::ffff:0:a.b.c.d` (RFC 2765); NAT64 `64:ff9b::/96` (RFC 6052) and the local-use `64:ff9b:1::/48` (RFC 8215,
 * translators inside an operator's own network: private whatever it carries, and the IPv4 address read both where a
 * /96 and where a /48 prefix puts it); 6to4 `2002::/16` (RFC 3056); Teredo `2001::/32` (RFC 4380, the server's
 * address and the client's, stored inverted: a deprecated tunnel nothing we call uses, so reserved as a whole).
 * IPv4-mapped `::ffff:a.b.c.d` is matched against the IPv4 ranges directly by `BlockList`.
 */
function embeddedIpv4(ipv6: string): { inner: string[]; prefix?: Exclude<AddressCategory, 'public'> } | undefined {
  const g = expandIpv6(ipv6)
  if (!g) return undefined
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zero(0, 6)) return { inner: [ipv4Of(g[6]!, g[7]!)] }
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { inner: [ipv4Of(g[6]!, g[7]!)] }
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return { inner: [ipv4Of(g[6]!, g[7]!)] }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // The layout a prefix length does not use is zeros there: 0.0.0.0 is no address it carries.
    const candidates = [ipv4Of(g[6]!, g[7]!), ipv4Of(g[3]!, ((g[4]! & 0xff) << 8) | (g[5]! >> 8))]
    return { inner: candidates.filter((v4) => v4 !== '0.0.0.0'), prefix: 'private' }
  }
  if (g[0] === 0x2002) return { inner: [ipv4Of(g[1]!, g[2]!)] }
  if (g[0] === 0x2001 && g[1] === 0) {
    return { inner: [ipv4Of(g[2]!, g[3]!), ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)], prefix: 'reserved' }
  }
  return undefined
}

/** Which category wins when an address carries several: the ones never allowed first. */
const SEVERITY: AddressCategory[] = [
  'metadata',
  'unspecified',
  'multicast',
  'loopback',
  'link_local',
  'private',
  'shared',
  'unique_local',
  'reserved',
  'public',
]

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined if it is not one. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0]!
  // The longest IPv6 text is 45 characters; a longer one is not an address, and the pattern below then runs on at most
  // that many (it is quadratic in a run of digits).
  if (text.length > 45) return undefined
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
 * Classifies an IP address. An IPv6 address that carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4,
 * Teredo) counts as the IPv4 address it carries, or as its prefix when that is not public either.
 * @param address - a literal IPv4 or IPv6 address
 * @throws Error when `address` is not an IP address
 */
export function classifyAddress(address: string): AddressCategory {
  const bare = address.split('%')[0]!
  const family = isIP(bare)
  if (family === 0) throw new Error(`not an IP address: ${address}`)
  const type = family === 6 ? 'ipv6' : 'ipv4'
  for (const [list, category] of CHECKS) if (list.check(bare, type)) return category
  const tunnel = family === 6 ? embeddedIpv4(bare) : undefined
  if (!tunnel) return 'public'
  const categories = [...tunnel.inner.map(classifyAddress), tunnel.prefix ?? 'public']
  return SEVERITY.find((category) => categories.includes(category)) ?? 'public'
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
