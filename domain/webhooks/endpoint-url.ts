/**
 * @module Validating a webhook endpoint's URL when it is created or changed: HTTPS outside development, no
 * credentials in the URL (they would end up in logs and the delivery log), and a host that resolves only to
 * addresses the network policy allows. The same policy is applied again at every delivery
 * (adapters/outbound/vetted-lookup.ts). The host is vetted by the `AddressVetter` the caller is handed
 * (domain/outbound-policy.ts), so the domain resolves no name itself.
 */
import { validationError } from '../errors.ts'
import type { AddressVetter } from '../outbound-policy.ts'
import type { WebhookSettings } from './webhook-settings.ts'

export const MAX_URL_LENGTH = 2048

/** The rules a URL is checked against: the webhook settings and the vetting of its host. */
export type EndpointUrlRules = Pick<WebhookSettings, 'requireHttps' | 'network'> & { vetAddress: AddressVetter }

const refuse = (code: string, message: string) => validationError([{ path: 'url', code, message }])

/**
 * Checks a URL against the webhook rules.
 * @returns the URL as it will be called (normalised by the WHATWG parser)
 * @throws AppError `validation_error` with the field code `invalid_url`, `https_required`, `forbidden_address` or
 * `unresolvable_host`
 */
export async function vetEndpointUrl(raw: string, settings: EndpointUrlRules): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw refuse('invalid_url', 'Not an absolute URL.')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('invalid_url', 'Use an https:// URL.')
  if (url.protocol === 'http:' && settings.requireHttps) {
    throw refuse('https_required', 'Webhook URLs must use https://.')
  }
  if (url.username || url.password) {
    throw refuse('invalid_url', 'Credentials in the URL are not accepted; authenticate deliveries by their signature.')
  }
  if (url.hash) throw refuse('invalid_url', 'A URL fragment is never sent; remove it.')
  if (url.href.length > MAX_URL_LENGTH) throw refuse('invalid_url', `At most ${MAX_URL_LENGTH} characters.`)
  const refusal = await settings.vetAddress(url.hostname, settings.network, 'webhooks')
  if (refusal) throw refuse(refusal.code, refusal.message)
  return url.href
}
