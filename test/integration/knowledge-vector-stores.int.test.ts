/**
 * Both knowledge vector stores at the store level, on an embedded PGlite of this file's own (it has pgvector, so
 * both stores' tables exist): a search returns the scope's assistant's nearest chunks and never fewer than asked
 * when another assistant and another tenant hold thousands of chunks nearer to the question (the filter comes
 * before the ranking, not after an approximate scan); the per-process cache never serves a deleted chunk, misses an
 * added one, or keeps one whose transaction rolled back; and with a cache too small to hold the assistant, pgvector
 * searches in the database with the same results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Document } from '@langchain/core/documents'
import { LexicalEmbeddings } from '../../domain/ai/embeddings/lexical-embeddings.ts'
import { newId } from '../../domain/ids.ts'
import { createKnowledgeStores } from '../../adapters/pgvector/knowledge-store-selector.ts'
import type { ChunkMetadata, VectorStoreKind } from '../../domain/ai/vector-store/knowledge-vector-store.ts'
import type { LoadedChunks } from '../../domain/ai/vector-store/loaded-chunks.ts'
import { createVectorIndexCache } from '../../domain/ai/vector-store/vector-index-cache.ts'
import { createDb, type Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'

const embeddings = new LexicalEmbeddings()
const QUESTION = 'When does the Moonbeam programme meet in the Orchard room?'
/** Chunks of the crowding assistants: each nearly the question itself, so nearer to it than any of the target's. */
const CROWD = 1500

let database: EmbeddedPostgres
let db: Db

beforeAll(async () => {
  database = await startEmbeddedPostgres({ port: 0 })
  await applyMigrations(database.connectionString)
  db = createDb(database.connectionString, 2)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await db?.$disconnect()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await database?.stop()
})

async function newTenant() {
  const id = newId('tenant')
  await db.tenant.create({ data: { id, name: `Vector stores ${id}` } })
  return id
}

async function newAssistant(tenantId: string) {
  const id = newId('assistant')
  await runInUnitOfWork(db, tenantId, ({ tx }) =>
    tx.assistant.create({ data: { id, tenantId, name: 'Store test', scope: 'tenant', tools: ['knowledge'] } })
  )
  return id
}

/** Stores `texts` as the chunks of one new document of the assistant, through the store; returns the chunk ids. */
async function addDocument(
  stores: ReturnType<typeof createKnowledgeStores>,
  tenantId: string,
  assistantId: string,
  texts: string[]
) {
  const documentId = newId('knowledgeDocument')
  const ids = texts.map(() => newId('knowledgeChunk'))
  await runInUnitOfWork(db, tenantId, async (uow) => {
    await uow.tx.knowledgeDocument.create({
      data: {
        id: documentId,
        tenantId,
        assistantId,
        name: `${documentId}.md`,
        mediaType: 'text/markdown',
        sizeBytes: 1,
        sha256: '-',
        content: new Uint8Array([1]),
      },
    })
    const store = await stores.open(uow, assistantId)
    const docs = texts.map((text, ordinal) => {
      const metadata: ChunkMetadata = {
        documentId,
        documentName: `${documentId}.md`,
        version: 1,
        ordinal,
        headingPath: [],
        startOffset: 0,
        endOffset: text.length,
      }
      return new Document({ pageContent: text, metadata })
    })
    await store.addVectors(await embeddings.embedDocuments(texts), docs, { ids })
  })
  return { documentId, ids }
}

const search = (
  stores: ReturnType<typeof createKnowledgeStores>,
  tenantId: string,
  assistantId: string,
  k: number,
  question = QUESTION
) =>
  runInUnitOfWork(db, tenantId, async (uow) => {
    const store = await stores.open(uow, assistantId)
    return (await store.similaritySearchVectorWithScore(await embeddings.embedQuery(question), k)).map(
      ([doc, score]) => ({ id: doc.id!, score, text: doc.pageContent })
    )
  })

/** The target's texts: 30 chunks, each mentioning Moonbeam with a different amount of the question's words. */
const targetTexts = Array.from({ length: 30 }, (_, i) =>
  i % 3 === 0
    ? `Moonbeam programme note ${i}: the group meets weekly in the Orchard room.`
    : `Moonbeam newsletter item ${i}: families shared ${i} photos.`
)

