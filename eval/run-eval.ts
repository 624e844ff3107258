/**
 * `npm run eval`: the knowledge evaluation on a real database, offline. It starts an embedded PostgreSQL (PGlite,
 * which has pgvector) — or uses EVAL_DATABASE_URL — applies the migrations, and for each vector store available
 * (pgvector, and the plain-PostgreSQL fallback) ingests the corpus through the indexing activity's own code, then:
 *
 * - scores recall@5, answers whose citations contain the answer, exact citations, and abstention (eval/knowledge-eval.ts);
 * - adds generated distractor documents until the assistant holds at least 5,000 chunks, and measures query latency
 *   (embed, retrieve in the tenant's transaction, answer) median and p95, plus recall@5 among the distractors;
 * - prints the figures and writes them to docs/benchmarks.md.
 *
 * Options (environment): EVAL_DATABASE_URL, EVAL_TARGET_CHUNKS (5000), EVAL_QUERY_ROUNDS (3), EVAL_WRITE_DOCS (1).
 */
import { cpus, loadavg } from 'node:os'
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { LexicalEmbeddings } from '../domain/ai/embeddings/lexical-embeddings.ts'
import { createAiRuntime, type AiRuntime } from '../domain/ai/ai-runtime.ts'
import { indexDocument } from '../domain/ai/knowledge/index-document.ts'
import type { KnowledgeMediaType } from '../domain/ai/knowledge/media-types.ts'
import { retrievePassages } from '../domain/ai/knowledge/query-knowledge.ts'
import type { VectorStoreKind } from '../domain/ai/vector-store/knowledge-vector-store.ts'
import { newId } from '../domain/ids.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import { createDb, type Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { startEmbeddedPostgres } from '../scripts/db/embedded-postgres.ts'
import { applyMigrations } from '../scripts/db/migrations.ts'
import { writeBenchmarkSection } from '../bench/report.ts'
import { distractorDocument } from './distractors.ts'
import {
  evaluate,
  loadCorpus,
  loadQuestions,
  prepareCorpus,
  type EvalReport,
  type Retriever,
} from './knowledge-eval.ts'

const TARGET_CHUNKS = Number(process.env.EVAL_TARGET_CHUNKS ?? 5000)
const ROUNDS = Number(process.env.EVAL_QUERY_ROUNDS ?? 3)

