/**
 * `npm run fuzz`: Schemathesis (from PyPI) against the live API's own description. Starts what the API needs (a
 * Temporal dev server, a scratch database: TEST_DATABASE_URL's server or one it starts, test-database.ts), the API and its worker, a
 * tenant with every scope and a few records, then runs Schemathesis with the checks that matter to integrators: no server error,
 * and every status, content type and body as described. Exits with Schemathesis's code.
 *
 * Schemathesis is found at $SCHEMATHESIS, else in the cached virtualenv that `scripts/fuzz/obtain-schemathesis.sh`
 * creates. FUZZ_MAX_EXAMPLES (default 15) bounds the cases per operation, FUZZ_PHASES picks Schemathesis's phases
 * (default examples,coverage,fuzzing,stateful), FUZZ_SEED makes a run reproducible, FUZZ_MAX_TIME (seconds) bounds the
 * whole run, FUZZ_WORKER_LOG names a file for the worker's log; arguments after `--` are passed to Schemathesis.
 */
import { spawn } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startApi } from '../../api/start-api.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { loadConfig } from '../../infra/config.ts'
import { databaseLoginsEnv } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { provisionTestDatabase } from '../db/test-database.ts'
import { freePort } from '../start/start-process.ts'
import { startWorkerProcess, type WorkerProcess } from '../start/worker-process.ts'
import { ensureTemporal } from '../temporal/dev-server.ts'
import { seedRecords } from './seed-records.ts'
import { clientCredentialsToken } from '../lib/client-token.ts'
import { cachedWorkflowBundle } from '../../worker/workflow-bundle-cache.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const schemathesis =
  process.env.SCHEMATHESIS ??
  execFileSync('bash', [path.join(ROOT, 'scripts/fuzz/obtain-schemathesis.sh')], { encoding: 'utf8' }).trim()

const [temporal, database] = await Promise.all([
  ensureTemporal({ port: 0, uiPort: false, log: () => undefined }),
  // A real server without TEST_DATABASE_URL: Schemathesis calls the API concurrently, past what PGlite's one
  // connection serves in time.
  provisionTestDatabase('local-server'),
])
const environment = {
  NODE_ENV: 'test',
  // The platform's own logins on a server, as in production (docs/security.md, "Least privilege in the database").
  ...databaseLoginsEnv(database.logins),
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  TEMPORAL_TASK_QUEUE: 'fuzz',
  PORT: '0',
  // Errors only: a 500's stack trace is what a failing run needs to show.
  LOG_LEVEL: 'error',
  // Fuzzing is many requests from one client; the limiter itself is tested elsewhere.
  RATE_LIMIT_PER_MINUTE: '10000000',
  ACCESS_TOKEN_TTL_SECONDS: '7200',
  // Free ports unless told otherwise, for every process this starts: a platform already running here (npm start)
  // holds the defaults 9464, 9465 and 9466. The Temporal SDK's endpoint cannot bind port 0, so it is given one that
  // is free now.
  METRICS_PORT: process.env.METRICS_PORT ?? '0',
  WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT ?? '0',
  TEMPORAL_METRICS_PORT: process.env.TEMPORAL_METRICS_PORT ?? String(await freePort()),
}
const config = loadConfig(environment)
const api = await startApi(config, createLogger(config.LOG_LEVEL, 'api'))
// The live API includes its worker: without one, every operation that waits for a workflow (completing an appointment,
// a progress report on request) can only answer 503, which Schemathesis counts as a server error. Webhook deliveries
// cannot leave the machine: outside development an endpoint needs an https URL whose host resolves to a public
// address, and nothing resolves here (docs/testing.md).
let worker: WorkerProcess | undefined
let exitCode: number
try {
  // The workflow bundle of this code, made once (worker/workflow-bundle-cache.ts), not webpack at the worker's start.
  const workflowBundle = process.env.WORKFLOW_BUNDLE_PATH ?? (await cachedWorkflowBundle())
  worker = await startWorkerProcess({ ...environment, LOG_LEVEL: 'info', WORKFLOW_BUNDLE_PATH: workflowBundle })
  const client = await provisionClient(api.deps.db, {
    tenantName: `Fuzz ${Date.now()}`,
    scopes: ALL_SCOPES,
    timeZone: 'America/Chicago',
  })
  const token = await clientCredentialsToken(api.url, client)
  // A few real records. The stateful phase reaches them through the description's links from each list to the
  // operations on its first item (api/openapi/links.ts): that is how it gets to what it cannot create from generated
  // data alone, an appointment needing a real child, provider and free slot.
  await seedRecords(api.url, token)

  const args = [
    'run',
    `${api.url}/openapi.json`,
    '--header',
    `Authorization: Bearer ${token}`,
    '--checks',
    'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
    '--max-examples',
    process.env.FUZZ_MAX_EXAMPLES ?? '15',
    '--phases',
    process.env.FUZZ_PHASES ?? 'examples,coverage,fuzzing,stateful',
    '--workers',
    '2',
    '--request-timeout',
    '30',
    '--generation-database',
    'none',
    // Schemathesis's own generator gives up on some valid schemas (a date-time with our offset pattern filters out
    // most of what it draws) and reports that as an error of the run: a limit of the generator, not of the API.
    // It still tests those operations with what it could generate.
    '--suppress-health-check',
    'filter_too_much,too_slow',
    '--no-color',
    ...(process.env.FUZZ_SEED ? ['--seed', process.env.FUZZ_SEED] : []),
    // A time budget for the whole run (CI): the fuzzing phase draws new cases until it is spent.
    ...(process.env.FUZZ_MAX_TIME ? ['--max-time', process.env.FUZZ_MAX_TIME] : []),
    // The token endpoint and the codec server have their own credentials; they are covered by their own tests.
    '--exclude-path-regex',
    '^/(oauth/|codec)',
    // Anything after `npm run fuzz --` goes to Schemathesis as is (e.g. `--report ndjson`, `--include-path-regex ...`).
    ...process.argv.slice(2),
  ]
  exitCode = await new Promise<number>((resolve) => {
    // A fresh Idempotency-Key for every valid request, as a client sends (scripts/fuzz/hooks.py); a SCHEMATHESIS_HOOKS
    // of the caller's replaces it (empty: no hooks).
    const hooks = path.join(ROOT, 'scripts/fuzz/hooks.py')
    const child = spawn(schemathesis, args, { stdio: 'inherit', env: { SCHEMATHESIS_HOOKS: hooks, ...process.env } })
    child.on('exit', (code) => resolve(code ?? 1))
  })
} finally {
  await worker?.kill('SIGTERM')
  // The worker's log, to explain a finding such as a workflow call that timed out (FUZZ_WORKER_LOG=<file>).
  if (process.env.FUZZ_WORKER_LOG && worker) await writeFile(process.env.FUZZ_WORKER_LOG, worker.output())
  await api.stop()
  await Promise.allSettled([temporal.stop(), database.stop()])
}
process.exit(exitCode)
