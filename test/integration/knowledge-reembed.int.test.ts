/**
 * A change of embedding model re-embeds an assistant's knowledge in the background (docs/ai.md, "Changing the
 * embedding model"): documents indexed by the lexical model (AI_EMBEDDINGS_PROVIDER=local), then the platform
 * restarted on the sentence model (obtained by scripts/ai/obtain-sentence-model.sh). The API starts the
 * re-embedding workflow on its own; while it runs, questions are answered from the lexical vectors and still find
 * the passage, and a document uploaded meanwhile is found at once (indexed with the lexical model, then embedded
 * again in a second round); its worker is killed (SIGKILL) mid-way and a new one finishes it; after the flip
 * questions use the sentence model, the lexical vectors are gone and every document has exactly its chunks once. The
 * same flip on the pgvector store, on an embedded PGlite of the file's own.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SENTENCE_MODEL_ID } from '../../domain/ai/embeddings/sentence-model.ts'
import {
  knowledgeReembedProgressQuery,
  knowledgeReembedWorkflowId,
  type KnowledgeReembedResult,
} from '../../common/knowledge/knowledge-reembed-contract.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { ask, corpusFile, settled, textFile, upload, type FilePart } from '../support/knowledge-http.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'

const LEXICAL = 'local-lexical-v1-768'
const QUESTION = 'How much notice do I need to give to cancel a session?'
const PASSAGE_DOCUMENT = 'attendance-and-cancellation-policy.pdf'

const LATE_DOCUMENT = 'hydrotherapy.md'
const LATE_TEXT =
  '# Hydrotherapy\n\nThe hydrotherapy pool is open on Saturday mornings for children enrolled in the aquatic programme.\n'
const LATE_QUESTION = 'When is the hydrotherapy pool open?'

const TOPICS = ['speech', 'sensory', 'motor', 'feeding', 'play', 'literacy', 'social', 'transition']
const WORDS = [
  'goals',
  'families',
  'sessions',
  'progress',
  'routines',
  'support',
  'practice',
  'review',
  'home',
  'group',
]

/**
 * A long, varied Markdown document (about twenty-five chunks): the part of the re-embedding that takes a while, so
 * the test sees it mid-way. Each chunk's sentences are embedded too since issue 45.
 */
function fillerDocument(n: number): FilePart {
  const paragraphs: string[] = []
  for (let p = 0; p < 30; p++) {
    const topic = TOPICS[(n + p) % TOPICS.length]!
    const words = Array.from({ length: 40 }, (_, w) => WORDS[(n * 7 + p * 3 + w * 5) % WORDS.length]!)
    paragraphs.push(`## ${topic} note ${n}.${p}\n\nThe ${topic} programme ${words.join(' ')}.`)
  }
  return textFile(`programme-notes-${n}.md`, `# Programme notes ${n}\n\n${paragraphs.join('\n\n')}\n`)
}

/** The assistant's stored vectors by model and document, from both stores' tables (the login role sees all). */
async function vectorsOf(platform: Platform, assistantId: string) {
  const plain = await platform.db.$queryRaw<Array<{ model: string; documentId: string; n: number }>>`
    SELECT embedding_model AS model, document_id AS "documentId", count(*)::int AS n FROM knowledge_chunks
    WHERE assistant_id = ${assistantId} GROUP BY 1, 2`
  const [pgvector] = await platform.db.$queryRaw<Array<{ present: boolean }>>`
    SELECT to_regclass('ai_vectors.knowledge_vectors') IS NOT NULL AS present`
  const vectors = pgvector?.present
    ? await platform.db.$queryRaw<Array<{ model: string; documentId: string; n: number }>>`
        SELECT metadata->>'embeddingModel' AS model, document_id AS "documentId", count(*)::int AS n
        FROM ai_vectors.knowledge_vectors WHERE metadata->>'assistantId' = ${assistantId} GROUP BY 1, 2`
    : []
  return [...plain, ...vectors]
}

