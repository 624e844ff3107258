/**
 * @module SSO's outbound rules, resolved from the process configuration (infra/config.ts). Issuers and their key sets
 * are URLs a tenant registers and the platform then calls, exactly like webhook receivers, so they follow the same
 * network policy (declared in domain/outbound-policy.ts, applied by adapters/outbound/) with their own switches and
 * the same defaults: HTTPS and public addresses only, whatever NODE_ENV, unless the operator relaxes the platform's
 * policy (OUTBOUND_ALLOW_HTTP, OUTBOUND_ALLOW_PRIVATE_NETWORKS: `npm start` does, so an identity provider on the
 * developer's machine works) or SSO's own (SSO_REQUIRE_HTTPS, SSO_ALLOW_PRIVATE_NETWORKS).
 */
import type { Config } from '../../infra/config.ts'
import type { NetworkPolicy } from '../outbound-policy.ts'

export interface SsoSettings {
  /** Refuse `http:` issuers and key sets. */
  requireHttps: boolean
  network: NetworkPolicy
}

/** The SSO settings of a process configuration. */
export function ssoSettings(
  config: Pick<
    Config,
    'OUTBOUND_ALLOW_HTTP' | 'OUTBOUND_ALLOW_PRIVATE_NETWORKS' | 'SSO_REQUIRE_HTTPS' | 'SSO_ALLOW_PRIVATE_NETWORKS'
  >
): SsoSettings {
  return {
    requireHttps: config.SSO_REQUIRE_HTTPS ?? !config.OUTBOUND_ALLOW_HTTP,
    network: { allowPrivateNetworks: config.SSO_ALLOW_PRIVATE_NETWORKS ?? config.OUTBOUND_ALLOW_PRIVATE_NETWORKS },
  }
}
