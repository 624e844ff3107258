/**
 * @module The worker process: connects to Temporal and PostgreSQL, runs every workflow and activity, and on
 * SIGINT/SIGTERM stops polling, lets running activities finish within the grace time, then closes connections.
 */
import { Runtime } from '@temporalio/worker'
import { loadConfig } from '../infra/config.ts'
import { refuseImplicitDevelopmentKey } from '../infra/secrets-keyring.ts'
import { createLogger } from '../infra/logger.ts'
import { lowerProcessPriority } from '../infra/process-priority.ts'
import { exitOnPortInUse } from '../infra/metrics/metrics-server.ts'
import { runWorker, serveWorkerMetrics } from './run-worker.ts'

refuseImplicitDevelopmentKey(process.env)
const config = loadConfig()
const logger = createLogger(config.LOG_LEVEL, 'worker')
// Before the runtime and the connections start their threads, which then inherit it.
lowerProcessPriority(config.WORKER_CPU_NICE)
// The metrics port first: a port in use ends the process in one line before Temporal's runtime has threads that an
// exit would wait on (CI once saw the exit hang with the runtime installed).
const { metrics, metricsServer } = await serveWorkerMetrics(config, logger).catch(exitOnPortInUse)
// The worker's runtime handles SIGINT/SIGTERM by shutting workers down gracefully. It also serves the SDK's own
// metrics (pollers, task slots and latencies, workflow completions and failures by type) for Prometheus, on its own
// port (TEMPORAL_METRICS_PORT; docs/operations.md, "Metrics"). Installed before any connection exists, as it must be.
Runtime.install({
  shutdownSignals: ['SIGINT', 'SIGTERM'],
  ...(config.TEMPORAL_METRICS_PORT === 'off'
    ? {}
    : {
        telemetryOptions: {
          metrics: {
            prometheus: {
              bindAddress: `${config.METRICS_HOST}:${config.TEMPORAL_METRICS_PORT}`,
              countersTotalSuffix: true,
              useSecondsForDurations: true,
            },
          },
        },
      }),
})
// Heard beside the runtime's own handlers: the delivery pump stops claiming at once (createWorker's `stopping`).
const stopping = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort())

await runWorker({ config, env: process.env, logger, metrics, metricsServer, stopping: stopping.signal })
