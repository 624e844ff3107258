/**
 * @module Benchmark (issue 76, "Measured"): one tenant's hostile uploads beside another tenant's ordinary day. An API
 * process and a worker process as `npm start` runs them (the worker niced to 5, its readers 10 more). Tenant A uploads
 * 12 PDF bombs — three of each spelling the old scan let through: a filter chain, an escaped filter name, a long
 * dictionary (each decoding to 1 GiB), and one content stream drawn by 2,000 pages — and 200 Markdown files, all at
 * once; meanwhile tenant B books 200 appointments at 5 a second (each `booking.created` delivered to its endpoint),
 * and records and refunds 20 payments. Measured: when B's deliveries arrive after each booking (p50, p95, max), B's
 * payment and refund answers, the worker's resident memory (sampled every 250 ms) and its readers', and when every
 * document of A's is final and how.
 *
 *   npm run bench:hostile-uploads                            # two readers, the default
 *   BENCH_PARSE_PROCESSES=1 npm run bench:hostile-uploads
 *
 * Writes docs/benchmarks.md, section "Hostile uploads beside another tenant (N readers)".
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { closeDb, createDb } from '../infra/db.ts'
import { freePort } from '../scripts/start/start-process.ts'
import { startApiProcess, startWorkerProcess } from '../scripts/start/worker-process.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'
import { HOSTILE_PDF_KINDS, hostilePdf } from '../test/support/hostile-pdfs.ts'
import { startWebhookReceiver } from '../test/support/webhook-receiver.ts'
import { benchCall } from './bench-call.ts'
import { startBenchServers } from './bench-servers.ts'

const BOOKINGS = 200
const BOOKINGS_PER_SECOND = 5
const PAYMENTS = 20
const MARKDOWN_FILES = 200
const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const servers = await startBenchServers('hostile-uploads-bench')
const receiver = await startWebhookReceiver()
const port = await freePort()
const env = {
  ...servers.env,
  LOG_LEVEL: 'info',
  METRICS_PORT: '0',
  WORKER_METRICS_PORT: '0',
  TEMPORAL_METRICS_PORT: 'off',
  AI_EMBEDDINGS_PROVIDER: 'local',
  WEBHOOK_REQUIRE_HTTPS: 'false',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  // Readers at once per worker (the default, 2, unless BENCH_PARSE_PROCESSES says otherwise; 1 was measured too).
  KNOWLEDGE_PARSE_PROCESSES: process.env.BENCH_PARSE_PROCESSES ?? '2',
}
const api = await startApiProcess({ ...env, PORT: String(port) })
const worker = await startWorkerProcess({ ...env, WORKER_CPU_NICE: '5' })
const base = `http://127.0.0.1:${port}`

/** Resident memory of a process and of its children (the readers), in MB. */
function residentMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => {
      try {
        return /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] === String(pid)
      } catch {
        return false
      }
    })
}
const memory = { workerStart: residentMb(worker.pid), workerMax: 0, readersMax: 0 }
const sampler = setInterval(() => {
  memory.workerMax = Math.max(memory.workerMax, residentMb(worker.pid))
  memory.readersMax = Math.max(memory.readersMax, ...childrenOf(worker.pid).map(residentMb), 0)
}, 250)

const call = benchCall(base)

const db = createDb(servers.database.url, 2)
const [clientA, clientB] = await Promise.all(
  [
    ['ai', 'ai.read'],
    ['children', 'providers', 'bookings', 'webhooks', 'orders', 'payments'],
  ].map((scopes) => provisionClient(db, { tenantName: `Bench ${randomBytes(4).toString('hex')}`, scopes }))
)
await closeDb(db)
const [tokenA, tokenB] = await Promise.all([
  clientCredentialsToken(base, clientA!),
  clientCredentialsToken(base, clientB!),
])
const assistant = await call('POST', '/v1/assistants', tokenA, { name: 'Policies', scope: 'tenant' })
await call('POST', '/v1/webhook-endpoints', tokenB, { url: receiver.url('/b'), events: ['booking.created'] })
const child = await call('POST', '/v1/children', tokenB, {
  firstName: 'Maya',
  lastName: 'Okafor',
  dateOfBirth: '2023-04-18',
})
const providers = await Promise.all(
  Array.from({ length: 10 }, (_, n) =>
    call('POST', '/v1/providers', tokenB, { name: `Therapist ${n}`, timeZone: 'UTC' })
  )
)

