/**
 * The booking lifecycle when Temporal is unreachable from the API: a lifecycle step the workflow must accept answers
 * 503 `dependency_unavailable` and changes nothing (no status, no event); once Temporal is back the same request
 * succeeds with the workflow's answer. Such a request commits its idempotency claim before it calls Temporal: the 503
 * releases the key, and a duplicate waits for the first and replays its answer. A 503 whose update the workflow had in
 * fact accepted (the answer lost on its way back) is answered on the retry with the same key by that update's outcome.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  appointmentLifecycleQuery,
  appointmentWorkflowId,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { bookAppointment } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

let platform: Platform
let proxy: TcpProxy
let token: string

beforeAll(async () => {
  // The API reaches Temporal only through the proxy; the worker and the test's own client connect directly.
  proxy = await startTcpProxy(inject('temporalAddress'))
  platform = await startPlatform({ overrides: { TEMPORAL_ADDRESS: proxy.address } })
  const client = await platform.newTenant(['children', 'providers', 'bookings'])
  token = await platform.token(client)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await proxy?.close()
})

/** A booking whose workflow runs, and its cancel with one Idempotency-Key (`<key>-<id>`) however often it is sent. */
async function runningBooking(key: string) {
  const { id } = await bookAppointment(platform.http, token)
  const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(id))
  await eventually(async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined), 60_000)
  const cancel = () =>
    platform.http.post(`/v1/appointments/${id}/cancel`, {
      token,
      headers: { 'Idempotency-Key': `${key}-${id}` },
      body: { reason: 'FAMILY_REQUEST' },
    })
  return { id, handle, cancel }
}

describe('Temporal unreachable from the API', () => {
  it('answers a cancel with 503 and changes nothing; the retry after recovery is accepted by the workflow', async () => {
    const { id } = await bookAppointment(platform.http, token)
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(id))
    await eventually(async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined), 60_000)

    proxy.cut()
    // With a key: the claim committed before the call to Temporal is released by the 503, so the retry runs.
    const key = `cancel-${id}`
    const refused = await platform.http.post(`/v1/appointments/${id}/cancel`, {
      token,
      headers: { 'Idempotency-Key': key },
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(refused.status, JSON.stringify(refused.body)).toBe(503)
    expect(refused.body.code).toBe('dependency_unavailable')
    expect((await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status).toBe('CONFIRMED')
    const events = await platform.api.deps.db.event.findMany({ where: { type: 'booking.cancelled' } })
    expect(events.filter((e) => (e.data as { bookingId: string }).bookingId === id)).toHaveLength(0)
    expect((await handle.describe()).status.name).toBe('RUNNING')

    proxy.restore()
    const accepted = await eventually(
      async () => {
        const response = await platform.http.post(`/v1/appointments/${id}/cancel`, {
          token,
          headers: { 'Idempotency-Key': key },
          body: { reason: 'FAMILY_REQUEST' },
        })
        expect(response.status, JSON.stringify(response.body)).not.toBe(409)
        return response.status === 200 ? response : undefined
      },
      60_000,
      1000
    )
    expect(accepted.body.workflow).toMatchObject({ state: 'CANCELLED', nextReminderAt: null })
    expect(accepted.headers.get('idempotent-replayed')).toBeNull()
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    const replay = await platform.http.post(`/v1/appointments/${id}/cancel`, {
      token,
      headers: { 'Idempotency-Key': key },
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
  }, 180_000)
})

describe('an update the workflow accepted whose answer the API never got', () => {
  it('answers the retry with the same Idempotency-Key with the accepted update, not "CANCELLED is final"', async () => {
    const { id, handle, cancel } = await runningBooking('lost')

    // The update reaches the workflow, which accepts it; its answer is dropped, then the connection breaks.
    proxy.muteReplies()
    const lost = cancel()
    await eventually(
      async () => ((await handle.query(appointmentLifecycleQuery)).state === 'CANCELLED' ? true : undefined),
      30_000
    )
    proxy.cut()
    const refused = await lost
    expect(refused.status, JSON.stringify(refused.body)).toBe(503)
    expect((await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status).toBe('CONFIRMED')

    proxy.restore()
    const accepted = await eventually(async () => {
      const response = await cancel()
      return response.status === 503 ? undefined : response
    }, 30_000)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200)
    expect(accepted.body).toMatchObject({ status: 'CANCELLED', workflow: { state: 'CANCELLED' } })
    const events = await platform.api.deps.db.event.findMany({ where: { type: 'booking.cancelled' } })
    expect(events.filter((e) => (e.data as { bookingId: string }).bookingId === id)).toHaveLength(1)
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
  }, 120_000)
})

describe('a duplicate of a request that calls Temporal', () => {
  it('waits for the first (which committed its claim before the call) and replays its answer; one cancellation', async () => {
    const { id, cancel } = await runningBooking('duplicate')
    const answers = await Promise.all([cancel(), cancel(), cancel()])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    // One ran; the others replayed its answer (or, on the embedded database, found it done after waiting).
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    for (const answer of answers) expect(answer.body).toEqual(answers[0].body)
    const events = await platform.api.deps.db.event.findMany({ where: { type: 'booking.cancelled' } })
    expect(events.filter((e) => (e.data as { bookingId: string }).bookingId === id)).toHaveLength(1)
  }, 120_000)
})
