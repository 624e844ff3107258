/**
 * @module Temporal's Java time-skipping test server, started by the tests themselves rather than by the SDK. The
 * SDK's `TestWorkflowEnvironment.createTimeSkipping` gives the JVM a fixed 5 s to answer, which it misses on a loaded
 * 2-CPU machine: three starts in a row failed at load 13 (helpers building beside a test run), and one file failed so
 * in a repeat run at load 19. Tries again made no difference, since the load lasts longer than a try. Here the process
 * is ours: it is waited for as long as it keeps starting (up to `START_LIMIT_MS`), and a start that fails says why.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { TestWorkflowEnvironment } from '@temporalio/testing'
import { Worker } from '@temporalio/worker'
import { inject } from 'vitest'
import { freePort } from '../../scripts/start/start-process.ts'
import { workflowThreadOptions } from '../../worker/create-worker.ts'
import { knowledgeTaskQueue } from '../../common/knowledge/knowledge-indexing-contract.ts'

/** How long a JVM start may take before the test server counts as broken rather than slow. */
const START_LIMIT_MS = 90_000

/**
 * The SDK's environment factory for a server it did not start, with time skipping on. It is private in the SDK's
 * types (only the factories that also start the server, with their fixed 5 s, are public), and the only way to have
 * the time-skipping client and `sleep` for a server started with a longer wait. Pinned by the lock file; a change of
 * its shape fails every time-skipping file at once, loudly.
 */
const createEnvironment = (
  TestWorkflowEnvironment as unknown as {
    create(options: {
      server: { type: 'existing' }
      address: string
      namespace: string
      supportsTimeSkipping: true
    }): Promise<TestWorkflowEnvironment>
  }
).create.bind(TestWorkflowEnvironment)

/** Whether something accepts TCP connections on the port yet. */
const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => (socket.destroy(), resolve(false)))
  })

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  await exited
}

/**
 * Starts the test server on a free port and connects a time-skipping environment to it; `teardown()` also ends the
 * server's process.
 * @param path - the server's launcher (`inject('timeSkippingServer')`), which takes the port as its first argument
 */
export async function startTestServer(path: string): Promise<TestWorkflowEnvironment> {
  // The free port picked can be taken before the server binds it (another file's server, beside this one): the
  // server then exits, and what answered on the port was not it (a CI run saw an HTTP/2 FRAME_SIZE_ERROR from
  // connecting to another process). A fresh port is tried, as ensureTemporal does for the dev server.
  const failures: unknown[] = []
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    try {
      return await startOnFreePort(path)
    } catch (error) {
      failures.push(error)
    }
  }
  throw new AggregateError(failures, `the time-skipping test server did not start in ${PORT_ATTEMPTS} attempts`)
}

/** Tries a fresh port each time the server could not be reached on the one it was given. */
const PORT_ATTEMPTS = 3

async function startOnFreePort(path: string): Promise<TestWorkflowEnvironment> {
  const port = await freePort()
  const child = spawn(path, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)))
  // A test process that dies without its teardown must not leave a JVM behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const started = Date.now()
  try {
    while (!(await accepting(port))) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the time-skipping test server exited (${child.exitCode ?? child.signalCode}): ${stderr}`)
      if (Date.now() - started > START_LIMIT_MS)
        throw new Error(`the time-skipping test server did not listen within ${START_LIMIT_MS} ms: ${stderr}`)
      await sleep(100)
    }
    const env = await createEnvironment({
      server: { type: 'existing' },
      address: `127.0.0.1:${port}`,
      namespace: 'default',
      supportsTimeSkipping: true,
    })
    const teardown = env.teardown.bind(env)
    env.teardown = async () => {
      try {
        await teardown()
      } finally {
        process.removeListener('exit', killOnExit)
        await stop(child)
      }
    }
    return env
  } catch (error) {
    process.removeListener('exit', killOnExit)
    await stop(child)
    throw error
  }
}

/** A time-skipping server and one worker on it running the real workflow bundle with the test's own activities. */
export interface StubbedWorker {
  env: TestWorkflowEnvironment
  /** Stops the worker, then the server. */
  stop(): Promise<void>
}

/**
 * Starts the test server and a worker on `taskQueue` whose activities are `activities`: for tests of a workflow's
 * decisions against a database state they choose (the `*-settle` tests).
 * @param activities - the activity functions by name, standing in for the real ones
 * @param knowledgeActivities - those of the knowledge task queue (`<taskQueue>-knowledge`), polled by a second worker
 *   as in the platform's worker processes; none: no such worker
 */
export async function startStubbedWorker(
  taskQueue: string,
  activities: object,
  knowledgeActivities?: object
): Promise<StubbedWorker> {
  const env = await startTestServer(inject('timeSkippingServer'))
  try {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities,
      // In this process's main thread, as in the worker hosts (worker-hosts.ts): no bundle compiled again per worker.
      ...workflowThreadOptions(true),
    })
    const knowledge =
      knowledgeActivities &&
      (await Worker.create({
        connection: env.nativeConnection,
        taskQueue: knowledgeTaskQueue(taskQueue),
        activities: knowledgeActivities,
      }))
    const running = Promise.all([worker.run(), knowledge?.run()])
    return {
      env,
      async stop() {
        worker.shutdown()
        knowledge?.shutdown()
        await running
        await env.teardown()
      },
    }
  } catch (error) {
    await env.teardown()
    throw error
  }
}
