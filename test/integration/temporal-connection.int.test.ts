/**
 * The API's Temporal connection against the real dev server, reached through a proxy the test can cut: closing it
 * while a call is being retried leaves no retry behind. The SDK's retry timer is not cancelled by a close, and a retry
 * that fired on the closed channel threw "Channel has been shut down" from the timer (an uncaught exception, seen once
 * in five runs of the integration suite, when the API stopped during a Temporal outage).
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { lazyTemporalConnection } from '../../infra/temporal-connection.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

let proxy: TcpProxy
const uncaught: unknown[] = []
const recordUncaught = (error: unknown) => uncaught.push(error)

beforeAll(async () => {
  proxy = await startTcpProxy(inject('temporalAddress'))
  process.on('uncaughtException', recordUncaught)
})

afterAll(async () => {
  process.off('uncaughtException', recordUncaught)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await proxy?.close()
})

it('closes after the calls it is retrying have ended, so no retry fires on a closed channel', async () => {
  const temporal = lazyTemporalConnection(proxy.address)
  const { connection } = temporal
  // Connected once, so the outage below fails calls with UNAVAILABLE, which the SDK retries from a timer.
  await connection.workflowService.getSystemInfo({})
  proxy.cut()
  const deadline = Date.now() + 3000
  const call = connection
    .withDeadline(deadline, () => connection.workflowService.getSystemInfo({}))
    .then(
      () => 'answered',
      (error: unknown) => String(error)
    )
  // The first attempts fail at once against the cut proxy; a retry is now waiting on its timer.
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(temporal.inFlight()).toBe(1)

  await temporal.close()
  const closedAt = Date.now()
  // Every attempt fails while the proxy is cut, so the call ends no sooner than its deadline: close() waited for it.
  expect(closedAt).toBeGreaterThanOrEqual(deadline - 50)
  expect(temporal.inFlight()).toBe(0)
  expect(await call).toMatch(/DEADLINE_EXCEEDED|UNAVAILABLE|deadline/i)

  // The longest retry interval of the SDK's defaults is 5 s: anything left behind would have fired by now.
  proxy.restore()
  await new Promise((resolve) => setTimeout(resolve, 6000))
  expect(uncaught.map(String)).toEqual([])
})