type FilePart = { name: string; type: string; bytes: Uint8Array }

/** Uploads files to A's assistant, at most ten a request (KNOWLEDGE_MAX_FILES). */
async function upload(files: FilePart[]): Promise<string[]> {
  const form = new FormData()
  form.append('assistantId', String(assistant.id))
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name)
  const response = await fetch(`${base}/v1/knowledge/documents`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${tokenA}`, 'Idempotency-Key': randomBytes(8).toString('hex') },
    body: form,
  })
  if (response.status !== 202) throw new Error(`upload: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: Array<{ id: string }> }).data.map((d) => d.id)
}

const bombs = HOSTILE_PDF_KINDS.flatMap((kind) =>
  [1, 2, 3].map((n) => ({
    name: `${kind}-${n}.pdf`,
    type: 'application/pdf',
    bytes: hostilePdf(kind, kind === 'shared-stream' ? 2 * 1024 * 1024 : 1024 * 1024 * 1024),
  }))
)
const markdown = Array.from({ length: MARKDOWN_FILES }, (_, n) => ({
  name: `policy-${n}.md`,
  type: 'text/markdown',
  bytes: new TextEncoder().encode(
    `# Policy ${n}\n\nSessions cancelled with less than ${n % 7} days' notice are charged.\n`
  ),
}))
const batches: FilePart[][] = []
for (const files: FilePart[] = [...bombs, ...markdown]; files.length > 0;) batches.push(files.splice(0, 10))

const started = performance.now()
const documents = (await Promise.all(batches.map(upload))).flat()
log(`A uploaded ${documents.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s; B books`)

// B's day: a booking every 200 ms, each to be delivered; payments recorded and refunded beside them.
const bookedAt = new Map<string, number>()
const bookingAnswers: number[] = []
const bookings: Array<Promise<void>> = []
for (let n = 0; n < BOOKINGS; n++) {
  const slot = new Date(Date.UTC(2031, 0, 1 + Math.floor(n / 10), 9 + (n % 10)))
  const sent = performance.now()
  bookings.push(
    call('POST', '/v1/appointments', tokenB, {
      childId: child.id,
      providerId: providers[n % providers.length]!.id,
      startsAt: slot.toISOString(),
    }).then((appointment) => {
      bookedAt.set(String(appointment.id), Date.now())
      bookingAnswers.push(performance.now() - sent)
    })
  )
  await new Promise((resolve) => setTimeout(resolve, 1000 / BOOKINGS_PER_SECOND))
}
const moneyAnswers: number[] = []
for (let n = 0; n < PAYMENTS; n++) {
  const order = await call('POST', '/v1/orders', tokenB, {
    status: 'OPEN',
    currency: 'USD',
    lines: [{ kind: 'SESSION_PACKAGE', description: 'Sessions', unitAmount: 10_000 }],
  })
  let sent = performance.now()
  const payment = await call('POST', '/v1/payments', tokenB, {
    orderId: order.id,
    amount: 10_000,
    currency: 'USD',
    method: 'CASH',
  })
  moneyAnswers.push(performance.now() - sent)
  sent = performance.now()
  await call('POST', `/v1/payments/${String(payment.id)}/refunds`, tokenB, { reason: 'REQUESTED_BY_CLIENT' })
  moneyAnswers.push(performance.now() - sent)
}
await Promise.all(bookings)
const delivered = await receiver.waitFor('/b', BOOKINGS, 120_000)
const lags = delivered
  .map((d) => d.receivedAt - bookedAt.get((JSON.parse(d.body) as { data: { bookingId: string } }).data.bookingId)!)
  .sort((a, b) => a - b)

