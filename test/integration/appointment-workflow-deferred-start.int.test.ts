/**
 * Deferred booking workflow starts (BOOKING_WORKFLOW_START=deferred, the default; issue 22) on the real Temporal dev
 * server, the real worker and database, through the appointments API: a booking's workflow is started at booking with
 * a start delay that ends 10 minutes before its first reminder, so nothing of it runs on the booking's hot path; the
 * view says SCHEDULED until then; a reschedule or a cancel runs it at once (Temporal runs the first task for the
 * update), after which it agrees with the API's `nextReminderAt`, and a cancelled one closes. A reschedule's answer
 * already carries the reminder the workflow will send (issue 40; recorded as a replay history). The booking is answered
 * before Temporal has its start (issue 48): the outbox row is what makes it durable, and the start follows at once.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { WorkflowNotFoundError } from '@temporalio/client'
import proto from '@temporalio/proto'
import { RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH } from '../../common/appointments/appointment-workflow-contract.ts'
import { START_DEADLINE_MS } from '../../domain/workflow-runs/workflow-outbox.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { appointmentScenario } from '../support/appointment-scenario.ts'
import { newCentre, patchLocations, type Centre } from '../support/centre.ts'
import { APPOINTMENT_SCOPES, createChildAndProvider } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const OFFSETS = [2880, 120]
/** The default no-show grace (CARE_WORKFLOW_NO_SHOW_GRACE_MS). */
const GRACE_MS = 30 * MINUTE_MS
const EventType = proto.temporal.api.enums.v1.EventType

let platform: Platform
let centre: Centre
let proxy: TcpProxy

beforeAll(async () => {
  // The API reaches Temporal through a proxy that can hold what it sends; the test's own client connects directly.
  proxy = await startTcpProxy(inject('temporalAddress'))
  platform = await startPlatform({ overrides: { TEMPORAL_ADDRESS: proxy.address } })
  centre = await newCentre(platform, APPOINTMENT_SCOPES)
  await patchLocations(centre, { reminderOffsetsMinutes: OFFSETS })
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await proxy?.close()
})

const { bookBetween, view, handleOf, running } = appointmentScenario(() => centre)

/** A one-hour appointment starting `aheadMs` from now, on a whole minute. */
const bookIn = (aheadMs: number) => {
  const startsAt = Math.ceil((Date.now() + aheadMs) / MINUTE_MS) * MINUTE_MS
  return bookBetween(startsAt, startsAt + HOUR_MS)
}

const appointment = async (id: string) =>
  (await platform.http.get(`/v1/appointments/${id}`, { token: centre.token })).body

