/**
 * The outbound network policy is on unless explicitly relaxed (issue 39): no NODE_ENV, development included, opens
 * webhook receivers, agent calls or SSO issuers to private addresses or plain http; OUTBOUND_ALLOW_PRIVATE_NETWORKS and
 * OUTBOUND_ALLOW_HTTP relax it for every caller, and each caller's own switch still overrides it.
 */
import { describe, expect, it } from 'vitest'
import { ssoSettings } from '../../../domain/auth/sso-settings.ts'
import { webhookSettings } from '../../../domain/webhooks/webhook-settings.ts'
import { loadConfig } from '../../../infra/config.ts'

const DATABASE_URL = 'postgresql://unused@127.0.0.1:1/unused'
// Production refuses to start without payload-encryption keys and the secrets' key ring.
const TEMPORAL_CODEC_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`
const SECRETS_ENCRYPTION_KEYS = `s1:${Buffer.alloc(32, 9).toString('base64')}`
const strict = { requireHttps: true, network: { allowPrivateNetworks: false } }
const relaxed = { requireHttps: false, network: { allowPrivateNetworks: true } }
const rules = (env: Record<string, string>) => {
  const config = loadConfig({ DATABASE_URL, TEMPORAL_CODEC_KEYS, SECRETS_ENCRYPTION_KEYS, ...env })
  const { requireHttps, network } = webhookSettings(config)
  return { webhooks: { requireHttps, network }, sso: ssoSettings(config) }
}

describe('the outbound network policy', () => {
  it.each<Record<string, string>>([{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }, { NODE_ENV: 'production' }])(
    'is strict for webhooks and SSO with %o and nothing relaxed',
    (env) => {
      expect(rules(env)).toEqual({ webhooks: strict, sso: strict })
    }
  )

  it('is relaxed for every caller only when the operator says so', () => {
    const env = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', OUTBOUND_ALLOW_HTTP: 'true' }
    expect(rules({ NODE_ENV: 'production', ...env })).toEqual({ webhooks: relaxed, sso: relaxed })
    expect(rules({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }).webhooks).toEqual({
      requireHttps: true,
      network: { allowPrivateNetworks: true },
    })
  })

  it("lets each caller's own switch override the platform's policy either way", () => {
    const relaxedButWebhooks = rules({
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      OUTBOUND_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
      WEBHOOK_REQUIRE_HTTPS: 'true',
    })
    expect(relaxedButWebhooks).toEqual({ webhooks: strict, sso: relaxed })
    expect(rules({ SSO_ALLOW_PRIVATE_NETWORKS: 'true', SSO_REQUIRE_HTTPS: 'false' })).toEqual({
      webhooks: strict,
      sso: relaxed,
    })
  })
})
