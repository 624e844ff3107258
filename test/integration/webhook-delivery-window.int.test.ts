/**
 * The retry window and what follows it, with the 24-hour window and the 5-day disable threshold shortened through
 * configuration (WEBHOOK_RETRY_WINDOW_MS, WEBHOOK_DISABLE_AFTER_MS): a delivery that never succeeds is retried up to
 * the end of the window and then FAILED; an endpoint failing for longer than the threshold is disabled and the
 * tenant told; failed deliveries are redelivered one by one or by time range once the receiver is fixed.
 *
 * These are the delivery queue's own retries (an endpoint whose circuit breaker stays closed: the threshold is set out
 * of reach here). The breaker, the failing endpoint's retry workflow and its real 24-hour and 5-day clocks are tested
 * on the time-skipping server (webhook-endpoint-retry.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { newId } from '../../domain/ids.ts'

const WINDOW_MS = 6000
const DISABLE_AFTER_MS = 10_000
/** How late a timer or task may run on the shared test machine (the dev server's timers fire up to ~1 s late). */
const SCHEDULING_SLACK_MS = 2000

let platform: Platform
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_WINDOW_MS: String(WINDOW_MS),
      WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '200',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '800',
      WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS),
      WEBHOOK_CIRCUIT_FAILURES: '1000',
    },
  })
  // A first delivery warms the worker (workflow sandbox, database connections), so the timings below measure the
  // schedule rather than a cold start.
  const { token, endpointId } = await tenantWithEndpoint('/warm-up')
  await sendTest(token, endpointId)
  await receiver.waitFor('/warm-up', 1, 60_000)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

async function tenantWithEndpoint(path: string) {
  const client = await platform.newTenant(['children', 'webhooks'])
  const token = await platform.token(client)
  const created = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), events: ['*'] },
  })
  expect(created.status).toBe(201)
  return { token, endpointId: created.body.id as string }
}

interface Delivery {
  id: string
  eventId: string
  kind: string
  status: string
  nextAttemptAt: string | null
  completedAt: string | null
  lastError: string | null
  attempts: Array<{ attemptedAt: string; statusCode: number | null; latencyMs: number }>
}

const listDeliveries = async (token: string, endpointId: string, query = '') =>
  (await platform.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries${query}`, { token })).body.data as Delivery[]

const finished = (token: string, endpointId: string, count: number) =>
  eventually(async () => {
    const list = await listDeliveries(token, endpointId)
    return list.length >= count && list.every((d) => d.status !== 'PENDING') ? list : undefined
  }, 60_000)

const sendTest = async (token: string, endpointId: string) => {
  const response = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/test`, { token })
  expect(response.status).toBe(202)
  return response.body.id as string
}

