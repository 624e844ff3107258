/**
 * Delivery through the delivery pumps (workflows on the real dev server) against a real receiver on loopback: retries
 * until success, Retry-After, redirects, 410 Gone, a worker killed in the middle of a retry schedule (the pump's
 * activity runs again on the restarted worker), and a hanging receiver that never slows the API request that caused
 * the event (while the attempt itself gives up at the 10-second deadline).
 */
import { WorkflowNotFoundError } from '@temporalio/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { deliveryPumpWorkflowId, endpointRetryWorkflowId } from '../../common/webhooks/webhook-queue-contract.ts'
import {
  WEBHOOK_DELIVERY_WORKFLOW,
  eventDeliveryWorkflowId,
  type WebhookDeliveryInput,
} from '../../common/webhooks/webhook-delivery-contract.ts'
import { newId } from '../../domain/ids.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { replies, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '300',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '5000',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

/** A fresh tenant with an endpoint at `path` subscribed to `events`. */
async function tenantWithEndpoint(path: string, events: string[] = ['*']) {
  const client = await platform.newTenant(['children', 'webhooks'])
  const token = await platform.token(client)
  const created = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), events },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return { token, tenantId: client.tenantId, endpointId: created.body.id as string }
}

async function registerChild(token: string) {
  const started = performance.now()
  const response = await platform.http.post('/v1/children', {
    token,
    body: { firstName: 'Noor', lastName: 'Haddad', dateOfBirth: '2021-09-09' },
  })
  expect(response.status).toBe(201)
  return { childId: response.body.id as string, ms: performance.now() - started }
}

const deliveries = async (token: string, endpointId: string) =>
  (await platform.http.get(`/v1/webhook-endpoints/${endpointId}/deliveries`, { token })).body.data as Array<{
    id: string
    eventId: string
    status: string
    attemptCount: number
    lastError: string | null
    attempts: Array<{
      number: number
      attemptedAt: string
      statusCode: number | null
      latencyMs: number
      error: string | null
      succeeded: boolean
    }>
  }>

/** Waits until the endpoint's only delivery is no longer PENDING. */
const settled = (token: string, endpointId: string, timeoutMs = 60_000) =>
  eventually(async () => {
    const [delivery] = await deliveries(token, endpointId)
    return delivery && delivery.status !== 'PENDING' ? delivery : undefined
  }, timeoutMs)

describe('the delivery log', () => {
  it('shows a first attempt that succeeded as attempt 1, kept on the delivery row without an attempt row', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/first-try')
    receiver.respond('/first-try', () => ({ status: 204, delayMs: 30 }))
    await registerChild(token)

    const delivery = await settled(token, endpointId)
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, lastError: null })
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        attemptedAt: expect.any(String),
        statusCode: 204,
        latencyMs: expect.any(Number),
        error: null,
        succeeded: true,
      },
    ])
    const [attempt] = delivery.attempts
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(30)
    const row = await platform.db.webhookDelivery.findUniqueOrThrow({
      where: { id: delivery.id },
      include: { attempts: true },
    })
    expect(row.attempts).toEqual([])
    expect(row.firstAttemptAt!.toISOString()).toBe(attempt!.attemptedAt)
    expect(row.firstAttemptLatencyMs).toBe(attempt!.latencyMs)
  })
})