// Every document of A's final, and how.
const finals = new Map<string, string>()
const deadline = Date.now() + 10 * 60_000
while (finals.size < documents.length && Date.now() < deadline) {
  for (const id of documents.filter((d) => !finals.has(d))) {
    const doc = await call('GET', `/v1/knowledge/documents/${id}`, tokenA)
    if (doc.status !== 'PROCESSING')
      finals.set(
        id,
        typeof doc.failureReason === 'string' ? `FAILED: ${doc.failureReason.split(';')[0]}` : String(doc.status)
      )
  }
  if (finals.size < documents.length) await new Promise((resolve) => setTimeout(resolve, 1000))
}
const allFinalSeconds = (performance.now() - started) / 1000
clearInterval(sampler)

const at = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN
const sortedAnswers = (xs: number[]) => [...xs].sort((a, b) => a - b)
const outcomes = new Map<string, number>()
for (const outcome of finals.values()) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
const report = [
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${servers.database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite in its own process'}, Node ${process.versions.node}, ` +
    `${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the end): an API process and a worker ` +
    `process (nice 5; its readers nice +10, ${env.KNOWLEDGE_PARSE_PROCESSES} at a time, 512 MB each, 2 waiting per ` +
    'tenant), the lexical embeddings. ' +
    `Tenant A uploads 12 PDF bombs (3 × filter chain, escaped name, long dictionary: 1 GiB each; 3 × one 2 MiB stream ` +
    `drawn by 2,000 pages) and ${MARKDOWN_FILES} Markdown files at once; tenant B books ${BOOKINGS} appointments at ` +
    `${BOOKINGS_PER_SECOND} a second, each \`booking.created\` delivered, and records and refunds ${PAYMENTS} payments. ` +
    'Command: `npm run bench:hostile-uploads`.',
  '',
  '| what | p50 | p95 | max | target |',
  '|---|---|---|---|---|',
  `| B: booking answered (ms) | ${at(sortedAnswers(bookingAnswers), 0.5).toFixed(0)} | ${at(sortedAnswers(bookingAnswers), 0.95).toFixed(0)} | ${Math.max(...bookingAnswers).toFixed(0)} | |`,
  `| B: booking to its delivery received (ms) | ${at(lags, 0.5).toFixed(0)} | ${at(lags, 0.95).toFixed(0)} | ${Math.max(...lags).toFixed(0)} | p95 < 2,000 |`,
  `| B: payment or refund answered (ms) | ${at(sortedAnswers(moneyAnswers), 0.5).toFixed(0)} | ${at(sortedAnswers(moneyAnswers), 0.95).toFixed(0)} | ${Math.max(...moneyAnswers).toFixed(0)} | |`,
  '',
  `Deliveries: ${delivered.length} of ${BOOKINGS}. A's ${documents.length} documents final after ` +
    `${allFinalSeconds.toFixed(0)} s (target: 120 s): ${[...outcomes].map(([o, n]) => `${n} ${o}`).join('; ')}. ` +
    `Worker RSS ${memory.workerStart.toFixed(0)} MB at start, ${memory.workerMax.toFixed(0)} MB at most; a reader ` +
    `${memory.readersMax.toFixed(0)} MB at most (the bound: ready size + 512 MB).`,
].join('\n')
console.log(report)
const readers = env.KNOWLEDGE_PARSE_PROCESSES
await writeBenchmarkSection(
  `Hostile uploads beside another tenant (${readers} reader${readers === '1' ? '' : 's'})`,
  report
)

await api.kill('SIGTERM')
await worker.kill('SIGTERM')
await receiver.close()
await servers.stop()
