/**
 * @module The caller's network address, which keys the rate limit of unauthenticated requests. It is the TCP peer,
 * unless the API runs behind a reverse proxy and says so (`TRUST_PROXY=true`): then it is the last X-Forwarded-For
 * entry, the address that proxy saw. The entries before it are whatever the client wrote, and trusting them would
 * let anyone pick a fresh bucket per request; without TRUST_PROXY the header is ignored for the same reason.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { isIP } from 'node:net'

/** Requests that did not come through a Node socket (`app.request` in tests) share this address. */
export const UNKNOWN_ADDRESS = 'unknown'

/** An IP address with an optional port (`1.2.3.4:80`, `[2001:db8::1]:443`) reduced to the address, if it is one. */
function parseAddress(value: string): string | undefined {
  const text = value.trim()
  if (isIP(text)) return text
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)?.[1]
  if (bracketed && isIP(bracketed) === 6) return bracketed
  const v4WithPort = /^([\d.]+):\d+$/.exec(text)?.[1]
  if (v4WithPort && isIP(v4WithPort) === 4) return v4WithPort
  return undefined
}

/** The address the nearest proxy appended to X-Forwarded-For, when the last entry is an IP address. */
export function lastForwardedAddress(header: string | undefined): string | undefined {
  const entries = header?.split(',') ?? []
  const last = entries[entries.length - 1]
  return last === undefined ? undefined : parseAddress(last)
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0] ?? ''
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : [])
  const [head, tail] = text.split('::')
  if (tail === undefined) return groups(head)
  const [before, after] = [groups(head), groups(tail)]
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after]
}

/**
 * What one rate-limit bucket is keyed by for an address. IPv4 (also IPv4-mapped IPv6) is the address itself; IPv6 is
 * its /64 prefix, because one subscriber usually holds a whole /64 and could otherwise rotate through it.
 */
export function addressBucket(address: string): string {
  if (isIP(address) !== 6) return address
  const groups = ipv6Groups(address)
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

/**
 * The caller's address for rate limiting.
 * @param trustProxy - whether a reverse proxy in front of the API sets X-Forwarded-For
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = lastForwardedAddress(c.req.header('X-Forwarded-For'))
    if (forwarded) return addressBucket(forwarded)
  }
  let peer: string | undefined
  try {
    peer = getConnInfo(c).remote.address
  } catch {
    // Not served by @hono/node-server: no socket to ask.
  }
  return peer ? addressBucket(peer) : UNKNOWN_ADDRESS
}