describe('deferred booking workflow starts', () => {
  it('records the start at booking and runs nothing until 10 minutes before the first reminder', async () => {
    const { id } = await bookIn(72 * HOUR_MS)
    const firstReminder = Date.parse((await appointment(id)).nextReminderAt)
    const current = await view(id)
    expect(current).toMatchObject({ execution: 'SCHEDULED', lifecycle: null })
    // The delay is counted from the dispatch, and the server counts it from when the request reaches it: later by the
    // request's time in flight, which a loaded machine stretched past a second (1,216 ms in a CI run), and never past
    // the start's own deadline, after which the attempt fails. Never earlier than the recorded time.
    const late = Date.parse(current.runsFrom) - (firstReminder - 10 * MINUTE_MS)
    expect(late).toBeGreaterThanOrEqual(0)
    expect(late).toBeLessThan(START_DEADLINE_MS)

    // Durable and visible in Temporal at once, with its search attributes; no workflow task has run.
    const description = await handleOf(id).describe()
    expect(description.status.name).toBe('RUNNING')
    expect(description.executionTime?.toISOString()).toBe(current.runsFrom)
    expect(description.searchAttributes.AppointmentId).toEqual([id])
    const events = (await handleOf(id).fetchHistory()).events ?? []
    expect(events.map((e) => e.eventType)).toEqual([EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED])
    // A protobuf Long: an object, so only its number says whether the start is really deferred.
    const backoff = events[0]?.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff?.seconds
    expect(Number(backoff)).toBeGreaterThan(0)
  })

  it('answers the booking before its start reaches Temporal; the start follows, and calls on it wait for it', async () => {
    const parties = await createChildAndProvider(platform.http, centre.token)
    const startsAt = Math.ceil((Date.now() + 72 * HOUR_MS) / MINUTE_MS) * MINUTE_MS
    // Whatever the API sends Temporal now waits in the proxy: the answer cannot have waited for the start.
    proxy.hold()
    const booked = await platform.http
      .post('/v1/appointments', {
        token: centre.token,
        body: { ...parties, type: 'THERAPY_SESSION', startsAt: new Date(startsAt).toISOString() },
      })
      .catch((error: unknown) => {
        proxy.release()
        throw error
      })
    // Released at once on a failure, so that the tests after this one reach Temporal.
    if (booked.status !== 201) proxy.release()
    expect(booked.status, JSON.stringify(booked.body)).toBe(201)
    const id = booked.body.id as string
    const { workflowId } = handleOf(id)
    let started = false
    const starting = platform.api.deps.outbox.started(workflowId).then(() => {
      started = true
    })
    // Durable already (its outbox row committed with the booking), but not in Temporal yet.
    await expect(handleOf(id).describe()).rejects.toThrow(WorkflowNotFoundError)
    expect(started).toBe(false)
    proxy.release()
    await starting
    expect((await handleOf(id).describe()).status.name).toBe('RUNNING')
    expect((await view(id)).execution).toBe('SCHEDULED')
  })

  it('starts at once a booking whose first step is less than 20 minutes away', async () => {
    const { id } = await bookIn(15 * MINUTE_MS)
    // No reminder is left that close to the start; the workflow runs now and knows the no-show deadline.
    expect((await running(id)).lifecycle).toMatchObject({ state: 'CONFIRMED', nextReminderAt: null })
  })

  it('runs a deferred workflow at once for a reschedule, which then agrees with the API', async () => {
    const { id } = await bookIn(72 * HOUR_MS)
    expect((await view(id)).execution).toBe('SCHEDULED')
    const newStart = Math.ceil((Date.now() + 3 * HOUR_MS) / MINUTE_MS) * MINUTE_MS
    const moved = await platform.http.post(`/v1/appointments/${id}/reschedule`, {
      token: centre.token,
      body: { startsAt: new Date(newStart).toISOString() },
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    // Accepted by the workflow's first task, before its first read of the appointment.
    expect(moved.body.workflow).toMatchObject({ state: 'CONFIRMED' })
    expect(Date.parse(moved.body.nextReminderAt)).toBe(newStart - 120 * MINUTE_MS)
    // Its first read may see the row before the reschedule commits; the after-commit signal makes it read again.
    const lifecycle = await eventually(async () => {
      const current = (await running(id)).lifecycle
      return current.nextReminderAt === moved.body.nextReminderAt ? current : undefined
    })
    expect(Date.parse(lifecycle.noShowAt)).toBeGreaterThan(newStart + HOUR_MS)
  })

  it('answers a PATCH of the start of a workflow still in its start delay with the reminder it will send', async () => {
    const { id } = await bookIn(72 * HOUR_MS)
    expect((await view(id)).execution).toBe('SCHEDULED')
    const newStart = Math.ceil((Date.now() + 3 * HOUR_MS) / MINUTE_MS) * MINUTE_MS
    const moved = await platform.http.request('PATCH', `/v1/appointments/${id}`, {
      token: centre.token,
      body: { startsAt: new Date(newStart).toISOString() },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    // The two-hour reminder of the new time (the two-day one has passed), in the appointment and in the workflow's
    // answer alike: the answer waited for the workflow's first read, which the request is laid over. Before
    // RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH the workflow answered at once, with no times.
    expect(Date.parse(moved.body.nextReminderAt)).toBe(newStart - 120 * MINUTE_MS)
    expect(moved.body.workflow).toMatchObject({ state: 'CONFIRMED', remindersSent: 0, checkedIn: false })
    expect(Date.parse(moved.body.workflow.nextReminderAt)).toBe(newStart - 120 * MINUTE_MS)
    expect(Date.parse(moved.body.workflow.noShowAt)).toBe(newStart + HOUR_MS + GRACE_MS)
    // What it answered is what it holds.
    const { lifecycle } = await running(id)
    expect(lifecycle).toMatchObject({ nextReminderAt: moved.body.workflow.nextReminderAt })

    const cancelled = await platform.http.post(`/v1/appointments/${id}/cancel`, {
      token: centre.token,
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(await handleOf(id).result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    const markers = ((await handleOf(id).fetchHistory()).events ?? []).filter((e) =>
      Buffer.from(e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data ?? [])
        .toString()
        .includes(RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH)
    )
    expect(markers).toHaveLength(1)
    await recordHistory(handleOf(id), 'bookingWorkflow-lifecycle-rescheduled-in-start-delay-cancelled')
  })

  it('runs a deferred workflow at once for a cancel, and the workflow closes', async () => {
    const { id } = await bookIn(72 * HOUR_MS)
    expect((await view(id)).execution).toBe('SCHEDULED')
    const cancelled = await platform.http.post(`/v1/appointments/${id}/cancel`, {
      token: centre.token,
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.workflow).toMatchObject({ state: 'CANCELLED' })
    expect(await handleOf(id).result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    // A closed workflow's view is its last state (asked again of a worker, which replays it).
    const closed = await eventually(async () => {
      const current = await view(id)
      return current.execution === 'CLOSED' ? current : undefined
    })
    expect(closed).toMatchObject({ runsFrom: null, lifecycle: { state: 'CANCELLED', nextReminderAt: null } })
  })

  it('says NOT_STARTED when Temporal has no workflow for the appointment', async () => {
    const { id } = await bookIn(72 * HOUR_MS)
    expect((await view(id)).execution).toBe('SCHEDULED')
    // As when its start still waits in the outbox: here the workflow is deleted (Temporal terminates it first).
    await platform.temporal.workflowService.deleteWorkflowExecution({
      namespace: platform.temporal.options.namespace,
      workflowExecution: { workflowId: handleOf(id).workflowId },
    })
    // Deleting is asynchronous (a system workflow of the server's): behind a busy server it took over 30 s in CI.
    const gone = await eventually(async () => {
      const current = await view(id)
      return current.execution === 'NOT_STARTED' ? current : undefined
    }, 120_000)
    expect(gone).toMatchObject({ runsFrom: null, lifecycle: null, followUp: null })
  }, 180_000)
})
