/**
 * A process whose metrics port is taken (another platform runs on this machine) says so in one line naming the
 * variable to set, and exits 1: never an uncaught EADDRINUSE with a stack trace (`npm run fuzz` beside `npm start`).
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEnv } from '../support/platform.ts'
import { startApiProcess, startWorkerProcess } from '../../scripts/start/worker-process.ts'

let taken: net.Server
let port: number

beforeAll(async () => {
  taken = net.createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  port = (taken.address() as net.AddressInfo).port
})

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve))
})

/** What the process printed before it exited, from the start helper's refusal. */
const outputOfFailedStart = (start: Promise<unknown>) =>
  start.then(
    () => {
      throw new Error('the process started on a taken port')
    },
    (error: unknown) => String(error)
  )

describe('a metrics port in use', () => {
  it('stops the API with one line naming METRICS_PORT', async () => {
    const output = await outputOfFailedStart(startApiProcess(testEnv({ METRICS_PORT: String(port) })))
    expect(output).toContain(
      `127.0.0.1:${port} is in use (METRICS_PORT): set METRICS_PORT to a free port, 0 for any, or off`
    )
    expect(output).not.toMatch(/EADDRINUSE|\n\s+at /)
  })

  it('stops the worker with one line naming WORKER_METRICS_PORT', async () => {
    const output = await outputOfFailedStart(startWorkerProcess(testEnv({ WORKER_METRICS_PORT: String(port) })))
    expect(output).toContain(`is in use (WORKER_METRICS_PORT): set WORKER_METRICS_PORT to a free port`)
    expect(output).not.toMatch(/EADDRINUSE|\n\s+at /)
  })
})
