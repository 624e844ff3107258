/**
 * Nothing is lost between two steps: a booking made while Temporal is unreachable gets its workflow once Temporal
 * is back (transactional outbox), and a booking workflow survives its worker being killed.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  appointmentStatusQuery,
  appointmentWorkflowId,
  cancelAppointmentSignal,
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
  platform = await startPlatform({
    // A booking's workflow runs at once (not deferred to its first reminder), so there is a workflow to crash under.
    overrides: { TEMPORAL_ADDRESS: proxy.address, BOOKING_WORKFLOW_START: 'immediate' },
  })
  const client = await platform.newTenant(['children', 'providers', 'bookings'])
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await proxy?.close()
})

describe('Temporal briefly unavailable', () => {
  it('keeps the booking and starts its workflow once Temporal is back', async () => {
    proxy.cut()
    const { id } = await bookAppointment(platform.http, token, { timeZone: 'America/New_York' })
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(id))

    // The booking is committed; its workflow start waits in the outbox.
    const stored = await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })
    expect(stored.status).toBe('CONFIRMED')
    const pending = await platform.api.deps.db.workflowOutbox.findUniqueOrThrow({
      where: { workflowId: handle.workflowId },
    })
    expect(pending.state).toBe('PENDING')
    await expect(handle.describe()).rejects.toThrow()

    // Readiness, with its details, is on the metrics port; the public /health says only that the API is alive.
    const health = await fetch(platform.api.readinessUrl!)
    expect(health.status).toBe(503)
    expect(((await health.json()) as { checks: { temporal: { status: string } } }).checks.temporal.status).toBe('down')
    expect((await platform.http.get('/health')).status).toBe(200)

    // The sweep keeps trying and records why it could not start the workflow.
    const failed = await eventually(async () => {
      const row = await platform.api.deps.db.workflowOutbox.findUniqueOrThrow({
        where: { workflowId: handle.workflowId },
      })
      return row.lastError ? row : undefined
    }, 20_000)
    expect(failed.state).toBe('PENDING')

    proxy.restore()
    const description = await eventually(() => handle.describe().catch(() => undefined), 60_000)
    expect(description.status.name).toBe('RUNNING')
    // The outbox records the start after Temporal answered it: the workflow can be seen a moment before the row says so.
    const dispatched = await eventually(async () => {
      const row = await platform.api.deps.db.workflowOutbox.findUniqueOrThrow({
        where: { workflowId: handle.workflowId },
      })
      return row.state === 'DISPATCHED' ? row : undefined
    }, 30_000)
    expect(dispatched.state).toBe('DISPATCHED')
    expect(dispatched.lastError).toBeNull()
  })
})

describe('worker crash', () => {
  it('continues an open booking workflow after its worker is killed and restarted', async () => {
    const { id } = await bookAppointment(platform.http, token, { timeZone: 'America/New_York' })
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(id))
    // The worker has run the workflow's first task (it loaded the booking) and the workflow waits for its next step.
    const state = await eventually(() => handle.query(appointmentStatusQuery).catch(() => undefined), 60_000)
    expect(state.state).toBe('CONFIRMED')

    await platform.killWorkers('SIGKILL')
    // The server records the signal with no worker alive; nothing can act on it yet. (An operator's cancel: the
    // appointment is days ahead, and the state machine completes only an appointment that has started.)
    await handle.signal(cancelAppointmentSignal, {})
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await handle.describe()).status.name).toBe('RUNNING')
    expect((await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status).toBe('CONFIRMED')

    await platform.startWorker()
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    expect((await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status).toBe('CANCELLED')
  })
})

describe('a start made again', () => {
  it('never runs a one-shot workflow a second time once it has closed', async () => {
    const { id } = await bookAppointment(platform.http, token, { timeZone: 'America/New_York' })
    const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(id))
    await eventually(() => handle.query(appointmentStatusQuery).catch(() => undefined), 60_000)
    await handle.signal(cancelAppointmentSignal, {})
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    const { runId } = await handle.describe()

    // As when the request's mark was lost, or another instance's sweep read the row while the request started it.
    const row = await platform.api.deps.db.workflowOutbox.update({
      where: { workflowId: handle.workflowId },
      data: { state: 'PENDING', dispatchedAt: null },
    })
    expect(await platform.api.deps.outbox.dispatchPending([row.id])).toBe(1)

    const after = await handle.describe()
    expect(after.runId).toBe(runId)
    expect(after.status.name).toBe('COMPLETED')
    const marked = await platform.api.deps.db.workflowOutbox.findUniqueOrThrow({ where: { id: row.id } })
    expect(marked.state).toBe('DISPATCHED')
  })
})
