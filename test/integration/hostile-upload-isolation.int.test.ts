/**
 * One tenant's hostile upload costs the other tenants nothing (issue 54). Tenant A uploads the Markdown line that froze
 * the worker (`# a`, 300,000 spaces, `b`: hours in the old heading pattern) and a PDF whose compressed stream inflates
 * far past the budget; meanwhile tenant B books an appointment (its `booking.created` webhook delivered), and
 * uploads a small document. Through the real API, worker, Temporal and database: B's booking and delivery go through,
 * B's document is READY as usual, A's documents reach a final status (the line READY, read in linear time; the bomb
 * FAILED with its reason), and the worker's event loop never stalled for a second (its own event-loop-lag metric).
 */
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { metricsUrlOf } from '../../scripts/start/worker-process.ts'
import { bookAppointment } from '../support/fixtures.ts'
import { settled, textFile, upload } from '../support/knowledge-http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

/** What the test lets inflate, so the bomb needs only a few megabytes of zeros to exceed it. */
const INFLATE_BUDGET = 8 * 1024 * 1024

let platform: Platform
let receiver: WebhookReceiver
let tenantA: { client: ProvisionedClient; token: string; assistantId: string }
let tenantB: { client: ProvisionedClient; token: string; assistantId: string }

async function tenantWithAssistant(scopes: string[]) {
  const client = await platform.newTenant(scopes)
  const token = await platform.token(client)
  const created = await platform.http.post('/v1/assistants', {
    token,
    body: { name: 'Policies', scope: 'tenant' },
  })
  expect(created.status).toBe(201)
  return { client, token, assistantId: created.body.id as string }
}

/** The worker's largest event-loop stall since the previous read (prom-client resets it on every scrape). */
async function workerLagMaxSeconds(): Promise<number> {
  const text = await (await fetch(metricsUrlOf(platform.workers()[0]!)!)).text()
  const line = text.split('\n').find((l) => /^therapy_nodejs_eventloop_lag_max_seconds[{ ]/.test(l))
  expect(line, 'the worker reports its event-loop lag').toBeDefined()
  return Number(line!.split(' ').at(-1))
}

/** A PDF-shaped file whose one Flate stream inflates to `bytes` of zeros. */
function inflationBomb(bytes: number): Uint8Array {
  const stream = deflateSync(Buffer.alloc(bytes), { level: 9 })
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
    stream,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  ])
}

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      AI_VECTOR_STORE: 'postgres',
      KNOWLEDGE_MAX_INFLATED_BYTES: String(INFLATE_BUDGET),
    },
  })
  tenantA = await tenantWithAssistant(['ai', 'ai.read'])
  tenantB = await tenantWithAssistant(['ai', 'ai.read', 'children', 'providers', 'bookings', 'webhooks'])
  const endpoint = await platform.http.post('/v1/webhook-endpoints', {
    token: tenantB.token,
    body: { url: receiver.url('/b'), events: ['booking.created'] },
  })
  expect(endpoint.status).toBe(201)
}, 120_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

describe("a tenant's hostile upload", () => {
  it("leaves another tenant's booking, delivery and upload as if nothing happened, and ends with a status", async () => {
    await workerLagMaxSeconds()
    const [pathological, bomb] = await upload(platform, tenantA.token, tenantA.assistantId, [
      textFile('evil.md', `# a${' '.repeat(300_000)}b\n\nThe body under it.\n`),
      { name: 'bomb.pdf', type: 'application/pdf', bytes: inflationBomb(4 * INFLATE_BUDGET) },
    ])

    const started = Date.now()
    const booking = await bookAppointment(platform.http, tenantB.token)
    const [small] = await upload(platform, tenantB.token, tenantB.assistantId, [
      textFile('hours.md', '# Opening hours\n\nThe centre opens at 8 am on weekdays.\n'),
    ])
    const [delivered] = await receiver.waitFor('/b', 1, 30_000)
    expect(JSON.parse(delivered!.body).data.bookingId).toBe(booking.id)
    const bDocument = await settled(platform, tenantB.token, small!.id, 1, 30_000)
    expect(bDocument.status).toBe('READY')
    const bReadyMs = Date.now() - started

    const aLine = await settled(platform, tenantA.token, pathological!.id, 1, 60_000)
    const aBomb = await settled(platform, tenantA.token, bomb!.id, 1, 60_000)
    expect(aLine.status).toBe('READY')
    expect(aBomb.status).toBe('FAILED')
    expect(aBomb.failureReason).toMatch(/compressed content expands to more than 8 MB/)
    expect(Date.now() - started).toBeLessThan(60_000)

    const lag = await workerLagMaxSeconds()
    // The figure the issue asks for, in the log of the run (docs/benchmarks.md keeps one).
    console.info(`hostile upload: B's document READY after ${bReadyMs} ms; worker event-loop lag max ${lag} s`)
    expect(lag).toBeLessThan(1)
  }, 150_000)
})
