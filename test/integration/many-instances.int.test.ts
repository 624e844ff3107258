/**
 * @module Many instances, one platform (issue 39): two API processes and two worker processes on one database and one
 * Temporal server, with the traffic spread over both APIs, as behind a load balancer. Every instance is a child
 * process (test/support/instances.ts) rather than the in-process API of `startPlatform`, so that each can be killed,
 * and so that exactly two APIs run the background loops (outbox sweep, pump check) the scenarios put under fault.
 *
 * What is shared must hold across the instances: one rate-limit allowance for a client that talks to both (counters
 * in `rate_limits`), one effect per Idempotency-Key whichever instance the duplicate reaches, and, with an API and a
 * worker killed -9 or the APIs restarted one after the other under load, every request done once and every
 * webhook event delivered (at least once; duplicates counted); and one workflow-view pace per tenant. The embedded database serves several processes over
 * its wire server (scripts/db/pglite-wire-server.ts), one statement at a time, so the file runs there too; CI runs it
 * on PostgreSQL. docs/operations.md ("Scaling: many API and worker processes") names this file as the proof.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../support/platform.ts'
import { spreadingClient, startInstances, type Instances, type Sent } from '../support/instances.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { httpClient, type HttpResponse } from '../support/http.ts'
import { leaseBlock } from '../../infra/rate-limiter.ts'

/** The rate limit of the first describe: small, so a burst crosses it in a second. */
const LIMIT = 40
/** The limit under load, which must not refuse any of the load's requests. */
const NO_LIMIT = '1000000'
const BOOKING_SCOPES = ['children', 'providers', 'bookings', 'webhooks']
/** The workflow-view pace of the load's APIs, and the views sent at once to measure it. */
const VIEWS_PER_SECOND = 5
const VIEWS = 11

let instances: Instances
let receiver: WebhookReceiver
let send: ReturnType<typeof spreadingClient>

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  instances = await startInstances({
    apis: 2,
    workers: 2,
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // A dead worker's claims come back in seconds rather than a minute (the lease outlasts an attempt's timeout).
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_CLAIM_LEASE_MS: '4000',
      // Every booking's workflow starts at once, so "one workflow per booking" can be counted now.
      BOOKING_WORKFLOW_START: 'immediate',
    },
    // Stated though it is the default on a PostgreSQL server: the counters both instances share.
    apiOverrides: { RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PER_MINUTE: String(LIMIT) },
  })
  send = spreadingClient(() => instances.urls())
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([instances?.stop(), receiver?.close()])
})

/** Runs `task` over `count` indexes, `concurrency` at a time. */
async function inPool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  let next = 0
  const lane = async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  return results
}

