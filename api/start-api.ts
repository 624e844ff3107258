/**
 * @module The API's lifecycle: build dependencies, serve, start the outbox sweep, the audit sealer and the check that
 * keeps the webhook delivery pumps running, and stop all of it cleanly.
 * Used by the process entry (`api/server.ts`) and by the integration tests, which run real servers.
 */
import { serve } from '@hono/node-server'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startAuditSealer } from '../domain/audit/seal-audit-events.ts'
import { createAgentTriggerDispatcher } from '../domain/ai/agents/agent-trigger-dispatcher.ts'
import { stopInOrder } from '../infra/stop-in-order.ts'
import { keepDeliveryPumpsRunning } from '../domain/webhooks/delivery-pumps.ts'
import { keepReconciliationSchedules } from '../domain/reconciliation/reconciliation-schedules.ts'
import { keepKnowledgeOnModel } from '../domain/ai/knowledge/reembed-starts.ts'
import { keepUnansweredRetention } from '../domain/ai/knowledge/unanswered-questions.ts'
import { webhookSettings } from '../domain/webhooks/webhook-settings.ts'
import type { Clock } from '../infra/clock.ts'
import type { Config } from '../infra/config.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import { databaseLogins } from '../infra/db.ts'
import { assertLeastPrivilege } from '../infra/login-privileges.ts'
import type { Logger } from '../infra/logger.ts'
import { createApp } from './app.ts'
import { answerClientErrors } from './client-errors.ts'
import { drainConnections } from './drain-connections.ts'
import type { AppDeps } from './app-env.ts'
import { buildDeps } from './deps.ts'
import { checkSealedSecrets, sealedSecretsProblem } from '../domain/sealed-secrets-check.ts'
import { startMetricsServer } from '../infra/metrics/metrics-server.ts'
import { readiness } from './routes/health/index.ts'

/** How often the API deletes unanswered questions past their retention (counted in days: an hour is early enough). */
const UNANSWERED_SWEEP_MS = 3_600_000

export interface RunningApi {
  url: string
  port: number
  /** The API's /metrics, on its own port (METRICS_PORT); undefined when `off`. */
  metricsUrl: string | undefined
  /** The API's readiness with details (database, Temporal, versions), beside /metrics; undefined when `off`. */
  readinessUrl: string | undefined
  deps: AppDeps
  stop(): Promise<void>
}

/**
 * Starts the API on `config.PORT` (0 picks a free port).
 * @param clock - injectable for tests
 */
