/**
 * @module Builds the API's dependencies once per process (database, Temporal client, rate limiter, then the domain
 * services from them: api/compose-services.ts) and closes them on shutdown. The Temporal connection is lazy, so the
 * API starts and keeps taking bookings while Temporal is down; the workflow outbox catches up when it returns.
 */
import { Client } from '@temporalio/client'
import { API_APPLICATION_NAME } from '../infra/application-names.ts'
import { systemClock, type Clock } from '../infra/clock.ts'
import type { Config } from '../infra/config.ts'
import { closeDb, createDb, databaseLogins } from '../infra/db.ts'
import type { Logger } from '../infra/logger.ts'
import { temporalDataConverter } from '../infra/payload-codec.ts'
import { refuseInsideTransaction } from '../infra/network-guard.ts'
import { chooseRateLimitStore, createRateLimiter } from '../infra/rate-limiter.ts'
import { sharedPacerTurns } from '../infra/shared-pacer-turns.ts'
import { createSharedStatePool } from '../infra/shared-state-pool.ts'
import { lazyTemporalConnection } from '../infra/temporal-connection.ts'
import type { AppDeps } from './app-env.ts'
import { composeServices } from './compose-services.ts'
import { createMetrics } from '../infra/metrics/metrics-registry.ts'
import { registerPlatformGauges } from '../infra/metrics/platform-gauges.ts'
import { registerTenantUsageGauges } from '../infra/metrics/tenant-usage-gauges.ts'
import { readTenantUsage } from '../domain/tenants/tenant-usage.ts'
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry'

/**
 * Creates every dependency of the app.
 * @returns the dependencies and a function that releases them
 */
export function buildDeps(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock
): { deps: AppDeps; close: () => Promise<void> } {
  const db = createDb(databaseLogins(config), config.DATABASE_POOL_MAX, API_APPLICATION_NAME)
  // Background loops get connections of their own: a sealer's long round or a scrape's grouped read never holds one
  // that a request is waiting for (issue 56: requests timed out waiting for connections under webhook fan-out).
  const backgroundDb = createDb(
    databaseLogins(config),
    config.DATABASE_BACKGROUND_POOL_MAX,
    `${API_APPLICATION_NAME}-background`
  )
  // Refuses a Temporal call made while a request holds its transaction (infra/network-guard.ts); its close() waits for
  // calls still retrying, so no retry fires on a closed channel (infra/temporal-connection.ts).
  const temporalConnection = lazyTemporalConnection(config.TEMPORAL_ADDRESS, [refuseInsideTransaction])
  const { connection } = temporalConnection
  // Encrypts what the API hands Temporal (workflow inputs, signals) when keys are configured; the worker agrees.
  const dataConverter = temporalDataConverter(config.TEMPORAL_CODEC_KEYS)
  // Workflow starts and signals carry the request's trace to the worker (a no-op while tracing is off).
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter,
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  })
  const metrics = createMetrics('api')
  const rateLimiter = createRateLimiter({
    store: chooseRateLimitStore(config).store,
    limit: config.RATE_LIMIT_PER_MINUTE,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    connectionString: config.DATABASE_URL,
    logger,
    onStoreError: () => metrics.rateLimitStoreErrors.inc(),
  })
  // The workflow-view pacer keeps its turns where the rate limits are counted: shared on a PostgreSQL server.
  const pacerPool =
    rateLimiter.store === 'postgres'
      ? createSharedStatePool(config.DATABASE_URL, logger, 'therapy-care-pacer')
      : undefined
  const viewTurns = pacerPool
    ? sharedPacerTurns({ pool: pacerPool, logger, onStoreError: () => metrics.rateLimitStoreErrors.inc() })
    : undefined
  registerPlatformGauges(metrics, backgroundDb)
  // Who uses what the quotas bound, by tenant (docs/rate-limits.md, "Quotas").
  registerTenantUsageGauges(metrics, () => readTenantUsage(backgroundDb), config)
  const infra = { config, db, backgroundDb, temporal, clock, logger, metrics, ...(viewTurns ? { viewTurns } : {}) }
  const deps: AppDeps = { ...infra, ...composeServices(infra), rateLimiter }
  return {
    deps,
    close: async () => {
      await temporalConnection.close().catch(() => undefined)
      await rateLimiter.close()
      await pacerPool?.end()
      await closeDb(db)
      await closeDb(backgroundDb)
    },
  }
}