describe(`one client, both APIs, a limit of ${LIMIT} a minute`, () => {
  it('allows the limit once across both instances, not once per instance, and says so on every answer', async () => {
    // Each instance leases LEASE points of the shared count at a time (infra/rate-limiter.ts, docs/rate-limits.md):
    // never more than the limit together, and at most (instances - 1) × LEASE fewer while the other holds points.
    const LEASE = leaseBlock(LIMIT)
    const { token } = await instances.newClient(['children'])
    const urls = instances.urls()
    // In rounds of one request to each instance at the same moment: the shared counter must count each exactly once.
    const answers = []
    for (let round = 0; round < LIMIT + 5; round++) {
      answers.push(
        ...(await Promise.all(
          urls.map((url, api) =>
            httpClient(url)
              .get('/v1/children?limit=1', { token })
              .then((response) => ({ api, response }))
          )
        ))
      )
    }
    for (const { response } of answers) {
      expect([200, 429]).toContain(response.status)
      expect(response.headers.get('X-RateLimit-Limit')).toBe(String(LIMIT))
      expect(response.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/)
      expect(response.headers.get('X-RateLimit-Reset')).toMatch(/^\d+$/)
    }
    // One window: a window ending mid-burst would be the only way to see more than the limit (tolerance: one
    // window's worth), and every answer naming the same reset instant (±1 s of rounding) rules it out.
    const resets = answers.map(({ response }) => Number(response.headers.get('X-RateLimit-Reset')))
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1)

    const allowed = answers.filter(({ response }) => response.status === 200)
    const perApi = [0, 1].map((api) => allowed.filter((a) => a.api === api).length)
    console.info(
      `rate limit ${LIMIT}/min, ${answers.length} requests over 2 APIs: allowed ${allowed.length} (${perApi.join(' + ')})`
    )
    // The limit, less at most what the other instance leased and did not spend: two per-process counters would allow
    // 2 × LIMIT, and the outage fallback (a store failing) LIMIT / 10 per instance. Here both instances get a request
    // in every round until both have refused, so every leased point is spent: exactly the limit.
    expect(allowed.length).toBeLessThanOrEqual(LIMIT)
    expect(allowed.length).toBeGreaterThanOrEqual(LIMIT - (urls.length - 1) * LEASE)
    expect(allowed.length).toBe(LIMIT)
    // Each instance's answers count down: what the client may still send, from the shared count and its own lease.
    for (const api of [0, 1]) {
      const remaining = allowed
        .filter((a) => a.api === api)
        .map(({ response }) => Number(response.headers.get('X-RateLimit-Remaining')))
      expect(remaining.every((r) => r >= 0 && r < LIMIT)).toBe(true)
      expect(remaining).toEqual([...remaining].sort((a, b) => b - a))
      expect(new Set(remaining).size).toBe(remaining.length)
    }
    // Both instances served and both refused: neither kept an allowance of its own.
    expect(perApi.every((n) => n > 0)).toBe(true)
    const refused = answers.filter(({ response }) => response.status === 429)
    expect(new Set(refused.map((a) => a.api))).toEqual(new Set([0, 1]))
    for (const { response } of refused) {
      expect(Number(response.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
      expect(Number(response.headers.get('Retry-After'))).toBeLessThanOrEqual(60)
      expect(response.headers.get('Content-Type')).toContain('application/problem+json')
      expect(response.body).toMatchObject({ status: 429, code: 'rate_limited' })
      expect(response.headers.get('X-RateLimit-Remaining')).toBe('0')
    }
  })

  it('does one thing for one Idempotency-Key sent to both APIs at the same moment, and answers the same', async () => {
    const { token } = await instances.newClient(['children'])
    const apis = instances.urls().map((url) => httpClient(url))
    const ids: string[] = []
    let inProgress = 0
    let replayed = 0
    for (let k = 0; k < 5; k++) {
      const key = randomUUID()
      const body = { firstName: 'Ida', lastName: `Twice${k}`, dateOfBirth: '2022-02-02' }
      const post = (api: number) =>
        apis[api]!.post('/v1/children', { token, body, headers: { 'Idempotency-Key': key } })
      let answers: HttpResponse[] = await Promise.all([post(0), post(1)])
      // A duplicate still waiting for the first when its wait ends is told so (409), and retries after it finished.
      for (const answer of answers) {
        if (answer.status === 409) expect(answer.body.code).toBe('idempotency_request_in_progress')
      }
      inProgress += answers.filter((a) => a.status === 409).length
      answers = await Promise.all(answers.map(async (a, api) => (a.status === 409 ? post(api) : a)))
      expect(answers.map((a) => a.status)).toEqual([201, 201])
      expect(answers[0]!.body).toEqual(answers[1]!.body)
      // One ran, the other (or its retry) is the stored answer.
      const replays = answers.filter((a) => a.headers.get('Idempotent-Replayed') === 'true').length
      expect(replays).toBe(1)
      replayed += replays
      ids.push(answers[0]!.body.id as string)
      // The same key with another body, to either instance, is refused: the key is one record for both.
      const reused = await apis[1]!.post('/v1/children', {
        token,
        body: { ...body, lastName: 'Other' },
        headers: { 'Idempotency-Key': key },
      })
      expect(reused.status).toBe(422)
      expect(reused.body.code).toBe('idempotency_key_reused')
    }
    console.info(`idempotency over 2 APIs: 5 keys, ${replayed} replayed, ${inProgress} answered 409 in progress`)
    // One effect per key, as the API lists them.
    const listed = await apis[0]!.get('/v1/children?limit=100', { token })
    expect(listed.status).toBe(200)
    expect((listed.body.data as Array<{ id: string }>).map((c) => c.id).sort()).toEqual([...ids].sort())
  })
})

/** A tenant with `providers` providers and children to book, and a webhook endpoint for its `booking.created`. */
async function bookingTenant(path: string, pairs: number) {
  const client = await instances.newClient(BOOKING_SCOPES)
  const { token } = client
  const created = async (route: string, body: unknown) => {
    const sent = await send('POST', route, { token, body, key: randomUUID() })
    expect(sent.final.status, JSON.stringify(sent.final.body)).toBe(201)
    return sent.final.body.id as string
  }
  await created('/v1/webhook-endpoints', { url: receiver.url(path), events: ['booking.created'] })
  const parties = await inPool(pairs, pairs, async (i) => ({
    childId: await created('/v1/children', { firstName: 'Lo', lastName: `Ad${i}`, dateOfBirth: '2021-03-03' }),
    providerId: await created('/v1/providers', { name: `Provider ${i}`, timeZone: 'UTC' }),
  }))
  const start = Date.UTC(new Date().getUTCFullYear() + 1, 0, 5, 0)
  /** Booking `i`: its own hour on one of the pairs (providers are locked per booking: several, so they do not queue). */
  const book = (i: number, key: string) => {
    const { childId, providerId } = parties[i % pairs]!
    const startsAt = new Date(start + Math.floor(i / pairs) * 3_600_000).toISOString()
    return send('POST', '/v1/appointments', { token, key, body: { childId, providerId, startsAt } })
  }
  return { ...client, book }
}

/** Requests all answered 201 and nothing else, ever: no 5xx, no refusal, even on an attempt that was retried. */
function expectAllCreated(results: Sent[]) {
  const statuses = results.flatMap((r) => r.statuses)
  // The problems of the final answers that were 5xx, so a failure says which dependency the API gave up on.
  const problems = results
    .filter((r) => r.final.status >= 500)
    .map((r) => `${r.final.status} ${r.final.body?.code}: ${r.final.body?.detail}`)
  expect(
    statuses.filter((s) => s >= 500),
    [...new Set(problems)].join('\n')
  ).toEqual([])
  expect(results.map((r) => r.final.status).filter((s) => s !== 201)).toEqual([])
  return {
    retried: results.filter((r) => r.connectionErrors > 0 || r.inProgress > 0).length,
    connectionErrors: results.reduce((n, r) => n + r.connectionErrors, 0),
    inProgress: results.reduce((n, r) => n + r.inProgress, 0),
  }
}

/** One appointment row per key the client sent, and one booking workflow per appointment. */
async function expectDoneOnce(tenantId: string, results: Sent[]) {
  const ids = results.map((r) => r.final.body.id as string)
  expect(new Set(ids).size).toBe(results.length)
  const rows = await instances.db.appointment.findMany({ where: { tenantId }, select: { id: true } })
  expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort())
  const query = `TenantId = '${tenantId}' AND WorkflowType = 'bookingWorkflow'`
  const workflows = await eventually(
    async () => {
      const { count } = await instances.temporal.workflow.count(query)
      return count >= ids.length ? count : undefined
    },
    30_000,
    500
  )
  expect(workflows).toBe(ids.length)
}