// The three behaviours run side by side, each on its own tenant, endpoint and receiver path: their windows overlap
// instead of adding up (about 30 s of waiting one after another).
describe.concurrent('webhook delivery over time', () => {
  describe('the retry window', () => {
    it('retries until the end of the window after the first attempt, then marks the delivery FAILED', async () => {
      const { token, endpointId } = await tenantWithEndpoint('/down')
      receiver.respond('/down', () => ({ status: 500 }))
      await sendTest(token, endpointId)

      const [delivery] = await finished(token, endpointId, 1)
      expect(delivery!.status).toBe('FAILED')
      expect(delivery!.nextAttemptAt).toBeNull()
      const times = delivery!.attempts.map((a) => Date.parse(a.attemptedAt))
      const first = times[0]!
      expect(times.length).toBeGreaterThanOrEqual(4)
      // Every attempt scheduled inside the window, the last one at its end (not dropped because a full backoff did not
      // fit); timers and tasks may run a little late on a loaded machine, never early.
      for (const t of times) expect(t - first).toBeLessThanOrEqual(WINDOW_MS + SCHEDULING_SLACK_MS)
      // The window is used fully: the last attempt is the retry due at its end exactly, or one still under way when
      // it ended (its failure came after the end, so no retry was left: a CI run saw one begin at 5,940 of 6,000 ms).
      // (The window runs from the first attempt's start, read a few ms before its recorded `attemptedAt`: a CI run saw
      // 5,987 of 6,000 ms. Early by more than that would be a retry made before it was due.)
      const last = delivery!.attempts.at(-1)!
      expect(times.at(-1)! + last.latencyMs - first).toBeGreaterThanOrEqual(WINDOW_MS - 50)
      expect(Date.parse(delivery!.completedAt!)).toBeGreaterThanOrEqual(times.at(-1)!)

      // Nothing after the window: the receiver got exactly the recorded attempts, and no more come.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(receiver.received('/down')).toHaveLength(times.length)
    })
  })

  describe('redelivery', () => {
    it('redelivers one event, and every failed event of a time range once the receiver is fixed', async () => {
      const { token, endpointId } = await tenantWithEndpoint('/fixed-later')
      let fixed = false
      receiver.respond('/fixed-later', () => ({ status: fixed ? 200 : 503 }))
      const from = new Date(Date.now() - 1000).toISOString()
      const failedEvents = [await sendTest(token, endpointId), await sendTest(token, endpointId)]
      const failed = await finished(token, endpointId, 2)
      expect(failed.map((d) => d.status)).toEqual(['FAILED', 'FAILED'])

      fixed = true
      // An empty range is refused.
      const empty = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/recover`, {
        token,
        body: { from, to: from },
      })
      expect(empty.status).toBe(400)
      expect(empty.body.errors[0]).toMatchObject({ path: 'to', code: 'invalid_range' })

      const recovered = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/recover`, {
        token,
        body: { from, to: new Date(Date.now() + 1000).toISOString() },
      })
      expect(recovered.status).toBe(202)
      expect(recovered.body).toEqual({ redelivered: 2, hasMore: false })
      const all = await finished(token, endpointId, 4)
      const redeliveries = all.filter((d) => d.kind === 'REDELIVERY')
      expect(redeliveries.map((d) => d.status)).toEqual(['SUCCEEDED', 'SUCCEEDED'])
      expect(new Set(redeliveries.map((d) => d.eventId))).toEqual(new Set(failedEvents))

      // Delivered since: a second recovery finds nothing to do.
      const again = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/recover`, {
        token,
        body: { from, to: new Date(Date.now() + 1000).toISOString() },
      })
      expect(again.body).toEqual({ redelivered: 0, hasMore: false })

      // One event on request, delivered or not.
      const single = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/redeliveries`, {
        token,
        body: { eventId: failedEvents[0] },
      })
      expect(single.status).toBe(202)
      expect(single.body).toMatchObject({ eventId: failedEvents[0], kind: 'REDELIVERY', status: 'PENDING' })
      await finished(token, endpointId, 5)
      const bodies = receiver.received('/fixed-later').map((d) => JSON.parse(d.body).id)
      expect(bodies.filter((id) => id === failedEvents[0]).length).toBeGreaterThanOrEqual(3)

      // The per-event log shows every delivery of that event.
      const perEvent = await platform.http.get(`/v1/events/${failedEvents[0]}/deliveries`, { token })
      expect(perEvent.body.data.map((d: Delivery) => d.status).sort()).toEqual(['FAILED', 'SUCCEEDED', 'SUCCEEDED'])

      const missing = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/redeliveries`, {
        token,
        body: { eventId: newId('event') },
      })
      expect(missing.status).toBe(404)
    })
  })

  describe('an endpoint that keeps failing', () => {
    it('is disabled once every attempt has failed for longer than the threshold, and the tenant is told', async () => {
      const { token, endpointId } = await tenantWithEndpoint('/broken')
      receiver.respond('/broken', () => ({ status: 500 }))
      // Events keep coming; each delivery fails for its whole window; the endpoint's failure clock keeps running.
      const started = Date.now()
      const disabled = await eventually(
        async () => {
          await sendTest(token, endpointId).catch(() => undefined)
          const endpoint = await platform.http.get(`/v1/webhook-endpoints/${endpointId}`, { token })
          return endpoint.body.enabled === false ? endpoint.body : undefined
        },
        60_000,
        1500
      )
      expect(disabled.disabledReason).toBe('FAILING')
      expect(Date.parse(disabled.disabledAt) - Date.parse(disabled.failingSince)).toBeGreaterThanOrEqual(
        DISABLE_AFTER_MS
      )
      expect(Date.now() - started).toBeGreaterThanOrEqual(DISABLE_AFTER_MS)

      const events = await platform.http.get('/v1/events?type=webhook_endpoint.disabled', { token })
      expect(events.body.data).toHaveLength(1)
      expect(events.body.data[0].data).toMatchObject({ endpointId, reason: 'FAILING' })

      // A disabled endpoint takes no redelivery until it is enabled again.
      const refused = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/redeliveries`, {
        token,
        body: { eventId: events.body.data[0].id },
      })
      expect(refused.status).toBe(409)

      // Re-enabling clears the reason and the failure clock.
      const enabled = await platform.http.request('PATCH', `/v1/webhook-endpoints/${endpointId}`, {
        token,
        body: { enabled: true },
      })
      expect(enabled.status).toBe(200)
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, failingSince: null })
    }, 90_000)
  })
})
