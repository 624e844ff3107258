/**
 * One tenant's hostile uploads cost the other tenants nothing (issues 54 and 76). Tenant A uploads the Markdown line
 * that froze the worker (`# a`, 300,000 spaces, `b`), a PDF bomb of each spelling the old scan let through (a filter
 * chain, an escaped name, a long dictionary, one stream shared by 2,000 pages) and a pile of ordinary Markdown, more
 * than the readers' queue holds; meanwhile tenant B books an appointment (its `booking.created` webhook delivered) and
 * uploads a small document. The main worker has two activity slots, as few as a slot budget can be: if indexing took
 * them, B's booking would wait behind A's files. Through the real API, worker, Temporal and database: B's delivery and
 * document go through at once, every A document reaches a final status (the bombs FAILED at the memory budget, the
 * rest READY, some after waiting on a durable timer), and the worker's event loop and memory stay where they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { metricsUrlOf } from '../../scripts/start/worker-process.ts'
import { bookAppointment } from '../support/fixtures.ts'
import { HOSTILE_PDF_KINDS, hostilePdf } from '../support/hostile-pdfs.ts'
import { settled, textFile, upload, type FilePart } from '../support/knowledge-http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

/** What one file may add to a reader: the bombs reach it in a few seconds. */
const MEMORY_BUDGET_MB = 128
const ORDINARY_FILES = 12

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

/** One of the worker's metrics (the event-loop stall is the largest since the previous read: prom-client resets it). */
async function workerMetric(name: string): Promise<number> {
  const text = await (await fetch(metricsUrlOf(platform.workers()[0]!)!)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  expect(line, `the worker reports ${name}`).toBeDefined()
  return Number(line!.split(' ').at(-1))
}
const workerLagMaxSeconds = () => workerMetric('therapy_nodejs_eventloop_lag_max_seconds')
const workerResidentMb = async () =>
  Math.round((await workerMetric('therapy_process_resident_memory_bytes')) / 1024 ** 2)

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      AI_VECTOR_STORE: 'postgres',
      KNOWLEDGE_PARSE_MAX_MEMORY_MB: String(MEMORY_BUDGET_MB),
      // The production priority: the readers yield the CPU to B's work.
      KNOWLEDGE_PARSE_NICE: '10',
      // One file waiting per tenant, three in all: most of A's files are turned away and come back on a timer.
      KNOWLEDGE_PARSE_WAITING_PER_TENANT: '1',
      KNOWLEDGE_PARSE_WAITING: '3',
      WORKER_MAX_CONCURRENT_ACTIVITIES: '2',
      // Workflows in their own thread, as in production: the suite's worker hosts run them on the main thread to save
      // a bundle compile, and then every indexing workflow's activations (17 documents, their deferrals on timers)
      // count in the event-loop lag this file bounds (3.1 s in a loaded CI run).
      WORKER_WORKFLOWS_IN_MAIN_THREAD: 'false',
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

describe("a tenant's hostile uploads", () => {
  it("leave another tenant's booking, delivery and upload as if nothing happened, and each ends with a status", async () => {
    await workerLagMaxSeconds()
    const residentBefore = await workerResidentMb()
    const bombs: FilePart[] = HOSTILE_PDF_KINDS.map((kind) => ({
      name: `${kind}.pdf`,
      type: 'application/pdf',
      bytes: hostilePdf(kind, kind === 'shared-stream' ? 2 * 1024 * 1024 : 1024 * 1024 * 1024),
    }))
    const ordinary = Array.from({ length: ORDINARY_FILES }, (_, n) =>
      textFile(
        `policy-${n}.md`,
        `# Policy ${n}\n\nSessions cancelled with less than ${n + 1} days' notice are charged.\n`
      )
    )
    const aDocuments = [
      ...(await upload(platform, tenantA.token, tenantA.assistantId, [
        textFile('evil.md', `# a${' '.repeat(300_000)}b\n\nThe body under it.\n`),
        ...bombs,
      ])),
      ...(await upload(platform, tenantA.token, tenantA.assistantId, ordinary.slice(0, 6))),
      ...(await upload(platform, tenantA.token, tenantA.assistantId, ordinary.slice(6))),
    ]

    const started = Date.now()
    const booking = await bookAppointment(platform.http, tenantB.token)
    const [small] = await upload(platform, tenantB.token, tenantB.assistantId, [
      textFile('hours.md', '# Opening hours\n\nThe centre opens at 8 am on weekdays.\n'),
    ])
    const [delivered] = await receiver.waitFor('/b', 1, 30_000)
    const bDeliveredMs = Date.now() - started
    expect(JSON.parse(delivered!.body).data.bookingId).toBe(booking.id)
    const bDocument = await settled(platform, tenantB.token, small!.id, 1, 60_000)
    expect(bDocument.status).toBe('READY')
    const bReadyMs = Date.now() - started

    const finals = await Promise.all(aDocuments.map((doc) => settled(platform, tenantA.token, doc.id, 1, 180_000)))
    const aDoneMs = Date.now() - started
    const byName = new Map(finals.map((doc) => [doc.name as string, doc]))
    // Stopped by what decoding measured: the memory budget, or — on a machine too busy to give a lowered reader the
    // CPU to decode that far — its deadline. Never read, never left running.
    const bounded = new RegExp(
      `^(Reading the file needed more than ${MEMORY_BUDGET_MB} MB of memory|Reading the file took longer than 20 s)`
    )
    for (const kind of HOSTILE_PDF_KINDS) {
      expect(byName.get(`${kind}.pdf`)?.status, kind).toBe('FAILED')
      expect(byName.get(`${kind}.pdf`)?.failureReason, kind).toMatch(bounded)
    }
    expect(byName.get('evil.md')!.status).toBe('READY')
    expect(ordinary.map((file) => byName.get(file.name)!.status)).toEqual(ordinary.map(() => 'READY'))

    const lag = await workerLagMaxSeconds()
    const residentAfter = await workerResidentMb()
    // The figures the issue asks for, in the log of the run (docs/benchmarks.md keeps the bench's).
    console.info(
      `hostile uploads: B's delivery after ${bDeliveredMs} ms, B's document READY after ${bReadyMs} ms, A's ` +
        `${aDocuments.length} documents final after ${aDoneMs} ms; worker event-loop lag max ${lag} s, RSS ` +
        `${residentBefore} → ${residentAfter} MB`
    )
    // B waited for no file of A's: its delivery within seconds, its document behind at most one file being read (the
    // next free reader goes to the tenant reading least: 16 s beside four busy loops, 47 s when A's turn came first).
    expect(bDeliveredMs).toBeLessThan(15_000)
    expect(bReadyMs).toBeLessThan(45_000)
    // No freeze (the old line held it for hours): 0.6 s at most on a quiet machine, 1.3–3.1 s in CI runs with two
    // cores shared by many files while workflows ran on the worker's main thread (now in their own, as in
    // production); the parsing itself is in the readers, and chunking and embedding these documents stalls a loop by
    // under 50 ms (measured in process).
    expect(lag).toBeLessThan(3)
    // Gigabytes were decoded, in the readers: the worker's own memory barely moved.
    expect(residentAfter - residentBefore).toBeLessThan(200)
  }, 300_000)
})
