/**
 * @module Benchmark (issue 38): what the sentence model costs the platform around it. An API process and a worker
 * process (niced, as `npm start` and the compose file run it) on the sentence model; a client's guarded
 * `GET /v1/children/{id}` measured idle, then while a 200-page PDF is indexed by the worker's knowledge activity
 * (target: p95 no more than 1.5× idle), and the resident memory of both processes before and after the model has
 * loaded (`VmRSS`, and `VmHWM` for the peak).
 *
 *   npm run bench:knowledge-indexing                 # the embedded database in its own process
 *   BENCH_DATABASE_URL=postgresql://... npm run bench:knowledge-indexing
 *
 * Writes docs/benchmarks.md, section "Knowledge indexing beside requests".
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { parsePdfSource } from '../eval/make-pdfs.ts'
import { renderPdf, type PdfBlock } from '../eval/pdf-writer.ts'
import { closeDb, createDb } from '../infra/db.ts'
import { freePort } from '../scripts/start/start-process.ts'
import { startApiProcess, startWorkerProcess } from '../scripts/start/worker-process.ts'
import { benchCall } from './bench-call.ts'
import { startBenchServers } from './bench-servers.ts'
import { runLoadInWorker, type LoadResult } from './load.ts'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { clientCredentialsToken } from '../scripts/lib/client-token.ts'

const PAGES = Number(process.env.BENCH_PAGES ?? 200)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4)
const ROUND_MS = 3000
const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const servers = await startBenchServers('knowledge-bench')
const { database } = servers
const port = await freePort()
const env = {
  ...servers.env,
  LOG_LEVEL: 'info',
  METRICS_PORT: '0',
  WORKER_METRICS_PORT: '0',
  TEMPORAL_METRICS_PORT: 'off',
  AI_EMBEDDINGS_PROVIDER: 'sentence',
  // A 200-page PDF is larger than the default per-file limit allows for.
  KNOWLEDGE_MAX_FILE_BYTES: String(50 * 1024 * 1024),
  KNOWLEDGE_UPLOAD_LIMIT_BYTES: String(50 * 1024 * 1024),
}
const api = await startApiProcess({ ...env, PORT: String(port) })
const worker = await startWorkerProcess({ ...env, WORKER_CPU_NICE: '10' })
if (/sentence model is absent/.test(api.output() + worker.output()))
  throw new Error('the sentence model is absent: run scripts/ai/obtain-sentence-model.sh first')
const base = `http://127.0.0.1:${port}`

/** Resident and peak memory of a process, in MB (Linux). */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}
const memory = { started: { api: memoryOf(api.pid), worker: memoryOf(worker.pid) } }

const db = createDb(database.url, 2)
const client = await provisionClient(db, {
  tenantName: `Bench ${randomBytes(4).toString('hex')}`,
  scopes: ['children', 'ai', 'ai.read'],
})
await closeDb(db)
const call = benchCall(base)
const token = await clientCredentialsToken(base, client)
const child = await call('POST', '/v1/children', token, {
  firstName: 'Bench',
  lastName: 'Child',
  dateOfBirth: '2022-02-02',
})
const assistant = await call('POST', '/v1/assistants', token, { name: 'Bench assistant', scope: 'tenant' })
const guardedUrl = `${base}/v1/children/${String(child.id)}`
const auth = { Authorization: `Bearer ${token}` }

/** The evaluation corpus's PDF sources, cycled into `PAGES` pages of policy text. */
function bigPdf(): Buffer {
  const sources = fileURLToPath(new URL('../eval/pdf-sources/', import.meta.url))
  const blocks: PdfBlock[] = readdirSync(sources)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .flatMap((f) => parsePdfSource(readFileSync(join(sources, f), 'utf8')).pages.flat())
    .filter((b) => b.kind !== 'title')
  const pages: PdfBlock[][] = []
  for (let i = 0; pages.length < PAGES; i += 6) {
    pages.push([
      { kind: 'heading', text: `Section ${pages.length + 1}` },
      ...blocks.slice(i % blocks.length, (i % blocks.length) + 6),
    ])
  }
  return renderPdf({ title: 'Bench handbook', pages })
}

// Idle, with the model loaded: one query makes the API load it, as the first question of the day would.
await call('POST', '/v1/knowledge/query', token, { assistantId: assistant.id, question: 'What are the opening hours?' })
const idle: LoadResult[] = []
for (let round = 0; round < 3; round++)
  idle.push(await runLoadInWorker({ url: guardedUrl, headers: auth, concurrency: CONCURRENCY, durationMs: ROUND_MS }))

