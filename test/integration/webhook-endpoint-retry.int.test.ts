/**
 * A failing endpoint on the time-skipping server, at real lengths: its circuit breaker opens after five failures in a
 * row, one retry workflow holds its schedule while new deliveries wait without a request, a probe that succeeds
 * closes the breaker and the held deliveries drain; held deliveries fail when their 24-hour window ends, and an
 * endpoint failing for five days is disabled and the tenant told. The real API, worker, activities and database;
 * the delivery pump is driven by hand (`pumpWebhooks`), the retry workflow runs on the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { attemptsOf } from '../../domain/webhooks/delivery-log.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { endpointRetryWorkflowId } from '../../common/webhooks/webhook-queue-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

let platform: TimeSkippingPlatform
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startTimeSkippingPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Tokens outlive the days skipped below (the API keeps the wall clock, so they would not expire anyway).
      ACCESS_TOKEN_TTL_SECONDS: String(30 * 24 * 3600),
    },
  })
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
    // Test events reach the endpoint whatever it subscribes to; nothing else the tests do is subscribed.
    body: { url: receiver.url(path), events: ['webhook_endpoint.disabled'] },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return { token, tenantId: client.tenantId, endpointId: created.body.id as string }
}

async function sendTests(token: string, endpointId: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const sent = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/test`, { token })
    expect(sent.status).toBe(202)
    ids.push(sent.body.id as string)
  }
  return ids
}

// As the platform's login, which may not read the secret columns (issue 76, item 5).
const endpointRow = (endpointId: string) =>
  platform.db.webhookEndpoint.findUniqueOrThrow({
    where: { id: endpointId },
    omit: { secret: true, previousSecret: true, signingKey: true, previousSigningKey: true },
  })
const deliveriesOf = (endpointId: string) =>
  platform.db.webhookDelivery.findMany({
    where: { endpointId },
    include: { attempts: true },
    orderBy: { createdAt: 'asc' },
  })

/** How the endpoint's retry workflow ended, once its next step has run. */
async function retryOutcome(endpointId: string) {
  const handle = platform.temporal.workflow.getHandle(endpointRetryWorkflowId(endpointId))
  await platform.skip('1 minute')
  return handle.result()
}