/** How the API says the assistant's knowledge is searched (`knowledge` of GET /v1/assistants/{id}). */
async function knowledgeOf(platform: Platform, token: string, assistantId: string) {
  const read = await platform.http.get(`/v1/assistants/${assistantId}`, { token })
  expect(read.status, JSON.stringify(read.body)).toBe(200)
  return read.body.knowledge as { embeddingModel: string | null; reembeddingTo: string | null }
}

interface Indexed {
  client: ProvisionedClient
  assistantId: string
  documents: Array<{ id: string; name: string }>
}

/** A tenant's assistant with `files` indexed by the lexical model, on a platform stopped once they are. */
async function indexedWithLexical(overrides: Record<string, string>, batches: FilePart[][]): Promise<Indexed> {
  const lexical = await startPlatform({ overrides: { ...overrides, AI_EMBEDDINGS_PROVIDER: 'local' } })
  try {
    const client = await lexical.newTenant(['ai', 'ai.read'])
    const token = await lexical.token(client)
    const created = await lexical.http.post('/v1/assistants', {
      token,
      body: { name: 'Re-embedded helper', scope: 'tenant' },
    })
    expect(created.status).toBe(201)
    const assistantId = created.body.id as string
    const documents = []
    for (const files of batches) documents.push(...(await upload(lexical, token, assistantId, files)))
    for (const doc of documents) expect((await settled(lexical, token, doc.id)).status).toBe('READY')
    const answer = await ask(lexical, token, assistantId, QUESTION)
    expect(answer.models.embeddings).toBe(LEXICAL)
    expect(answer.citations[0]?.documentName).toBe(PASSAGE_DOCUMENT)
    expect(await knowledgeOf(lexical, token, assistantId)).toEqual({ embeddingModel: LEXICAL, reembeddingTo: null })
    return { client, assistantId, documents }
  } finally {
    await lexical.stop()
  }
}

/** After the flip: only the sentence model's vectors, each document's chunks once, the assistant on the model. */
async function expectFlipped(platform: Platform, { assistantId, documents }: Indexed) {
  const vectors = await vectorsOf(platform, assistantId)
  expect(vectors.filter((v) => v.model !== SENTENCE_MODEL_ID)).toEqual([])
  const rows = await platform.db.knowledgeDocument.findMany({
    where: { assistantId },
    select: { id: true, chunkCount: true, embeddingModel: true, reembeddedModel: true },
  })
  expect(rows).toHaveLength(documents.length)
  for (const row of rows) {
    expect(row).toMatchObject({ embeddingModel: SENTENCE_MODEL_ID, reembeddedModel: null })
    expect(vectors.find((v) => v.documentId === row.id)?.n).toBe(row.chunkCount)
  }
  const [assistant] = await platform.db.$queryRaw<Array<{ active: string; reembedTo: string | null }>>`
    SELECT knowledge_embedding_model AS active, knowledge_reembed_model AS "reembedTo" FROM assistants
    WHERE id = ${assistantId}`
  expect(assistant).toEqual({ active: SENTENCE_MODEL_ID, reembedTo: null })
}

let modelDir: string

beforeAll(() => {
  // The project's own script: cached after the first run (0.4 s), it prints the model's directory.
  modelDir = execFileSync('bash', ['scripts/ai/obtain-sentence-model.sh'], { encoding: 'utf8' }).trim()
}, 120_000)

