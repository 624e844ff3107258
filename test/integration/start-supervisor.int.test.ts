/**
 * `npm start` keeps the platform up when a process crashes: the real start script with the embedded database it serves,
 * its own Temporal dev server and the real API and worker child processes, on ports and a data directory of this file
 * (scripts/start.ts, scripts/start/supervise.ts). A child killed with SIGKILL is restarted and says so; bookings made
 * while the worker is down reach their workflows once it is back; SIGTERM stops everything it started. Its summary is
 * printed once the API answers, and its new data directory is a copy of the cached migrated cluster.
 */
import { Client, Connection } from '@temporalio/client'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { DemoCredentials } from '../../scripts/seed-demo.ts'
import { appointmentWorkflowId } from '../../common/appointments/appointment-workflow-contract.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { httpClient, type HttpClient } from '../support/http.ts'
import { eventually } from '../support/platform.ts'
import {
  commandLine,
  freePort,
  isAlive,
  launchStart,
  processTree,
  type StartProcess,
} from '../../scripts/start/start-process.ts'

let dataDir: string
let start: StartProcess
let http: HttpClient
let token: string
let temporal: Client
let connection: Connection | undefined
/** The status of GET /health asked the moment the summary's "API:" line was printed. */
let healthAtSummary: number

/** Pid of the child's current run, from the supervisor's last "<name> started (pid N)" line. */
function pidOf(name: 'api' | 'worker'): number {
  const pids = [...start.output().matchAll(new RegExp(`\\[start\\] ${name} started \\(pid (\\d+)\\)`, 'g'))]
  const pid = Number(pids.at(-1)?.[1])
  if (!pid) throw new Error(`no "${name} started" line in:\n${start.output()}`)
  return pid
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'therapy-start-'))
  // Whatever points the test run at its own database or Temporal must not reach the platform under test.
  const inherited = { ...process.env }
  for (const name of [
    'DATABASE_URL',
    'DATABASE_APP_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'TEMPORAL_TASK_QUEUE',
  ]) {
    delete inherited[name]
  }
  const apiPort = await freePort()
  start = launchStart({
    ...inherited,
    // What `npm start` does with nothing configured, in this file's own directory and on ports nobody else uses:
    // the embedded database served by the start process, a Temporal dev server with its UI (0: a free port).
    START_DATA_DIR: dataDir,
    PORT: String(apiPort),
    EMBEDDED_DB_PORT: String(await freePort()),
    // Not the default metrics ports (9464, 9465), which a developer's own `npm start` may hold.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    TEMPORAL_PORT: '0',
    TEMPORAL_UI_PORT: '0',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    // The run's bundle of the same workflow code: a worker restart then takes seconds less CPU (docs/testing.md).
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    WEBHOOK_PUMP_PARTITIONS: '1',
    RESPONSE_VALIDATION: 'enforce',
    // A booking's first workflow task at once, so a booking needs the worker now: what this file proves comes back.
    BOOKING_WORKFLOW_START: 'immediate',
    // The worker at the test's own priority: `npm start` runs it at nice 10 so that one machine's requests come first,
    // and beside the suite's other files a nice-10 worker got so little CPU that its start took 108 s in a CI run (5 s
    // quiet). What this file proves is supervision, not priority (worker-priority.int.test.ts proves that).
    WORKER_CPU_NICE: '0',
  })
  const ready = await start.waitFor(/server ready at (\S+?),/, { timeoutMs: 150_000 })
  http = httpClient(`http://127.0.0.1:${apiPort}`)
  // Asked at once, not until it answers: the summary says the API is there, so it must be.
  await start.waitFor(/\[start\] API: +http:\/\/localhost:\d+ +\(health:/, { timeoutMs: 120_000 })
  healthAtSummary = (await http.get('/health')).status
  await start.waitFor(/"msg":"API listening"/, { timeoutMs: 120_000 })
  await start.waitFor(/"msg":"worker running"/, { timeoutMs: 120_000 })
  // The outbound policy is strict unless relaxed; npm start relaxes it for local receivers, and says so.
  await start.waitFor(/Outbound: +private networks allowed, plain http allowed/, { timeoutMs: 30_000 })
  // The knowledge default is the sentence model, which npm start obtains (from the cache once it has been fetched).
  await start.waitFor(/Knowledge: +sentence model all-MiniLM-L6-v2 int8 \(\S+\), extractive answerer/, {
    timeoutMs: 30_000,
  })
  await eventually(async () => ((await http.get('/health')).status === 200 ? true : undefined), 60_000)
  // The demo tenant is seeded while the API starts; its credentials end the summary once they are kept.
  await start.waitFor(/\[start\] Demo tenant credentials/, { timeoutMs: 60_000 })

  const demo = JSON.parse(await readFile(join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials
  const issued = await http.post('/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: demo.client_id,
      client_secret: demo.client_secret,
      scope: 'children providers bookings',
    },
  })
  expect(issued.status, JSON.stringify(issued.body)).toBe(200)
  token = issued.body.access_token as string
  connection = await Connection.connect({ address: ready[1] as string })
  temporal = new Client({ connection })
}, 180_000)

