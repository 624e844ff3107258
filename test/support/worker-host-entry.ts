/**
 * @module The worker host: one process per vitest slot that runs the real worker (worker/run-worker.ts, as
 * worker/main.ts does) for one test file after another, told on stdin. A worker process costs ~2 s of CPU to start
 * (loading the app's modules), and a run started some eighty; the files of a slot run one after another, so one
 * process serves them in turn (test/support/worker-hosts.ts). Crashes stay real: a test that kills its worker
 * (SIGKILL) kills this process, and its next worker is a new one.
 *
 * Protocol, a JSON object per line on stdin: `{"start": env}` starts a worker with that environment (its start line,
 * "worker running", goes to stdout like every log line); `{"stop": true}` stops it as SIGTERM stops worker/main.ts,
 * then prints {@link IDLE_LINE}. The host ends when stdin closes (its test process ended).
 */
import { Runtime } from '@temporalio/worker'
import { createInterface } from 'node:readline'
import { loadConfig } from '../../infra/config.ts'
import { createLogger } from '../../infra/logger.ts'
import { runWorker, serveWorkerMetrics } from '../../worker/run-worker.ts'
import { IDLE_LINE } from './worker-hosts.ts'

// No shutdown signals: the parent stops a worker with a line, and ends the host by closing stdin or by SIGKILL.
Runtime.install({ shutdownSignals: [] })

let current: AbortController | undefined

async function start(env: Record<string, string>) {
  // Set before anything is awaited: a stop sent while the worker starts is not lost.
  const stopping = new AbortController()
  current = stopping
  const config = loadConfig(env)
  const logger = createLogger(config.LOG_LEVEL, 'worker')
  const { metrics, metricsServer } = await serveWorkerMetrics(config, logger)
  await runWorker({ config, env, logger, metrics, metricsServer, stopping: stopping.signal, shutdownOnAbort: true })
  current = undefined
  console.log(IDLE_LINE)
}

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  const command = JSON.parse(line) as { start?: Record<string, string>; stop?: boolean }
  if (command.start) {
    start(command.start).catch((error: unknown) => {
      console.error('worker host: the worker failed', error)
      process.exit(1)
    })
  } else if (command.stop) current?.abort()
})
lines.on('close', () => process.exit(0))
