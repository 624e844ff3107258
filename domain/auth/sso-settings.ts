/**
 * @module SSO's outbound rules, resolved from the process configuration (infra/config.ts). Issuers and their key sets
 * are URLs a tenant registers and the platform then calls, exactly like webhook receivers, so they follow the same
 * network policy (infra/outbound/network-policy.ts) with their own switches and the same defaults: development (what
 * `npm start` runs) accepts plain HTTP and private addresses, so an identity provider on the developer's machine works;
 * every other environment requires HTTPS and public addresses unless the operator says otherwise.
 */
import type { Config } from '../../infra/config.ts'
import type { NetworkPolicy } from '../../infra/outbound/network-policy.ts'

export interface SsoSettings {
  /** Refuse `http:` issuers and key sets. */
  requireHttps: boolean
  network: NetworkPolicy
}

/** The SSO settings of a process configuration. */
export function ssoSettings(
  config: Pick<Config, 'NODE_ENV' | 'SSO_REQUIRE_HTTPS' | 'SSO_ALLOW_PRIVATE_NETWORKS'>
): SsoSettings {
  const development = config.NODE_ENV === 'development'
  return {
    requireHttps: config.SSO_REQUIRE_HTTPS ?? !development,
    network: { allowPrivateNetworks: config.SSO_ALLOW_PRIVATE_NETWORKS ?? development },
  }
}
