/**
 * @module Where the processes serve their metrics (docs/operations.md, "Metrics"): the API's, the worker's and the
 * Temporal SDK's ports. Spread into the process configuration (infra/config.ts) so it is validated at boot with
 * everything else.
 */
import { z } from 'zod'

/** A metrics port: a number (0: any free port), or `off`. */
const metricsPort = (fallback: number) =>
  z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).default(fallback)

export const METRICS_CONFIG_SHAPE = {
  /** Where the metrics servers listen (docs/operations.md, "Metrics"): loopback unless a scraper elsewhere needs them. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** The API's /metrics port (Prometheus text format); `off` serves none; 0 picks a free port. */
  METRICS_PORT: metricsPort(9464),
  /** The worker's /metrics port (its own metrics: webhook attempts, its pool, process). */
  WORKER_METRICS_PORT: metricsPort(9465),
  /** The port of the Temporal SDK's own worker metrics (pollers, task latencies, workflow failures); `off`: none. */
  TEMPORAL_METRICS_PORT: metricsPort(9466),
}
