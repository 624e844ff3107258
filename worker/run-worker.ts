/**
 * @module One worker's life, on a process whose Temporal runtime is already installed: tracing, the database, the
 * Temporal connection, the worker polling its task queue until `stopping` aborts (or the runtime's shutdown signals
 * stop it), then everything closed. worker/main.ts runs it once per process; the test suite's worker host
 * (test/support/worker-host-entry.ts) runs it once per test file, in one process per vitest slot.
 */
import { NativeConnection } from '@temporalio/worker'
import { WORKER_APPLICATION_NAME } from '../infra/application-names.ts'
import type { Config } from '../infra/config.ts'
import { closeDb, createDb, databaseLogins } from '../infra/db.ts'
import { assertLeastPrivilege } from '../infra/login-privileges.ts'
import type { Logger } from '../infra/logger.ts'
import { createMetrics, type Metrics } from '../infra/metrics/metrics-registry.ts'
import { startMetricsServer } from '../infra/metrics/metrics-server.ts'
import { registerPoolGauge } from '../infra/metrics/platform-gauges.ts'
import { installTracing } from '../infra/tracing/tracing.ts'
import { createAiRuntime } from '../adapters/ai-models.ts'
import { createKnowledgeWorker, createWorker } from './create-worker.ts'
import { checkSealedSecrets, sealedSecretsProblem } from '../domain/sealed-secrets-check.ts'
import { createSecretBox } from '../infra/secret-box.ts'

export interface WorkerRunOptions {
  config: Config
  /** The environment the configuration came from (tracing reads its OTEL_* variables). */
  env: Record<string, string | undefined>
  logger: Logger
  metrics: Metrics
  /** Where the metrics are served, named in the start line and closed at the end; none when off. */
  metricsServer?: { url: string; close(): Promise<void> }
  /** Aborted when the worker is to stop: the delivery pump stops claiming at once. */
  stopping: AbortSignal
  /**
   * Whether the abort also shuts the worker down (polling ends, running activities get the grace time). worker/main.ts
   * leaves that to the runtime's own SIGINT/SIGTERM handlers; a process without them (the test suite's host) asks.
   */
  shutdownOnAbort?: boolean
}

/** The worker's metrics, and their server on WORKER_METRICS_PORT unless it is off (it rejects when the port is in use). */
export async function serveWorkerMetrics(config: Config, logger: Logger) {
  const metrics = createMetrics('worker')
  const metricsServer =
    config.WORKER_METRICS_PORT === 'off'
      ? undefined
      : await startMetricsServer(
          metrics.registry,
          config.METRICS_HOST,
          config.WORKER_METRICS_PORT,
          (error) => logger.error({ err: error }, 'metrics collection failed'),
          {},
          'WORKER_METRICS_PORT'
        )
  return { metrics, metricsServer }
}

/** Runs the worker until it stops; resolves once everything it opened is closed. */
export async function runWorker(options: WorkerRunOptions) {
  const { config, env, logger, metrics, metricsServer, stopping } = options
  // Spans of workflows and activities over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = installTracing('therapy-care-worker', env)
  await assertLeastPrivilege(databaseLogins(config), {
    allowPrivileged: config.DATABASE_ALLOW_PRIVILEGED_LOGIN,
    logger,
  })
  const db = createDb(databaseLogins(config), config.DATABASE_POOL_MAX, WORKER_APPLICATION_NAME)
  registerPoolGauge(metrics, db)
  // A worker whose key cannot open the stored secrets would retry every delivery for ever: it refuses to start.
  const secrets = createSecretBox(config.SECRETS_ENCRYPTION_KEYS)
  const secretsCheck = await checkSealedSecrets(db, secrets)
  if (secretsCheck.problems.length > 0) {
    logger.error(sealedSecretsProblem(secretsCheck))
    await closeDb(db)
    throw new Error(sealedSecretsProblem(secretsCheck))
  }
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS })
  try {
    const ai = createAiRuntime(config)
    const worker = await createWorker({ config, connection, db, stopping, metrics, tracing, logger, ai, secrets })
    const knowledgeWorker = await createKnowledgeWorker({ config, connection, db, ai })
    // The key id, never the key: operators see which key new payloads are encrypted with.
    const payloadEncryptionKeyId = config.TEMPORAL_CODEC_KEYS?.currentKeyId ?? 'off'
    logger.info(
      {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        namespace: config.TEMPORAL_NAMESPACE,
        payloadEncryptionKeyId,
        workflowBundle: config.WORKFLOW_BUNDLE_PATH ?? 'bundled at start',
        metrics: metricsServer?.url ?? 'off',
      },
      'worker running'
    )
    // run() is RUNNING from its first, synchronous step: a stop asked meanwhile is not lost.
    const workers = [worker, knowledgeWorker]
    const stop = () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown()
    }
    // One failing stops the other: a process without either is not a worker.
    const running = Promise.all(
      workers.map((w) =>
        w.run().catch((error: unknown) => {
          stop()
          throw error
        })
      )
    )
    if (options.shutdownOnAbort) {
      if (stopping.aborted) stop()
      else stopping.addEventListener('abort', stop, { once: true })
    }
    try {
      await running
    } finally {
      await ai.documents.close?.()
    }
    logger.info('worker stopped')
  } finally {
    await tracing.shutdown()
    await metricsServer?.close()
    await connection.close()
    await closeDb(db)
  }
}
