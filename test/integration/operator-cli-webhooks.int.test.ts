/**
 * The operator CLI's webhook replays against the real database, API dispatcher, worker and a real receiver on
 * loopback: deliveries fail for their whole (shortened) retry window while the receiver is down; the operator lists
 * the tenant's endpoints and failed deliveries, then redelivers one event and everything failed in a time range,
 * and the receiver gets them. The CLI only writes delivery rows; the API's dispatcher sweep starts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli as runInProcess } from '../support/operator-cli.ts'
import { eventually, startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver

/**
 * Runs `npm run cli -- ...args` on this run's database, in this process through the shipped entry's `runCli` (the
 * entry's own process, its output and exit code, is checked in operator-cli.int.test.ts).
 */
const cli = (...args: string[]) => runInProcess({ ...databaseEnvOf(platform.config) }, ...args)

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // A delivery that never succeeds is FAILED after 3 s instead of 24 h.
      WEBHOOK_RETRY_WINDOW_MS: '3000',
      WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '200',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '800',
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

interface Delivery {
  id: string
  eventId: string
  endpointId: string
  kind: string
  status: string
}

/** A tenant with one endpoint for every event type, answered by `path` on the receiver: down until `fix()`. */
async function brokenReceiver(path: string) {
  const client = await platform.newTenant(['children', 'webhooks'])
  const token = await platform.token(client)
  let fixed = false
  receiver.respond(path, () => ({ status: fixed ? 200 : 503 }))
  const created = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), events: ['*'] },
  })
  expect(created.status).toBe(201)
  const registerChild = async (firstName: string) => {
    const child = await platform.http.post('/v1/children', {
      token,
      body: { firstName, lastName: 'Replay', dateOfBirth: '2021-03-04' },
    })
    expect(child.status).toBe(201)
    const events = await platform.http.get(`/v1/events?type=child.registered`, { token })
    return (events.body.data as Array<{ id: string; data: { childId: string } }>).find(
      (e) => e.data.childId === child.body.id
    )!.id
  }
  const deliveries = async () =>
    (await platform.http.get(`/v1/webhook-endpoints/${created.body.id}/deliveries`, { token })).body.data as Delivery[]
  /** Resolves once `count` deliveries exist and none is pending. */
  const settled = (count: number) =>
    eventually(async () => {
      const list = await deliveries()
      return list.length >= count && list.every((d) => d.status !== 'PENDING') ? list : undefined
    }, 120_000)
  return {
    tenantId: client.tenantId,
    endpointId: created.body.id as string,
    registerChild,
    settled,
    fix: () => (fixed = true),
  }
}

describe('npm run cli -- webhooks', () => {
  it("lists a tenant's endpoints and failed deliveries, and redelivers one event once the receiver is fixed", async () => {
    const centre = await brokenReceiver('/cli-one')
    const eventId = await centre.registerChild('Ada')
    const [failed] = await centre.settled(1)
    expect(failed).toMatchObject({ eventId, status: 'FAILED' })

    const endpoints = await cli('webhooks', 'endpoints', '--tenant', centre.tenantId)
    expect(endpoints.code).toBe(0)
    expect(endpoints.out).toEqual([
      expect.objectContaining({ id: centre.endpointId, url: receiver.url('/cli-one'), enabled: true }),
    ])
    // What the API shows: never a secret.
    expect(JSON.stringify(endpoints.out)).not.toMatch(/secret"|whsec_/)

    const listed = await cli('webhooks', 'failed', '--tenant', centre.tenantId)
    expect(listed.out).toEqual([
      expect.objectContaining({ id: failed!.id, eventId, endpointId: centre.endpointId, status: 'FAILED' }),
    ])

    centre.fix()
    const redelivered = await cli(
      'webhooks',
      'redeliver',
      '--tenant',
      centre.tenantId,
      '--endpoint',
      centre.endpointId,
      '--event',
      eventId
    )
    expect(redelivered.code).toBe(0)
    expect(redelivered.out).toMatchObject({ eventId, kind: 'REDELIVERY', status: 'PENDING' })
    const after = await centre.settled(2)
    expect(after.find((d) => d.id === redelivered.out.id)?.status).toBe('SUCCEEDED')
    const received = receiver.received('/cli-one').map((d) => JSON.parse(d.body) as { id: string; type: string })
    expect(received.at(-1)).toMatchObject({ id: eventId, type: 'child.registered' })
  })

  it('redelivers everything that failed in a time range, once', async () => {
    const centre = await brokenReceiver('/cli-range')
    const from = new Date(Date.now() - 1000).toISOString()
    const events = [await centre.registerChild('Bea'), await centre.registerChild('Cy')]
    expect((await centre.settled(2)).map((d) => d.status)).toEqual(['FAILED', 'FAILED'])
    centre.fix()

    const to = new Date(Date.now() + 1000).toISOString()
    const range = ['--tenant', centre.tenantId, '--endpoint', centre.endpointId, '--from', from, '--to', to]
    const recovered = await cli('webhooks', 'redeliver-failed', ...range)
    expect(recovered.code).toBe(0)
    expect(recovered.out).toEqual({ redelivered: 2, hasMore: false })
    const all = await centre.settled(4)
    const redeliveries = all.filter((d) => d.kind === 'REDELIVERY')
    expect(redeliveries.map((d) => d.status)).toEqual(['SUCCEEDED', 'SUCCEEDED'])
    expect(new Set(redeliveries.map((d) => d.eventId))).toEqual(new Set(events))

    // Delivered since: nothing left to replay.
    expect((await cli('webhooks', 'redeliver-failed', ...range)).out).toEqual({ redelivered: 0, hasMore: false })
    // An empty range is the domain's validation error.
    const empty = await cli('webhooks', 'redeliver-failed', ...range.slice(0, 4), '--from', to, '--to', from)
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain('not valid')
  })

  it("refuses another tenant's endpoint, and answers mistakes with the usage", async () => {
    const centre = await brokenReceiver('/cli-isolated')
    const eventId = await centre.registerChild('Dee')
    const other = await platform.newTenant(['children'])
    // One after another: the embedded test database (PGlite) serves one connection at a time.
    const foreign = await cli(
      'webhooks',
      'redeliver',
      '--tenant',
      other.tenantId,
      '--endpoint',
      centre.endpointId,
      '--event',
      eventId
    )
    const listed = await cli('webhooks', 'failed', '--tenant', other.tenantId, '--endpoint', centre.endpointId)
    const endpoints = await cli('webhooks', 'endpoints', '--tenant', other.tenantId)
    const usage = await cli('webhooks', 'replay-all')
    const noOffset = await cli(
      'webhooks',
      'redeliver-failed',
      '--tenant',
      centre.tenantId,
      '--endpoint',
      centre.endpointId,
      '--from',
      '2026-01-01T00:00',
      '--to',
      '2026-01-02T00:00Z'
    )
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toContain(centre.endpointId)
    expect(listed.code).toBe(1)
    expect(endpoints.out).toEqual([])
    expect(usage.code).toBe(1)
    expect(usage.stderr).toContain('webhooks redeliver-failed --tenant')
    expect(noOffset.code).toBe(1)
    expect(noOffset.stderr).toContain('--from must be an ISO 8601 instant')
  })
})
