/**
 * One booking, one trace: with tracing installed (an in-memory exporter in place of OTLP), the API and a worker in
 * this process, the real Temporal dev server and database. The trace covers the HTTP request, its unit of work, the
 * workflow start, the workflow and its activities, every span's parent is in the trace, and no attribute outside the
 * allow-list leaves the process.
 */
import { NativeConnection, type Worker } from '@temporalio/worker'
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { closeDb, createDb, databaseLogins, type Db } from '../../infra/db.ts'
import { ALLOWED_ATTRIBUTES, installTracing, type Tracing } from '../../infra/tracing/tracing.ts'
import { createWorker } from '../../worker/create-worker.ts'
import { APPOINTMENT_SCOPES, bookAppointment } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const exporter = new InMemorySpanExporter()
let tracing: Tracing
let platform: Platform
let connection: NativeConnection
let workerDb: Db
let worker: Worker
let running: Promise<void>

beforeAll(async () => {
  tracing = installTracing('therapy-care-api', {}, exporter)
  // A booking's workflow runs at once, so its first task and activity are in the booking's trace.
  platform = await startPlatform({ withWorker: false, overrides: { BOOKING_WORKFLOW_START: 'immediate' } })
  connection = await NativeConnection.connect({ address: inject('temporalAddress') })
  workerDb = createDb(databaseLogins(platform.config), 4)
  worker = await createWorker({
    config: { ...platform.config, WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath') },
    connection,
    db: workerDb,
    tracing,
  })
  running = worker.run()
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  worker?.shutdown()
  await running.catch(() => undefined)
  await Promise.allSettled([platform.stop(), connection.close(), closeDb(workerDb)])
  // OpenTelemetry's API is process-wide: later files in this worker process must not trace into this exporter.
  await tracing.shutdown()
})

const hex = (id: string) => /^[0-9a-f]+$/.test(id)

describe('tracing a booking', () => {
  it('links the HTTP request, its transaction, the workflow start, the workflow and its activities in one trace', async () => {
    const client = await platform.newTenant(APPOINTMENT_SCOPES)
    const token = await platform.token(client)
    exporter.reset()
    const booked = await bookAppointment(platform.http, token)

    const traceOf = (request: ReadableSpan) =>
      exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === request.spanContext().traceId)
    const request = await eventually(async () => {
      const found = exporter.getFinishedSpans().find((s) => s.name === 'POST /v1/appointments')
      return found && traceOf(found).some((s) => s.name.startsWith('RunActivity:')) ? found : undefined
    }, 60_000)
    // The workflow's span ends when the workflow does: a booking lives until its appointment, so it is cancelled here.
    const cancelled = await platform.http.post(`/v1/appointments/${booked.id}/cancel`, {
      token,
      body: { reason: 'FAMILY_REQUEST' },
    })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    const spans = await eventually(async () => {
      const all = traceOf(request)
      return all.some((s) => s.name.startsWith('RunWorkflow:')) ? all : undefined
    }, 60_000)
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
    const parentOf = (span: ReadableSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined)
    const named = (prefix: string) => spans.filter((s) => s.name.startsWith(prefix))

    // The request is the root; the booking's own spans hang below it.
    expect(request.parentSpanId).toBeUndefined()
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/appointments',
      'http.response.status_code': 201,
      'therapy.tenant_id': client.tenantId,
    })
    expect(named('db.unit_of_work').some((s) => parentOf(s) === request)).toBe(true)
    const start = spans.find((s) => /^(StartWorkflow|SignalWithStartWorkflow):bookingWorkflow/.test(s.name))
    expect(start?.name, spans.map((s) => s.name).join(', ')).toMatch(
      /^(StartWorkflow|SignalWithStartWorkflow):bookingWorkflow/
    )
    expect(parentOf(start!)).toBe(request)
    const run = named('RunWorkflow:bookingWorkflow')[0]
    expect(run?.name).toMatch(/^RunWorkflow:bookingWorkflow/)
    expect(parentOf(run!)).toBe(start)
    const scheduled = named('StartActivity:').filter((s) => parentOf(s) === run)
    expect(scheduled.length).toBeGreaterThan(0)
    const executed = named('RunActivity:')
    expect(executed.every((s) => scheduled.includes(parentOf(s)!))).toBe(true)

    // Every span's parent is in the trace; ids are well-formed; nothing outside the allow-list was exported.
    for (const span of spans) {
      if (span !== request) expect(spans, span.name).toContain(parentOf(span))
      expect(hex(span.spanContext().spanId)).toBe(true)
      for (const key of Object.keys(span.attributes))
        expect(ALLOWED_ATTRIBUTES.has(key), `${span.name}: ${key}`).toBe(true)
    }
    // Names are templates and types, never a record's id.
    for (const span of spans) expect(span.name).not.toContain(booked.id)
  })
})