describe('retries', () => {
  it('retries failures with growing delays until a 2xx, recording every attempt', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/flaky')
    receiver.respond('/flaky', replies({ status: 500 }, { status: 503 }, { status: 404 }, { status: 200 }))
    await registerChild(token)

    const delivery = await settled(token, endpointId)
    expect(delivery.status).toBe('SUCCEEDED')
    expect(delivery.attemptCount).toBe(4)
    expect(delivery.attempts.map((a) => [a.number, a.statusCode, a.succeeded])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 404, false],
      [4, 200, true],
    ])
    const at = delivery.attempts.map((a) => Date.parse(a.attemptedAt))
    const gaps = at.slice(1).map((t, i) => t - at[i]!)
    // Equal jitter over 300 ms × 3^n: at least 150, 450, 1350 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(150)
    expect(gaps[1]).toBeGreaterThanOrEqual(450)
    expect(gaps[2]).toBeGreaterThanOrEqual(1350)
    expect(receiver.received('/flaky')).toHaveLength(4)
    // One event id across every attempt: receivers deduplicate on it.
    expect(new Set(receiver.received('/flaky').map((d) => JSON.parse(d.body).id)).size).toBe(1)

    // The endpoint is healthy again. No Temporal work per delivery: no delivery workflow, and no retry workflow for
    // an endpoint whose breaker never opened; the pump that made the attempts is easy to find by its kind.
    const endpoint = await platform.http.get(`/v1/webhook-endpoints/${endpointId}`, { token })
    expect(endpoint.body).toMatchObject({ enabled: true, failingSince: null })
    await expect(platform.temporal.workflow.getHandle(endpointRetryWorkflowId(endpointId)).describe()).rejects.toThrow(
      WorkflowNotFoundError
    )
    const pumpHandle = platform.temporal.workflow.getHandle(
      deliveryPumpWorkflowId(platform.config.TEMPORAL_TASK_QUEUE, 0)
    )
    const pump = await pumpHandle.describe()
    expect(pump.status.name).toBe('RUNNING')
    expect(pump.typedSearchAttributes.get(searchAttributeKeys.WorkflowKind)).toBe('webhook-delivery-pump')
    // A pump never ends on its own: its history so far (the pump activity scheduled) is what replays.
    await recordHistory(pumpHandle, 'webhookDeliveryPumpWorkflow-running')
  })

  it('waits at least what Retry-After asks on a 429', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/busy')
    receiver.respond('/busy', replies({ status: 429, headers: { 'Retry-After': '2' } }, { status: 200 }))
    await registerChild(token)
    const delivery = await settled(token, endpointId)
    expect(delivery.status).toBe('SUCCEEDED')
    const [first, second] = receiver.received('/busy')
    // The backoff alone would have retried within 300 ms.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1900)
  })

  it('treats a redirect as a failure and does not follow it', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/moved')
    receiver.respond(
      '/moved',
      replies({ status: 302, headers: { Location: receiver.url('/moved-target') } }, { status: 204 })
    )
    await registerChild(token)
    const delivery = await settled(token, endpointId)
    expect(delivery.status).toBe('SUCCEEDED')
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 302, error: 'redirect not followed', succeeded: false })
    expect(receiver.received('/moved-target')).toHaveLength(0)
  })
})

describe('410 Gone', () => {
  it('ends the delivery, disables the endpoint with reason GONE and tells the tenant', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/gone', ['child.registered'])
    receiver.respond('/gone', replies({ status: 410 }))
    const watcher = await platform.http.post('/v1/webhook-endpoints', {
      token,
      body: { url: receiver.url('/gone-watcher'), events: ['webhook_endpoint.disabled'] },
    })
    expect(watcher.status).toBe(201)

    await registerChild(token)
    const delivery = await settled(token, endpointId)
    expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 1 })
    expect(delivery.attempts[0]!.statusCode).toBe(410)
    const endpoint = await platform.http.get(`/v1/webhook-endpoints/${endpointId}`, { token })
    expect(endpoint.body).toMatchObject({ enabled: false, disabledReason: 'GONE' })
    expect(Date.parse(endpoint.body.disabledAt)).toBeGreaterThan(Date.now() - 60_000)

    // The tenant's other endpoint hears about it.
    const [notice] = await receiver.waitFor('/gone-watcher', 1)
    expect(JSON.parse(notice!.body)).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { endpointId, reason: 'GONE' },
    })

    // Nothing more goes to the disabled endpoint, and no test event can be sent to it.
    await registerChild(token)
    const test = await platform.http.post(`/v1/webhook-endpoints/${endpointId}/test`, { token })
    expect(test.status).toBe(409)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(receiver.received('/gone')).toHaveLength(1)
    expect(await deliveries(token, endpointId)).toHaveLength(1)
  })
})

describe('worker crash in the middle of a retry schedule', () => {
  it('resumes the schedule on the restarted worker and completes the delivery', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/outage')
    let receiverUp = false
    receiver.respond('/outage', () => (receiverUp ? { status: 200 } : { status: 500 }))
    await registerChild(token)
    // Two failed attempts recorded: the workflow is between attempts, on a durable timer.
    await eventually(async () => ((await deliveries(token, endpointId))[0]?.attemptCount ?? 0) >= 2 || undefined)

    await platform.killWorkers('SIGKILL')
    const attemptsBeforeCrash = receiver.received('/outage').length
    // No worker: the workflow's timer is due, but nothing can attempt the delivery.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    expect(receiver.received('/outage').length).toBeLessThanOrEqual(attemptsBeforeCrash + 1)
    const [during] = await deliveries(token, endpointId)
    expect(during!.status).toBe('PENDING')

    receiverUp = true
    await platform.startWorker()
    const delivery = await settled(token, endpointId, 90_000)
    expect(delivery.status).toBe('SUCCEEDED')
    // Numbering continues across the crash: the same workflow, not a new one.
    expect(delivery.attempts.map((a) => a.number)).toEqual(delivery.attempts.map((_, i) => i + 1))
    expect(delivery.attempts.at(-1)!.succeeded).toBe(true)
    expect(delivery.attempts.filter((a) => !a.succeeded).length).toBeGreaterThanOrEqual(2)
    // The success came from the restarted worker (an attempt cut off by the kill is made again, not recorded twice).
    expect(receiver.received('/outage').length).toBeGreaterThan(attemptsBeforeCrash)
  })
})