describe('a change of embedding model', () => {
  let platform: Platform
  let indexed: Indexed

  beforeAll(async () => {
    indexed = await indexedWithLexical({}, [
      [
        await corpusFile(PASSAGE_DOCUMENT),
        await corpusFile('weekly-schedule.md'),
        await corpusFile('contacts-and-hours.txt'),
        await corpusFile('billing-faq.md'),
      ],
      // Three are enough to be seen mid-way: the worker is killed as soon as it is (8 took 40-60 s more in CI).
      [1, 2, 3].map(fillerDocument),
    ])
    platform = await startPlatform({
      overrides: { AI_EMBEDDINGS_PROVIDER: 'sentence', AI_SENTENCE_MODEL_DIR: modelDir },
    })
  }, 360_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
  })

  it('re-embeds in the background, answers from the old vectors until the flip, and survives a killed worker', async () => {
    const { client, assistantId, documents } = indexed
    const token = await platform.token(client)
    const handle = platform.temporal.workflow.getHandle(
      knowledgeReembedWorkflowId(client.tenantId, assistantId, SENTENCE_MODEL_ID)
    )
    const progress = () => handle.query(knowledgeReembedProgressQuery)

    // Started by the API on its own; some documents done, not all.
    const midway = await eventually(
      async () => {
        const now = await progress()
        return now.done >= 1 && now.done < now.total - 2 ? now : undefined
      },
      120_000,
      100
    )
    // A crash mid-way, as soon as it is seen: the worker goes with a document's activity in flight. Until a new worker
    // runs and the lost attempt's heartbeat times out (15 s), the re-embedding stands still, so what follows sees it
    // mid-way however slow the machine.
    await platform.killWorkers('SIGKILL')
    expect(midway).toMatchObject({ toModel: SENTENCE_MODEL_ID, total: documents.length, state: 'EMBEDDING' })
    // (A query needs a worker: the database says how far it got.)
    const embedded = await platform.db.knowledgeDocument.count({
      where: { assistantId, reembeddedModel: SENTENCE_MODEL_ID },
    })
    expect(embedded).toBeGreaterThanOrEqual(1)
    expect(embedded).toBeLessThan(documents.length)
    // The API says so too: answered with the lexical model, moving to the sentence model.
    expect(await knowledgeOf(platform, token, assistantId)).toEqual({
      embeddingModel: LEXICAL,
      reembeddingTo: SENTENCE_MODEL_ID,
    })

    // Meanwhile questions are embedded with the lexical model and searched in its vectors: the passage is found.
    const during = await ask(platform, token, assistantId, QUESTION)
    expect(during.models.embeddings).toBe(LEXICAL)
    expect(during.citations[0]?.documentName).toBe(PASSAGE_DOCUMENT)
    expect(during.decision.method).toBe('lexical')

    // A document uploaded meanwhile is indexed with the assistant's model, the lexical one, so it is found at once
    // (indexed by the new worker, while the re-embedding waits out its lost attempt).
    const [late] = await upload(platform, token, assistantId, [textFile(LATE_DOCUMENT, LATE_TEXT)])
    await platform.startWorker()
    expect((await settled(platform, token, late!.id)).status).toBe('READY')
    const lateAnswer = await ask(platform, token, assistantId, LATE_QUESTION)
    expect(lateAnswer.models.embeddings).toBe(LEXICAL)
    expect(lateAnswer.citations[0]?.documentName).toBe(LATE_DOCUMENT)
    const all = { ...indexed, documents: [...documents, late!] }

    // The late document, indexed with the lexical model, was embedded again in a second round before the flip.
    const result = (await handle.result()) as KnowledgeReembedResult
    expect(result).toEqual({ status: 'FLIPPED', documents: all.documents.length })
    const total = all.documents.length
    expect(await progress()).toMatchObject({ state: 'FLIPPED', done: total, total })

    // After the flip: the sentence model answers, and still finds both passages.
    expect(await knowledgeOf(platform, token, assistantId)).toEqual({
      embeddingModel: SENTENCE_MODEL_ID,
      reembeddingTo: null,
    })
    const after = await ask(platform, token, assistantId, QUESTION)
    expect(after.models.embeddings).toBe(SENTENCE_MODEL_ID)
    expect(after.citations[0]?.documentName).toBe(PASSAGE_DOCUMENT)
    // The re-embedding stored each chunk's sentence vectors too: the quote is chosen by meaning now.
    expect(after.decision).toMatchObject({ method: 'semantic', answerKind: 'duration' })
    expect(after.answer).toContain('48 hours')
    expect((await ask(platform, token, assistantId, LATE_QUESTION)).citations[0]?.documentName).toBe(LATE_DOCUMENT)

    // The lexical vectors are gone, and each document has its chunks exactly once (no duplicate from the crash).
    await expectFlipped(platform, all)
    await recordHistory(handle, 'knowledgeReembedWorkflow-flipped-after-a-crash')

    // Nothing more to do: later sweeps (every 500 ms here) start no second run.
    const { runId } = await handle.describe()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await handle.describe()).runId).toBe(runId)
    const outbox = await platform.db.workflowOutbox.count({ where: { workflowId: handle.workflowId } })
    expect(outbox).toBe(1)
  }, 300_000)

  it('is never started back to the lexical model by an instance whose sentence model is missing', async () => {
    const { client, assistantId } = indexed
    // An instance configured alike whose model files are absent runs on the lexical fallback. Were its loop to run,
    // it would move every assistant back, and the instances with the model forth again.
    const fallback = await startPlatform({
      overrides: { AI_EMBEDDINGS_PROVIDER: 'sentence', AI_SENTENCE_MODEL_DIR: '/nonexistent/sentence-model' },
      withWorker: false,
    })
    try {
      expect(fallback.api.deps.ai.embeddingsFallback).toMatch(/model\.onnx is missing/)
      // Three of its sweeps (every 500 ms here).
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const [assistant] = await fallback.db.$queryRaw<Array<{ active: string; reembedTo: string | null }>>`
        SELECT knowledge_embedding_model AS active, knowledge_reembed_model AS "reembedTo" FROM assistants
        WHERE id = ${assistantId}`
      expect(assistant).toEqual({ active: SENTENCE_MODEL_ID, reembedTo: null })
      const back = knowledgeReembedWorkflowId(client.tenantId, assistantId, LEXICAL)
      expect(await fallback.db.workflowOutbox.count({ where: { workflowId: back } })).toBe(0)
    } finally {
      await fallback.stop()
    }
  })
})