interface StoreResult {
  kind: VectorStoreKind
  corpusChunks: number
  ingestMs: number
  clean: EvalReport
  heldOut: EvalReport
  loaded: { chunks: number; ingestMs: number; recallAt5: number; answerContained: number; answerable: number }
  latency: {
    queries: number
    medianMs: number
    p95Ms: number
    firstMs: number
    retrieveMedianMs: number
    cpuMedianMs: number
    load: number
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** Stores a document and indexes it with the activity's code; returns its chunk count. */
async function ingest(
  db: Db,
  runtime: AiRuntime,
  tenantId: string,
  assistantId: string,
  file: { name: string; mediaType: KnowledgeMediaType; bytes: Uint8Array }
) {
  const id = newId('knowledgeDocument')
  await runInUnitOfWork(db, tenantId, ({ tx }) =>
    tx.knowledgeDocument.create({
      data: {
        id,
        tenantId,
        assistantId,
        name: file.name,
        mediaType: file.mediaType,
        sizeBytes: file.bytes.byteLength,
        sha256: '-',
        content: new Uint8Array(file.bytes),
      },
    })
  )
  const outcome = await indexDocument(db, runtime, { tenantId, documentId: id, version: 1 })
  if (outcome.status !== 'READY') throw new Error(`${file.name}: ${JSON.stringify(outcome)}`)
  return { id, chunks: outcome.chunkCount }
}

async function runStore(db: Db, tenantId: string, kind: VectorStoreKind): Promise<StoreResult> {
  const runtime = createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: kind }))
  const answerer = createExtractiveAnswerer()
  const assistantId = newId('assistant')
  await runInUnitOfWork(db, tenantId, ({ tx }) =>
    tx.assistant.create({
      data: { id: assistantId, tenantId, name: `Eval ${kind}`, scope: 'tenant', tools: ['knowledge'] },
    })
  )

  const files = await loadCorpus()
  const docs = await prepareCorpus(files)
  const ids = new Map<string, string>()
  let corpusChunks = 0
  const ingestStart = performance.now()
  for (const file of files) {
    const { id, chunks } = await ingest(db, runtime, tenantId, assistantId, file)
    ids.set(file.name, id)
    corpusChunks += chunks
  }
  const ingestMs = performance.now() - ingestStart

  const retrieve: Retriever = (question, k) =>
    runInUnitOfWork(
      db,
      tenantId,
      async (uow) => (await retrievePassages(uow, runtime, assistantId, question, k)).passages
    )
  const questions = await loadQuestions()
  const documentIdOf = (name: string) => ids.get(name)!
  const clean = await evaluate({ questions, docs, retrieve, answerer, documentIdOf })
  const heldOut = await evaluate({
    questions: { answerable: questions.heldOut ?? [], unanswerable: [] },
    docs,
    retrieve,
    answerer,
    documentIdOf,
  })

  let chunks = corpusChunks
  const loadStart = performance.now()
  for (let i = 0; chunks < TARGET_CHUNKS; i++) {
    const doc = distractorDocument(i)
    chunks += (
      await ingest(db, runtime, tenantId, assistantId, {
        name: doc.name,
        mediaType: 'text/markdown',
        bytes: new TextEncoder().encode(doc.text),
      })
    ).chunks
    process.stdout.write(`\r  ${kind}: ${chunks} chunks`)
  }
  process.stdout.write('\n')
  const loadedIngestMs = performance.now() - loadStart
  const loaded = await evaluate({ questions, docs, retrieve, answerer, documentIdOf })

  const all = [...questions.answerable, ...(questions.heldOut ?? []), ...questions.unanswerable].map((q) => q.question)
  const timeQuery = async (question: string, using = runtime) => {
    const started = performance.now()
    const cpu = process.cpuUsage()
    let retrieved = 0
    await runInUnitOfWork(db, tenantId, async (uow) => {
      const { passages } = await retrievePassages(uow, using, assistantId, question, 8)
      retrieved = performance.now() - started
      await answerer.answer(question, passages)
    })
    const used = process.cpuUsage(cpu)
    // The embedded database runs in this process, so this is the CPU of the whole query, database included.
    return { total: performance.now() - started, retrieved, cpu: (used.user + used.system) / 1000 }
  }
  // A process's first query of an assistant (or the first after its chunks changed) loads them into the process
  // (both stores): measured apart, with a fresh runtime whose cache is empty.
  const first = await timeQuery(all[0]!, createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: kind })))
  const totals: number[] = []
  const retrievals: number[] = []
  const cpus: number[] = []
  const load = loadavg()[0]!
  for (let round = 0; round < ROUNDS; round++) {
    for (const question of all) {
      const t = await timeQuery(question)
      totals.push(t.total)
      retrievals.push(t.retrieved)
      cpus.push(t.cpu)
    }
  }
  for (const list of [totals, retrievals, cpus]) list.sort((a, b) => a - b)
  return {
    kind,
    corpusChunks,
    ingestMs,
    clean,
    heldOut,
    loaded: {
      chunks,
      ingestMs: loadedIngestMs,
      recallAt5: loaded.recallAt5,
      answerContained: loaded.answerContained,
      answerable: loaded.answerable,
    },
    latency: {
      queries: totals.length,
      medianMs: percentile(totals, 50),
      p95Ms: percentile(totals, 95),
      firstMs: first.total,
      retrieveMedianMs: percentile(retrievals, 50),
      cpuMedianMs: percentile(cpus, 50),
      load: (load + loadavg()[0]!) / 2,
    },
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`
const ms = (x: number) => x.toFixed(1)

function report(results: StoreResult[], database: string): string {
  const rows = results.map((r) =>
    [
      r.kind,
      `${r.clean.recallAt5.toFixed(3)}`,
      `${r.clean.answerContained}/${r.clean.answered} answered (${r.clean.answerContained}/${r.clean.answerable} asked)`,
      `${r.clean.grounded}/${r.clean.answerable}`,
      `${r.clean.abstained}/${r.clean.unanswerable}`,
      `${r.heldOut.recallAt5.toFixed(3)}; ${r.heldOut.answerContained}/${r.heldOut.answered} answered of ${r.heldOut.answerable}`,
      `${r.loaded.recallAt5.toFixed(3)}`,
      `${ms(r.latency.medianMs)} / ${ms(r.latency.p95Ms)}`,
      ms(r.latency.retrieveMedianMs),
      ms(r.latency.cpuMedianMs),
      ms(r.latency.firstMs),
    ].join(' | ')
  )
  const misses = results[0]!.clean.misses.map(
    (m) =>
      `\`${m.id}\` ${m.retrieved ? '' : 'not in top 5; '}${m.answered ? (m.containsAnswer ? '' : 'wrong citation') : 'abstained'}`
  )
  const falseAnswers = results[0]!.clean.falseAnswers.map((f) => `\`${f.id}\``)
  const target = (ok: boolean) => (ok ? 'met' : 'NOT met')
  const recallOk = results.every((r) => r.clean.recallAt5 >= 0.9)
  const latencyOk = results.every((r) => r.latency.medianMs < 50)
  const cpuVerdict = results
    .map((r) => `${r.kind} ${ms(r.latency.cpuMedianMs)} ms, ${r.latency.cpuMedianMs < 50 ? 'under' : 'over'} 50 ms`)
    .join('; ')
  const load = results.map((r) => r.latency.load.toFixed(1)).join(' and ')
  const citationsOk = results.every((r) => r.clean.answerContained === r.clean.answered)
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run eval\` on ${database}, Node ${process.version}: the corpus in \`eval/corpus\` ` +
      `(${results[0]!.corpusChunks} chunks from 4 PDFs, 3 Markdown files, 1 text file), ${results[0]!.clean.answerable} answerable questions, ` +
      `${results[0]!.heldOut.answerable} held-out and ${results[0]!.clean.unanswerable} unanswerable ones (\`eval/questions.json\`). ` +
      `Offline models: \`${new LexicalEmbeddings().modelId}\` embeddings, \`extractive-v1\` answerer. Latency: ${results[0]!.latency.queries} queries ` +
      `(${ROUNDS} rounds over every question) with the assistant holding ≥ ${TARGET_CHUNKS} chunks (the corpus plus generated distractors), ` +
      'each in its own tenant transaction: embed, retrieve the top 8, answer. Machine: ' +
      `${cpus().length} CPUs, load average ${results.map((r) => r.latency.load.toFixed(1)).join(' and ')} while measuring.`,
    '',
    '| store | recall@5 | citations contain the answer | citations exact | abstained (unanswerable) | held-out recall@5; answers | recall@5 among 5,000 chunks | latency median / p95 ms | retrieval median ms | CPU per query median ms | first query ms (loads the chunks) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
    '',
    `Targets: recall@5 ≥ 0.9 ${target(recallOk)}; every answer's citations contain the answer ${target(citationsOk)}; median latency < 50 ms over 5,000 chunks ${target(latencyOk)} ` +
      `in wall-clock time, measured with a load average of ${load} on ${cpus().length} CPUs. CPU time per query (median; the embedded database ` +
      `runs in this process, so it is included), which approximates the latency of an idle machine: ${cpuVerdict}.`,
    `Misses of the answerable set (first store): ${misses.join(', ') || 'none'}. Unanswerable questions answered anyway: ${falseAnswers.join(', ') || 'none'}.`,
    `Ingestion: the corpus in ${ms(results[0]!.ingestMs)} ms; the distractors (${results.map((r) => `${r.kind}: ${r.loaded.chunks - r.corpusChunks} chunks in ${(r.loaded.ingestMs / 1000).toFixed(1)} s`).join(', ')}).`,
  ].join('\n')
}

