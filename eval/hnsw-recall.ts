/**
 * `npx tsx eval/hnsw-recall.ts`: what an approximate pgvector index (HNSW) would give the knowledge search, measured
 * rather than assumed. Runs on the embedded PGlite seeded by eval/profile-knowledge.ts (run that first; KPROF_DIR),
 * builds an HNSW index on the pgvector table (an expression index per dimension, as a fixed-dimension index must
 * be: `(embedding::vector(768)) vector_cosine_ops WHERE vector_dims(embedding) = 768`), and compares, for the
 * evaluation's questions over the assistant's 5,000 chunks:
 *
 * - the exact scan (`<=>` over the assistant's rows) and the index scan (iterative, relaxed order, per ef_search):
 *   median wall-clock and CPU ms per query in a tenant transaction;
 * - recall@5 against the gold passages (eval/knowledge-eval.ts), and the share of the exact top 5 the index finds.
 *
 * The index is dropped afterwards. Options: EFS (comma-separated ef_search values, default 40,200,1000), HNSW_M (16),
 * HNSW_EF_CONSTRUCTION (64).
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { loadavg } from 'node:os'
import pg from 'pg'
import type { RetrievedPassage } from '../domain/ai/answering/answer-types.ts'
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { LexicalEmbeddings } from '../domain/ai/embeddings/lexical-embeddings.ts'
import { startEmbeddedPostgres } from '../scripts/db/embedded-postgres.ts'
import { evaluate, loadCorpus, loadQuestions, prepareCorpus } from './knowledge-eval.ts'

const DIR = process.env.KPROF_DIR ?? path.resolve('.data/kprof-pglite')
const EFS = (process.env.EFS ?? '40,200,1000').split(',').map(Number)
const M = Number(process.env.HNSW_M ?? 16)
const EF_CONSTRUCTION = Number(process.env.HNSW_EF_CONSTRUCTION ?? 64)

const seeded = JSON.parse(await readFile(path.join(DIR, 'kprof-seed.json'), 'utf8')) as {
  tenantId: string
  assistants: { pgvector: string }
}
const embedded = await startEmbeddedPostgres({ port: 0, dataDir: DIR })
const client = new pg.Client({ connectionString: embedded.connectionString })
await client.connect()
const query = async <T>(sql: string, values: unknown[] = []) => (await client.query(sql, values)).rows as T[]

try {
  const embeddings = new LexicalEmbeddings()
  const model = embeddings.modelId
  const assistantId = seeded.assistants.pgvector
  const started = performance.now()
  await query(`DROP INDEX IF EXISTS ai_vectors.knowledge_vectors_hnsw_768`)
  await query(
    `CREATE INDEX knowledge_vectors_hnsw_768 ON ai_vectors.knowledge_vectors USING hnsw ((embedding::vector(768)) vector_cosine_ops)
     WITH (m = ${M}, ef_construction = ${EF_CONSTRUCTION}) WHERE vector_dims(embedding) = 768`
  )
  await query(`ANALYZE ai_vectors.knowledge_vectors`)
  console.log(
    `HNSW (m ${M}, ef_construction ${EF_CONSTRUCTION}) built in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()[0]!.toFixed(2)}`
  )

  const where = `tenant_id = $4 AND metadata->>'assistantId' = $2 AND metadata->>'embeddingModel' = $3`
  const exactSql = `SELECT id, text, metadata, embedding <=> $1::vector AS d FROM ai_vectors.knowledge_vectors WHERE ${where} ORDER BY d LIMIT $5`
  const hnswSql = `SELECT id, text, metadata, (embedding::vector(768)) <=> $1::vector(768) AS d FROM ai_vectors.knowledge_vectors
    WHERE vector_dims(embedding) = 768 AND ${where} ORDER BY d LIMIT $5`

  type Row = { id: string; text: string; metadata: Record<string, unknown>; d: number }
  /** One search in a tenant transaction as the application role, like a request's. */
  const searchWith = (sql: string, settings: string[]) => async (question: string, k: number) => {
    const vector = `[${(await embeddings.embedQuery(question)).join(',')}]`
    await query('BEGIN')
    try {
      await query(`SELECT set_config('app.tenant_id', $1, true), set_config('role', 'therapy_app', true)`, [
        seeded.tenantId,
      ])
      for (const setting of settings) await query(setting)
      return await query<Row>(sql, [vector, assistantId, model, seeded.tenantId, k])
    } finally {
      await query('COMMIT')
    }
  }
  const plan = await (async () => {
    await query('BEGIN')
    await query(`SELECT set_config('app.tenant_id', $1, true), set_config('role', 'therapy_app', true)`, [
      seeded.tenantId,
    ])
    await query('SET LOCAL hnsw.iterative_scan = relaxed_order')
    const rows = await query<{ 'QUERY PLAN': string }>(`EXPLAIN ${hnswSql}`, [
      `[${(await embeddings.embedQuery('fees')).join(',')}]`,
      assistantId,
      model,
      seeded.tenantId,
      8,
    ])
    await query('COMMIT')
    return rows
      .map((r) => r['QUERY PLAN'])
      .find((line) => line.includes('Index Scan'))
      ?.trim()
  })()
  console.log(`plan: ${plan ?? 'the HNSW index is NOT used'}`)

  const questions = await loadQuestions()
  const all = [...questions.answerable, ...questions.unanswerable].map((q) => q.question)
  const docs = await prepareCorpus(await loadCorpus())
  const documentRows = await query<{ id: string; name: string }>(
    `SELECT id, name FROM knowledge_documents WHERE assistant_id = $1`,
    [assistantId]
  )
  const idOfName = new Map(documentRows.map((r) => [r.name, r.id]))

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
  const exactSearch = searchWith(exactSql, [])
  const exactTop = new Map<string, number>()
  for (const question of all)
    exactTop.set(question, (await exactSearch(question, 5)).map((r) => Number(r.d))[4] ?? Infinity)

  for (const [name, search] of [
    ['exact', exactSearch],
    ...EFS.map(
      (ef) =>
        [
          `hnsw ef_search ${ef}`,
          searchWith(hnswSql, ['SET LOCAL hnsw.iterative_scan = relaxed_order', `SET LOCAL hnsw.ef_search = ${ef}`]),
        ] as const
    ),
  ] as const) {
    const walls: number[] = []
    const cpus: number[] = []
    let found = 0
    for (const question of all) {
      const cpu = process.cpuUsage()
      const t = performance.now()
      const rows = await search(question, 8)
      walls.push(performance.now() - t)
      const used = process.cpuUsage(cpu)
      cpus.push((used.user + used.system) / 1000)
      // Of the 5 nearest the index returned, how many are as near as the exact 5th (ties count as found).
      found += rows
        .map((r) => Number(r.d))
        .sort((a, b) => a - b)
        .slice(0, 5)
        .filter((d) => d <= exactTop.get(question)! + 1e-6).length
    }
    const retrieve = async (question: string, k: number): Promise<{ passages: RetrievedPassage[] }> => ({
      passages: (await search(question, k))
        .sort((a, b) => Number(a.d) - Number(b.d))
        .map((r) => ({
          chunkId: r.id,
          documentId: String(r.metadata.documentId),
          documentName: String(r.metadata.documentName),
          headingPath: (r.metadata.headingPath as string[] | undefined) ?? [],
          startOffset: Number(r.metadata.startOffset),
          endOffset: Number(r.metadata.endOffset),
          content: r.text,
          score: 1 - Number(r.d),
        })),
    })
    const report = await evaluate({
      questions,
      docs,
      retrieve,
      answerer: createExtractiveAnswerer(),
      documentIdOf: (n) => idOfName.get(n)!,
    })
    console.log(
      `${name}: median ${median(walls).toFixed(1)} ms wall, ${median(cpus).toFixed(1)} ms CPU; gold recall@5 ${report.recallAt5.toFixed(3)}; ` +
        `citations contain the answer ${report.answerContained}/${report.answered}; exact top 5 found ${((100 * found) / (5 * all.length)).toFixed(0)}%`
    )
  }
} finally {
  await query(`DROP INDEX IF EXISTS ai_vectors.knowledge_vectors_hnsw_768`).catch(() => undefined)
  await client.end()
  await embedded.stop()
}