describe('a change of embedding model on the pgvector store', () => {
  let database: EmbeddedPostgres
  let platform: Platform
  let indexed: Indexed

  beforeAll(async () => {
    // pgvector whatever the suite's database is (CI's PostgreSQL 15 has none), as knowledge-pgvector.int.test.ts does.
    database = await startEmbeddedPostgres({ port: 0 })
    await applyMigrations(database.connectionString)
    const overrides = { DATABASE_URL: database.connectionString, AI_VECTOR_STORE: 'pgvector' }
    indexed = await indexedWithLexical(overrides, [
      [await corpusFile(PASSAGE_DOCUMENT), await corpusFile('weekly-schedule.md'), fillerDocument(9)],
    ])
    platform = await startPlatform({
      overrides: { ...overrides, AI_EMBEDDINGS_PROVIDER: 'sentence', AI_SENTENCE_MODEL_DIR: modelDir },
    })
  }, 360_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await platform?.stop()
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await database?.stop()
  })

  it('moves the vectors in ai_vectors.knowledge_vectors to the new model', async () => {
    const { client, assistantId } = indexed
    const handle = platform.temporal.workflow.getHandle(
      knowledgeReembedWorkflowId(client.tenantId, assistantId, SENTENCE_MODEL_ID)
    )
    const result = await eventually(() => handle.result() as Promise<KnowledgeReembedResult>, 120_000)
    expect(result).toEqual({ status: 'FLIPPED', documents: 3 })
    const answer = await ask(platform, await platform.token(client), assistantId, QUESTION)
    expect(answer.models).toMatchObject({ embeddings: SENTENCE_MODEL_ID, vectorStore: 'pgvector' })
    expect(answer.citations[0]?.documentName).toBe(PASSAGE_DOCUMENT)
    expect(answer.decision.method).toBe('semantic')
    await expectFlipped(platform, indexed)
    expect((await vectorsOf(platform, assistantId)).length).toBe(3)
  }, 180_000)
})