async function main() {
  const external = process.env.EVAL_DATABASE_URL
  const embedded = external ? undefined : await startEmbeddedPostgres({ port: 0 })
  const url = external ?? embedded!.connectionString
  const database = external
    ? 'PostgreSQL (EVAL_DATABASE_URL)'
    : 'embedded PGlite (PostgreSQL 17 in WebAssembly, pgvector 0.8)'
  await applyMigrations(url)
  const db = createDb(url, 4)
  try {
    const tenantId = newId('tenant')
    await db.tenant.create({ data: { id: tenantId, name: `Knowledge evaluation ${tenantId}` } })
    const [probe] = await db.$queryRaw<
      Array<{ present: boolean }>
    >`SELECT to_regclass('ai_vectors.knowledge_vectors') IS NOT NULL AS present`
    const kinds: VectorStoreKind[] = probe?.present ? ['pgvector', 'postgres'] : ['postgres']
    const results: StoreResult[] = []
    for (const kind of kinds) {
      console.log(`store ${kind}`)
      const result = await runStore(db, tenantId, kind)
      results.push(result)
      console.log(
        `  recall@5 ${result.clean.recallAt5.toFixed(3)}, citations contain the answer ${result.clean.answerContained}/${result.clean.answered} answered ` +
          `(${pct(result.clean.answerContained / result.clean.answerable)} of answerable), exact ${result.clean.grounded}/${result.clean.answerable}, ` +
          `abstained ${result.clean.abstained}/${result.clean.unanswerable}; held-out recall@5 ${result.heldOut.recallAt5.toFixed(3)}`
      )
      console.log(
        `  ${result.loaded.chunks} chunks: recall@5 ${result.loaded.recallAt5.toFixed(3)}, latency median ${ms(result.latency.medianMs)} ms, ` +
          `p95 ${ms(result.latency.p95Ms)} ms (retrieval median ${ms(result.latency.retrieveMedianMs)} ms, first query ${ms(result.latency.firstMs)} ms)`
      )
      for (const miss of result.clean.misses) console.log(`  miss ${miss.id}: ${miss.question}`)
    }
    const body = report(results, database)
    if (process.env.EVAL_WRITE_DOCS !== '0') await writeBenchmarkSection('Knowledge retrieval and answers', body)
    console.log(`\n${body}`)
  } finally {
    await db.$disconnect()
    await embedded?.stop()
  }
}

await main()
