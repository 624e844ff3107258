/**
 * @module The outbound network policy's calls as the domain declares them (domain/outbound-policy.ts): vetting a
 * registered URL's host, the capped JSON fetch and the fetch-rate cache. The composition hands this to the services
 * that call tenants' URLs (webhook endpoints, agent calls, SSO).
 */
import type { OutboundCalls } from '../../domain/outbound-policy.ts'
import { createDocumentCache } from './document-cache.ts'
import { createJsonFetcher } from './fetch-json.ts'
import { addressRefusal } from './vetted-lookup.ts'

/** The outbound calls over Node's DNS and HTTP, under the network policy each is given. */
export const outboundCalls: OutboundCalls = {
  vetAddress: addressRefusal,
  jsonFetcher: createJsonFetcher,
  documentCache: createDocumentCache,
}