export async function startApi(config: Config, logger: Logger, clock?: Clock): Promise<RunningApi> {
  await assertLeastPrivilege(databaseLogins(config), {
    allowPrivileged: config.DATABASE_ALLOW_PRIVILEGED_LOGIN,
    logger,
  })
  const { deps, close } = buildDeps(config, logger, clock)
  // Before serving: a key-encryption key that cannot open what the database holds is said now, loudly, and keeps
  // the API unready (its readiness names the columns and key ids), rather than surfacing as 500s later.
  const secretsCheck = await checkSealedSecrets(deps.db, deps.secrets)
  if (secretsCheck.problems.length > 0) logger.error(sealedSecretsProblem(secretsCheck))
  const app = createApp(deps)
  await deps.revocations.start()
  const stopSweeper = deps.outbox.startSweeper(config.OUTBOX_SWEEP_INTERVAL_MS)
  const stopSealer = startAuditSealer(deps.backgroundDb, logger, config.AUDIT_SEAL_INTERVAL_MS)
  // Webhooks are delivered by the pump workflows on the workers; the API only keeps them running (docs/webhooks.md).
  const stopPumpCheck = keepDeliveryPumpsRunning(
    deps.temporal,
    config.TEMPORAL_TASK_QUEUE,
    webhookSettings(config),
    logger
  )
  // Starts agent runs from committed events and keeps agent schedules in Temporal in step (docs/agents.md).
  const stopAgentDispatcher = createAgentTriggerDispatcher({
    db: deps.backgroundDb,
    temporal: deps.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    logger,
    schedules: deps.agentSchedules,
    intervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
    runsPerTenantPerHour: config.AGENT_RUNS_PER_TENANT_PER_HOUR,
  }).start()
  // Each tenant with online payments gets its daily reconciliation schedule (docs/payments.md, "Reconciliation").
  const stopReconciliationSchedules = keepReconciliationSchedules({
    db: deps.backgroundDb,
    temporal: deps.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    cron: config.RECONCILIATION_SCHEDULE,
    logger,
    enabled: config.ONLINE_PAYMENT_PROCESSOR !== 'none',
    intervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
  })
  // An assistant whose knowledge lags the configured embedding model is re-embedded in the background (docs/ai.md).
  // Not by an instance running on the lexical fallback because its sentence model is missing: it would move every
  // assistant back to the lexical model, and the instances that have the model would move them forth again.
  const stopKnowledgeModels = deps.ai.embeddingsFallback
    ? async () => undefined
    : keepKnowledgeOnModel({
        db: deps.backgroundDb,
        outbox: deps.outbox,
        model: deps.ai.embeddings.modelId,
        logger,
        intervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
      })
  // Declined questions' text (PHI) kept no longer than its retention (docs/ai.md, "Unanswered questions").
  const stopUnansweredRetention = keepUnansweredRetention({
    db: deps.backgroundDb,
    retentionDays: aiConfigOf(config).KNOWLEDGE_UNANSWERED_RETENTION_DAYS,
    intervalMs: UNANSWERED_SWEEP_MS,
    logger,
  })
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.PORT, hostname: '0.0.0.0' }, () => resolve(s))
  })
  // serve() makes a plain node:http server unless given another createServer (its type covers HTTP/2 too).
  const http = server as Server
  answerClientErrors(http, config.PUBLIC_URL, logger)
  http.keepAliveTimeout = config.API_KEEP_ALIVE_TIMEOUT_MS
  // Headers are given longer than an idle connection waits, or a request arriving at the end of the wait is cut.
  http.headersTimeout = config.API_KEEP_ALIVE_TIMEOUT_MS + 1_000
  // Closing must also end the keep-alive connections that clients keep busy, or a stop under load never completes.
  const connections = drainConnections(http)
  const port = (server.address() as AddressInfo).port
  const metricsServer =
    config.METRICS_PORT === 'off'
      ? undefined
      : await startMetricsServer(
          deps.metrics.registry,
          config.METRICS_HOST,
          config.METRICS_PORT,
          (error) => logger.error({ err: error }, 'metrics collection failed'),
          // Readiness with its details for operators only; the public port's /health says only that it is alive.
          { '/health': () => readiness(deps, secretsCheck) }
        )
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    metricsUrl: metricsServer?.url,
    readinessUrl: metricsServer ? new URL('/health', metricsServer.url).href : undefined,
    deps,
    stop: () =>
      stopInOrder(
        [
          // The background loops answer no request: they stop beside the drain, not after it, so a sweep in progress
          // does not add its time to the drain's (a rolling restart's API waited on the outbox sweep after a drain).
          // The revocation list keeps syncing until the last request is answered.
          [
            {
              name: 'http connections',
              stop: async () => {
                const { cut } = await connections.close(config.API_DRAIN_TIMEOUT_MS)
                if (cut > 0) logger.warn({ cut }, 'answers cut at the drain deadline; their clients retry them')
              },
            },
            { name: 'outbox sweeper', stop: stopSweeper },
            { name: 'audit sealer', stop: stopSealer },
            { name: 'webhook delivery pumps', stop: stopPumpCheck },
            { name: 'agent trigger dispatcher', stop: stopAgentDispatcher },
            { name: 'reconciliation schedules', stop: stopReconciliationSchedules },
            { name: 'knowledge models', stop: stopKnowledgeModels },
            { name: 'unanswered retention', stop: stopUnansweredRetention },
          ],
          { name: 'metrics server', stop: () => metricsServer?.close() },
          { name: 'outbox starts after answers', stop: () => deps.outbox.settle() },
          { name: 'revocation sync', stop: () => deps.revocations.stop() },
          { name: 'connections and clients', stop: close },
        ],
        logger
      ),
  }
}