/** The exact cosine ranking of `texts` for the question, computed here from the embeddings. */
async function expectedTop(texts: string[], ids: string[], k: number) {
  const q = await embeddings.embedQuery(QUESTION)
  const vectors = await embeddings.embedDocuments(texts)
  return vectors
    .map((v, i) => ({ id: ids[i]!, score: v.reduce((sum, x, j) => sum + x * q[j]!, 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
}

describe.each<[VectorStoreKind, number | undefined]>([
  ['pgvector', undefined],
  ['postgres', undefined],
  // A budget smaller than one assistant: pgvector searches in the database instead, the plain store loads every time.
  ['pgvector', 1],
  ['postgres', 1],
])('the %s store (cache budget %s)', (kind, budget) => {
  const stores = createKnowledgeStores(
    kind,
    embeddings,
    budget === undefined ? undefined : createVectorIndexCache<LoadedChunks>(budget)
  )
  let tenantId: string
  let target: string
  let target2: { documentId: string; ids: string[] }

  beforeAll(async () => {
    tenantId = await newTenant()
    target = await newAssistant(tenantId)
    target2 = await addDocument(stores, tenantId, target, targetTexts)
    // Crowds nearer to the question than anything of the target's: a sibling assistant and another tenant.
    const crowd = Array.from({ length: CROWD }, (_, i) => `${QUESTION} (copy ${i})`)
    await addDocument(stores, tenantId, await newAssistant(tenantId), crowd)
    const otherTenant = await newTenant()
    await addDocument(stores, otherTenant, await newAssistant(otherTenant), crowd)
  }, 120_000)

  it('returns exactly the assistant’s nearest chunks, as many as asked, however near the other assistants’ are', async () => {
    for (const k of [5, 8, 20]) {
      const hits = await search(stores, tenantId, target, k)
      const expected = await expectedTop(targetTexts, target2.ids, k)
      expect(hits).toHaveLength(k)
      expect(hits.every((h) => target2.ids.includes(h.id))).toBe(true)
      // The exact top k, best first (compared by score: chunks of equal score may come in either order).
      for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(expected[i]!.score, 5)
      const scoreOf = new Map(expected.map((e) => [e.id, e.score]))
      for (const h of hits) if (!scoreOf.has(h.id)) expect(h.score).toBeCloseTo(expected[k - 1]!.score, 5)
    }
    // Asking for more than the assistant has gives all of its chunks, and nothing else.
    const all = await search(stores, tenantId, target, 100)
    expect(all.map((h) => h.id).sort()).toEqual([...target2.ids].sort())
  })

  it('never serves a deleted chunk, always sees an added one, and forgets a rolled-back addition', async () => {
    const assistantId = await newAssistant(tenantId)
    const kept = await addDocument(stores, tenantId, assistantId, ['Moonbeam meets on Tuesdays in the Orchard room.'])
    const dropped = await addDocument(stores, tenantId, assistantId, [
      'Moonbeam meets on Mondays in the Orchard room, says the old timetable.',
    ])
    expect((await search(stores, tenantId, assistantId, 5)).map((h) => h.id).sort()).toEqual(
      [...kept.ids, ...dropped.ids].sort()
    )

    await runInUnitOfWork(db, tenantId, async (uow) =>
      (await stores.open(uow, assistantId)).delete({ filter: { documentId: dropped.documentId } })
    )
    expect((await search(stores, tenantId, assistantId, 5)).map((h) => h.id)).toEqual(kept.ids)

    const added = await addDocument(stores, tenantId, assistantId, ['The Moonbeam programme also meets on Saturdays.'])
    expect((await search(stores, tenantId, assistantId, 5)).map((h) => h.id).sort()).toEqual(
      [...kept.ids, ...added.ids].sort()
    )

    // A transaction adds a chunk and searches (so the cache may load what only it sees), then rolls back.
    const ghost = newId('knowledgeChunk')
    await expect(
      runInUnitOfWork(db, tenantId, async (uow) => {
        const store = await stores.open(uow, assistantId)
        const metadata: ChunkMetadata = {
          documentId: kept.documentId,
          documentName: 'x.md',
          version: 1,
          ordinal: 9,
          headingPath: [],
          startOffset: 0,
          endOffset: 1,
        }
        await store.addVectors(
          await embeddings.embedDocuments(['Moonbeam ghost']),
          [new Document({ pageContent: 'Moonbeam ghost', metadata })],
          { ids: [ghost] }
        )
        const inside = await store.similaritySearchVectorWithScore(await embeddings.embedQuery(QUESTION), 5)
        expect(inside.map(([doc]) => doc.id)).toContain(ghost)
        throw new Error('roll back')
      })
    ).rejects.toThrow('roll back')
    expect((await search(stores, tenantId, assistantId, 5)).map((h) => h.id)).not.toContain(ghost)
    // The next committed change must not be mistaken for the rolled-back one (a plain counter would repeat its value).
    const after = await addDocument(stores, tenantId, assistantId, ['Moonbeam has a new leader.'])
    const finalIds = (await search(stores, tenantId, assistantId, 5)).map((h) => h.id)
    expect(finalIds).not.toContain(ghost)
    expect(finalIds).toContain(after.ids[0])
  })
})
