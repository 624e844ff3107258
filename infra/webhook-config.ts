/**
 * @module Configuration of webhook delivery (docs/webhooks.md): the receivers' network rules, the attempts' timeout and
 * retry window, the delivery pumps and their fair shares, the circuit breaker. Spread into the process configuration
 * (infra/config.ts) so it is validated at boot with everything else.
 */
import { z } from 'zod'

export const WEBHOOK_CONFIG_SHAPE = {
  /**
   * Webhook receivers and agent `call_webhook` actions (docs/webhooks.md). Unset: OUTBOUND_ALLOW_HTTP and
   * OUTBOUND_ALLOW_PRIVATE_NETWORKS decide.
   */
  WEBHOOK_REQUIRE_HTTPS: z.stringbool().optional(),
  /** Allow receivers on loopback, private, CGNAT, link-local and ULA addresses (never cloud metadata addresses). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.stringbool().optional(),
  /** Longest a receiver may take to answer an attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Failed deliveries are retried until this long after their first attempt (24 hours). */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600 * 1000),
  /** The first retry's nominal delay; each next one about three times longer, with jitter. */
  WEBHOOK_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  /** The longest wait between two attempts (also caps Retry-After). */
  WEBHOOK_RETRY_MAX_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(3 * 3600 * 1000),
  /** An endpoint whose attempts all fail for this long is disabled (5 days). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 24 * 3600 * 1000),
  /** How soon a delivery pump that found nothing looks for new events and due deliveries again (docs/webhooks.md). */
  WEBHOOK_PUMP_POLL_MS: z.coerce.number().int().positive().default(100),
  /**
   * The longest an idle pump waits between looks: each that finds nothing doubles the wait, from WEBHOOK_PUMP_POLL_MS
   * up to this (a look is two statements, ~10 ms of CPU between the worker and PostgreSQL: at 100 ms, a tenth of a
   * core per pump with nothing to deliver).
   */
  WEBHOOK_PUMP_IDLE_POLL_MS: z.coerce.number().int().positive().default(800),
  /**
   * Delivery pumps (Temporal workflows `webhook-delivery-pump-<n>`); endpoints are spread over them by id. 0 runs
   * none: nothing delivers first attempts (the time-skipping tests drive the pump by hand).
   */
  WEBHOOK_PUMP_PARTITIONS: z.coerce.number().int().min(0).max(64).default(2),
  /**
   * Attempts in flight at once per pump. A tenant's share is a quarter of it (WEBHOOK_TENANT_CONCURRENCY), and a round
   * claims at most that share, so the share sets how many deliveries a round's three statements serve. At 64 a centre
   * alone got 16 a round and 1,000 a second took 1.8 of two cores, the backlog growing (p95 9-11 s); at 256 (a share
   * of 64), 1,000 a second ran at p95 0.2-0.6 s, yet 1,500 a second stood at the rounds' pace and built a backlog in
   * four runs of six; at 512 (a share of 128), the median p95 0.65 s against 1.8 s, at the same CPU per delivery
   * (docs/benchmarks.md, "Webhooks: a tenant's share sized by the round it pays for", "A share of 128").
   */
  WEBHOOK_PUMP_CONCURRENCY: z.coerce.number().int().positive().default(512),
  /** Attempts in flight at once per endpoint: a receiver never gets more than this at once. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /**
   * Deliveries one tenant may hold per pump, in flight or waiting for a slot (docs/webhooks.md, "Fair shares between
   * tenants"), so one tenant's slow receivers never take every slot. Unset: a quarter of WEBHOOK_PUMP_CONCURRENCY.
   */
  WEBHOOK_TENANT_CONCURRENCY: z.coerce.number().int().positive().optional(),
  /**
   * How long a pump holds the deliveries it claimed: a dead worker's claims are attempted again after this. Longer
   * than an attempt (WEBHOOK_TIMEOUT_MS) plus a wait for one of the endpoint's slots.
   */
  WEBHOOK_CLAIM_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /** Failed attempts in a row that open an endpoint's circuit breaker (its retry workflow takes over). */
  WEBHOOK_CIRCUIT_FAILURES: z.coerce.number().int().positive().default(5),
}