describe('a failing endpoint', () => {
  it('opens its breaker, holds new deliveries on one retry workflow, and drains them once a probe succeeds', async () => {
    const { token, tenantId, endpointId } = await tenantWithEndpoint('/recovers')
    let up = false
    receiver.respond('/recovers', () => ({ status: up ? 200 : 503 }))

    await sendTests(token, endpointId, 5)
    await platform.pumpWebhooks()
    expect(receiver.received('/recovers')).toHaveLength(5)
    const opened = await endpointRow(endpointId)
    expect(opened.consecutiveFailures).toBe(5)
    expect(opened.circuitOpenedAt).not.toBeNull()

    // One workflow for the endpoint, found by its ids.
    const retry = platform.temporal.workflow.getHandle(endpointRetryWorkflowId(endpointId))
    const description = await retry.describe()
    expect(description.status.name).toBe('RUNNING')
    expect(description.typedSearchAttributes.get(searchAttributeKeys.TenantId)).toBe(tenantId)
    expect(description.typedSearchAttributes.get(searchAttributeKeys.WorkflowKind)).toBe('webhook-endpoint-retry')
    expect(description.typedSearchAttributes.get(searchAttributeKeys.WebhookEndpointId)).toBe(endpointId)

    // New deliveries while it is open: stored, no request, whatever their number.
    const held = await sendTests(token, endpointId, 20)
    await platform.pumpWebhooks()
    expect(receiver.received('/recovers')).toHaveLength(5)

    // The schedule probes with the oldest held delivery; a failed probe keeps the breaker open.
    await platform.skip('20 seconds')
    const probed = receiver.received('/recovers').length
    expect(probed).toBeGreaterThan(5)
    expect(probed).toBeLessThanOrEqual(8)
    expect((await endpointRow(endpointId)).circuitOpenedAt).not.toBeNull()

    up = true
    await platform.skip('3 hours')
    expect(await retry.result()).toBe('closed')
    const closed = await endpointRow(endpointId)
    expect(closed).toMatchObject({ circuitOpenedAt: null, consecutiveFailures: 0, failingSince: null })

    // The backlog goes through the pump again, every event delivered.
    await platform.pumpWebhooks()
    const deliveries = await deliveriesOf(endpointId)
    expect(deliveries).toHaveLength(25)
    expect(deliveries.every((d) => d.status === 'SUCCEEDED')).toBe(true)
    const delivered = new Set(receiver.received('/recovers').map((d) => JSON.parse(d.body).id as string))
    for (const id of held) expect(delivered.has(id)).toBe(true)
    // Each held delivery's request count: one (the probe's, or the drain's); none sent twice after success. A first
    // attempt that succeeded is on the delivery row (the log shows it as attempt 1), every other in an attempt row.
    const successes = deliveries.flatMap((d) => attemptsOf(d).filter((a) => a.succeeded))
    expect(successes).toHaveLength(25)
    expect(deliveries.filter((d) => d.attempts.length === 0)).toHaveLength(20)
    await recordHistory(retry, 'webhookEndpointRetryWorkflow-recovered')
  })

  it('fails held deliveries when their 24-hour window ends, and disables the endpoint after five days', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/gone-quiet')
    receiver.respond('/gone-quiet', () => ({ status: 500 }))
    const started = await platform.now()

    const first = await sendTests(token, endpointId, 5)
    await platform.pumpWebhooks()
    await platform.skip('23 hours')
    // Each delivery's state in full, so that a failure says what happened to them rather than that none was pending.
    const waiting = (await deliveriesOf(endpointId)).map((d) => ({
      status: d.status,
      firstAttemptAt: d.firstAttemptAt?.toISOString(),
      lastError: d.lastError,
      attempts: d.attempts.length,
    }))
    expect(
      waiting.map((d) => d.status),
      JSON.stringify({ now: await platform.now(), waiting })
    ).toEqual(Array(5).fill('PENDING'))
    await platform.skip('2 hours')
    const expired = await deliveriesOf(endpointId)
    expect(expired.map((d) => d.status)).toEqual(['FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED'])
    for (const delivery of expired) {
      expect(delivery.lastError).toContain('retry window over')
      const window = delivery.completedAt!.getTime() - delivery.firstAttemptAt!.getTime()
      expect(window).toBeGreaterThanOrEqual(DAY_MS)
      // Marked when the window ended (the workflow wakes for it), not at some later probe.
      expect(window).toBeLessThan(DAY_MS + HOUR_MS)
    }
    expect(new Set(expired.map((d) => d.eventId))).toEqual(new Set(first))

    // Events keep coming, one a day; every delivery fails; the endpoint is disabled once it has failed for five days.
    for (let day = 1; day <= 6 && (await endpointRow(endpointId)).enabled; day++) {
      await sendTests(token, endpointId, 1)
      await platform.pumpWebhooks()
      await platform.skip('1 day')
    }
    const disabled = await endpointRow(endpointId)
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'FAILING' })
    expect(disabled.disabledAt!.getTime() - disabled.failingSince!.getTime()).toBeGreaterThanOrEqual(5 * DAY_MS)
    expect(disabled.disabledAt!.getTime() - started).toBeLessThan(6 * DAY_MS + HOUR_MS)
    // Nothing left waiting, and the tenant was told.
    expect((await deliveriesOf(endpointId)).filter((d) => d.status === 'PENDING')).toEqual([])
    const told = await platform.http.get('/v1/events?type=webhook_endpoint.disabled', { token })
    expect(told.body.data).toHaveLength(1)
    expect(told.body.data[0].data).toMatchObject({ endpointId, reason: 'FAILING' })
    const retry = platform.temporal.workflow.getHandle(endpointRetryWorkflowId(endpointId))
    expect(await retry.result()).toBe('disabled')

    // Enabled again once fixed: the breaker is closed and the run of failures forgotten, so the pumps send to it.
    receiver.respond('/gone-quiet', () => ({ status: 200 }))
    const enabled = await platform.http.request('PATCH', `/v1/webhook-endpoints/${endpointId}`, {
      token,
      body: { enabled: true },
    })
    expect(enabled.status).toBe(200)
    expect(await endpointRow(endpointId)).toMatchObject({ circuitOpenedAt: null, consecutiveFailures: 0 })
    const [next] = await sendTests(token, endpointId, 1)
    await platform.pumpWebhooks()
    // Not necessarily the last to arrive: the same round may fan out the endpoint's own `webhook_endpoint.disabled`
    // event (recorded while it was disabled, fanned out now that it is enabled), and the two are sent concurrently.
    const arrived = receiver.received('/gone-quiet').map((d) => JSON.parse(d.body).id as string)
    expect(arrived).toContain(next)
  })

  it('closes the breaker when the endpoint is pointed at another URL, and lets what it holds through', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/old-home')
    receiver.respond('/old-home', () => ({ status: 502 }))
    await sendTests(token, endpointId, 5)
    await platform.pumpWebhooks()
    const held = await sendTests(token, endpointId, 2)
    await platform.pumpWebhooks()
    expect((await endpointRow(endpointId)).circuitOpenedAt).not.toBeNull()
    // Held out of the pumps' due range: the change of URL must make them due again.
    expect((await deliveriesOf(endpointId)).map((d) => [d.status, d.nextAttemptAt])).toEqual(
      Array.from({ length: 7 }, () => ['PENDING', null])
    )

    const moved = await platform.http.request('PATCH', `/v1/webhook-endpoints/${endpointId}`, {
      token,
      body: { url: receiver.url('/new-home') },
    })
    expect(moved.status).toBe(200)
    await platform.pumpWebhooks()
    const arrived = receiver.received('/new-home').map((d) => JSON.parse(d.body).id as string)
    expect(arrived).toHaveLength(7)
    for (const id of held) expect(arrived).toContain(id)
    expect(await retryOutcome(endpointId)).toBe('closed')
  })
})