const pdf = bigPdf()
const form = new FormData()
form.append('assistantId', String(assistant.id))
form.append('files', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'bench-handbook.pdf')
const uploadedAt = performance.now()
const uploaded = await fetch(`${base}/v1/knowledge/documents`, {
  method: 'POST',
  headers: { ...auth, 'Idempotency-Key': randomBytes(8).toString('hex') },
  body: form,
})
if (uploaded.status !== 202) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`)
const documentId = ((await uploaded.json()) as { data: Array<{ id: string }> }).data[0]!.id
log(`uploaded ${PAGES} pages (${(pdf.length / 1024).toFixed(0)} KB); measuring while it indexes`)

const during: LoadResult[] = []
let indexed: { status: string; chunkCount?: number; pageCount?: number } | undefined
while (!indexed) {
  during.push(await runLoadInWorker({ url: guardedUrl, headers: auth, concurrency: CONCURRENCY, durationMs: ROUND_MS }))
  const doc = (await call('GET', `/v1/knowledge/documents/${documentId}`, token)) as {
    status: string
    chunkCount?: number
    pageCount?: number
  }
  if (doc.status !== 'PROCESSING') indexed = doc
}
const indexingSeconds = (performance.now() - uploadedAt) / 1000
const after = { api: memoryOf(api.pid), worker: memoryOf(worker.pid) }
if (indexed.status !== 'READY') throw new Error(`the document ended ${indexed.status}`)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
// The rounds that ran wholly while indexing: the last one may have ended after it.
const duringIndexing = during.length > 1 ? during.slice(0, -1) : during
const p95Of = (rounds: LoadResult[]) => median(rounds.map((r) => r.p95Ms))
const idleTail = p95Of(idle)
const busyTail = p95Of(duringIndexing)
const ratio = busyTail / idleTail
const errors = [...idle, ...during].reduce((n, r) => n + r.errors, 0)
const mb = (m: { rssMb: number; peakMb: number }) => `${m.rssMb.toFixed(0)} (peak ${m.peakMb.toFixed(0)})`
const report = [
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${database.kind === 'postgresql' ? 'PostgreSQL server' : 'embedded PGlite in its own process'}, Node ${process.versions.node}, ` +
    `${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the end): an API process and a worker ` +
    `process (nice 10) on \`minilm-l6-v2-int8-384\`; ${CONCURRENCY} keep-alive connections on the guarded ` +
    `\`GET /v1/children/{id}\` in ${ROUND_MS / 1000} s rounds, 3 idle, then while a ${PAGES}-page PDF ` +
    `(${(pdf.length / 1024).toFixed(0)} KB) is indexed by the worker. Command: \`npm run bench:knowledge-indexing\`` +
    (database.kind === 'postgresql' ? ' with `BENCH_DATABASE_URL`.' : '.'),
  '',
  '| phase | rounds | requests/s | p50 ms | p95 ms | p99 ms |',
  '|---|---|---|---|---|---|',
  `| idle | ${idle.length} | ${median(idle.map((r) => r.requestsPerSecond)).toFixed(0)} | ${median(idle.map((r) => r.p50Ms)).toFixed(1)} | ${idleTail.toFixed(1)} | ${median(idle.map((r) => r.p99Ms)).toFixed(1)} |`,
  `| while indexing | ${duringIndexing.length} | ${median(duringIndexing.map((r) => r.requestsPerSecond)).toFixed(0)} | ${median(duringIndexing.map((r) => r.p50Ms)).toFixed(1)} | ${busyTail.toFixed(1)} | ${median(duringIndexing.map((r) => r.p99Ms)).toFixed(1)} |`,
  '',
  `**p95 while indexing: ${ratio.toFixed(2)}× idle** (the median round's of each phase; target ≤ 1.5×): ` +
    `${ratio <= 1.5 ? 'met' : 'NOT met'}. The document: ${indexed.pageCount ?? '?'} pages, ${indexed.chunkCount ?? '?'} ` +
    `chunks, READY ${indexingSeconds.toFixed(1)} s after the upload ` +
    `(${((indexed.chunkCount ?? 0) / indexingSeconds).toFixed(1)} chunks/s end to end). Errors: ${errors}.`,
  '',
  '| process | RSS MB at start | RSS MB after indexing (peak) |',
  '|---|---|---|',
  `| API (answered one query: model loaded) | ${memory.started.api.rssMb.toFixed(0)} | ${mb(after.api)} |`,
  `| worker (indexed the document) | ${memory.started.worker.rssMb.toFixed(0)} | ${mb(after.worker)} |`,
].join('\n')
console.log(report)
await writeBenchmarkSection('Knowledge indexing beside requests', report)

await api.kill('SIGTERM')
await worker.kill('SIGTERM')
await servers.stop()
if (errors > 0) process.exitCode = 1
