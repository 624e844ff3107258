/**
 * @module DNS resolution that only ever yields addresses the network policy allows. Used when a tenant registers a URL
 * (to refuse it up front) and as the `lookup` of every outbound socket to it (webhook deliveries, SSO discovery and
 * key fetches), so the connection goes to the address that was vetted: a name that resolved to a public address at
 * registration and to 127.0.0.1 later (DNS rebinding) is refused at the moment of the call, not trusted from the first
 * check.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import type { AddressRefusal, NetworkPolicy } from '../../domain/outbound-policy.ts'
import { forbiddenCategory, type AddressCategory } from './network-policy.ts'

/** A host the policy refuses, with the category of the offending address. */
export class ForbiddenAddressError extends Error {
  readonly code = 'forbidden_address'
  readonly category: AddressCategory

  /** @param subject - what was to be sent, for the message ("webhooks", "SSO requests") */
  constructor(host: string, category: AddressCategory, subject: string) {
    super(`${host} resolves to a ${category.replace('_', '-')} address, which ${subject} may not be sent to`)
    this.name = 'ForbiddenAddressError'
    this.category = category
  }
}

/** A host that does not resolve. */
export class UnresolvableHostError extends Error {
  readonly code = 'unresolvable_host'

  constructor(host: string, cause: unknown) {
    super(`${host} does not resolve`, { cause })
    this.name = 'UnresolvableHostError'
  }
}

/** Strips the brackets of an IPv6 URL host. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')

/**
 * Resolves `host` to every address it has and vets each one; one forbidden address refuses the host, since a
 * resolver may hand out any of them.
 * @param subject - what is to be sent there, for the error's message ("webhooks", "SSO requests")
 * @throws ForbiddenAddressError, UnresolvableHostError
 */
export async function resolveVetted(host: string, policy: NetworkPolicy, subject: string): Promise<LookupAddress[]> {
  const name = bareHost(host)
  const family = isIP(name)
  const addresses: LookupAddress[] = family
    ? [{ address: name, family }]
    : await new Promise((resolve, reject) =>
        dnsLookup(name, { all: true, verbatim: true }, (error, found) =>
          error || found.length === 0 ? reject(new UnresolvableHostError(name, error)) : resolve(found)
        )
      )
  for (const { address } of addresses) {
    const category = forbiddenCategory(address, policy)
    if (category) throw new ForbiddenAddressError(name, category, subject)
  }
  return addresses
}

/**
 * Vets the host of a URL a tenant registers, so a refused address is answered at once rather than at the first call
 * (the domain's `AddressVetter`).
 * @param hostname - the URL's `hostname` (IPv6 in brackets is fine)
 * @returns why the host is refused, or undefined when every address it resolves to is allowed
 */
export async function addressRefusal(
  hostname: string,
  policy: NetworkPolicy,
  subject: string
): Promise<AddressRefusal | undefined> {
  try {
    await resolveVetted(hostname, policy, subject)
    return undefined
  } catch (error) {
    if (error instanceof ForbiddenAddressError) return { code: 'forbidden_address', message: `${error.message}.` }
    return { code: 'unresolvable_host', message: `${hostname} does not resolve.` }
  }
}

/**
 * A `lookup` for `http.request` / `net.connect` that resolves through {@link resolveVetted}, so the socket connects
 * only to an address that passed the policy in this very resolution.
 * @param subject - as for {@link resolveVetted}
 */
export function vettedLookup(policy: NetworkPolicy, subject: string): LookupFunction {
  return (hostname, options, callback) => {
    resolveVetted(hostname, policy, subject).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses
        if (wanted.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
            '',
            0
          )
        } else if (options.all) {
          // Node's types give the single-address signature; with `all` the callback takes the list.
          ;(callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted)
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family)
        }
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0)
    )
  }
}
