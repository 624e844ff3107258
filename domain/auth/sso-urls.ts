/**
 * @module The URLs of an SSO connection: the issuer (an identifier that is also where its discovery document lives)
 * and an optional key set URL. Checked when a tenant registers them, including where their hosts resolve (the network
 * policy, by the `AddressVetter` the caller is handed, as for webhook URLs), so a refused address is answered at once;
 * the syntax rule applies again to a key set URL a discovery document names, and the network policy again at every
 * fetch (the socket's lookup), so a name that later resolves inward is still refused.
 *
 * A registered key set URL must be on the issuer's own host ({@link onIssuerHost}): one anywhere else would let the
 * tenant that registers an issuer choose the keys that sign in that issuer's name (issue 55). Elsewhere, the issuer's
 * discovery document names its key set, which is the issuer's own word.
 */
import { validationError, type FieldError } from '../errors.ts'
import type { AddressVetter } from '../outbound-policy.ts'
import type { SsoSettings } from './sso-settings.ts'

/** The rules a connection's URLs are checked against: SSO's settings and the vetting of the fetched host. */
export type SsoUrlRules = SsoSettings & { vetAddress: AddressVetter }

/** How refused addresses are named in messages. */
export const SSO_SUBJECT = 'SSO requests'

/** A URL's field code and message. */
export interface UrlRefusal {
  code: 'invalid_url' | 'https_required' | 'not_issuer_host'
  message: string
}

/** Where an issuer publishes its discovery document (OpenID Connect Discovery 1.0, section 4). */
export const discoveryUrlOf = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`

/**
 * The syntax rules: an absolute http(s) URL, https when required, no credentials, no fragment, and for an issuer no
 * query (OpenID Connect Discovery 1.0, section 3: the discovery document's URL is built by appending to it).
 * @returns why the URL is refused, or undefined
 */
export function ssoUrlRefusal(raw: string, kind: 'issuer' | 'jwksUri', requireHttps: boolean): UrlRefusal | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { code: 'invalid_url', message: 'Not an absolute URL.' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { code: 'invalid_url', message: 'Use an https URL.' }
  if (url.protocol === 'http:' && requireHttps) return { code: 'https_required', message: 'Use an https URL.' }
  if (url.username || url.password) return { code: 'invalid_url', message: 'Credentials in the URL are not accepted.' }
  if (url.hash) return { code: 'invalid_url', message: 'A URL fragment is never sent; remove it.' }
  if (kind === 'issuer' && url.search) return { code: 'invalid_url', message: 'An issuer has no query.' }
  return undefined
}

/**
 * Whether a key set URL is on its issuer's own host: the same scheme, host and port (the same origin, RFC 6454). A port
 * counts: another port of a host can be another server, and on a shared host another party's.
 */
export function onIssuerHost(issuer: string, jwksUri: string): boolean {
  try {
    return new URL(issuer).origin === new URL(jwksUri).origin
  } catch {
    return false
  }
}

const NOT_ISSUER_HOST: UrlRefusal = {
  code: 'not_issuer_host',
  message:
    "A key set URL must be on the issuer's own host (same scheme, host and port); leave it out to use the key set the issuer's discovery document names.",
}

/**
 * Checks a connection's URLs before it is stored. The issuer's host is vetted only when its discovery document is
 * what we will fetch (no `jwksUri`); otherwise it is an identifier we never call. A `jwksUri` off the issuer's host is
 * refused before its name is resolved.
 * @throws AppError `validation_error` with field codes `invalid_url`, `https_required`, `forbidden_address` or
 * `unresolvable_host` on `issuer` / `jwksUri`, or `not_issuer_host` on `jwksUri`
 */
export async function vetSsoUrls(urls: { issuer: string; jwksUri?: string }, settings: SsoUrlRules): Promise<void> {
  const errors: FieldError[] = []
  const fetched = urls.jwksUri === undefined ? 'issuer' : 'jwksUri'
  for (const [path, raw] of [
    ['issuer', urls.issuer],
    ['jwksUri', urls.jwksUri],
  ] as const) {
    if (raw === undefined) continue
    const refusal =
      ssoUrlRefusal(raw, path, settings.requireHttps) ??
      (path === 'jwksUri' && !onIssuerHost(urls.issuer, raw) ? NOT_ISSUER_HOST : undefined) ??
      (path === fetched ? await settings.vetAddress(new URL(raw).hostname, settings.network, SSO_SUBJECT) : undefined)
    if (refusal) errors.push({ path, ...refusal })
  }
  if (errors.length) throw validationError(errors)
}
