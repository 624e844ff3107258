/**
 * Issue 22: `GET /v1/appointments/{id}/workflow` held its request's transaction while it described and queried the
 * workflow, and 8 concurrent calls stalled the whole platform on the embedded database (one backend): bookings waited,
 * pool timeouts, 503s, and the after-commit work (workflow starts, webhook deliveries, agent triggers) was deferred.
 *
 * Here 16 loops of that view run while bookings go on, on whichever database the run uses (embedded by default,
 * PostgreSQL with TEST_DATABASE_URL). Bookings alternate, one by one, between "views off" and "views on", so whatever
 * else loads the machine weighs on both sides alike: no wall-clock margin, only a ratio of medians over many samples
 * (the loops run in a process of their own, as other clients would).
 * Every deferred piece of work must then complete: each booking's workflow started, each `booking.created` delivered
 * to a webhook receiver, each agent run triggered by it finished. The deferrals the API logged are counted and shown.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { appointmentWorkflowId } from '../../common/appointments/appointment-workflow-contract.ts'
import { createChildAndProvider, futureSlot } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startViewLoops } from '../support/view-loops.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

/**
 * Bookings measured with the views running, and as many without: enough for a stable median against a bound of 3×
 * (run alone, 1.2–2.4×). Each booking also runs a workflow, a webhook delivery and an agent run, which the test waits
 * for: 32 a side made this the suite's longest file (49 s of both cores); the 2× figure is the benchmark's
 * (bench/booking.bench.ts, `views`).
 */
const ROUNDS = 16
const VIEW_LOOPS = 16
/** Bookings' median latency with the views, at most this many times their median without (see the assertion). */
const MAX_MEDIAN_RATIO = { embedded: 3, postgresql: 3 }
/** The messages of deferred after-commit work (domain/workflow-runs/workflow-outbox.ts, agent-trigger-dispatcher.ts...). */
const DEFERRALS = [
  'workflow start deferred',
  'workflow start failed',
  'agent trigger dispatch failed',
  'agent run start deferred to the sweep',
  'webhook retry workflow start deferred',
]

let platform: Platform
let receiver: WebhookReceiver
let token: string
let agentWorkflowId: string
const logged: string[] = []
/** What the API logged under the 503s it answered: the dependency's own error. */
const unavailable: string[] = []

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Sixteen loops send thousands of requests a minute: the limiter is not what is measured.
      RATE_LIMIT_PER_MINUTE: '1000000',
      // As deployed: checking every answer against the description costs the API CPU that production does not spend
      // (these answers are checked in appointments-lifecycle and booking-lifecycle).
      RESPONSE_VALIDATION: 'off',
      // The views ask running workflows (a describe and a query the worker answers): the costly case. Deferred, the
      // bookings' workflows would answer from Temporal alone (SCHEDULED) and the views would cost far less.
      BOOKING_WORKFLOW_START: 'immediate',
      // As `npm start` runs the worker beside the API on one machine (scripts/start.ts): workflow tasks and query
      // answers yield the CPU to requests. At nice 0 the worker answering 16 loops' queries takes its full share of
      // the two cores from the bookings' API and Temporal work.
      WORKER_CPU_NICE: '10',
    },
  })
  // The API's own logger: what it defers is counted (its level is silent, but every call is still made).
  const { logger } = platform.api.deps
  for (const level of ['warn', 'error'] as const) {
    const original = logger[level].bind(logger)
    vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
      const message = args.find((a): a is string => typeof a === 'string')
      if (message) logged.push(message)
      const { err } = (args[0] ?? {}) as { err?: unknown }
      if (message === 'dependency unavailable') unavailable.push(causesOf(err))
      original(...(args as Parameters<typeof original>))
    })
  }
  const client = await platform.newTenant(['children', 'providers', 'bookings', 'webhooks', 'ai', 'agents'])
  token = await platform.token(client)
  const endpoint = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url('/bookings'), events: ['booking.created'] },
  })
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
  const assistant = await platform.http.post('/v1/assistants', {
    token,
    body: { name: 'Front desk', scope: 'tenant', tools: ['child_records'] },
  })
  expect(assistant.status, JSON.stringify(assistant.body)).toBe(201)
  const agent = await platform.http.post('/v1/agent-workflows', {
    token,
    body: {
      name: 'New booking',
      trigger: { type: 'event', eventTypes: ['booking.created'] },
      agent: { assistantId: assistant.body.id, instructions: 'Prepare the family’s first visit.', tools: [] },
      actions: [{ type: 'create_staff_task', title: 'Prepare the first visit' }],
    },
  })
  expect(agent.status, JSON.stringify(agent.body)).toBe(201)
  agentWorkflowId = agent.body.id as string
}, 120_000)