describe('a delivery workflow of the earlier design, still running', () => {
  it('hands its delivery to the queue at its next attempt: the pumps go on with its numbering and its window', async () => {
    const { token, tenantId, endpointId } = await tenantWithEndpoint('/legacy')
    receiver.respond('/legacy', () => ({ status: 200 }))
    // What a workflow of the one-workflow-per-delivery design left between attempts: attempt 1 failed a minute ago
    // (its row written, as that design always did), the row marked as its workflow's, the next attempt due now.
    const firstAttemptAt = new Date(Date.now() - 60_000)
    const eventId = newId('event')
    const deliveryId = newId('webhookDelivery')
    const workflowId = eventDeliveryWorkflowId(eventId, endpointId)
    await platform.db.event.create({
      data: {
        id: eventId,
        tenantId,
        type: 'child.registered',
        data: { childId: newId('child') },
        createdAt: firstAttemptAt,
        fannedOutAt: firstAttemptAt,
      },
    })
    await platform.db.webhookDelivery.create({
      data: {
        id: deliveryId,
        tenantId,
        eventId,
        endpointId,
        eventType: 'child.registered',
        kind: 'EVENT',
        workflowId,
        workflowStartedAt: firstAttemptAt,
        attemptCount: 1,
        lastStatusCode: 500,
        nextAttemptAt: new Date(),
        attempts: {
          create: {
            id: newId('webhookAttempt'),
            tenantId,
            number: 1,
            attemptedAt: firstAttemptAt,
            statusCode: 500,
            latencyMs: 12,
            succeeded: false,
          },
        },
      },
    })

    const input: WebhookDeliveryInput = {
      tenantId,
      deliveryId,
      retry: { windowMs: 86_400_000, initialIntervalMs: 300, maxIntervalMs: 5_000 },
    }
    const outcome = await platform.temporal.workflow.execute(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId,
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      args: [input],
    })
    expect(outcome).toBe('QUEUED')

    const delivery = await settled(token, endpointId)
    expect(delivery).toMatchObject({ id: deliveryId, status: 'SUCCEEDED', attemptCount: 2 })
    expect(delivery.attempts.map((a) => [a.number, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ])
    expect(receiver.received('/legacy')).toHaveLength(1)
    const row = await platform.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })
    // The 24-hour window still runs from the attempt the workflow made, and the row is the queue's now.
    expect(row.firstAttemptAt).toEqual(firstAttemptAt)
    expect(row.workflowStartedAt).toBeNull()
  })
})

describe('a hanging receiver', () => {
  /** The delivery attempt's timeout (docs/webhooks.md). */
  const ATTEMPT_TIMEOUT_MS = 10_000

  it('never delays the API request that caused the event; the attempt gives up after 10 seconds', async () => {
    const { token, endpointId } = await tenantWithEndpoint('/hang', ['child.registered'])
    receiver.respond('/hang', (_d, n) => (n === 1 ? 'hang' : { status: 200 }))

    // What proves it is the order, not a stopwatch (a loaded machine slows every request): requests made while the
    // receiver holds the first delivery open all answer while it is still open. A request that waited on the
    // attempt would answer only after its 10 s timeout, when the attempt is recorded and the delivery no longer open.
    const first = await registerChild(token)
    expect(first.ms).toBeLessThan(ATTEMPT_TIMEOUT_MS)
    await receiver.waitFor('/hang', 1)
    const during: number[] = []
    for (let i = 0; i < 5; i++) during.push((await registerChild(token)).ms)
    expect(Math.max(...during)).toBeLessThan(ATTEMPT_TIMEOUT_MS)
    const [open] = await deliveries(token, endpointId).then((list) => list.filter((d) => d.attemptCount === 0))
    expect(open).toMatchObject({ attemptCount: 0 })

    const timedOut = await eventually(async () => {
      const list = await deliveries(token, endpointId)
      return list.flatMap((d) => d.attempts).find((a) => a.statusCode === null)
    }, 30_000)
    expect(timedOut.error).toBe('no response within 10000 ms')
    expect(timedOut.latencyMs).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS)
    // Without the timeout the attempt would never end (the receiver never answers); the bound leaves room for a
    // loaded machine's late timers, not for a second timeout.
    expect(timedOut.latencyMs).toBeLessThan(2 * ATTEMPT_TIMEOUT_MS)
  }, 60_000)
})