afterAll(async () => {
  await connection?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (start) {
    start.killTree()
    await start.exited
  }
  // Unset when beforeAll failed before assigning it.
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

describe('npm start as a supervisor', () => {
  it('prints its summary once the API answers /health, and starts a new data directory from the cached cluster', () => {
    expect(healthAtSummary).toBe(200)
    const output = start.output()
    const answered = output.search(/\[start\] platform ready: the API answered \/health \d+\.\d s after the start/)
    expect(answered, output.slice(-4000)).toBeGreaterThan(-1)
    expect(answered).toBeLessThan(output.search(/\[start\] API: /))
    // The API and the worker were started before the database and Temporal ran, and held until they did.
    expect(output.search(/\[start\] api started \(pid \d+\)/)).toBeLessThan(output.search(/server ready at/))
    expect(output).toMatch(
      /serving \S+ on port \d+ \(new: a copy of the migrated cluster \S+\/embedded-cluster\/[0-9a-f]{32}\)/
    )
  })

  it('restarts a worker killed with SIGKILL; bookings made while it was down reach their workflows', async () => {
    // Children and providers first, so that only the bookings fall in the worker's absence.
    const people = await Promise.all([0, 1, 2].map(() => createChildAndProvider(http, token)))
    const killed = pidOf('worker')
    const mark = start.output().length
    process.kill(killed, 'SIGKILL')
    await start.waitFor(
      /\[start\] worker exited \(signal SIGKILL\) after \d+\.\d s; restarting in 0\.5 s \(restart 1\)/,
      { from: mark }
    )

    const ids = await Promise.all(
      people.map(async ({ childId, providerId }, i) => {
        const body = { childId, providerId, startsAt: futureSlot(3 + i).toISOString() }
        const booked = await http.post('/v1/appointments', { token, body })
        expect(booked.status, JSON.stringify(booked.body)).toBe(201)
        return booked.body.id as string
      })
    )
    const bookedAt = Date.now()

    const restarted = await start.waitFor(/\[start\] worker started \(pid (\d+)\)/, { from: mark })
    const worker = Number(restarted[1])
    expect(worker).not.toBe(killed)
    expect(isAlive(killed)).toBe(false)
    const running = await start.waitFor(/\{[^\n]*"msg":"worker running"[^\n]*\}/, { from: mark, timeoutMs: 90_000 })
    // The new worker polled only after every booking had been answered: they were made while no worker ran.
    expect((JSON.parse(running[0]) as { time: number }).time).toBeGreaterThan(bookedAt)

    for (const id of ids) {
      // The booking's first workflow task was completed by the restarted worker (its identity is pid@host).
      const identity = await eventually(async () => {
        const history = await temporal.workflow.getHandle(appointmentWorkflowId(id)).fetchHistory()
        return history.events?.find((event) => event.workflowTaskCompletedEventAttributes)
          ?.workflowTaskCompletedEventAttributes?.identity
      }, 60_000)
      expect(identity).toMatch(new RegExp(`^${worker}@`))
      const view = await http.get(`/v1/appointments/${id}/workflow`, { token })
      expect(view.status, JSON.stringify(view.body)).toBe(200)
      expect(view.body).toMatchObject({ execution: 'RUNNING', lifecycle: { state: 'CONFIRMED' } })
    }
    // Both runs wrote to the worker's log file, which outlives the terminal's scrollback.
    const logFile = await readFile(join(dataDir, 'logs', 'worker.log'), 'utf8')
    expect(logFile.match(/"msg":"worker running"/g)).toHaveLength(2)
    // The test's own budget covers the waits it allows inside (90 s for the restarted worker to run, then its
    // bookings' histories): at 90 s in all it timed out once in CI beside Schemathesis (36, 83, then over 90 s).
  }, 180_000)

  it('restarts an API killed with SIGKILL, which answers again with the tokens it issued before', async () => {
    const killed = pidOf('api')
    const mark = start.output().length
    process.kill(killed, 'SIGKILL')
    // Not necessarily its first restart: on a loaded machine the API may have exited at start before (the embedded
    // database not yet taking connections), which the supervisor counts and restarts too.
    await start.waitFor(
      /\[start\] api exited \(signal SIGKILL\) after \d+\.\d s(?:, \d+ crashes in a row at start \(gives up at \d+\))?; restarting in [\d.]+ s \(restart \d+\)/,
      { from: mark }
    )
    const restarted = await start.waitFor(/\[start\] api started \(pid (\d+)\)/, { from: mark })
    expect(Number(restarted[1])).not.toBe(killed)

    // The demo child the start script seeded, read with the token the API issued before it was killed.
    const answered = await eventually(async () => {
      const response = await http.get('/v1/children?limit=1', { token })
      return response.status === 200 ? response : undefined
    }, 60_000)
    expect(answered.body.data).toHaveLength(1)
    expect(isAlive(killed)).toBe(false)
  }, 90_000)

  // Ends the platform: the file's last test.
  it('stops every process it started on SIGTERM, and exits 0', async () => {
    const tree = processTree(start.pid)
    // The API, the worker and the Temporal dev server (with its wrapper) are all in the tree this checks.
    expect(tree).toEqual(expect.arrayContaining([pidOf('api'), pidOf('worker')]))
    expect(tree.map(commandLine).some((command) => command.includes('start-dev'))).toBe(true)

    start.signal('SIGTERM')
    const exit = await start.exited
    expect(exit, start.output().slice(-2000)).toEqual({ code: 0, signal: null })
    expect(start.output()).toMatch(/\[start\] SIGTERM: stopping the platform/)
    await eventually(async () => (tree.some(isAlive) ? undefined : true), 30_000).catch(() => {
      const left = tree.filter(isAlive).map((pid) => `${pid} ${commandLine(pid)}`)
      throw new Error(`still running after npm start exited:\n${left.join('\n')}`)
    })
  }, 90_000)
})