afterAll(async () => {
  // The next file in this worker process must not log through the spies.
  vi.restoreAllMocks()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

/** An error's message and its causes' ("Failed to query Workflow: 4 DEADLINE_EXCEEDED: ..."). */
function causesOf(error: unknown): string {
  const messages: string[] = []
  for (let e = error; e instanceof Error && messages.length < 4; e = e.cause) messages.push(e.message)
  return messages.length > 0 ? messages.join(': ') : String(error)
}

/** The value at quantile `q` (0..1) of the samples. */
function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

/** Books an appointment for a new child with a new provider; returns its id and the booking request's latency. */
async function book(round: number): Promise<{ id: string; ms: number; server: number; status: number }> {
  const { childId, providerId } = await createChildAndProvider(platform.http, token)
  const started = performance.now()
  const response = await platform.http.post('/v1/appointments', {
    token,
    body: { childId, providerId, startsAt: futureSlot(3 + (round % 20), 14 + (round % 5)).toISOString() },
  })
  const ms = performance.now() - started
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  const server = Number(/total;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1])
  return { id: response.body.id as string, ms, server, status: response.status }
}

describe('workflow views under load', () => {
  it('keeps bookings near their latency without the views, answers no 5xx, and completes what it defers', async () => {
    // Appointments whose workflow the loops look at.
    const viewed = [await book(0), await book(1), await book(2)].map((b) => b.id)

    const loops = startViewLoops({ baseUrl: platform.api.url, token, appointmentIds: viewed, count: VIEW_LOOPS })
    const without: number[] = []
    const withViews: number[] = []
    const serverWithout: number[] = []
    const serverWithViews: number[] = []
    const booked: string[] = [...viewed]
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating which side goes first in a round, so neither always follows the other.
        for (const on of round % 2 === 0 ? [false, true] : [true, false]) {
          await loops.set(on)
          const { id, ms, server } = await book(3 + 2 * round + (on ? 1 : 0))
          booked.push(id)
          ;(on ? withViews : without).push(ms)
          ;(on ? serverWithViews : serverWithout).push(server)
        }
      }
    } finally {
      await loops.stop()
    }
    const { views, statuses, details, p50: viewP50, p95: viewP95 } = loops.tally()

    const database = inject('databaseKind') === 'postgresql' ? 'postgresql' : 'embedded'
    const figures = {
      database,
      bookings: { without: without.length, withViews: withViews.length },
      p50: { without: quantile(without, 0.5), withViews: quantile(withViews, 0.5) },
      p95: { without: quantile(without, 0.95), withViews: quantile(withViews, 0.95) },
      serverP50: { without: quantile(serverWithout, 0.5), withViews: quantile(serverWithViews, 0.5) },
      views,
      viewStatuses: statuses,
      viewDetails: details,
      unavailable: unavailable.slice(0, 3),
      viewLatency: { p50: viewP50, p95: viewP95 },
    }
    // No 5xx, from the views or the bookings (book() checked each 201).
    expect(Object.keys(statuses), JSON.stringify(figures)).toEqual(['200'])
    expect(views).toBeGreaterThan(ROUNDS * VIEW_LOOPS)
    // This bound catches a stall; the 2× is a figure of bench/booking.bench.ts's `views` phase, measured on a
    // machine with nothing else running (docs/benchmarks.md), since a CI run's parallel files move this ratio. The
    // views are paced per tenant (WORKFLOW_VIEWS_PER_SECOND, 20 by default; docs/rate-limits.md), so the 16 loops
    // mostly wait their turn. Run alone (2026-11-25), median with views over median without: 1.22× embedded, paced;
    // unpaced, 1.6–1.7× embedded and 1.4–1.9× on PostgreSQL with views answered from their history's version, and
    // 2.0–2.4× embedded when each view was a query the worker answered (3.3× on PostgreSQL in a CI run). With the view
    // holding its transaction across the Temporal calls (before issue 22), 11× embedded and 4.0× on PostgreSQL. The
    // bound (3×) catches that stall and views no longer paced; what catches any call to Temporal inside a transaction,
    // on every test, is the guard (infra/network-guard.ts).
    const bound = MAX_MEDIAN_RATIO[database]
    expect(figures.p50.withViews, JSON.stringify(figures)).toBeLessThanOrEqual(bound * figures.p50.without)

    // What was deferred under the load completes: every booking's workflow started...
    await eventually(
      async () =>
        (await platform.db.workflowOutbox.count({
          where: { workflowId: { in: booked.map(appointmentWorkflowId) }, state: 'DISPATCHED' },
        })) === booked.length || undefined,
      120_000,
      500
    )
    for (const id of booked) {
      const description = await platform.temporal.workflow.getHandle(appointmentWorkflowId(id)).describe()
      expect(description.workflowId).toBe(appointmentWorkflowId(id))
    }
    // ...every booking.created delivered, once per booking...
    const deliveredBookings = await eventually(
      async () => {
        const ids = new Set(
          receiver
            .received('/bookings')
            .map((d) => (JSON.parse(d.body) as { data: { bookingId: string } }).data.bookingId)
        )
        return booked.every((id) => ids.has(id)) ? ids : undefined
      },
      180_000,
      500
    )
    expect(deliveredBookings.size).toBe(booked.length)
    // ...and every agent run it triggered finished.
    await eventually(
      async () =>
        (await platform.db.agentRun.count({ where: { agentWorkflowId, completedAt: { not: null } } })) >=
          booked.length || undefined,
      240_000,
      1000
    )
    expect(await platform.db.agentRun.count({ where: { agentWorkflowId } })).toBe(booked.length)

    const deferrals = Object.fromEntries(DEFERRALS.map((m) => [m, logged.filter((l) => l === m).length]))
    console.info('workflow views under load', JSON.stringify({ ...figures, deferrals }))
  }, 600_000)
})
