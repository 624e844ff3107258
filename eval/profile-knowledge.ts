/**
 * `npx tsx eval/profile-knowledge.ts`: where one knowledge query's time goes, on each vector store, in wall-clock
 * AND CPU time (the embedded database runs in this process, so its CPU is included). It seeds an embedded PGlite once
 * (kept in KPROF_DIR, default .data/kprof-pglite, reused on later runs) with one assistant per store holding the
 * evaluation corpus plus distractors (≥ EVAL_TARGET_CHUNKS, 5,000), then times each part of a query separately:
 * embedding the question, an empty tenant transaction, the store's search inside one (and a process's first search,
 * which loads the assistant's chunks), and the answerer.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { loadavg } from 'node:os'
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { createAiRuntime } from '../adapters/ai-models.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
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
import { distractorDocument } from './distractors.ts'
import { loadCorpus, loadQuestions } from './knowledge-eval.ts'

const TARGET_CHUNKS = Number(process.env.EVAL_TARGET_CHUNKS ?? 5000)
const DIR = process.env.KPROF_DIR ?? path.resolve('.data/kprof-pglite')
const KINDS: VectorStoreKind[] = ['pgvector', 'postgres']

interface Seeded {
  tenantId: string
  assistants: Record<VectorStoreKind, string>
}

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
  return outcome.chunkCount
}

async function seed(db: Db): Promise<Seeded> {
  const tenantId = newId('tenant')
  await db.tenant.create({ data: { id: tenantId, name: `Knowledge profile ${tenantId}` } })
  const assistants = {} as Record<VectorStoreKind, string>
  for (const kind of KINDS) {
    const runtime = createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: kind }))
    const assistantId = newId('assistant')
    assistants[kind] = assistantId
    await runInUnitOfWork(db, tenantId, ({ tx }) =>
      tx.assistant.create({
        data: { id: assistantId, tenantId, name: `Profile ${kind}`, scope: 'tenant', tools: ['knowledge'] },
      })
    )
    let chunks = 0
    for (const file of await loadCorpus()) chunks += await ingest(db, runtime, tenantId, assistantId, file)
    for (let i = 0; chunks < TARGET_CHUNKS; i++) {
      const doc = distractorDocument(i)
      chunks += await ingest(db, runtime, tenantId, assistantId, {
        name: doc.name,
        mediaType: 'text/markdown',
        bytes: new TextEncoder().encode(doc.text),
      })
      process.stdout.write(`\r  seeding ${kind}: ${chunks} chunks`)
    }
    process.stdout.write('\n')
  }
  return { tenantId, assistants }
}

/** Median wall-clock and CPU ms of `run` over every question. */
async function time(questions: string[], run: (q: string) => Promise<unknown>) {
  const walls: number[] = []
  const cpus: number[] = []
  for (const q of questions) await run(q) // warm-up
  for (const q of questions) {
    const cpu = process.cpuUsage()
    const started = performance.now()
    await run(q)
    walls.push(performance.now() - started)
    const used = process.cpuUsage(cpu)
    cpus.push((used.user + used.system) / 1000)
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  return `${median(walls).toFixed(2)} ms wall, ${median(cpus).toFixed(2)} ms CPU`
}

async function main() {
  const fresh = !existsSync(DIR)
  const embedded = await startEmbeddedPostgres({ port: 0, dataDir: DIR })
  const db = createDb(embedded.connectionString, 4)
  try {
    await applyMigrations(embedded.connectionString)
    const seedFile = path.join(DIR, 'kprof-seed.json')
    const seeded: Seeded =
      fresh || !existsSync(seedFile) ? await seed(db) : (JSON.parse(await readFile(seedFile, 'utf8')) as Seeded)
    await writeFile(seedFile, JSON.stringify(seeded))
    const q = await loadQuestions()
    const questions = [...q.answerable, ...q.unanswerable].map((x) => x.question)
    const answerer = createExtractiveAnswerer()
    const { tenantId } = seeded
    console.log(`load average ${loadavg()[0]!.toFixed(2)}, ${questions.length} questions`)
    const plain = createAiRuntime(aiConfigOf({}))
    console.log(`embed the question:        ${await time(questions, (x) => plain.embeddings.embedQuery(x))}`)
    console.log(
      `empty tenant transaction:  ${await time(questions, () => runInUnitOfWork(db, tenantId, async () => {}))}`
    )
    const passagesOf = new Map<string, Awaited<ReturnType<typeof retrievePassages>>['passages']>()
    for (const kind of KINDS) {
      const runtime = createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: kind }))
      const assistantId = seeded.assistants[kind]
      const vectors = new Map(
        await Promise.all(questions.map(async (x) => [x, await runtime.embeddings.embedQuery(x)] as const))
      )
      console.log(
        `${kind}: transaction + search (vector given): ${await time(questions, (x) =>
          runInUnitOfWork(db, tenantId, async (uow) => {
            const store = await runtime.stores.open(uow, assistantId)
            return store.similaritySearchVectorWithScore(vectors.get(x)!, 8)
          })
        )}`
      )
      console.log(
        `${kind}: first search of a process (loads the chunks): ${await time(questions.slice(0, 5), (x) =>
          runInUnitOfWork(db, tenantId, async (uow) => {
            const cold = createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: kind }))
            return (await cold.stores.open(uow, assistantId)).similaritySearchVectorWithScore(vectors.get(x)!, 8)
          })
        )}`
      )
      console.log(
        `${kind}: retrievePassages (embed + search): ${await time(questions, (x) =>
          runInUnitOfWork(db, tenantId, async (uow) =>
            passagesOf.set(x, (await retrievePassages(uow, runtime, assistantId, x, 8)).passages)
          )
        )}`
      )
    }
    console.log(`answerer:                  ${await time(questions, (x) => answerer.answer(x, passagesOf.get(x)!))}`)
    console.log(`load average ${loadavg()[0]!.toFixed(2)}`)
  } finally {
    await db.$disconnect()
    await embedded.stop()
  }
}

await main()