/** Until every `booking.created` event of the tenant reached `path`; returns how many arrived more than once. */
async function everyEventDelivered(tenantId: string, path: string, bookings: number) {
  const events = await instances.db.event.findMany({ where: { tenantId, type: 'booking.created' } })
  expect(events.length).toBe(bookings)
  const expected = new Set(events.map((e) => e.id))
  return eventually(
    async () => {
      const ids = receiver.received(path).map((d) => JSON.parse(d.body).id as string)
      const seen = new Set(ids)
      if ([...expected].some((id) => !seen.has(id))) return undefined
      expect([...seen].every((id) => expected.has(id))).toBe(true)
      return ids.length - seen.size
    },
    60_000,
    250
  )
}

describe('under load', () => {
  beforeAll(async () => {
    // The same two instances without the small limit: the load's requests must all be allowed.
    await Promise.all(
      [0, 1].map((i) =>
        instances.restartApi(i, 'SIGTERM', {
          RATE_LIMIT_PER_MINUTE: NO_LIMIT,
          // A tenant's workflow views paced to VIEWS_PER_SECOND across both APIs (turns in pacer_turns).
          WORKFLOW_VIEWS_PER_SECOND: String(VIEWS_PER_SECOND),
          WORKFLOW_VIEW_BURST: '1',
          WORKFLOW_VIEW_MAX_WAIT_MS: '30000',
        })
      )
    )
  })

  it(`paces one tenant's workflow views at ${VIEWS_PER_SECOND} a second across both APIs, not at that pace on each`, async () => {
    const tenant = await bookingTenant('/views', 1)
    const booked = await tenant.book(0, randomUUID())
    expect(booked.final.status).toBe(201)
    const path = `/v1/appointments/${booked.final.body.id as string}/workflow`
    const urls = instances.urls()
    const began = Date.now()
    const views = await Promise.all(
      Array.from({ length: VIEWS }, (_, i) => httpClient(urls[i % urls.length]!).get(path, { token: tenant.token }))
    )
    const elapsedMs = Date.now() - began
    expect(views.map((v) => v.status)).toEqual(views.map(() => 200))
    // One pace: the last of VIEWS calls waits (VIEWS - 1) turns. Each API pacing on its own would let half the calls
    // through each at the full pace, done in about half the time.
    const oneTurnMs = 1000 / VIEWS_PER_SECOND
    console.info(`${VIEWS} workflow views over 2 APIs at ${VIEWS_PER_SECOND}/s: ${elapsedMs} ms`)
    expect(elapsedMs).toBeGreaterThanOrEqual((VIEWS - 1) * oneTurnMs - oneTurnMs / 2)
  })

  it('an API and a worker killed -9 mid-load: every booking done once, every event delivered', async () => {
    const BOOKINGS = 40
    const tenant = await bookingTenant('/killed', 4)
    let answered = 0
    const load = inPool(BOOKINGS, 6, async (i) => {
      const sent = await tenant.book(i, randomUUID())
      answered += 1
      return sent
    })
    await eventually(async () => (answered >= 10 ? true : undefined), 30_000, 20)
    const answeredAtKill = answered
    await Promise.all([instances.restartApi(0, 'SIGKILL'), instances.restartWorker(0, 'SIGKILL')])
    const results = await load
    const retries = expectAllCreated(results)
    await expectDoneOnce(tenant.tenantId, results)
    const duplicates = await everyEventDelivered(tenant.tenantId, '/killed', BOOKINGS)
    console.info(
      `kill -9 mid-load: ${BOOKINGS} bookings, ${answeredAtKill} answered at the kill, retried ${JSON.stringify(retries)}, ` +
        `webhook duplicates ${duplicates}`
    )
  })

  it('a rolling restart (SIGTERM, start, one API after the other) at 20 bookings a second: no 5xx, nothing twice', async () => {
    const tenant = await bookingTenant('/rolling', 10)
    const RATE_PER_SECOND = 20
    const MIN_LOAD_MS = 10_000
    const began = Date.now()
    const phase = { restarted: false }
    const sending: Array<Promise<Sent>> = []
    // Open loop, as clients arrive: one booking every 50 ms whatever the answers' latency, until both APIs have been
    // restarted and at least MIN_LOAD_MS has passed.
    const load = (async () => {
      for (let i = 0; !phase.restarted || Date.now() - began < MIN_LOAD_MS; i++) {
        sending.push(tenant.book(i, randomUUID()))
        const due = began + ((i + 1) * 1000) / RATE_PER_SECOND
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))
      }
    })()
    const restartMs: number[] = []
    await new Promise((resolve) => setTimeout(resolve, 1500))
    for (const i of [0, 1]) {
      const at = Date.now()
      await instances.restartApi(i, 'SIGTERM')
      restartMs.push(Date.now() - at)
    }
    phase.restarted = true
    await load
    const loadMs = Date.now() - began
    const results = await Promise.all(sending)
    const retries = expectAllCreated(results)
    await expectDoneOnce(tenant.tenantId, results)
    const duplicates = await everyEventDelivered(tenant.tenantId, '/rolling', results.length)
    console.info(
      `rolling restart: ${results.length} bookings in ${loadMs} ms, restarts ${restartMs.join(' and ')} ms, ` +
        `retried ${JSON.stringify(retries)}, webhook duplicates ${duplicates}`
    )
  })
})
