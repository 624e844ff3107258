/**
 * @module Webhook configuration, resolved from the process configuration (infra/config.ts). The network rules (also
 * those of agent `call_webhook` actions) are strict unless relaxed, whatever NODE_ENV: HTTPS and public addresses
 * only. The platform's policy relaxes them (OUTBOUND_ALLOW_HTTP, OUTBOUND_ALLOW_PRIVATE_NETWORKS: `npm start` does, so
 * an integrator can point an endpoint at a receiver on their own machine), and the webhooks' own switches
 * (WEBHOOK_REQUIRE_HTTPS, WEBHOOK_ALLOW_PRIVATE_NETWORKS) override it for webhooks.
 */
import type { Config } from '../../infra/config.ts'
import type { NetworkPolicy } from '../outbound-policy.ts'
import type { RetryPolicy } from '../../common/webhooks/retry-schedule.ts'

export interface WebhookSettings {
  /** Refuse `http:` URLs. */
  requireHttps: boolean
  network: NetworkPolicy
  /** Longest an attempt may take to answer (10 s). */
  timeoutMs: number
  retry: RetryPolicy
  /** An endpoint failing for this long without one success is disabled (5 days). */
  disableAfterMs: number
  /** Failed attempts in a row that open an endpoint's circuit breaker. */
  circuitFailures: number
  pump: PumpSettings
}

/** The delivery pumps' settings (docs/webhooks.md, "Delivery"). */
export interface PumpSettings {
  /** How many pumps (partitions of the endpoints); 0: none runs. */
  partitions: number
  /** How soon a pump that found nothing looks for work again. */
  pollMs: number
  /**
   * The longest an idle pump waits between looks: each look that finds nothing doubles the wait from `pollMs` up to
   * this. Unset: `pollMs`, no backoff.
   */
  idlePollMs?: number
  /**
   * How often an idle pump, between its full looks, asks whether an event waits for its fan-out (one index probe, a
   * small part of a look's cost). Unset: `pollMs`.
   */
  probeMs?: number
  /** Attempts in flight at once in one pump. */
  concurrency: number
  /** Attempts in flight at once to one endpoint. */
  endpointConcurrency: number
  /**
   * Deliveries one tenant may hold at once in one pump, in flight or claimed and waiting for a slot (its fair share,
   * docs/webhooks.md "Fair shares between tenants"). Unset: `concurrency`, no cap of its own.
   */
  tenantConcurrency?: number
  /** How long claimed deliveries are held before another pump may take them. */
  leaseMs: number
}

type WebhookConfig = Pick<
  Config,
  | 'OUTBOUND_ALLOW_HTTP'
  | 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'
  | 'WEBHOOK_REQUIRE_HTTPS'
  | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_WINDOW_MS'
  | 'WEBHOOK_RETRY_INITIAL_INTERVAL_MS'
  | 'WEBHOOK_RETRY_MAX_INTERVAL_MS'
  | 'WEBHOOK_DISABLE_AFTER_MS'
  | 'WEBHOOK_PUMP_POLL_MS'
  | 'WEBHOOK_PUMP_IDLE_POLL_MS'
  | 'WEBHOOK_PUMP_PARTITIONS'
  | 'WEBHOOK_PUMP_CONCURRENCY'
  | 'WEBHOOK_ENDPOINT_CONCURRENCY'
  | 'WEBHOOK_TENANT_CONCURRENCY'
  | 'WEBHOOK_CIRCUIT_FAILURES'
  | 'WEBHOOK_CLAIM_LEASE_MS'
>

/**
 * A tenant's share of a pump when WEBHOOK_TENANT_CONCURRENCY is unset: a quarter of its concurrency (128 of 512), so at
 * least four tenants' slow receivers are needed to fill a pump, and one tenant alone still has sixteen endpoints' worth.
 */
const defaultTenantConcurrency = (pumpConcurrency: number) => Math.max(1, Math.floor(pumpConcurrency / 4))

/** The webhook settings of a process configuration. */
export function webhookSettings(config: WebhookConfig): WebhookSettings {
  return {
    requireHttps: config.WEBHOOK_REQUIRE_HTTPS ?? !config.OUTBOUND_ALLOW_HTTP,
    network: { allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? config.OUTBOUND_ALLOW_PRIVATE_NETWORKS },
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retry: {
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_INTERVAL_MS,
      maxIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
    },
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    circuitFailures: config.WEBHOOK_CIRCUIT_FAILURES,
    pump: {
      partitions: config.WEBHOOK_PUMP_PARTITIONS,
      pollMs: config.WEBHOOK_PUMP_POLL_MS,
      idlePollMs: Math.max(config.WEBHOOK_PUMP_POLL_MS, config.WEBHOOK_PUMP_IDLE_POLL_MS),
      concurrency: config.WEBHOOK_PUMP_CONCURRENCY,
      endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      tenantConcurrency: config.WEBHOOK_TENANT_CONCURRENCY ?? defaultTenantConcurrency(config.WEBHOOK_PUMP_CONCURRENCY),
      leaseMs: config.WEBHOOK_CLAIM_LEASE_MS,
    },
  }
}
